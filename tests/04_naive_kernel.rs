//! Lesson 04's grader: the reference passes; kernels wrong on purpose are rejected.

use lab::grade::FailKind;
use lab::testing::{assert_rejected, assert_solution_passes};

#[test]
fn solution_passes() {
    assert_solution_passes(4);
}

#[test]
fn rejects_swapped_ids() {
    // Dimension 0 of the launch spans the columns; a kernel that takes it as the row
    // computes a transposed C and leaves part of it unwritten.
    assert_rejected(
        4,
        "row_as_dim0_transposed",
        FailKind::Unwritten,
        &["never written", "still NaN"],
    );
}

#[test]
fn rejects_wrong_index() {
    assert_rejected(4, "wrong_index", FailKind::Wrong, &["expected", "got"]);
}

#[test]
fn rejects_store_one_row_down() {
    assert_rejected(4, "out_of_bounds", FailKind::OutOfBounds, &["outside C"]);
}

#[test]
fn rejects_missing_store() {
    assert_rejected(4, "never_writes", FailKind::Unwritten, &["never wrote C"]);
}

#[test]
fn rejects_writing_into_b() {
    assert_rejected(
        4,
        "writes_into_b",
        FailKind::InputsChanged,
        &["wrote into B"],
    );
}
