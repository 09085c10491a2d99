//! Lesson 04's grader: the reference passes; the cases below
//! (kernels wrong on purpose, and correct ones in other styles) are graded as they expect.

mod common;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 04` grades it, with the same report:
/// `cargo test --test 04_naive_kernel -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("04")
}

#[test]
fn solution_passes() {
    g().solution_passes("04");
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

pub mod cases {
    //! Lesson 04's cases: mistakes students make in a first kernel, each with what the grader
    //! must say, and correct kernels in other styles. Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "04";

    pub const CASES: &[Case] = &[
    // Directions: the matrices are not square, so a swapped index cannot pass.
    Case::rejects(
        L,
        "row_as_dim0_transposed",
        Asymmetric,
        File("row_as_dim0_transposed"),
        // Dimension 0 of the launch spans the columns; a kernel that takes it as the row
        // computes a transposed C and leaves part of it unwritten.
        FailKind::Unwritten,
        &["never written", "still holds the value C held there before the call"],
    ),
    // C's index held in a float: exact up to 2^24 elements, so wrong only where C has more
    // (every grading checks one such C, over a K of 8 to 12: grade::shapes::thin).
    Case::rejects_any(
        L,
        "index_held_in_a_float",
        Edge,
        Mutant(&[(
            "C[row * N + col] = acc;",
            "C[(int)((float)row * (float)N + (float)col)] = acc;",
        )]),
        // Rounded to the nearest float, an index lands on a neighbour: one never written,
        // another written twice, the last past C's end.
        &[FailKind::Unwritten, FailKind::Wrong, FailKind::OutOfBounds],
        &["M=4"],
    ),
    // Wrong only where M, N and K all pass 512: the last column left at zero. No side of
    // the lesson's, drawn or thin shapes passes 512 with both others; every grading checks
    // one shape past the asked size on every side at once (grade::shapes::past_every_side:
    // 513 to 576 at a CPU's 256, 4,097 to 4,352 at a GPU's 1024).
    Case::rejects(
        L,
        "last_column_dropped_where_every_side_is_large",
        Cheat,
        Mutant(&[(
            "C[row * N + col] = acc;",
            "C[row * N + col] = (M > 512 && N > 512 && K > 512 && col == N - 1) ? 0.0f : acc;",
        )]),
        FailKind::Wrong,
        &["expected", "got", "column"],
    ),
    Case::rejects(
        L,
        "wrong_index",
        Asymmetric,
        File("wrong_index"),
        FailKind::Wrong,
        &["row 0, column 0", "expected", "got", "max relative error"],
    ),
    Case::rejects(
        L,
        "c_rows_of_m",
        Asymmetric,
        Mutant(&[("C[row * N + col] = acc;", "C[row * M + col] = acc;")]),
        FailKind::BadAccess,
        &["past the end of C", "C[row * N + col]", "never written"],
    ),
    // Edges.
    Case::rejects(
        L,
        "k_up_to_and_including_k",
        Edge,
        Mutant(&[("k < K", "k <= K")]),
        FailKind::BadAccess,
        &["past the end of B", "k < K, not k <= K"],
    ),
    Case::rejects(
        L,
        "ushort_index",
        Edge,
        File("ushort_index"),
        FailKind::Unwritten,
        &["M=263 N=257 K=9", "(row 255, column 1) was never written"],
    ),
    Case::rejects_any(
        L,
        "short_index",
        Edge,
        Mutant(&[
            (
                "const int row = get_global_id(1);",
                "const int row = get_global_id(1);
    const short idx = row * N + col;",
            ),
            ("C[row * N + col] = acc;", "C[idx] = acc;"),
        ]),
        // A signed 16-bit index turns negative past 32 767 and stores before C, outside every
        // buffer, where no guard can see it: what follows is the runtime's memory corrupted.
        // PoCL's worker then aborts, or (one suite run in three on 2026-11-29) hangs until the
        // watchdog stops it; elsewhere the elements past it stay unwritten. The simulator, at
        // the grading's largest launch, names the store before C, with the device's failure
        // after it.
        &[
            FailKind::Crash,
            FailKind::Hang,
            FailKind::Unwritten,
            FailKind::BadAccess,
        ],
        &["M=263 N=257 K=9"],
    ),
    Case::rejects(
        L,
        "next_pair_read_ahead",
        OutOfBoundsRead,
        File("next_pair_read_ahead"),
        FailKind::BadAccess,
        &["past the end of B", "b_next"],
    ),
    // The same read past B only where a work-group holds several work-items: every device and
    // the simulator run the one work-group `Launch::work_group` chooses, never groups of one
    // under the simulator beside larger ones elsewhere.
    Case::rejects(
        L,
        "reads_ahead_in_groups_of_many",
        Cheat,
        File("reads_ahead_in_groups_of_many"),
        FailKind::BadAccess,
        &["past the end of B", "b_next"],
    ),
    Case::rejects(
        L,
        "races_only_where_the_pointers_say_device",
        Cheat,
        // A pointer punned to an integer through a private union: the sanitizer's unoptimised
        // build keeps it a store and a load, the device's optimised one reads the value.
        File("races_only_where_the_pointers_say_device"),
        FailKind::NotSelfContained,
        &["line 22", "reads where the OpenCL runtime put memory", "where.u"],
    ),
    Case::rejects(
        L,
        "out_of_bounds",
        OutOfBoundsWrite,
        File("out_of_bounds"),
        FailKind::OutOfBounds,
        &["outside C", "past the end", "row"],
    ),
    Case::rejects(
        L,
        "accumulator_uninitialised",
        Uninitialised,
        Mutant(&[("float acc = 0.0f;", "float acc;")]),
        FailKind::Uninitialized,
        &["never initialised", "acc"],
    ),
    Case::rejects(
        L,
        "accumulator_uninitialised_on_long_rows",
        Uninitialised,
        // Set to zero only while K is at most 200: longer than every shape the simulator
        // runs, shorter than the size the grading was asked for. The optimiser makes the
        // undefined start zero, so the device's numbers are right; built unoptimised, the
        // kernel runs at that size too, and the start is whatever the memory held.
        Mutant(&[(
            "float acc = 0.0f;",
            "float acc;
    if (K <= 200) acc = 0.0f;",
        )]),
        FailKind::Undefined,
        &["built without optimisation", "before anything was stored"],
    ),
    // Results and inputs.
    Case::rejects(
        L,
        "integer_accumulator",
        WrongResult,
        Mutant(&[("float acc = 0.0f;", "int acc = 0;")]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "never_writes",
        WrongResult,
        File("never_writes"),
        FailKind::Unwritten,
        &["never wrote C", "NaN"],
    ),
    Case::rejects(
        L,
        "writes_into_b",
        WrongResult,
        File("writes_into_b"),
        FailKind::InputsChanged,
        &["wrote into B", "row 0, column 0"],
    ),
    // Building, the signature, running away.
    Case::rejects(
        L,
        "does_not_compile",
        Build,
        File("does_not_compile"),
        FailKind::Build,
        // The compiler's whole log, line by line.
        &["does_not_compile.cl", "did not compile", "acc", "\n  | "],
    ),
    Case::rejects(
        L,
        "wrong_arguments",
        Build,
        File("wrong_arguments"),
        FailKind::Signature,
        &["takes 5 argument", "passes 6", "const int K"],
    ),
    Case::rejects(
        L,
        "wrong_name",
        Build,
        File("wrong_name"),
        FailKind::Signature,
        &["no kernel named `matmul`", "`gemm`"],
    ),
    Case::rejects(
        L,
        "never_finishes",
        Runaway,
        File("never_finishes"),
        FailKind::Hang,
        &["did not finish", "running"],
    )
    .watchdog(20),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        File("prints_a_forged_verdict"),
        FailKind::Wrong,
        &["expected", "got 1.0"],
    )
    .printing(&["LAB-EVENT"]),
    // Right only at the published sizes: each grading draws one more.
    Case::rejects(
        L,
        "right_only_at_the_published_shapes",
        Cheat,
        File("right_only_at_the_published_shapes"),
        FailKind::Wrong,
        &["expected", "got 0.000000"],
    ),
    Case::rejects(
        L,
        "asks_the_opencl_version",
        Cheat,
        File("asks_the_opencl_version"),
        FailKind::NotSelfContained,
        &["line 13", "`__OPENCL_C_VERSION__`", "same code on every device"],
    ),
    // Cheats: work skipped where a grader might not look. The asked size (here the timed
    // one) is itself a checked problem, every call, timed or not, gets fresh inputs and a C
    // holding NaN, random numbers or an earlier product, drawn per call, and is checked.
    Case::rejects(
        L,
        "skip_square_problems",
        Cheat,
        File("skip_square_problems"),
        FailKind::Unwritten,
        // Not the shape's words: the shape drawn for the grading is square one time in 64
        // and is checked before the asked one.
        &["never wrote C"],
    )
    .timed(64),
    Case::rejects(
        L,
        "sampled_elements_only",
        Cheat,
        File("sampled_elements_only"),
        FailKind::Unwritten,
        &["M=520 N=520 K=520", "never written"],
    )
    .timed(520),
    Case::rejects(
        L,
        "skip_when_c_holds_numbers",
        Cheat,
        File("skip_when_c_holds_numbers"),
        FailKind::Uninitialized,
        // The simulator names the line that reads C; the device saw C left as it was, on a
        // call where C held numbers.
        &[
            "skip_when_c_holds_numbers.cl:10",
            "C read before the kernel wrote it",
            "C NOT WRITTEN",
            "still holds the value it had before the call",
        ],
    )
    .timed(64),
    // Less precision where K is large (no drawn problem has K ≥ 512; the asked size, 1024
    // here, does, and it is checked): inputs rounded to half's 10 bits of mantissa, as fast
    // half arithmetic would need. Every element stays within the rounding bound of an FP32 sum of K products; C as
    // a whole is hundreds of times less precise than FP32.
    Case::rejects(
        L,
        "half_precision_when_k_is_large",
        Cheat,
        Mutant(&[(
            "        acc += A[row * K + k] * B[k * N + col];",
            "        float a = A[row * K + k], b = B[k * N + col];
        if (K >= 512) {
            a = as_float((as_uint(a) + 0x1000u) & 0xffffe000u);
            b = as_float((as_uint(b) + 0x1000u) & 0xffffe000u);
        }
        acc += a * b;",
        )]),
        FailKind::Wrong,
        &["M=1024 N=1024 K=1024", "less precise than FP32", "in float"],
    )
    .timed(1024),
    // Wrong only at "round" sizes: the asked size, a power-of-two cube and a shape of
    // multiples of 256 are checked at every grading, and a C past 2^20 elements.
    Case::rejects(
        L,
        "wrong_at_square_powers_of_two",
        Edge,
        Mutant(&[(
            "C[row * N + col] = acc;",
            "C[row * N + col] = (M == N && N == K && (M & (M - 1)) == 0 && M >= 256 && row == M - 1) ? 0.0f : acc;",
        )]),
        FailKind::Wrong,
        &["M=256 N=256 K=256"],
    ),
    Case::rejects(
        L,
        "wrong_when_every_side_is_a_multiple_of_128",
        Edge,
        Mutant(&[(
            "C[row * N + col] = acc;",
            "C[row * N + col] = (M % 128 == 0 && N % 128 == 0 && K % 128 == 0 && M >= 256 && col == 0) ? -acc : acc;",
        )]),
        FailKind::Wrong,
        &["column 0"],
    ),
    Case::rejects(
        L,
        "wrong_past_a_million_elements_of_c",
        Edge,
        Mutant(&[(
            "C[row * N + col] = acc;",
            "C[row * N + col] = (M * N > 1000000 && row == M - 1 && col == N - 1) ? acc + 1.0f : acc;",
        )]),
        FailKind::Wrong,
        &[],
    ),
    // Reads past the end of A except on the inputs the simulator used to be given (seed 4242:
    // A[0] = -0.9966566562652588 at its probe shape), which anyone could compute from the
    // course's code. The simulator's inputs are drawn for each grading now. On the device
    // the read lands in the guard zone behind A and changes nothing.
    Case::rejects(
        L,
        "reads_past_a_except_on_the_simulators_inputs",
        OutOfBoundsRead,
        Mutant(&[(
            "    C[row * N + col] = acc;
    // EXERCISE END",
            "    if (A[0] != -0.9966566562652588f) {
        const float next = A[row * K + K];
        if (next == 12345.0f) {
            acc += 1.0f;
        }
    }
    C[row * N + col] = acc;
    // EXERCISE END",
        )]),
        FailKind::BadAccess,
        &["past the end of A", "A[row * K + K]"],
    ),
    // Reads past the end of A except at the simulator's declared probe shape (37×29×23 in
    // the lesson's declaration, which anyone can read). The sanitizer also runs one of its
    // probes at a shape drawn for each grading, where the read is seen.
    Case::rejects(
        L,
        "reads_past_a_except_at_the_declared_probe",
        OutOfBoundsRead,
        Mutant(&[(
            "    C[row * N + col] = acc;
    // EXERCISE END",
            "    if (!(M == 37 && N == 29 && K == 23)) {
        const float next = A[row * K + K];
        if (next == 12345.0f) {
            acc += 1.0f;
        }
    }
    C[row * N + col] = acc;
    // EXERCISE END",
        )]),
        FailKind::BadAccess,
        &["past the end of A", "A[row * K + K]"],
    ),
    // Correct in another style.
    Case::accepts(L, "unrolled_by_four", File("unrolled_by_four")),
    Case::accepts(L, "pointer_walk", File("pointer_walk")),
    Case::accepts(L, "pointer_loop_to_an_end", File("pointer_loop_to_an_end")),
    Case::accepts(
        L,
        "double_accumulator",
        Mutant(&[
            ("float acc = 0.0f;", "double acc = 0.0;"),
            (
                "acc += A[row * K + k] * B[k * N + col];",
                "acc += (double)A[row * K + k] * B[k * N + col];",
            ),
            ("C[row * N + col] = acc;", "C[row * N + col] = (float)acc;"),
        ]),
    ),
];
}
