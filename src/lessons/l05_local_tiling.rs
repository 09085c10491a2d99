use super::{define, require_multiple, Kind, Lesson, OclLesson, Technique, BUFFERS, STANDARD_ARGS};
use crate::exec::Launch;
use crate::matrix::Shape;
use crate::program::Define;

pub static LESSON: Lesson = Lesson {
    number: 5,
    slug: "local_tiling",
    title: "Local-memory tiling",
    hint: "in kernels/05_local_tiling.cl, loop over the tiles of K: each work-item loads one element of A's tile and one of B's into the __local arrays, barrier, accumulate TS products from local memory, barrier again.",
    kind: Kind::OpenCl(&TILED),
};

pub static TILED: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: |info| {
        // A TS×TS work-group must fit the device.
        let ts = if info.max_work_group >= 256 { 16 } else { 8 };
        vec![Define::new("TS", ts)]
    },
    launch: |s, d| {
        let ts = define(d, "TS");
        require_multiple(s, ts, ts, ts, "whole TS×TS tiles")?;
        Ok(Launch {
            global: [s.n, s.m],
            local: Some([ts, ts]),
        })
    },
    shapes: |d| {
        let ts = define(d, "TS");
        vec![
            Shape::new(ts, ts, ts),
            Shape::new(3 * ts, 2 * ts, 5 * ts),
            Shape::new(8 * ts, 6 * ts, 4 * ts),
        ]
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
