//! Lesson 05: local-memory tiling. The declaration the grader, the scoreboard and the book
//! read, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 05_local_tiling [-- --solution --size 1024 -D TS=16]
//! ```

use lab::harness::exec::Launch;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::lesson::{
    define, per_mad, probe_define, require_multiple, round_up, Behaviour, Kind, Lesson, Measured,
    OclLesson, Probe, Sanitize, BUFFERS, STANDARD_ARGS,
};

pub static LESSON: Lesson = Lesson {
    key: "05",
    slug: "local_tiling",
    title: "Local-memory tiling",
    teaches: "TS×TS tiles of A and B shared through __local memory, with barriers",
    hint: "in kernels/05_local_tiling.cl, loop over the tiles of K: each work-item loads one element of A's tile and one of B's into the __local arrays, barrier, accumulate TS products from local memory, barrier again.",
    kind: Kind::OpenCl(&TILED),
    intensity: Some(lab::lesson::Intensity {
        rule: "TS×TS tiles: TS/4",
        of: |d| Some(lab::lesson::positive(d, "TS")? / 4.0),
        walk: |d| {
            let ts = lab::lesson::positive(d, "TS")?;
            Some(lab::lesson::Walk::Blocks { bm: ts, bn: ts })
        },
    }),
    peers: &[],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

pub static TILED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: |ctx| {
        // A TS×TS work-group must fit the device.
        let ts = if ctx.info.max_work_group >= 256 {
            16
        } else {
            8
        };
        vec![Define::new("TS", ts)]
    },
    check_defines: |d| define(d, "TS").map(|_| ()),
    launch: |s, d| {
        let ts = define(d, "TS")?;
        require_multiple(s, ts, ts, ts, "whole TS×TS tiles")?;
        Ok(Launch {
            global: [s.n, s.m],
            local: Some([ts, ts]),
        })
    },
    shapes: |d| {
        let ts = define(d, "TS")?;
        Ok(vec![
            Shape::new(ts, ts, ts),
            Shape::new(3 * ts, 2 * ts, 5 * ts),
            Shape::new(8 * ts, 6 * ts, 4 * ts),
            // Every matrix longer than 65 536 elements: an index kept in 16 bits wraps.
            Shape::new(round_up(263, ts), round_up(257, ts), round_up(257, ts)),
        ])
    },
    build_options: "",
    define_sets: &[&[("TS", "4")]],
    sanitize: Sanitize {
        probes: &[
            Probe {
                shape: Shape::new(16, 24, 40),
                defines: &[("TS", "8")],
            },
            Probe {
                shape: Shape::new(8, 12, 20),
                defines: &[("TS", "4")],
            },
        ],
        stand_in: None,
    },
    behaviour: Some(Behaviour {
        // TS = 16, the device's own wherever a work-group holds 256 work-items (every GPU, and
        // PoCL), and TS = 4; each at whole tiles of its own, three or more along K (so that a
        // shape drawn near it for the sanitizer keeps two: a missing barrier between tiles shows).
        probes: &[
            Probe {
                shape: Shape::new(16, 32, 48),
                defines: &[("TS", "16")],
            },
            Probe {
                shape: Shape::new(8, 16, 24),
                defines: &[("TS", "4")],
            },
        ],
        judge: tiled,
        banks: false,
        not_checked: "",
        k_step: |d| lab::lesson::define(d, "TS"),
    }),
    host: BUFFERS,
    sized: None,
    knobs: None,
    any_size: false,
    variants: &[],
};

/// Tiling shows in the global loads: a naive kernel loads two values per multiply-add, a
/// tiled one 2/TS (each value fetched once per tile serves TS multiply-adds).
fn tiled(m: &Measured, probe: &Probe) -> Result<String, String> {
    let ts = probe_define(probe, "TS");
    let loads = per_mad(m.counts.global_loads().count, probe);
    let ideal = 2.0 / ts;
    if loads <= 1.5 * ideal {
        Ok(format!(
            "tiling: {loads:.3} global loads per multiply-add with TS = {ts} (2/TS = {ideal:.3}; the naive kernel: 2)"
        ))
    } else {
        Err(format!(
            "lesson 05 is about local-memory tiling, but your kernel loads {loads:.2} values from global memory per multiply-add (measured with TS = {ts} at {}); tiles would bring that to 2/TS = {ideal:.3}.\nHint: a __local tile only helps if the multiply-adds read it: load each element of A and B from global memory once per tile, barrier, then take every operand of the TS multiply-adds from the tiles.",
            probe.shape
        ))
    }
}
