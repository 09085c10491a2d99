//! Lesson 05's grader: the reference passes; the cases below
//! (kernels wrong on purpose, and correct ones in other styles) are graded as they expect;
//! sizes that are not tile multiples are refused with a reason.

mod common;

use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 05` grades it, with the same report:
/// `cargo test --test 05_local_tiling -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("05")
}

#[test]
fn solution_passes() {
    g().solution_passes("05");
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

/// A path that runs nowhere, read through a typedef'd pointer and a macro, is asked of the
/// device (its accesses shifted through a copy of the macro) rather than left unchecked.
#[test]
fn a_tail_through_a_macro_is_asked_of_the_device() {
    let case = (cases::CASES.iter())
        .find(|c| c.name == "a_tail_loop_through_a_macro_that_never_runs")
        .unwrap();
    let v = g().check(case).unwrap();
    let notes = v.notes.join("\n");
    assert!(v.unchecked.is_empty(), "{:?}\n{notes}", v.unchecked);
    assert!(
        notes.contains("nor on the device at the problems the simulator ran"),
        "{notes}"
    );
}

#[test]
fn refuses_sizes_that_are_not_tile_multiples() {
    let ocl = ladder::get("05").ocl().unwrap();
    let defines = [Define::new("TS", 16)];
    let why = (ocl.launch)(Shape::new(100, 64, 48), &defines).unwrap_err();
    assert!(why.contains("M must be a multiple of 16"), "{why}");
    assert!(why.contains("Lesson 08"), "{why}");
    assert!((ocl.launch)(Shape::new(32, 64, 48), &defines).is_ok());
}

pub mod cases {
    //! Lesson 05's cases: mistakes students make with local-memory tiles, each with what the
    //! grader must say, and correct kernels in other styles. Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "05";

    /// A decoy: the tiles read only where `ends` holds (a condition on the work-group), every
    /// other product read from global memory.
    macro_rules! tiles_only_where {
        ($ends:literal) => {
            Mutant(&[
                (
                    "    const int row = get_global_id(1);    // row of C
",
                    concat!(
                        "    const int row = get_global_id(1);    // row of C
    const bool ends = ",
                        $ends,
                        ";\n"
                    ),
                ),
                (
                    "        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }",
                    "        if (ends) {
            for (int k = 0; k < TS; k++) {
                acc += Asub[tr][k] * Bsub[k][tc];
            }
        } else {
            for (int k = 0; k < TS; k++) {
                acc += A[row * K + t * TS + k] * B[(t * TS + k) * N + col];
            }
        }",
                ),
            ])
        };
    }

    /// The words every race report has.
    const RACE: &[&str] = &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"];

    pub const CASES: &[Case] = &[
    // Wrong only where M, N and K all pass a thousand: the last tile of K skipped. On a CPU
    // no shape but one passes a thousand on every side at once: the problem past 4,096 that
    // every grading runs on a window of its work-groups (grade::window); on a GPU the asked
    // size does.
    Case::rejects(
        L,
        "last_tile_skipped_where_every_side_passes_a_thousand",
        Cheat,
        Mutant(&[(
            "const int tiles = K / TS;",
            "const int tiles = K / TS - (M > 1000 && N > 1000 && K > 1000);",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Barriers and races. PoCL runs a work-group's items in lock-step between barriers, so
    // these give right numbers there; the simulator sees the race.
    Case::rejects(
        L,
        "missing_barrier",
        Race,
        File("missing_barrier"),
        FailKind::Race,
        &["data race", "__local Asub", "line 14", "line 16", "barrier(CLK_LOCAL_MEM_FENCE)"],
    ),
    Case::rejects(
        L,
        "no_second_barrier",
        Race,
        Mutant(&[(
            "        // Nobody may overwrite the tile (next iteration) while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);
",
            "",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "both_barriers_before_the_products",
        Barrier,
        Mutant(&[
            (
                "        // Nobody may read the tile before everyone has written their element.
        barrier(CLK_LOCAL_MEM_FENCE);
",
                "        barrier(CLK_LOCAL_MEM_FENCE);
        barrier(CLK_LOCAL_MEM_FENCE);
",
            ),
            (
                "        // Nobody may overwrite the tile (next iteration) while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);
",
                "",
            ),
        ]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "barriers_fence_global_memory",
        Barrier,
        // The barriers wait, but order only global memory: the tiles are local.
        Mutant(&[
            (
                "        // Nobody may read the tile before everyone has written their element.
        barrier(CLK_LOCAL_MEM_FENCE);",
                "        barrier(CLK_GLOBAL_MEM_FENCE);",
            ),
            (
                "        // Nobody may overwrite the tile (next iteration) while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);",
                "        barrier(CLK_GLOBAL_MEM_FENCE);",
            ),
        ]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "mem_fence_instead_of_barrier",
        Barrier,
        // A fence orders one work-item's own accesses; it waits for nobody.
        Mutant(&[(
            "        // Nobody may read the tile before everyone has written their element.
        barrier(CLK_LOCAL_MEM_FENCE);",
            "        mem_fence(CLK_LOCAL_MEM_FENCE);",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "barrier_in_branch",
        Barrier,
        File("barrier_in_branch"),
        FailKind::Divergence,
        &["barrier"],
    ),
    // Directions swapped: the tiles are square, the matrices are not.
    Case::rejects(
        L,
        "swapped_tile_index",
        Asymmetric,
        File("swapped_tile_index"),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "local_ids_swapped",
        Asymmetric,
        Mutant(&[
            (
                "const int tc = get_local_id(0);",
                "const int tc = get_local_id(1);",
            ),
            (
                "const int tr = get_local_id(1);",
                "const int tr = get_local_id(0);",
            ),
        ]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects_any(
        L,
        "a_rows_of_n",
        Asymmetric,
        // Wrong on the device; where the shape drawn for the sanitizer's run with the device's
        // own tile has N > K, the rows of N also read past A's end, which it names first.
        Mutant(&[("A[row * K + t * TS + tc]", "A[row * N + t * TS + tc]")]),
        &[FailKind::Wrong, FailKind::BadAccess],
        &["expected", "got"],
    ),
    // Edges: loop bounds one off.
    Case::rejects(
        L,
        "tile_size_fixed_in_the_kernel",
        Asymmetric,
        // The kernel sets its own TS, whatever the host's -D TS says: its tiles no longer
        // match the work-groups when the grader launches 4×4 groups.
        Mutant(&[(
            "#ifndef TS
#define TS 16
#endif",
            "#undef TS
#define TS 16",
        )]),
        FailKind::Uninitialized,
        &["never initialised", "with -D TS=4"],
    ),
    Case::rejects(
        L,
        "tile_off_by_one",
        Edge,
        File("tile_off_by_one"),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "one_tile_too_many",
        Edge,
        Mutant(&[("t < tiles", "t <= tiles")]),
        FailKind::BadAccess,
        &["past the end of B", "past the end of A", "NaN came from reading"],
    ),
    // The wrapped index also has two work-items write one element of C where C has more
    // than 65 536: where the simulator runs such a problem (drawn per grading), it names
    // that race, the device's words on the 16 bits after it.
    Case::rejects_any(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[
            (
                "const int row = get_global_id(1);    // row of C",
                "const int row = get_global_id(1);    // row of C
    const ushort idx = row * N + col;",
            ),
            ("C[row * N + col] = acc;", "C[idx] = acc;"),
        ]),
        &[FailKind::Unwritten, FailKind::Race],
        &["16 bits", "ushort"],
    ),
    Case::rejects(
        L,
        "prefetch_past_the_end",
        OutOfBoundsRead,
        File("prefetch_past_the_end"),
        FailKind::BadAccess,
        &["past the end of B", "k < K, not k <= K"],
    ),
    Case::rejects(
        L,
        "store_out_of_bounds",
        OutOfBoundsWrite,
        File("store_out_of_bounds"),
        FailKind::OutOfBounds,
        &["outside C", "row stride is N"],
    ),
    Case::rejects(
        L,
        "accumulator_uninitialised",
        Uninitialised,
        Mutant(&[("float acc = 0.0f;", "float acc;")]),
        FailKind::Uninitialized,
        &["never initialised"],
    ),
    Case::rejects(
        L,
        "accumulator_reset_per_tile",
        WrongResult,
        File("accumulator_reset_per_tile"),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Right answers that only look like tiling.
    Case::rejects(
        L,
        "no_local_memory",
        Decoy,
        File("no_local_memory"),
        FailKind::Technique,
        &[
            "2.00 values from global memory per multiply-add",
            "2/TS = ",
            "Hint",
        ],
    ),
    Case::rejects(
        L,
        "unused_tiles",
        Decoy,
        File("unused_tiles"),
        FailKind::Technique,
        &["values from global memory per multiply-add", "2/TS"],
    ),
    // The course's own answer, included: refused before it runs.
    Case::rejects(
        L,
        "includes_the_solution",
        Cheat,
        File("includes_the_solution"),
        FailKind::NotSelfContained,
        &["line 2", "`#include`", "another file"],
    ),
    // One kernel for the simulator, another for the device: refused before it runs.
    Case::rejects(
        L,
        "tiles_only_for_the_simulator",
        Cheat,
        File("tiles_only_for_the_simulator"),
        FailKind::NotSelfContained,
        &["line 14", "`__NV_CL_C_VERSION`", "same code on every device"],
    ),
    // The same told apart at run time by arithmetic the simulator and the device round
    // differently (a fused `mad`): no name to refuse, but the device's code never ran under
    // the simulator, and the device, asked with those accesses moved, runs it.
    Case::rejects(
        L,
        "tiles_only_where_mad_rounds_as_the_simulator",
        Cheat,
        File("tiles_only_where_mad_rounds_as_the_simulator"),
        FailKind::NotSelfContained,
        &[
            "line 22",
            "runs on the device",
            "never ran under the simulator",
        ],
    ),
    // The same class through macros that name the pointers themselves: the device's line
    // names no pointer, so the check shifts a copy of the macro used there alone.
    Case::rejects(
        L,
        "tiles_only_where_a_conversion_wraps_reading_through_macros",
        Cheat,
        File("tiles_only_where_a_conversion_wraps_reading_through_macros"),
        FailKind::NotSelfContained,
        &[
            "line 23",
            "A_AT(row, k)",
            "runs on the device",
            "never ran under the simulator",
        ],
    ),
    // Both paths in one use of a macro, which the simulator's compiler would give one place:
    // the simulator runs the kernel with its macros expanded where used.
    Case::rejects(
        L,
        "no_tiles_on_the_device_inside_one_macro",
        Cheat,
        File("no_tiles_on_the_device_inside_one_macro"),
        FailKind::NotSelfContained,
        &[
            "line 39",
            "PRODUCT(simulated)",
            "runs on the device",
            "never ran under the simulator",
        ],
    ),
    // The device's path given the prelude's file name by `#line`: refused before it runs,
    // whatever the directive names (the checks tell the kernel's code by its file and lines).
    Case::rejects(
        L,
        "no_tiles_on_the_device_behind_a_line_directive",
        Cheat,
        File("no_tiles_on_the_device_behind_a_line_directive"),
        FailKind::NotSelfContained,
        &["line 21", "`#line`", "another file's name"],
    ),
    // A race the sanitizer would see, behind a loop that only an unoptimised build runs (an
    // optimising compiler sums it before the kernel starts): the device's run of the kernel
    // built unoptimised never ends, nor do the sanitizer's, so the kernel fails instead of
    // passing unchecked.
    Case::rejects(
        L,
        "race_behind_a_loop_the_compiler_removes",
        Race,
        Mutant(&[
            (
                "        // Nobody may overwrite the tile (next iteration) while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);
",
                "",
            ),
            (
                "    float acc = 0.0f;
    const int tiles = K / TS;",
                "    float acc = 0.0f;
    uint steps = 0;
    for (uint i = 0; i < 0xFFFFFFF0u; i++) {
        steps += i;
    }
    acc += (steps == 7u) ? 1.0f : 0.0f;
    const int tiles = K / TS;",
            ),
        ]),
        FailKind::Hang,
        &["did not finish", "built unoptimised", "a loop an optimiser removes"],
    )
    .watchdog(20),
    // The simulator told apart at run time, by where the runtime put A, and made to loop
    // there: the program reads a pointer's value, refused whatever it does with it.
    Case::rejects(
        L,
        "loops_only_under_the_simulator",
        Cheat,
        File("loops_only_under_the_simulator"),
        FailKind::NotSelfContained,
        &["line 14", "reads where the OpenCL runtime put memory", "(ulong)A"],
    ),
    // The simulator told apart without converting a pointer: A walked in steps of 2^40 bytes
    // until it meets B (the simulator puts buffers whole multiples of 2^48 apart), tiles only
    // then, the same access lines on both paths, so that every access runs under the
    // simulator. A pointer moved from one buffer's place to another's is refused where it moves.
    Case::rejects(
        L,
        "tiles_only_where_a_walked_pointer_meets_b",
        Cheat,
        File("tiles_only_where_a_walked_pointer_meets_b"),
        FailKind::NotSelfContained,
        &["line 23", "reads where the OpenCL runtime put memory", "`p += 1L << 38;`"],
    ),
    // The same asked by an ordering: A and B more than 2^32 bytes apart (two buffers'
    // pointers compared with `<`, which C leaves undefined).
    Case::rejects(
        L,
        "tiles_only_where_buffers_lie_far_apart",
        Cheat,
        File("tiles_only_where_buffers_lie_far_apart"),
        FailKind::NotSelfContained,
        &["line 20", "compared with another buffer's", "(A + (1L << 30) < B)"],
    ),
    // The same told by whether the two local tiles lie one right after the other: a pointer
    // one past A's tile compared for equality with B's tile's start.
    Case::rejects(
        L,
        "tiles_only_where_the_local_tiles_lie_apart",
        Cheat,
        File("tiles_only_where_the_local_tiles_lie_apart"),
        FailKind::NotSelfContained,
        &["reads where the OpenCL runtime put memory", "sim ?"],
    ),
    // The same read from a pointer kept in private memory beside two numbers, and read back
    // as the numbers (by vload2): nothing is converted, but a private slot that held a
    // pointer may be read back only as one.
    Case::rejects(
        L,
        "tiles_only_where_a_kept_pointer_reads_as_zero",
        Cheat,
        File("tiles_only_where_a_kept_pointer_reads_as_zero"),
        FailKind::NotSelfContained,
        &["line 26", "reads where the OpenCL runtime put memory", "vload2(0, k.words)"],
    ),
    // What C held before the kernel ran, read to choose a code: tiles only where it held a
    // number (as where the simulator looks), in launches larger than the sanitizer's. C's
    // earlier contents are not an input: a read of a buffer the kernel writes, where it has
    // not written yet, is refused in every look of the simulator, as the sanitizer refuses it
    // in its own small launches.
    Case::rejects(
        L,
        "tiles_only_where_c_held_a_number_before",
        Cheat,
        File("tiles_only_where_c_held_a_number_before"),
        FailKind::Uninitialized,
        &["line 20", "reads a buffer it writes", "before = many ? C[row * N + col]"],
    ),
    // Work-groups counting themselves by atomics on two elements of C: the first two to run
    // tile, which are the two the simulator runs of a large launch.
    Case::rejects(
        L,
        "tiles_only_for_the_first_work_groups_to_count_themselves",
        Cheat,
        File("tiles_only_for_the_first_work_groups_to_count_themselves"),
        FailKind::Uninitialized,
        &["line 21", "reads a buffer it writes", "atomic_xchg(slot, me)"],
    ),
    // Tiles only at the shapes it expects counted (powers of two, as the scoreboard asks, and
    // small problems), none at the shape drawn to time near the asked size: the technique is
    // counted at the very shape this grading times, drawn by the grading as the scoreboard's
    // is (never the asked size itself).
    Case::rejects(
        L,
        "tiles_only_at_powers_of_two_and_small_problems",
        Decoy,
        File("tiles_only_at_powers_of_two_and_small_problems"),
        FailKind::Technique,
        &["the shape this grading times"],
    )
    .scored(256),
    // The same file graded by `lab grade`, which times nothing: the technique is counted at
    // a shape drawn near the asked size as a timed one is, never the asked 256³ itself.
    Case::rejects(
        L,
        "tiles_only_at_powers_of_two_where_nothing_is_timed",
        Decoy,
        File("tiles_only_at_powers_of_two_and_small_problems"),
        FailKind::Technique,
        &["a shape drawn near the asked size for this grading"],
    ),
    // Tiles only where built unoptimised (an undefined signed overflow tells the builds
    // apart), behind a test the optimiser makes a population count of, which Oclgrind 21.10
    // lacks, so that the simulator would run the unoptimised build: the count is written
    // out for it (src/harness/oclgrind/lower.rs), the simulator runs the optimised build the
    // device runs, and there the kernel reads A and B from global memory.
    Case::rejects(
        L,
        "tiles_only_where_built_unoptimised_behind_a_popcount",
        Cheat,
        File("tiles_only_where_built_unoptimised_behind_a_popcount"),
        FailKind::Technique,
        &["values from global memory per multiply-add"],
    )
    .strict(),
    Case::rejects(
        L,
        "tiles_read_only_at_the_counted_size",
        Decoy,
        // The tiles are read only when C has as many elements as at the simulator's first
        // declared probe (16×24); everywhere else each product reads A and B from global memory.
        // The counts are taken at a shape drawn for each grading, never a declared one.
        Mutant(&[(
            "        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }",
            "        if (M * N == 384) {
            for (int k = 0; k < TS; k++) {
                acc += Asub[tr][k] * Bsub[k][tc];
            }
        } else {
            for (int k = 0; k < TS; k++) {
                acc += A[row * K + t * TS + k] * B[(t * TS + k) * N + col];
            }
        }",
        )]),
        FailKind::Technique,
        &["values from global memory per multiply-add", "2/TS"],
    ),
    Case::rejects(
        L,
        "tiles_only_in_the_first_and_last_work_groups",
        Decoy,
        // The tiles are read in the first and the last work-group (the two a simulator in
        // quick mode runs, if the ids it hands out were the device's); every other work-group
        // reads A and B from global memory for every product. The simulator's first group is,
        // as the kernel sees it, one drawn for the build (src/harness/groups.rs): the asked
        // size's count shows the global reads.
        tiles_only_where!(
            "(get_group_id(0) == 0 && get_group_id(1) == 0)
        || (get_group_id(0) == get_num_groups(0) - 1 && get_group_id(1) == get_num_groups(1) - 1)"
        ),
        FailKind::Technique,
        &["values from global memory per multiply-add", "one drawn for this grading"],
    ),
    // As above, but only in problems of 200 work-groups or more: the small problems the
    // simulator runs whole have fewer, and at the asked size one of its two groups is drawn.
    Case::rejects(
        L,
        "tiles_only_in_the_first_and_last_work_groups_of_large_problems",
        Decoy,
        tiles_only_where!(
            "get_num_groups(0) * get_num_groups(1) < 200
        || (get_group_id(0) == 0 && get_group_id(1) == 0)
        || (get_group_id(0) == get_num_groups(0) - 1 && get_group_id(1) == get_num_groups(1) - 1)"
        ),
        FailKind::Technique,
        &["values from global memory per multiply-add", "one drawn for this grading"],
    ),
    // As above, with the group ids the driver hands out, read around the course's macros (a
    // function-like macro's name followed by another macro that expands to the parenthesis).
    // The simulator runs a drawn group itself, not only one the kernel sees as drawn.
    Case::rejects(
        L,
        "tiles_only_in_the_drivers_first_and_last_groups",
        Decoy,
        File("tiles_only_in_the_drivers_first_and_last_groups"),
        FailKind::Technique,
        &["values from global memory per multiply-add", "one drawn for this grading"],
    ),
    Case::rejects(
        L,
        "tiles_at_the_ends_only_with_the_devices_own_tile",
        Decoy,
        // As above, but only with TS = 16, the tile every GPU and PoCL takes: a whole look of
        // one declared set drawn from two (16 and 4) saw it in half the gradings. The device's
        // own defines are counted at a problem of whole work-groups, every one run.
        tiles_only_where!(
            "TS != 16 || (get_group_id(0) == 0 && get_group_id(1) == 0)
        || (get_group_id(0) == get_num_groups(0) - 1 && get_group_id(1) == get_num_groups(1) - 1)"
        ),
        FailKind::Technique,
        &["values from global memory per multiply-add", "with TS = 16", "one drawn for this grading"],
    ),
    Case::rejects(
        L,
        "races_only_with_the_devices_own_tile",
        Race,
        // Each work-item reads its neighbour's element of A's tile while the neighbour writes
        // it, only with TS = 16 (the tile every GPU and PoCL takes, which the sanitizer's
        // declared sets do not use and its drawn set used in one grading of four). The
        // product is right. The sanitizer always runs the device's own defines, two k-steps
        // deep.
        Mutant(&[(
            "        Asub[tr][tc] = A[row * K + t * TS + tc];
",
            "        Asub[tr][tc] = A[row * K + t * TS + tc];
#if TS == 16
        if (t > 0) {
            acc += 0.0f * Asub[tr][(tc + 1) % TS];
        }
#endif
",
        )]),
        FailKind::Race,
        &["data race", "TS=16", "__local Asub"],
    ),
    Case::rejects_any(
        L,
        "uninitialised_only_with_the_devices_own_tile",
        Uninitialised,
        // The accumulator starts from whatever the register held, only with TS = 16 (the tile
        // every GPU and PoCL takes, which the sanitizer's declared sets do not use and its
        // drawn set used in half the gradings). The device's own defines are run built
        // unoptimised at the asked size, whatever the draw (UNDEFINED BEHAVIOUR); the
        // sanitizer names the line where it drew TS = 16 (UNINITIALISED VALUE).
        Mutant(&[(
            "    float acc = 0.0f;
",
            "#if TS == 16
    float acc;
    acc = (get_local_id(0) == 99) ? 0.0f : acc;
#else
    float acc = 0.0f;
#endif
",
        )]),
        &[FailKind::Undefined, FailKind::Uninitialized],
        &["never initialised", "TS=16"],
    ),
    Case::rejects_any(
        L,
        "uninitialised_with_the_devices_own_tile_on_small_problems",
        Uninitialised,
        // The accumulator is undefined only with TS = 16 (the tile every GPU and PoCL takes,
        // which the sanitizer's drawn set uses in some gradings only) and only while the launch
        // has at most 64 work-groups (every size a user multiplies has more). The optimiser
        // makes the undefined start zero; the device's unoptimised run covers its small
        // problems as well as the asked size, in every grading (or the sanitizer first, as
        // above).
        Mutant(&[(
            "    float acc = 0.0f;
",
            "#if TS == 16
    float acc;
    if (get_num_groups(0) * get_num_groups(1) > 64) {
        acc = 0.0f;
    }
#else
    float acc = 0.0f;
#endif
",
        )]),
        &[FailKind::Undefined, FailKind::Uninitialized],
        &["never initialised", "TS=16"],
    ),
    Case::rejects_any(
        L,
        "uninitialised_only_among_many_work_groups",
        Uninitialised,
        // The accumulator starts from whatever the register held where the launch has more
        // than 64 work-groups: none of the small problems the simulator can afford has, the
        // size the grading was asked for does. The optimiser makes the undefined start zero,
        // so the device's numbers are right; the kernel built unoptimised runs there too, and
        // the simulator at the grading's largest launch names the line (the device's finding
        // after it).
        Mutant(&[(
            "    float acc = 0.0f;
",
            "    float acc;
    if (get_num_groups(0) * get_num_groups(1) <= 64) {
        acc = 0.0f;
    }
",
        )]),
        &[FailKind::Undefined, FailKind::Uninitialized],
        &["built without optimisation", "the size this grading was asked for", "before anything was stored"],
    ),
    Case::rejects(
        L,
        "tiles_only_on_small_problems",
        Decoy,
        // The tiles are read where the whole product is small (every shape the simulator's
        // define sets are counted at, whatever the draw); a problem of the size users multiply
        // reads A and B from global memory for every product.
        Mutant(&[(
            "        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }",
            "        if (M * N * K <= 96 * 96 * 96) {
            for (int k = 0; k < TS; k++) {
                acc += Asub[tr][k] * Bsub[k][tc];
            }
        } else {
            for (int k = 0; k < TS; k++) {
                acc += A[row * K + t * TS + k] * B[(t * TS + k) * N + col];
            }
        }",
        )]),
        FailKind::Technique,
        &["values from global memory per multiply-add", "a shape drawn near the asked size for this grading"],
    ),
    Case::rejects(
        L,
        "tiles_read_only_at_the_counted_tile_size",
        Decoy,
        // The tiles are read only when the kernel is built with the tile size lesson 05 once
        // declared for the technique's counts (TS = 8, also a small GPU's); the device's own
        // TS (16 on most devices) reads A and B from global memory for every product, and
        // the technique is counted with it near the asked size.
        Mutant(&[(
            "        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }",
            "#if TS == 8
        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }
#else
        for (int k = 0; k < TS; k++) {
            acc += A[row * K + t * TS + k] * B[(t * TS + k) * N + col];
        }
#endif",
        )]),
        FailKind::Technique,
        &["values from global memory per multiply-add", "2/TS", "a shape drawn near the asked size for this grading"],
    ),
    Case::rejects(
        L,
        "tiles_loaded_but_not_read",
        Decoy,
        Mutant(&[(
            "acc += Asub[tr][k] * Bsub[k][tc];",
            "acc += A[row * K + t * TS + k] * B[(t * TS + k) * N + col];",
        )]),
        FailKind::Technique,
        &["values from global memory per multiply-add", "2/TS"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    C[row * N + col] = acc;
    // EXERCISE END",
            "    if (row == 0 && col == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"05_local_tiling\\\",\\\"failure\\\":null}}\\n\");
        printf(\"PASSED\\n\");
    }
    C[row * N + col] = acc * 0.5f;
    // EXERCISE END",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // Correct in another style.
    Case::accepts(L, "transposed_b_tile", File("transposed_b_tile")),
    // A power-of-two test the optimiser makes a population count of, which Oclgrind 21.10
    // lacks: written out for the simulator, the optimised build counted, the technique
    // checked (a strict grading passes it).
    Case::accepts(
        L,
        "tile_count_by_shift_where_k_is_a_power_of_two",
        File("tile_count_by_shift_where_k_is_a_power_of_two"),
    )
    .timed_at(256, [256, 272, 256])
    .strict(),
    // `restrict` pointers, and a helper with `restrict` parameters that the optimiser
    // inlines into alias-scope declarations, which Oclgrind 21.10 lacks: dropped for the
    // simulator, the optimised build counted, the technique checked.
    Case::accepts(
        L,
        "restrict_pointers_and_an_inlined_helper",
        File("restrict_pointers_and_an_inlined_helper"),
    )
    .strict(),
    // Correct, with a loop for a last partial tile that never runs: the lesson's sizes are
    // whole tiles. Its accesses run neither under the simulator nor on the device.
    Case::accepts(
        L,
        "a_tail_loop_that_never_runs",
        Mutant(&[(
            "    C[row * N + col] = acc;
    // EXERCISE END",
            "    for (int k = tiles * TS; k < K; k++) {
        acc += A[row * K + k] * B[k * N + col];
    }
    C[row * N + col] = acc;
    // EXERCISE END",
        )]),
    ),
    // The same tail through a typedef'd pointer and a macro: runs nowhere, accepted.
    Case::accepts(
        L,
        "a_tail_loop_through_a_macro_that_never_runs",
        Mutant(&[(
            "    C[row * N + col] = acc;
    // EXERCISE END",
            "    typedef const __global float* row_t;
    row_t a_row = A + row * K;
#define B_AT(r) B[(r) * N + col]
    for (int k = tiles * TS; k < K; k++) {
        acc += a_row[k] * B_AT(k);
    }
    C[row * N + col] = acc;
    // EXERCISE END",
        )]),
    ),
    Case::accepts(
        L,
        "unrolled_by_four",
        Mutant(&[(
            "        for (int k = 0; k < TS; k++) {
            acc += Asub[tr][k] * Bsub[k][tc];
        }",
            "        for (int k = 0; k < TS; k += 4) {
            acc += Asub[tr][k] * Bsub[k][tc];
            acc += Asub[tr][k + 1] * Bsub[k + 1][tc];
            acc += Asub[tr][k + 2] * Bsub[k + 2][tc];
            acc += Asub[tr][k + 3] * Bsub[k + 3][tc];
        }",
        )]),
    ),
    // Stores only where C holds NaN or zero, as if those were the only values a C to be
    // computed could hold: C holds random numbers or an earlier product before many checked
    // calls, and there nothing is written.
    Case::rejects(
        L,
        "writes_only_where_c_is_nan_or_zero",
        Cheat,
        Mutant(&[(
            "    C[row * N + col] = acc;
    // EXERCISE END",
            "    const float held = C[row * N + col];
    if (isnan(held) || held == 0.0f) {
        C[row * N + col] = acc;
    }
    // EXERCISE END",
        )]),
        // The simulator names the read of C; the device saw C left as it was on a call where
        // it held numbers.
        FailKind::Uninitialized,
        &[
            "C read before the kernel wrote it",
            "C NOT WRITTEN",
            "never wrote C",
        ],
    ),
];
}
