//! Lesson 05's grader: the reference passes; kernels wrong on purpose are rejected; sizes
//! that are not tile multiples are refused with a reason.

use lab::grade::FailKind;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn solution_passes() {
    g().solution_passes("05");
}

#[test]
fn rejects_a_missing_barrier() {
    // PoCL runs a work-group's items in lock-step between barriers, so the race may not show
    // in the numbers there; the grader insists on the lesson's two barriers either way.
    g().rejects(
        "05",
        "missing_barrier",
        FailKind::Race,
        &[
            "data race",
            "__local Asub",
            "line 14",
            "line 16",
            "barrier(CLK_LOCAL_MEM_FENCE)",
        ],
    );
}

#[test]
fn rejects_a_tile_loop_that_stops_one_tile_early() {
    g().rejects(
        "05",
        "tile_off_by_one",
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_an_accumulator_reset_in_every_tile() {
    g().rejects(
        "05",
        "accumulator_reset_per_tile",
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_transposed_tile_of_b() {
    g().rejects(
        "05",
        "swapped_tile_index",
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_store_with_the_wrong_row_stride() {
    g().rejects(
        "05",
        "store_out_of_bounds",
        FailKind::OutOfBounds,
        &["outside C", "row stride is N"],
    );
}

#[test]
fn rejects_a_right_answer_without_local_memory() {
    g().rejects(
        "05",
        "no_local_memory",
        FailKind::Technique,
        &[
            "2.00 values from global memory per multiply-add",
            "2/TS = 0.250",
            "Hint",
        ],
    );
}

#[test]
fn refuses_sizes_that_are_not_tile_multiples() {
    let ocl = ladder::get("05").ocl().unwrap();
    let defines = [Define::new("TS", 16)];
    let why = (ocl.launch)(Shape::new(100, 64, 48), &defines).unwrap_err();
    assert!(why.contains("M must be a multiple of 16"), "{why}");
    assert!(why.contains("Lesson 08"), "{why}");
    assert!((ocl.launch)(Shape::new(32, 64, 48), &defines).is_ok());
}
