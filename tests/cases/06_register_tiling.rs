//! Lesson 06's cases: mistakes students make with register blocks, each with what the
//! grader must say, and correct kernels in other styles. Read by tests/06_register_tiling.rs
//! and tests/suite.rs.

use crate::common::{Case, Class::*, Code::*};
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
