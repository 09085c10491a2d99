//! Lesson 06's grader: the reference passes with the large-GPU tiles, with small tiles and
//! in its 1D form; the cases below (kernels wrong on purpose,
//! and correct ones in other styles) are graded as they expect; sizes that are not tile
//! multiples are refused with a reason.

mod common;

use lab::grade::{self, Source};
use lab::harness::device::Gpu;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder;
use lab::report;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 06` grades it, with the same report:
/// `cargo test --test 06_register_tiling -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("06")
}

fn defines(tsm: usize, tsn: usize, tsk: usize, wptm: usize, wptn: usize) -> Vec<Define> {
    vec![
        Define::new("TSM", tsm),
        Define::new("TSN", tsn),
        Define::new("TSK", tsk),
        Define::new("WPTM", wptm),
        Define::new("WPTN", wptn),
    ]
}

fn assert_solution_passes_with(d: Vec<Define>) {
    let lesson = ladder::get("06");
    let opts = grade::Options {
        defines: d,
        ..g().opts
    };
    let shapes = (lesson.ocl().unwrap().shapes)(&opts.defines).unwrap();
    let v = grade::grade(lesson, &Source::Folder(g().opts.course.solutions()), &opts);
    assert!(v.passed(), "{}", report::verdict(&v));
    // Every shape the lesson names for these tiles was run, a large one among them, then one
    // more drawn for this grading, then the asked size and the round shapes near it (as whole
    // tiles), a C past 2^20 elements among them.
    let graded: Vec<Shape> = v.cases.iter().map(|c| c.shape).collect();
    assert!(graded.len() >= shapes.len() + 3, "{graded:?}");
    assert_eq!(graded[..shapes.len()], shapes[..]);
    assert!(graded.iter().any(|s| s.m * s.n > 65_536), "{graded:?}");
    assert!(graded.iter().any(|s| s.m * s.n > 1 << 20), "{graded:?}");
}

#[test]
fn solution_passes() {
    g().solution_passes("06");
}

#[test]
fn solution_passes_with_small_tiles() {
    assert_solution_passes_with(defines(32, 32, 8, 8, 8));
    assert_solution_passes_with(defines(64, 32, 16, 4, 8));
}

