//! Lesson 02's grader: the reference passes; the cases of tests/cases/02_cpu_loop_order.rs are
//! graded as they expect; and the technique is judged by behaviour (files under
//! tests/wrong/02_cpu_loop_order and tests/right/02_cpu_loop_order).

mod common;

#[path = "cases/02_cpu_loop_order.rs"]
mod cases;

fn g() -> common::Grader {
    common::grader()
}

#[test]
fn solution_passes() {
    g().solution_passes("02");
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}
