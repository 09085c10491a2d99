//! Lesson 03's grader: the reference passes; versions wrong on purpose (edits of the
//! solution, made at test time) are rejected with what the student needs to read.

use lab::grade::FailKind;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn solution_passes() {
    g().solution_passes("03");
}

#[test]
fn rejects_chunks_that_are_not_rows() {
    g().rejects_mutant(
        "03",
        "chunks_of_k",
        &[(".par_chunks_mut(n)", ".par_chunks_mut(k.max(1))")],
        FailKind::Crash,
        &["`matmul_parallel` panicked"],
    );
}

#[test]
fn rejects_rows_that_are_never_cleared() {
    g().rejects_mutant(
        "03",
        "rows_not_cleared",
        &[("            c_row.fill(0.0);\n", "")],
        FailKind::Unwritten,
        &["`matmul_parallel`", "NaN"],
    );
}
