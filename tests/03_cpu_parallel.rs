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

fn right(name: &str) -> std::path::PathBuf {
    g().opts
        .course
        .tests()
        .join("right/03_cpu_parallel")
        .join(format!("{name}.rs"))
}

#[test]
fn rejects_a_sequential_product() {
    g().rejects(
        "03",
        "sequential",
        FailKind::Technique,
        &["`matmul_parallel` did", "on one thread", "par_chunks_mut"],
    );
}

#[test]
fn rejects_a_parallel_fill_before_a_sequential_product() {
    g().rejects(
        "03",
        "parallel_fill_only",
        FailKind::Technique,
        &["on one thread"],
    );
}

#[test]
fn rejects_a_join_with_all_the_work_on_one_side() {
    g().rejects(
        "03",
        "join_with_all_on_one_side",
        FailKind::Technique,
        &["on one thread"],
    );
}

#[test]
fn accepts_scoped_threads_over_bands_of_rows() {
    let v = g().grade_file("03", right("scoped_threads"));
    assert!(v.passed(), "{}", lab::report::verdict(&v));
    assert!(
        v.notes.iter().any(|n| n.contains("shares its work")),
        "{v:?}"
    );
}
