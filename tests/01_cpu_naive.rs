//! Lesson 01's grader: the reference passes; the cases below (files
//! wrong on purpose, and a right one that prints) are graded as they expect. The student's
//! Rust is built as a crate of its own, so these also prove what that crate can and cannot
//! do.

mod common;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 01` grades it, with the same report:
/// `cargo test --test 01_cpu_naive -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("01")
}

#[test]
fn solution_passes() {
    g().solution_passes("01");
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

pub mod cases {
    //! Lesson 01's cases: a first Rust matrix product gone wrong in the ways students get it
    //! wrong, and the walls of the crate it is built in. Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "01";

    pub const CASES: &[Case] = &[
    // The student's crate: rustc's own message, and nothing of the course within reach.
    Case::rejects(
        L,
        "does_not_compile",
        Build,
        File("does_not_compile"),
        FailKind::Build,
        // rustc's own lines, with the file and line of each error.
        &[
            "does_not_compile.rs",
            "did not compile",
            "expected `;`",
            "accc",
            "does_not_compile.rs:5",
        ],
    ),
    Case::rejects(
        L,
        "calls_the_course",
        Build,
        File("calls_the_course"),
        FailKind::Build,
        &["`lab`", "calls_the_course.rs"],
    ),
    Case::rejects(
        L,
        "calls_matrixmultiply",
        Build,
        File("calls_matrixmultiply"),
        FailKind::Build,
        &["`matrixmultiply`", "calls_matrixmultiply.rs"],
    ),
    Case::rejects(
        L,
        "missing_function",
        Build,
        File("missing_function"),
        FailKind::Build,
        &["pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize)"],
    ),
    // Results.
    Case::rejects(
        L,
        "wrong_stride",
        Asymmetric,
        File("wrong_stride"),
        FailKind::Wrong,
        &["`matmul`", "expected", "got", "row"],
    ),
    Case::rejects(
        L,
        "sums_k_in_capped_parts",
        Edge,
        // Right wherever K is at most 900: every grading also checks Ks past 1,024.
        File("sums_k_in_capped_parts"),
        FailKind::Wrong,
        &["`matmul`", "expected", "got", "K="],
    ),
    Case::rejects(
        L,
        "adds_into_nan",
        Uninitialised,
        File("adds_into_nan"),
        FailKind::Unwritten,
        &["NaN", "without clearing it first", "before the call"],
    ),
    Case::rejects(
        L,
        "index_out_of_range",
        Runaway,
        File("index_out_of_range"),
        FailKind::Crash,
        &["panicked", "index out of bounds", "index_out_of_range.rs:"],
    ),
    Case::rejects(
        L,
        "never_finishes",
        Runaway,
        File("never_finishes"),
        FailKind::Hang,
        &["did not finish", "`matmul`"],
    )
    .watchdog(20),
    // Printing: shown to the student, and never taken for a verdict.
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        File("prints_a_forged_verdict"),
        FailKind::Wrong,
        &["expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    Case::accepts(L, "prints_while_right", File("prints_while_right")).printing(&["computing a"]),
    // Lines that look like the driver's answers, a verdict, "PASSED" and a scoreboard row:
    // the driver's answers go to a channel of its own, and nothing printed is read as one.
    Case::rejects(
        L,
        "prints_the_protocol_and_a_passing_board",
        Forged,
        File("prints_the_protocol_and_a_passing_board"),
        FailKind::Wrong,
        &["`matmul`", "expected", "got"],
    )
    .printing(&["ready", "PASSED", "done, 99999 GFLOP/s", "\"failure\":null"]),
    Case::accepts(
        L,
        "prints_the_protocol_while_right",
        File("prints_the_protocol_while_right"),
    )
    .printing(&["PASSED", "done, 99999 GFLOP/s"])
    .timed(64),
    // Reaching past the sandbox: the grader's processes and files are out of sight, and
    // only the grader's own clock and checks count.
    // Code that is not the file's own: refused before it is built.
    Case::rejects(
        L,
        "includes_the_solution",
        Cheat,
        File("includes_the_solution"),
        FailKind::NotSelfContained,
        &["line 2", "`include`", "another file"],
    ),
    Case::rejects(
        L,
        "an_include_behind_a_raw_identifier",
        Cheat,
        // `r#name` is a name, not a raw string's opening: the include after it is seen.
        File("an_include_behind_a_raw_identifier"),
        FailKind::NotSelfContained,
        &["line 4", "`include`", "another file"],
    ),
    Case::rejects(
        L,
        "runs_another_program",
        Cheat,
        File("runs_another_program"),
        FailKind::NotSelfContained,
        &["`Command`", "another program"],
    ),
    Case::rejects(
        L,
        "forges_a_verdict_through_proc",
        Forged,
        File("forges_a_verdict_through_proc"),
        FailKind::Wrong,
        &["`matmul`", "expected", "got"],
    ),
    Case::rejects(
        L,
        "looks_for_the_graders_files",
        Forged,
        File("looks_for_the_graders_files"),
        FailKind::Wrong,
        &["`matmul`", "expected", "got"],
    )
    .printing(&["found nothing"]),
    Case::rejects(
        L,
        "answers_in_the_drivers_place",
        Forged,
        File("answers_in_the_drivers_place"),
        FailKind::Crash,
        &["`matmul`", "channel", "println!"],
    ),
    // Speed without the work: every timed call has fresh inputs and a poisoned C, and is
    // checked before its time counts; the timed size itself is also a checked problem, so
    // code that skips work there fails before it is timed.
    Case::rejects(
        L,
        "remembers_by_address",
        Cheat,
        File("remembers_by_address"),
        FailKind::Wrong,
        &[
            "`matmul`",
            "timed call",
            "gave a wrong C",
            "remembers an earlier call",
        ],
    )
    .timed(64),
    Case::rejects(
        L,
        "skips_square_problems",
        Cheat,
        File("skips_square_problems"),
        FailKind::Wrong,
        // Not the shape's words: the small shape drawn for the grading is a square (64³) one
        // time in 64, and is checked before the asked one.
        &["`matmul`", "C is wrong"],
    )
    .timed(256),
    Case::rejects(
        L,
        "computes_only_the_sampled_elements",
        Cheat,
        File("computes_only_the_sampled_elements"),
        FailKind::Wrong,
        &["`matmul`", "M=576 N=576 K=576", "C is wrong"],
    )
    .timed(576),
    Case::rejects_any(
        L,
        "works_on_the_first_call_only",
        Cheat,
        File("works_on_the_first_call_only"),
        &[FailKind::Unwritten, FailKind::Wrong],
        &["`matmul`"],
    ),
    // Wrong only at "round" sizes or for a large C: every grading checks the asked size, a
    // shape of multiples of 256 near it and a C past 2^20 elements.
    Case::rejects(
        L,
        "wrong_when_every_side_is_a_multiple_of_64",
        Edge,
        Mutant(&[(
            "            c[i * n + j] = sum;\n",
            "            c[i * n + j] = if m % 64 == 0 && n % 64 == 0 && k % 64 == 0 && m >= 256 && i == 0 { -sum } else { sum };\n",
        )]),
        FailKind::Wrong,
        &["`matmul`"],
    ),
    Case::rejects(
        L,
        "wrong_past_a_million_elements_of_c",
        Edge,
        Mutant(&[(
            "            c[i * n + j] = sum;\n",
            "            c[i * n + j] = if m * n > 1_000_000 && i + 1 == m && j + 1 == n { sum + 1.0 } else { sum };\n",
        )]),
        FailKind::Wrong,
        &["`matmul`"],
    ),
    // C's poison varies (NaN, random numbers, an earlier C), drawn per call: a shortcut taken
    // when C already holds numbers is taken on checked calls too, and leaves C as it was.
    Case::rejects(
        L,
        "skips_when_c_holds_numbers",
        Cheat,
        File("skips_when_c_holds_numbers"),
        FailKind::Unwritten,
        &[
            "`matmul`",
            "never wrote C",
            "still holds the value it had before the call",
            "skip work when C already holds numbers",
        ],
    )
    .timed(128),
    // A shortcut that never fires, since every call meets inputs it has not seen: right, at
    // its honest speed, whatever C holds.
    Case::accepts(L, "remembers_by_checksum", File("remembers_by_checksum")).timed(128),
];
}