#[test]
fn solution_passes_in_its_1d_form() {
    assert_solution_passes_with(defines(64, 32, 16, 8, 1));
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

#[test]
fn refuses_sizes_that_are_not_tile_multiples() {
    let ocl = ladder::get("06").ocl().unwrap();
    let d = defines(128, 128, 16, 8, 8);
    let why = (ocl.launch)(Shape::new(128, 200, 32), &d).unwrap_err();
    assert!(why.contains("N of 128"), "{why}");
    assert!(why.contains("Lesson 08"), "{why}");
    let ok = (ocl.launch)(Shape::new(256, 128, 48), &d).unwrap();
    assert_eq!(ok.global, [16, 32]);
    assert_eq!(ok.local, Some([16, 16]));
}

#[test]
fn variants_give_right_answers() {
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let ocl = ladder::get("06").ocl().unwrap();
    for v in ocl.variants {
        let t = (v.measure)(&gpu, &g().opts.course, Shape::new(256, 128, 48))
            .unwrap_or_else(|e| panic!("{}: {e:#}", v.name))
            .expect("the size applies");
        assert!(t.device_ms > 0.0, "{}: {t:?}", v.name);
    }
}

pub mod cases {
    //! Lesson 06's cases: mistakes students make with register blocks, each with what the
    //! grader must say, and correct kernels in other styles. Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "06";

    /// The solution's inner loop, products read from the register block (`Breg`).
    macro_rules! blocked {
        () => {
            "            for (int wm = 0; wm < WPTM; wm++) {
                const float a = Asub[k][tidm + wm * RTSM];
                for (int wn = 0; wn < WPTN; wn++) {
                    acc[wm][wn] += a * Breg[wn];
                }
            }"
        };
    }

    /// A decoy: the register block kept only where the preprocessor condition `$cond` holds,
    /// elsewhere every product read from the local tiles.
    macro_rules! blocks_only_if {
        ($cond:literal) => {
            Mutant(&[(
                blocked!(),
                concat!(
                    "#if ",
                    $cond,
                    "\n",
                    blocked!(),
                    "\n#else\n",
                    "            for (int wm = 0; wm < WPTM; wm++) {
                for (int wn = 0; wn < WPTN; wn++) {
                    acc[wm][wn] += Asub[k][tidm + wm * RTSM] * Bsub[k][tidn + wn * RTSN];
                }
            }",
                    "\n#endif"
                ),
            )])
        };
    }

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
    // The second barrier only at the simulator's declared shapes (the sanitizer's 16×32×24
    // and the technique's 32×64×24, in the lesson's declaration): the sanitizer's probe at a
    // shape drawn for the grading sees the race.
    // The register blocks where the simulator counts, one element per work-item where the
    // device times it: the simulator told apart by comparing C with the address Oclgrind
    // gives the third buffer (no integer made from a pointer, a pointer made from one).
    Case::rejects(
        L,
        "blocks_only_where_the_buffers_lie_at_2_48",
        Decoy,
        Mutant(&[(
            "    const int offM = get_group_id(1) * TSM;    // first row\n",
            "    const int offM = get_group_id(1) * TSM;    // first row
    if (C != (__global float *)0x3000000000000) {
        const int col = get_global_id(0), row = get_global_id(1);
        for (int wm = 0; wm < WPTM; wm++) {
            for (int wn = 0; wn < WPTN; wn++) {
                const int r = offM + tidm + wm * RTSM, c = offN + tidn + wn * RTSN;
                float acc = 0.0f;
                for (int k = 0; k < K; k++) {
                    acc += A[r * K + k] * B[k * N + c];
                }
                C[r * N + c] = acc;
            }
        }
        return;
    }
",
        )]),
        FailKind::NotSelfContained,
        &["reads where the OpenCL runtime put memory", "0x3000000000000"],
    ),
    Case::rejects(
        L,
        "barrier_only_at_the_declared_probe",
        Race,
        Mutant(&[(
            SECOND_BARRIER,
            "        // Nobody may overwrite the tiles (next iteration) while others still read them.
        if ((M == 16 && N == 32 && K == 24) || (M == 32 && N == 64 && K == 24)) {
            barrier(CLK_LOCAL_MEM_FENCE);
        }
",
        )]),
        FailKind::Race,
        &["data race", "__local Asub"],
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
        // Wrong on the device; the simulator, whose tiles are never square, finds the read past
        // the end of the tile's rows, and says so first.
        Mutant(&[(
            "const float a = Asub[k][tidm + wm * RTSM];",
            "const float a = Asub[tidm + wm * RTSM][k];",
        )]),
        FailKind::BadAccess,
        &["__local array Asub", "expected", "got"],
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
    // The wrapped index also has two work-items write one element of C where C has more
    // than 65 536: where the simulator runs such a problem (drawn per grading), it names
    // that race, the device's words on the 16 bits after it.
    Case::rejects_any(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[(
            "C[row * N + offN + tidn + wn * RTSN] = acc[wm][wn];",
            "C[(ushort)(row * N + offN + tidn + wn * RTSN)] = acc[wm][wn];",
        )]),
        &[FailKind::Unwritten, FailKind::Race],
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
    // A row of A's tile read ahead, past the row's end, only in tiles of 64 rows or more (a
    // GPU's; this machine's are 32): the value is multiplied by zero, so C is right everywhere,
    // and the read lies inside the kernel's local memory. The device's optimised build may
    // fold such an index into the array's whole, so only an unoptimised count can say it: the
    // cheapest count with another kind's defines is one (a small GPU's 64×64 tiles).
    Case::rejects(
        L,
        "reads_a_row_ahead_only_in_a_gpus_tiles",
        OutOfBoundsRead,
        Mutant(&[(
            "            for (int wm = 0; wm < WPTM; wm++) {
                const float a = Asub[k][tidm + wm * RTSM];",
            "#if TSM >= 64
            acc[0][0] += 0.0f * Asub[k][tidm + TSM];
#endif
            for (int wm = 0; wm < WPTM; wm++) {
                const float a = Asub[k][tidm + wm * RTSM];",
        )]),
        FailKind::BadAccess,
        &["Asub", "that dimension has 64 elements", "TSM=64"],
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
        "prints_counts_of_its_own",
        Forged,
        File("prints_counts_of_its_own"),
        // Counts are read from the output a kernel's printf writes to: a kernel that prints
        // is judged by no count.
        FailKind::Technique,
        &["printed (printf)", "counts cannot be told"],
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
        "register_block_only_with_the_counted_defines",
        Decoy,
        // Register blocks only when built with the defines lesson 06 once declared for the
        // technique's counts, recognised by an expression of them (WPTM·TSM = 4·16); the
        // device's own defines read every product from the local tiles.
        blocks_only_if!("WPTM * TSM == 64"),
        FailKind::Technique,
        &["values from local memory per multiply-add", "1/WPTM + 1/WPTN", "a shape drawn near the asked size for this grading"],
    ),
    Case::rejects(
        L,
        "register_block_only_in_tiles_a_cpu_takes",
        Decoy,
        // The mirror of the decoy below: register blocks in tiles up to a CPU's 32 × 32 × 16,
        // none in larger ones. Every define set a CPU builds for itself has the technique; a
        // GPU's 128 × 128 and 64 × 64 tiles, counted on every machine, do not.
        blocks_only_if!("TSM * TSN * TSK <= 32 * 32 * 16"),
        FailKind::Technique,
        &["values from local memory per multiply-add", "the defines the lesson takes on a large GPU"],
    ),
    Case::rejects(
        L,
        "register_block_only_in_small_tiles",
        Decoy,
        // Register blocks only in tiles smaller than 32 × 32 × 16 (every define set the
        // simulator's small shapes are counted with, whatever the draw); the device's own tiles
        // (32 × 32 × 16 on a CPU, 128 × 128 × 16 on a GPU) read every product from the local
        // tiles, where the user's problems are multiplied.
        blocks_only_if!("TSM * TSN * TSK < 32 * 32 * 16"),
        FailKind::Technique,
        &["values from local memory per multiply-add", "a shape drawn near the asked size for this grading"],
    ),
    Case::rejects(
        L,
        "register_block_only_where_it_is_counted",
        Decoy,
        // Register tiling only for a launch of 2 × 2 work-groups over a K of three tiles, as
        // at a declared probe (32×64×24 with TSM = 16, TSN = 32); products read from the local
        // tiles everywhere else. The counts are taken at a shape drawn for each grading, never
        // a declared one.
        Mutant(&[
            (
                "            for (int wn = 0; wn < WPTN; wn++) {
                Breg[wn] = Bsub[k][tidn + wn * RTSN];
            }
",
                "            const bool counted = get_num_groups(0) * get_num_groups(1) == 4 && K == 3 * TSK;
            for (int wn = 0; wn < WPTN; wn++) {
                Breg[wn] = counted ? Bsub[k][tidn + wn * RTSN] : 0.0f;
            }
",
            ),
            (
                "                const float a = Asub[k][tidm + wm * RTSM];
                for (int wn = 0; wn < WPTN; wn++) {
                    acc[wm][wn] += a * Breg[wn];",
                "                const float a = Asub[k][tidm + wm * RTSM];
                for (int wn = 0; wn < WPTN; wn++) {
                    acc[wm][wn] += counted ? a * Breg[wn] : Asub[k][tidm + wm * RTSM] * Bsub[k][tidn + wn * RTSN];",
            ),
        ]),
        FailKind::Technique,
        &["values from local memory per multiply-add", "1/WPTM + 1/WPTN"],
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
    // Register tiles where the simulator runs the kernel, one product per element read
    // through a helper on the device, told apart by the last bit of `sin` (PoCL's and the
    // simulator's libraries round sin(300.37) apart). The helper's own read runs under the
    // simulator; its calls on the device's path never do, and the device, asked, runs them.
    // Register tiles where the simulator runs the kernel, the tiles read from local memory
    // for every multiply-add where the device runs it (a `mad` rounding that only the
    // simulator fuses): the same global loads on both, only the local reads differ, and those
    // never run under the simulator.
    Case::rejects(
        L,
        "local_reads_without_registers_where_mad_rounds_as_the_device",
        Cheat,
        Mutant(&[(
            "        for (int k = 0; k < TSK; k++) {
            // WPTN values of B, each used WPTM times; one value of A at a time, used WPTN times.",
            "        const float u = (float)get_local_size(0) * (1.0f / 65536.0f);
        const float one = 1.0f + u;
        if (mad(one, one, -(1.0f + 2.0f * u)) == 0.0f) {
            for (int k = 0; k < TSK; k++) {
                for (int wm = 0; wm < WPTM; wm++) {
                    for (int wn = 0; wn < WPTN; wn++) {
                        acc[wm][wn] += Asub[k][tidm + wm * RTSM] * Bsub[k][tidn + wn * RTSN];
                    }
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            continue;
        }
        for (int k = 0; k < TSK; k++) {
            // WPTN values of B, each used WPTM times; one value of A at a time, used WPTN times.",
        )]),
        FailKind::NotSelfContained,
        &[
            "Asub[k][tidm + wm * RTSM] * Bsub[k][tidn + wn * RTSN]",
            "runs on the device",
            "never ran under the simulator",
        ],
    ),
    Case::rejects(
        L,
        "register_tiles_only_where_sin_rounds_as_the_simulator",
        Cheat,
        Mutant(&[
            (
                "// ANCHOR: kernel
",
                "float at(const __global float* p, const int i) {
    return p[i];
}

// ANCHOR: kernel
",
            ),
            (
                "    const int offM = get_group_id(1) * TSM;    // first row
",
                "    const int offM = get_group_id(1) * TSM;    // first row
    const float x = (float)get_num_groups(0) * 0.0f + 300.0f + 0.37f;
    const float a0 = at(A, 0);
    if (as_uint(sin(x)) != 3211831772u && a0 == a0) {
        for (int wm = 0; wm < WPTM; wm++) {
            const int row = offM + tidm + wm * RTSM;
            for (int wn = 0; wn < WPTN; wn++) {
                const int col = offN + tidn + wn * RTSN;
                float sum = 0.0f;
                for (int k = 0; k < K; k++) {
                    sum += at(A, row * K + k) * at(B, k * N + col);
                }
                C[row * N + col] = sum;
            }
        }
        return;
    }
",
            ),
        ]),
        FailKind::NotSelfContained,
        &["on the device at", "never ran under the simulator"],
    ),
    // The tiles filled by the work-group's asynchronous copies, chained through an event kept
    // in private memory: an event_t is a pointer to the compiler, but to private memory, and
    // says nothing of where the runtime put a buffer (the address reader must not refuse it).
    Case::accepts(
        L,
        "tiles_filled_by_asynchronous_copies",
        File("tiles_filled_by_asynchronous_copies"),
    ),
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
