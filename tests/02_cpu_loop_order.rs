//! Lesson 02's grader: the reference passes; the cases of tests/cases/02_cpu_loop_order.rs are
//! graded as they expect; and the technique is judged by behaviour (files under
//! tests/wrong/02_cpu_loop_order and tests/right/02_cpu_loop_order).

use lab::grade::FailKind;

#[path = "cases/02_cpu_loop_order.rs"]
mod cases;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn solution_passes() {
    g().solution_passes("02");
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
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
