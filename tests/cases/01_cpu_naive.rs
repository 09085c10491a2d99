//! Lesson 01's cases: a first Rust matrix product gone wrong in the ways students get it
//! wrong, and the walls of the crate it is built in. Read by tests/01_cpu_naive.rs and
//! tests/suite.rs.

use crate::common::{Case, Class::*, Code::*};
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
        "adds_into_nan",
        Uninitialised,
        File("adds_into_nan"),
        FailKind::Unwritten,
        &["NaN", "without clearing it first"],
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
];
