//! Lesson 06: register tiling, more work per work-item. The declaration the grader, the
//! scoreboard and the book read, its host code (shared with lessons 07 and 08), and the
//! lesson's program:
//!
//! ```text
//! cargo run --release --bin 06_register_tiling [-- --solution -D WPTM=4]
//! ```

use lab::harness::exec::Launch;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::lesson::{
    define, per_mad, probe_define, require_divides, require_multiple, round_up, Behaviour, Ctx,
    Kind, Lesson, Measured, OclLesson, Probe, Sanitize, Variant, BUFFERS, STANDARD_ARGS,
};

pub static LESSON: Lesson = Lesson {
    key: "06",
    slug: "register_tiling",
    title: "Register tiling",
    teaches: "a WPTM×WPTN block of C per work-item, kept in registers (1D, then 2D)",
    hint: "in kernels/06_register_tiling.cl, share the loads of each TSM×TSK tile of A and TSK×TSN tile of B among the work-items (LPTA and LPTB elements each), barrier, then for every k read WPTN values of B into Breg and one value of A at a time, and add the WPTM×WPTN products into acc; barrier again; finally store acc.",
    kind: Kind::OpenCl(&REGISTER),
    intensity: Some(lab::lesson::REGISTER_TILE),
    peers: &[],
    top: false,
    program: None,
    unit: lab::lesson::Unit::Fp32,
};

