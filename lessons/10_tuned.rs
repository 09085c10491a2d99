//! Lesson 10: everything together, tuned per device. The declaration the grader, the
//! scoreboard and the book read, its host code (the autotuner), and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 10_tuned [-- --solution --size 4096]
//! cargo run --release -p lab-bench -- tune --lesson 10 --size 4096 --write   # the course's tuner
//! ```

use lab::harness::exec::Launch;
use lab::harness::matrix::Shape;
use lab::lesson::{
    define, per_mad, probe_define, require_nonempty, Behaviour, Kind, Lesson, Measured, OclLesson,
    Peer, Probe, Sanitize, Variant, BUFFERS, STANDARD_ARGS,
};

#[path = "10_tuned/tuner.rs"]
pub mod tuner;

use tuner::Params;

pub static LESSON: Lesson = Lesson {
    key: "10",
    slug: "tuned",
    title: "Putting it together",
    teaches: "2D register tiling, wide loads and double-buffered local tiles, parameters picked by an autotuner per device",
    hint: "in kernels/10_tuned.cl, start with load_step (10.1): each work-item reads LPTA float4 of A and LPTB of B into registers, zero outside the matrices. Then write them into the local tiles, A transposed (10.2), multiply the tiles into acc (10.3) and store acc into C, inside the matrix only (10.4).",
    kind: Kind::OpenCl(&TUNED),
    intensity: Some(lab::lesson::REGISTER_TILE),
    peers: &[Peer::Clblast],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

pub static TUNED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    // The device's tuned winner from results/tuned.csv, else defaults that fit it.
    defines: |ctx| tuner::params_for(ctx.course, ctx.info).defines(),
    check_defines: |d| Params::from_defines(d)?.check(),
    launch: |s, d| {
        require_nonempty(s)?;
        let p = Params::from_defines(d)?;
        p.check()?;
        // One work-group per TSM×TSN block of C, the last ones partly outside C.
        Ok(Launch {
            global: [
                s.n.div_ceil(p.tsn) * p.rtsn(),
                s.m.div_ceil(p.tsm) * p.rtsm(),
            ],
            local: Some([p.rtsn(), p.rtsm()]),
        })
    },
    shapes: |d| {
        let (tm, tn, tk) = (define(d, "TSM")?, define(d, "TSN")?, define(d, "TSK")?);
        Ok(vec![
            Shape::new(1, 1, 1),
            // Whole tiles, K a multiple of 4: the float4 paths only.
            Shape::new(2 * tm, tn, 3 * tk),
            // Partial tiles everywhere, K and N not multiples of 4: the scalar paths.
            Shape::new(tm + 3, 2 * tn - 5, 2 * tk + 3),
            // N a multiple of 4 but not of the tile, M and K odd.
            Shape::new(tm / 2 + 1, tn + 4, tk + 1),
            Shape::new(37, 29, 301),
            // Every matrix longer than 65 536 vectors of four floats: an index kept in 16
            // bits wraps.
            Shape::new(521, 517, 519),
        ])
    },
    build_options: "",
    define_sets: &[
        &[
            ("TSM", "64"),
            ("TSN", "32"),
            ("TSK", "8"),
            ("WPTM", "8"),
            ("WPTN", "4"),
        ],
        &[
            ("TSM", "32"),
            ("TSN", "64"),
            ("TSK", "16"),
            ("WPTM", "4"),
            ("WPTN", "8"),
            ("ALONGK", "1"),
        ],
        // A work-group of 4×8 work-items (RTSM ≠ RTSN) with two float4 of results each way,
        // so that swapped block strides cannot pass.
        &[
            ("TSM", "64"),
            ("TSN", "32"),
            ("TSK", "8"),
            ("WPTM", "8"),
            ("WPTN", "8"),
        ],
    ],
    sanitize: Sanitize {
        probes: &[
            // K and N not multiples of 4: the scalar paths.
            Probe {
                shape: Shape::new(35, 19, 19),
                defines: PROBE_DEFINES,
            },
            // The float4 paths, with partial tiles.
            Probe {
                shape: Shape::new(35, 20, 20),
                defines: PROBE_DEFINES,
            },
        ],
        stand_in: None,
    },
    behaviour: Some(Behaviour {
        // The untuned defaults' 8×8 block per work-item (a CPU's: 64×64 tiles, 32×32 on a small
        // one; the larger tiles are too slow under the simulator), and an asymmetric set of
        // 4×8 blocks; each at two tiles a side and three steps along K (so that a shape drawn
        // near it for the sanitizer keeps two).
        probes: &[
            Probe {
                shape: Shape::new(64, 64, 24),
                defines: &[
                    ("TSM", "32"),
                    ("TSN", "32"),
                    ("TSK", "8"),
                    ("WPTM", "8"),
                    ("WPTN", "8"),
                ],
            },
            Probe {
                shape: Shape::new(32, 64, 24),
                defines: &[
                    ("TSM", "16"),
                    ("TSN", "32"),
                    ("TSK", "8"),
                    ("WPTM", "4"),
                    ("WPTN", "8"),
                ],
            },
        ],
        judge: everything,
        banks: false,
        not_checked: "",
        k_step: |d| lab::lesson::define(d, "TSK"),
    }),
    host: BUFFERS,
    // Lesson runs and the ladder use the winner tuned at the nearest size.
    sized: Some(|ctx, shape| {
        tuner::tuned_for_size(&lab::tuner::tuned_csv(&ctx.course.results()), ctx.info, shape)
            .map(|p| p.defines())
    }),
    knobs: Some(|info| {
        tuner::space(info)
            .iter()
            .map(|p| p.defines())
            .collect()
    }),
    any_size: true,
    variants: &[Variant {
        name: "defaults",
        about: "the same kernel with the defaults a device gets when neither it nor a device of the same signature has been tuned",
        measure: |gpu, course, shape| {
            let d = tuner::defaults(&gpu.info).defines();
            let file = course.solutions().join(LESSON.file_name());
            lab::measure::measure_file(gpu, &LESSON, &file, &d, shape)
        },
        product: None,
    }],
};

