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
/// memory is small.
pub fn block_defines(ctx: &Ctx) -> Vec<Define> {
    let info = ctx.info;
    if info.max_work_group >= 256 && info.local_mem_bytes >= 32 * 1024 {
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
        uninitialized: true,
    },
    behaviour: Some(Behaviour {
        probe: Probe {
            shape: Shape::new(32, 64, 24),
            defines: &[
                ("TSM", "16"),
                ("TSN", "32"),
                ("TSK", "8"),
                ("WPTM", "4"),
                ("WPTN", "8"),
            ],
        },
        judge: register_blocks,
        contrast: &[],
        not_checked: "",
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
    }],
};

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

pub mod cases {
//! Lesson 06's cases: mistakes students make with register blocks, each with what the
//! grader must say, and correct kernels in other styles. Read by tests/06_register_tiling.rs
//! and tests/suite.rs.
use lab::grade::cases::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "06";

/// The words every race report has.
const RACE: &[&str] = &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"];

/// The second barrier of the tile loop, with its comment.
const SECOND_BARRIER: &str =
    "        // Nobody may overwrite the tiles (next iteration) while others still read them.
        barrier(CLK_LOCAL_MEM_FENCE);
";

/// The first barrier, after the loads.
const FIRST_BARRIER: &str = "        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: load";

pub const CASES: &[Case] = &[
    // Barriers. PoCL runs a work-group's items in lock-step between barriers, so these give
    // right numbers there; the simulator sees the race.
    Case::rejects(
        L,
        "missing_barrier",
        Race,
        Mutant(&[(SECOND_BARRIER, "")]),
        FailKind::Race,
        &["data race", "__local Asub", "line 76", "hint"],
    ),
    Case::rejects(
        L,
        "no_first_barrier",
        Race,
        Mutant(&[(
            FIRST_BARRIER,
            "        // EXERCISE END
        // ANCHOR_END: load",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "barrier_before_the_loads",
        Barrier,
        Mutant(&[
            (
                "for (int kt = 0; kt < K; kt += TSK) {",
                "for (int kt = 0; kt < K; kt += TSK) {
        barrier(CLK_LOCAL_MEM_FENCE);",
            ),
            (
                FIRST_BARRIER,
                "        // EXERCISE END
        // ANCHOR_END: load",
            ),
        ]),
        FailKind::Race,
        RACE,
    ),
    // Directions swapped: the device's tiles are square (TSM = TSN, WPTM = WPTN), the
    // lesson's other define sets are not.
    Case::rejects(
        L,
        "blocked_rows_mixed_up",
        Asymmetric,
        Mutant(&[("Asub[k][tidm + wm * RTSM]", "Asub[k][tidm * WPTM + wm]")]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "b_registers_strided_by_rtsm",
        Asymmetric,
        Mutant(&[(
            "Breg[wn] = Bsub[k][tidn + wn * RTSN];",
            "Breg[wn] = Bsub[k][tidn + wn * RTSM];",
        )]),
        FailKind::Wrong,
        &["with -D TSM=32 -D TSN=64 -D TSK=8 -D WPTM=8 -D WPTN=4", "expected", "got"],
    ),
    Case::rejects(
        L,
        "store_strided_by_rtsm",
        Asymmetric,
        Mutant(&[(
            "offN + tidn + wn * RTSN] = acc",
            "offN + tidn + wn * RTSM] = acc",
        )]),
        FailKind::Unwritten,
        &["with -D TSM=32 -D TSN=64 -D TSK=8 -D WPTM=8 -D WPTN=4", "never written"],
    ),
    Case::rejects(
        L,
        "b_tile_rows_of_tsm",
        Asymmetric,
        Mutant(&[(
            "const int r = id / TSN;
            const int c = id % TSN;",
            "const int r = id / TSM;
            const int c = id % TSM;",
        )]),
        FailKind::BadAccess,
        &["__local array Bsub", "past the end of B"],
    ),
    Case::rejects(
        L,
        "thread_index_of_rtsm",
        Asymmetric,
        Mutant(&[(
            "const int tid = tidm * RTSN + tidn;",
            "const int tid = tidm * RTSM + tidn;",
        )]),
        FailKind::Wrong,
        &["with -D TSM=32 -D TSN=64 -D TSK=8 -D WPTM=8 -D WPTN=4", "expected", "got"],
    ),
    Case::rejects(
        L,
        "group_offsets_swapped",
        Asymmetric,
        Mutant(&[
            (
                "const int offN = get_group_id(0) * TSN;",
                "const int offN = get_group_id(0) * TSM;",
            ),
            (
                "const int offM = get_group_id(1) * TSM;",
                "const int offM = get_group_id(1) * TSN;",
            ),
        ]),
        FailKind::BadAccess,
        &["past the end of A", "past the end of C"],
    ),
    Case::rejects(
        L,
        "store_loop_bounds_swapped",
        Asymmetric,
        Mutant(&[(
            "    for (int wm = 0; wm < WPTM; wm++) {
        const int row = offM + tidm + wm * RTSM;
        for (int wn = 0; wn < WPTN; wn++) {",
            "    for (int wm = 0; wm < WPTN; wm++) {
        const int row = offM + tidm + wm * RTSM;
        for (int wn = 0; wn < WPTM; wn++) {",
        )]),
        FailKind::OutOfBounds,
        &["with -D TSM=32 -D TSN=64", "outside C"],
    ),
    Case::rejects(
        L,
        "a_tile_read_as_rows",
        Asymmetric,
        Mutant(&[(
            "const float a = Asub[k][tidm + wm * RTSM];",
            "const float a = Asub[tidm + wm * RTSM][k];",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "tile_of_b_without_column_offset",
        Asymmetric,
        Mutant(&[("B[(kt + r) * N + offN + c]", "B[(kt + r) * N + c]")]),
        FailKind::Wrong,
        &["expected", "got", "row 0, column"],
    ),
    // Edges and bounds.
    Case::rejects(
        L,
        "tile_step_off_by_one",
        Edge,
        Mutant(&[(
            "for (int k = 0; k < TSK; k++)",
            "for (int k = 0; k < TSK - 1; k++)",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "one_tile_too_many",
        Edge,
        Mutant(&[(
            "for (int kt = 0; kt < K; kt += TSK) {",
            "for (int kt = 0; kt <= K; kt += TSK) {",
        )]),
        FailKind::BadAccess,
        &["past the end of", "k < K, not k <= K"],
    ),
    Case::rejects(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[(
            "C[row * N + offN + tidn + wn * RTSN] = acc[wm][wn];",
            "C[(ushort)(row * N + offN + tidn + wn * RTSN)] = acc[wm][wn];",
        )]),
        FailKind::Unwritten,
        &["16 bits", "ushort"],
    ),
    Case::rejects(
        L,
        "one_b_register_too_many",
        OutOfBoundsRead,
        Mutant(&[(
            "for (int wn = 0; wn < WPTN; wn++) {
                Breg[wn]",
            "for (int wn = 0; wn <= WPTN; wn++) {
                Breg[wn]",
        )]),
        FailKind::BadAccess,
        &["Breg"],
    ),
    Case::rejects(
        L,
        "store_shifted_one_column",
        OutOfBoundsWrite,
        Mutant(&[(
            "offN + tidn + wn * RTSN] = acc",
            "offN + tidn + wn * RTSN + 1] = acc",
        )]),
        FailKind::OutOfBounds,
        &["outside C", "after the end of C"],
    ),
    Case::rejects(
        L,
        "accumulators_uninitialised",
        Uninitialised,
        Mutant(&[(
            "    for (int wm = 0; wm < WPTM; wm++) {
        for (int wn = 0; wn < WPTN; wn++) {
            acc[wm][wn] = 0.0f;
        }
    }
",
            "",
        )]),
        FailKind::Uninitialized,
        &["never initialised"],
    ),
    Case::rejects(
        L,
        "accumulator_reset_per_tile",
        WrongResult,
        Mutant(&[(
            "for (int kt = 0; kt < K; kt += TSK) {",
            "for (int kt = 0; kt < K; kt += TSK) {
        for (int wm = 0; wm < WPTM; wm++) {
            for (int wn = 0; wn < WPTN; wn++) {
                acc[wm][wn] = 0.0f;
            }
        }",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "no_register_block",
        WrongResult,
        File("no_register_block"),
        // One result per work-item (lesson 05's idea) on the launch of register blocks.
        FailKind::Unwritten,
        &[
            "never written",
            "Does the launch cover every row and column",
        ],
    ),
    // Right answers that only look like register tiling.
    Case::rejects(
        L,
        "products_read_from_local_memory",
        Decoy,
        Mutant(&[
            (
                "            for (int wn = 0; wn < WPTN; wn++) {
                Breg[wn] = Bsub[k][tidn + wn * RTSN];
            }
",
                "",
            ),
            (
                "                const float a = Asub[k][tidm + wm * RTSM];
                for (int wn = 0; wn < WPTN; wn++) {
                    acc[wm][wn] += a * Breg[wn];",
                "                for (int wn = 0; wn < WPTN; wn++) {
                    acc[wm][wn] += Asub[k][tidm + wm * RTSM] * Bsub[k][tidn + wn * RTSN];",
            ),
        ]),
        FailKind::Technique,
        &["values from local memory per multiply-add", "1/WPTM + 1/WPTN", "Breg"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    // EXERCISE(06.3) BEGIN: store the WPTM×WPTN results
",
            "    // EXERCISE(06.3) BEGIN: store the WPTM×WPTN results
    if (get_global_id(0) == 0 && get_global_id(1) == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"06_register_tiling\\\",\\\"failure\\\":null}}\\n\");
    }
    acc[0][0] = 0.0f;
",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // Correct in another style.
    Case::accepts(
        L,
        "flat_accumulators",
        Mutant(&[
            ("float acc[WPTM][WPTN];", "float acc[WPTM * WPTN];"),
            ("acc[wm][wn] = 0.0f;", "acc[wm * WPTN + wn] = 0.0f;"),
            ("acc[wm][wn] += a * Breg[wn];", "acc[wm * WPTN + wn] += a * Breg[wn];"),
            ("] = acc[wm][wn];", "] = acc[wm * WPTN + wn];"),
        ]),
    ),
    Case::accepts(
        L,
        "a_registers_first",
        Mutant(&[
            ("float Breg[WPTN];", "float Areg[WPTM];"),
            (
                "            for (int wn = 0; wn < WPTN; wn++) {
                Breg[wn] = Bsub[k][tidn + wn * RTSN];
            }
            for (int wm = 0; wm < WPTM; wm++) {
                const float a = Asub[k][tidm + wm * RTSM];
                for (int wn = 0; wn < WPTN; wn++) {
                    acc[wm][wn] += a * Breg[wn];
                }
            }",
                "            for (int wm = 0; wm < WPTM; wm++) {
                Areg[wm] = Asub[k][tidm + wm * RTSM];
            }
            for (int wn = 0; wn < WPTN; wn++) {
                const float b = Bsub[k][tidn + wn * RTSN];
                for (int wm = 0; wm < WPTM; wm++) {
                    acc[wm][wn] += Areg[wm] * b;
                }
            }",
            ),
        ]),
    ),
    Case::accepts(
        L,
        "contiguous_blocks",
        Mutant(&[
            ("Bsub[k][tidn + wn * RTSN]", "Bsub[k][tidn * WPTN + wn]"),
            ("Asub[k][tidm + wm * RTSM]", "Asub[k][tidm * WPTM + wm]"),
            (
                "const int row = offM + tidm + wm * RTSM;",
                "const int row = offM + tidm * WPTM + wm;",
            ),
            (
                "offN + tidn + wn * RTSN] = acc",
                "offN + tidn * WPTN + wn] = acc",
            ),
        ]),
    ),
    Case::accepts(
        L,
        "untransposed_a_tile",
        Mutant(&[
            ("__local float Asub[TSK][TSM];", "__local float Asub[TSM][TSK];"),
            ("Asub[c][r] = A[", "Asub[r][c] = A["),
            (
                "const float a = Asub[k][tidm + wm * RTSM];",
                "const float a = Asub[tidm + wm * RTSM][k];",
            ),
        ]),
    ),
];
}
