//! Lesson 05: local-memory tiling. The declaration the grader, the scoreboard and the book
//! read, and the lesson's program:
//!
//!     cargo run --release --bin 05_local_tiling [-- --solution --size 1024 -D TS=16]

use lab::harness::exec::Launch;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::lesson::{
    define, require_multiple, Kind, Lesson, OclLesson, Technique, BUFFERS, STANDARD_ARGS,
};

pub static LESSON: Lesson = Lesson {
    key: "05",
    slug: "local_tiling",
    title: "Local-memory tiling",
    teaches: "TS×TS tiles of A and B shared through __local memory, with barriers",
    hint: "in kernels/05_local_tiling.cl, loop over the tiles of K: each work-item loads one element of A's tile and one of B's into the __local arrays, barrier, accumulate TS products from local memory, barrier again.",
    kind: Kind::OpenCl(&TILED),
};

pub static TILED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: |ctx| {
        // A TS×TS work-group must fit the device.
        let ts = if ctx.info.max_work_group >= 256 { 16 } else { 8 };
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
        ])
    },
    build_options: "",
    uses: &[
        Technique {
            pattern: "__local",
            min: 1,
            hint: "declare the tiles as `__local float Asub[TS][TS];` and `__local float Bsub[TS][TS];`",
        },
        Technique {
            pattern: "barrier(",
            min: 2,
            hint: "call `barrier(CLK_LOCAL_MEM_FENCE)` twice in the tile loop: after loading the tiles (nobody reads before everyone has written) and after using them (nobody overwrites a tile others still read). Without them the result depends on timing: right on one device, wrong on another.",
        },
    ],
    host: BUFFERS,
    sized: None,
    variants: &[],
};

pub fn main() -> std::process::ExitCode {
    lab::cli::lesson_main(&LESSON)
}
