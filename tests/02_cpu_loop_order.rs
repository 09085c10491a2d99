//! Lesson 02's grader: the reference passes; versions wrong on purpose (edits of the
//! solution, made at test time) are rejected with what the student needs to read.

use lab::grade::FailKind;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn solution_passes() {
    g().solution_passes("02");
}

#[test]
fn rejects_rows_of_c_that_are_never_cleared() {
    g().rejects_mutant(
        "02",
        "ikj_without_clearing",
        &[(
            "c_row.fill(0.0); // C arrives as NaN: start each row from zero",
            "",
        )],
        FailKind::Unwritten,
        &["`matmul_ikj`", "NaN", "without clearing it first"],
    );
}

#[test]
fn rejects_a_blocked_loop_that_drops_the_last_partial_block() {
    g().rejects_mutant(
        "02",
        "blocked_drops_partial_blocks",
        &[(
            "for p0 in (0..k).step_by(BK) {",
            "for p0 in (0..k / BK * BK).step_by(BK) {",
        )],
        FailKind::Wrong,
        &["`matmul_blocked`", "expected", "got 0.0"],
    );
}

#[test]
fn rejects_a_block_that_reads_the_wrong_columns_of_b() {
    g().rejects_mutant(
        "02",
        "blocked_b_without_column_offset",
        &[(
            "let b_row = &b[p * n + j0..p * n + j1];",
            "let b_row = &b[p * n..p * n + (j1 - j0)];",
        )],
        FailKind::Wrong,
        &["`matmul_blocked`", "expected", "got"],
    );
}

fn right(name: &str) -> std::path::PathBuf {
    g().opts
        .course
        .tests()
        .join("right/02_cpu_loop_order")
        .join(format!("{name}.rs"))
}

#[test]
fn rejects_the_ijk_order_under_the_ikj_name() {
    g().rejects(
        "02",
        "ijk_under_the_ikj_name",
        FailKind::Technique,
        &[
            "loop order",
            "`matmul_ikj`",
            "misses the first-level cache",
            "walks down a column",
        ],
    );
}

#[test]
fn rejects_an_innermost_loop_down_a_column_of_c() {
    g().rejects(
        "02",
        "jki_order",
        FailKind::Technique,
        &["loop order", "`matmul_ikj`"],
    );
}

#[test]
fn rejects_a_blocked_loop_without_blocks() {
    g().rejects(
        "02",
        "blocked_without_blocks",
        FailKind::Technique,
        &[
            "cache blocking",
            "`matmul_blocked`",
            "last-level cache",
            "block of B",
        ],
    );
}

#[test]
fn accepts_dot_products_over_a_transposed_b() {
    let v = g().grade_file("02", right("transposed_b"));
    assert!(v.passed(), "{}", lab::report::verdict(&v));
}
