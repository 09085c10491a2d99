use super::{
    define, require_multiple, Kind, Lesson, OclLesson, Technique, Variant, BUFFERS, STANDARD_ARGS,
};
use crate::device::DeviceInfo;
use crate::exec::Launch;
use crate::matrix::Shape;
use crate::program::Define;

pub static LESSON: Lesson = Lesson {
    number: 6,
    slug: "register_tiling",
    title: "Register tiling",
    hint: "in kernels/06_register_tiling.cl, share the loads of each TSM×TSK tile of A and TSK×TSN tile of B among the work-items (LPTA and LPTB elements each), barrier, then for every k read WPTN values of B into Breg and one value of A at a time, and add the WPTM×WPTN products into acc; barrier again; finally store acc.",
    kind: Kind::OpenCl(&REGISTER),
};

/// The tile defines: a work-group computes TSM×TSN of C, TSK deep along K, and each of its
/// (TSM/WPTM)×(TSN/WPTN) work-items a WPTM×WPTN block.
pub(super) fn tiles(tsm: usize, tsn: usize, tsk: usize, wptm: usize, wptn: usize) -> Vec<Define> {
    vec![
        Define::new("TSM", tsm),
        Define::new("TSN", tsn),
        Define::new("TSK", tsk),
        Define::new("WPTM", wptm),
        Define::new("WPTN", wptn),
    ]
}

/// 2D register blocks sized for the device: 128×128 tiles of 8×8 blocks (256 work-items,
/// 16 KB of local memory) on a large GPU, smaller tiles where the work-group or the local
/// memory is small.
pub(super) fn block_defines(info: &DeviceInfo) -> Vec<Define> {
    if info.max_work_group >= 256 && info.local_mem_bytes >= 32 * 1024 {
        tiles(128, 128, 16, 8, 8)
    } else if info.max_work_group >= 64 && info.local_mem_bytes >= 16 * 1024 {
        tiles(64, 64, 16, 8, 8)
    } else {
        tiles(32, 32, 8, 8, 8)
    }
}

/// The work-group of a TSM×TSN tile: one work-item per WPTM×WPTN block, dimension 0 along N.
pub(super) fn block_launch(s: Shape, d: &[Define]) -> Result<Launch, String> {
    let (tsm, tsn, tsk) = (define(d, "TSM"), define(d, "TSN"), define(d, "TSK"));
    let (wptm, wptn) = (define(d, "WPTM"), define(d, "WPTN"));
    require_multiple(s, tsm, tsn, tsk, "whole TSM×TSN tiles of C, TSK deep")?;
    Ok(Launch {
        global: [s.n / wptn, s.m / wptm],
        local: Some([tsn / wptn, tsm / wptm]),
    })
}

/// Sizes for a tiled lesson: non-square, several tiles in each dimension, small enough for
/// a CPU runtime.
pub(super) fn block_shapes(d: &[Define]) -> Vec<Shape> {
    let (tsm, tsn, tsk) = (define(d, "TSM"), define(d, "TSN"), define(d, "TSK"));
    vec![
        Shape::new(tsm, 2 * tsn, 3 * tsk),
        Shape::new(2 * tsm, tsn, 5 * tsk),
        Shape::new(tsm, 2 * tsn, tsk),
    ]
}

pub static REGISTER: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: block_defines,
    launch: block_launch,
    shapes: block_shapes,
    build_options: "",
    uses: &[
        Technique {
            pattern: "__local",
            min: 1,
            hint: "keep the tiles in local memory: `__local float Asub[TSK][TSM];` and `__local float Bsub[TSK][TSN];`",
        },
        Technique {
            pattern: "barrier(",
            min: 2,
            hint: "call `barrier(CLK_LOCAL_MEM_FENCE)` twice per tile: after loading it (nobody reads before everyone has written) and after using it (nobody overwrites a tile others still read).",
        },
        Technique {
            pattern: "[WPTM][WPTN]",
            min: 1,
            hint: "each work-item keeps its WPTM×WPTN results in registers, `float acc[WPTM][WPTN];`, and updates all of them with every pair of values it reads from local memory.",
        },
    ],
    host: BUFFERS,
    sized: None,
    variants: &[Variant {
        name: "1d",
        about: "the same kernel with WPTN = 1: WPTM results per work-item along one column of C",
        measure: |gpu, shape| {
            let d = one_d_defines(&gpu.info);
            super::measure_solution(gpu, &LESSON, &d, shape)
        },
    }],
};

/// The 1D form: 64×64 tiles (fewer columns where the work-group is small), 8 results per
/// work-item along M, none shared along N.
fn one_d_defines(info: &DeviceInfo) -> Vec<Define> {
    if info.max_work_group >= 512 {
        tiles(64, 64, 16, 8, 1)
    } else if info.max_work_group >= 256 {
        tiles(64, 32, 16, 8, 1)
    } else {
        tiles(32, 16, 16, 8, 1)
    }
}