/// The tile defines: a work-group computes TSM×TSN of C, TSK deep along K, and each of its
/// (TSM/WPTM)×(TSN/WPTN) work-items a WPTM×WPTN block.
pub fn tiles(tsm: usize, tsn: usize, tsk: usize, wptm: usize, wptn: usize) -> Vec<Define> {
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
/// memory is small. On a CPU, 32×32 tiles: PoCL runs a work-group's 16 work-items as the
/// lanes of one core's vectors, and 256³ makes 64 work-groups for the cores; measured as fast
/// as 128×128 or faster (research/grading-time/cpu-tiles.csv). The grader's count of the
/// technique at the asked size simulates whole work-groups, so a CPU's small tiles also keep
/// that count within seconds.
pub fn block_defines(ctx: &Ctx) -> Vec<Define> {
    let info = ctx.info;
    if info.is_cpu() {
        tiles(32, 32, 16, 8, 8)
    } else if info.max_work_group >= 256 && info.local_mem_bytes >= 32 * 1024 {
        tiles(128, 128, 16, 8, 8)
    } else if info.max_work_group >= 64 && info.local_mem_bytes >= 16 * 1024 {
        tiles(64, 64, 16, 8, 8)
    } else {
        tiles(32, 32, 8, 8, 8)
    }
}

/// The rules every register-tiled kernel's defines obey: each a whole number of at least 1,
/// a work-item's block dividing the tile, and the tile loads shared out evenly.
pub fn check_blocks(d: &[Define]) -> Result<(), String> {
    for name in ["TSM", "TSN", "TSK", "WPTM", "WPTN"] {
        define(d, name)?;
    }
    require_divides(
        d,
        "TSM",
        "WPTM",
        "a work-item computes WPTM rows of the tile",
    )?;
    require_divides(
        d,
        "TSN",
        "WPTN",
        "a work-item computes WPTN columns of the tile",
    )?;
    let items = (define(d, "TSM")? / define(d, "WPTM")?) * (define(d, "TSN")? / define(d, "WPTN")?);
    for (what, size) in [
        ("A's TSM×TSK tile", define(d, "TSM")? * define(d, "TSK")?),
        ("B's TSK×TSN tile", define(d, "TSK")? * define(d, "TSN")?),
    ] {
        if size % items != 0 {
            return Err(format!(
                "{what} has {size} elements, which the {items} work-items cannot share evenly: choose tiles whose sizes are multiples of (TSM/WPTM)·(TSN/WPTN)"
            ));
        }
    }
    Ok(())
}

/// The work-group of a TSM×TSN tile: one work-item per WPTM×WPTN block, dimension 0 along N.
pub fn block_launch(s: Shape, d: &[Define]) -> Result<Launch, String> {
    let (tsm, tsn, tsk) = (define(d, "TSM")?, define(d, "TSN")?, define(d, "TSK")?);
    let (wptm, wptn) = (define(d, "WPTM")?, define(d, "WPTN")?);
    require_multiple(s, tsm, tsn, tsk, "whole TSM×TSN tiles of C, TSK deep")?;
    Ok(Launch {
        global: [s.n / wptn, s.m / wptm],
        local: Some([tsn / wptn, tsm / wptm]),
    })
}

/// Sizes for a tiled lesson: non-square, several tiles in each dimension, small enough for
/// a CPU runtime.
pub fn block_shapes(d: &[Define]) -> Result<Vec<Shape>, String> {
    let (tsm, tsn, tsk) = (define(d, "TSM")?, define(d, "TSN")?, define(d, "TSK")?);
    Ok(vec![
        Shape::new(tsm, 2 * tsn, 3 * tsk),
        Shape::new(2 * tsm, tsn, 5 * tsk),
        Shape::new(tsm, 2 * tsn, tsk),
        // Every matrix longer than 65 536 vectors of four floats (lesson 07's block_shapes
        // too): an index kept in 16 bits wraps.
        Shape::new(round_up(521, tsm), round_up(517, tsn), round_up(519, tsk)),
    ])
}

pub static REGISTER: OclLesson = OclLesson {
    kernel: "matmul",
    args: STANDARD_ARGS,
    defines: block_defines,
    check_defines: check_blocks,
    launch: block_launch,
    shapes: block_shapes,
    build_options: "",
    define_sets: &[
        &[
            ("TSM", "32"),
            ("TSN", "64"),
            ("TSK", "8"),
            ("WPTM", "4"),
            ("WPTN", "8"),
        ],
        &[
            ("TSM", "64"),
            ("TSN", "16"),
            ("TSK", "16"),
            ("WPTM", "8"),
            ("WPTN", "2"),
        ],
        // A work-group of 16×4 work-items: RTSM ≠ RTSN, so that swapping the two strides
        // of a work-item's block (or of the thread index) cannot pass.
        &[
            ("TSM", "32"),
            ("TSN", "64"),
            ("TSK", "8"),
            ("WPTM", "8"),
            ("WPTN", "4"),
        ],
    ],
    sanitize: Sanitize {
        probes: &[Probe {
            shape: Shape::new(16, 32, 24),
            defines: &[
                ("TSM", "8"),
                ("TSN", "16"),
                ("TSK", "8"),
                ("WPTM", "2"),
                ("WPTN", "4"),
            ],
        }],
        stand_in: None,
    },
    behaviour: Some(Behaviour {
        probes: SIMULATED,
        judge: register_blocks,
        banks: false,
        not_checked: "",
        k_step: |d| lab::lesson::define(d, "TSK"),
    }),
    host: BUFFERS,
    sized: None,
    knobs: None,
    any_size: false,
    variants: &[Variant {
        name: "1d",
        about: "the same kernel with WPTN = 1: WPTM results per work-item along one column of C",
        measure: |gpu, course, shape| {
            let d = one_d_defines(gpu.info.max_work_group);
            let file = course.solutions().join(LESSON.file_name());
            lab::measure::measure_file(gpu, &LESSON, &file, &d, shape)
        },
        product: None,
    }],
};

/// The define sets the technique may be counted with. The device's own tiles (128×128 on a
/// GPU) are too large for the simulator at these shapes; the first set is the smallest device's, with
/// the 8×8 block per work-item that every device's defaults have, and the second is
/// asymmetric (TSM ≠ TSN, WPTM ≠ WPTN, TSK of 16). Each at whole tiles, three steps along K
/// (so that a shape drawn near it for the sanitizer keeps two: a missing barrier between
/// steps shows).
pub const SIMULATED: &[Probe] = &[
    Probe {
        shape: Shape::new(32, 64, 24),
        defines: &[
            ("TSM", "32"),
            ("TSN", "32"),
            ("TSK", "8"),
            ("WPTM", "8"),
            ("WPTN", "8"),
        ],
    },
    Probe {
        shape: Shape::new(32, 32, 48),
        defines: &[
            ("TSM", "32"),
            ("TSN", "16"),
            ("TSK", "16"),
            ("WPTM", "8"),
            ("WPTN", "4"),
        ],
    },
];

/// The 1D form: 64×64 tiles (fewer columns where the work-group is small), 8 results per
/// work-item along M, none shared along N.
fn one_d_defines(max_work_group: usize) -> Vec<Define> {
    if max_work_group >= 512 {
        tiles(64, 64, 16, 8, 1)
    } else if max_work_group >= 256 {
        tiles(64, 32, 16, 8, 1)
    } else {
        tiles(32, 16, 16, 8, 1)
    }
}

/// Register tiling shows in the local loads: with a WPTM×WPTN block per work-item, one k
/// takes WPTM values of A and WPTN of B for WPTM·WPTN multiply-adds, 1/WPTN + 1/WPTM local
/// loads per multiply-add instead of lesson 05's 2. The global loads show that the tiles
/// are still shared.
pub fn register_blocks(m: &Measured, probe: &Probe) -> Result<String, String> {
    let (wptm, wptn) = (probe_define(probe, "WPTM"), probe_define(probe, "WPTN"));
    let (tsm, tsn) = (probe_define(probe, "TSM"), probe_define(probe, "TSN"));
    let local = per_mad(m.counts.local_loads().count, probe);
    let global = per_mad(m.counts.global_loads().count, probe);
    let ideal_local = 1.0 / wptm + 1.0 / wptn;
    let ideal_global = 1.0 / tsm + 1.0 / tsn;
    if global > 1.5 * ideal_global {
        return Err(format!(
            "your kernel loads {global:.3} values from global memory per multiply-add (measured with TSM = {tsm}, TSN = {tsn} at {}); shared TSM×TSK and TSK×TSN tiles would bring that to 1/TSM + 1/TSN = {ideal_global:.3}.\nHint: keep lesson 05's idea: the work-group loads each tile from global memory once, into local memory, and every multiply-add reads the tiles.",
            probe.shape
        ));
    }
    if local > 1.5 * ideal_local {
        return Err(format!(
            "lesson 06 is about register tiling, but your kernel reads {local:.2} values from local memory per multiply-add (measured with WPTM = {wptm}, WPTN = {wptn} at {}); a WPTM×WPTN block kept in registers needs only 1/WPTM + 1/WPTN = {ideal_local:.3}.\nHint: for each k, read the WPTN values of B's tile into registers (Breg) and one value of A at a time, then do all WPTM×WPTN multiply-adds from registers; a value re-read from the tile inside the inner loops counts as a read.",
            probe.shape
        ));
    }
    Ok(format!(
        "register tiling: {local:.3} local loads per multiply-add with a {wptm}×{wptn} block (1/WPTM + 1/WPTN = {ideal_local:.3}; lesson 05: 2)"
    ))
}
