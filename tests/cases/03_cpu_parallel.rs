//! Lesson 03's cases: rows handed to threads gone wrong, each with what the grader must say.
//! Read by tests/03_cpu_parallel.rs and tests/suite.rs.

use lab::grade::FailKind;
use lab::testing::{Case, Class::*, Code::*};

const L: &str = "03";

pub const CASES: &[Case] = &[
    Case::rejects(
        L,
        "chunks_of_k",
        Asymmetric,
        Mutant(&[(".par_chunks_mut(n)", ".par_chunks_mut(k.max(1))")]),
        FailKind::Crash,
        &["`matmul_parallel` panicked"],
    ),
    Case::rejects(
        L,
        "rows_of_a_of_n",
        Asymmetric,
        Mutant(&[("let a_ip = a[i * k + p];", "let a_ip = a[i * n + p];")]),
        FailKind::Crash,
        &["`matmul_parallel` panicked", "index out of bounds"],
    ),
    Case::rejects(
        L,
        "rows_not_cleared",
        Uninitialised,
        Mutant(&[("            c_row.fill(0.0);\n", "")]),
        FailKind::Unwritten,
        &["`matmul_parallel`", "NaN"],
    ),
];
