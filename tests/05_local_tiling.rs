//! Lesson 05's grader: the reference passes; kernels wrong on purpose are rejected; sizes
//! that are not tile multiples are refused with a reason.

use lab::grade::FailKind;
use lab::lessons;
use lab::matrix::Shape;
use lab::program::Define;
use lab::testing::{assert_rejected, assert_solution_passes};

#[test]
fn solution_passes() {
    assert_solution_passes(5);
}

#[test]
fn rejects_a_missing_barrier() {
    // PoCL runs a work-group's items in lock-step between barriers, so the race may not show
    // in the numbers there; the grader insists on the lesson's two barriers either way.
    assert_rejected(
        5,
        "missing_barrier",
        FailKind::Technique,
        &["`barrier` 1 time(s)", "needs 2", "Hint"],
    );
}

#[test]
fn rejects_a_tile_loop_that_stops_one_tile_early() {
    assert_rejected(5, "tile_off_by_one", FailKind::Wrong, &["expected", "got"]);
}

#[test]
fn rejects_an_accumulator_reset_in_every_tile() {
    assert_rejected(
        5,
        "accumulator_reset_per_tile",
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_transposed_tile_of_b() {
    assert_rejected(
        5,
        "swapped_tile_index",
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_store_with_the_wrong_row_stride() {
    assert_rejected(
        5,
        "store_out_of_bounds",
        FailKind::OutOfBounds,
        &["outside C", "row stride is N"],
    );
}

#[test]
fn rejects_a_right_answer_without_local_memory() {
    assert_rejected(
        5,
        "no_local_memory",
        FailKind::Technique,
        &["never uses `__local`", "Hint"],
    );
}

#[test]
fn refuses_sizes_that_are_not_tile_multiples() {
    let ocl = lessons::get(5).ocl().unwrap();
    let defines = [Define::new("TS", 16)];
    let why = (ocl.launch)(Shape::new(100, 64, 48), &defines).unwrap_err();
    assert!(why.contains("M must be a multiple of 16"), "{why}");
    assert!(why.contains("Lesson 08"), "{why}");
    assert!((ocl.launch)(Shape::new(32, 64, 48), &defines).is_ok());
}