/// A small asymmetric set for the simulator.
const PROBE_DEFINES: &[(&str, &str)] = &[
    ("TSM", "16"),
    ("TSN", "8"),
    ("TSK", "8"),
    ("WPTM", "8"),
    ("WPTN", "4"),
];

/// Everything of lessons 05-08, measured: shared tiles (global loads per multiply-add),
/// register blocks (local loads per multiply-add), float4 accesses to global and local
/// memory, and double buffering (one barrier per k-step, two copies of each tile).
fn everything(m: &Measured, probe: &Probe) -> Result<String, String> {
    let d = |n| probe_define(probe, n);
    let (tsm, tsn, tsk, wptm, wptn) = (d("TSM"), d("TSN"), d("TSK"), d("WPTM"), d("WPTN"));
    let c = m.counts;
    let at = probe.shape;
    let (gl, ll) = (c.global_loads(), c.local_loads());
    if gl.bytes_per_access() < 12.0 || ll.bytes_per_access() < 12.0 {
        return Err(format!(
            "your kernel's global loads move {:.1} bytes each and its local loads {:.1} (measured at {at}); lesson 10 reads both as float4 (16 bytes).\nHint: load A and B from global memory as float4 (lesson 07), and read the local tiles as float4 too: A's tile is stored transposed so that the WPTM values a work-item needs for one k lie side by side.",
            gl.bytes_per_access(),
            ll.bytes_per_access()
        ));
    }
    let global = per_mad(gl.count, probe);
    let ideal_global = (tsm + tsn) / (4.0 * tsm * tsn);
    if global > 1.5 * ideal_global {
        return Err(format!(
            "your kernel loads {global:.4} float4 from global memory per multiply-add (measured with TSM = {tsm}, TSN = {tsn} at {at}); shared tiles need (TSM + TSN)/(4·TSM·TSN) = {ideal_global:.4}.\nHint: each float4 of A and B is loaded once per k-step by the work-group, into the local tiles."
        ));
    }
    let local = per_mad(ll.count, probe);
    let ideal_local = (wptm + wptn) / (4.0 * wptm * wptn);
    if local > 1.5 * ideal_local {
        return Err(format!(
            "your kernel reads {local:.3} float4 from local memory per multiply-add (measured with WPTM = {wptm}, WPTN = {wptn} at {at}); a WPTM×WPTN block in registers needs (WPTM + WPTN)/(4·WPTM·WPTN) = {ideal_local:.4}.\nHint: for each k, read WPTM/4 float4 of A's tile and WPTN/4 of B's into registers, then do the WPTM×WPTN multiply-adds from registers."
        ));
    }
    let items = (at.m as f64 / wptm).ceil() * (at.n as f64 / wptn).ceil();
    let steps = (at.k as f64 / tsk).ceil();
    let barriers = c.barriers() as f64 / (items * steps);
    let tiles = 4.0 * tsk * (tsm + tsn);
    if barriers > 1.5 || (m.local_bytes as f64) < 2.0 * tiles {
        return Err(format!(
            "your kernel waits at {barriers:.1} barriers per k-step and declares {} bytes of local memory (measured at {at}); double buffering keeps two copies of each tile ({:.0} bytes) and needs one barrier per k-step.\nHint: while the group multiplies from one copy of the tiles, write the next k-step into the other, then one barrier(CLK_LOCAL_MEM_FENCE) before swapping.",
            m.local_bytes,
            2.0 * tiles
        ));
    }
    Ok(format!(
        "everything: {global:.4} global and {local:.3} local float4 loads per multiply-add, {barriers:.1} barrier per k-step, {} bytes of local memory (two copies of each tile)",
        m.local_bytes
    ))
}
