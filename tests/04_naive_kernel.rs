//! Lesson 04's grader: the reference passes; kernels wrong on purpose are rejected.

use lab::grade::FailKind;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn solution_passes() {
    g().solution_passes("04");
}

#[test]
fn rejects_swapped_ids() {
    // Dimension 0 of the launch spans the columns; a kernel that takes it as the row
    // computes a transposed C and leaves part of it unwritten.
    g().rejects(
        "04",
        "row_as_dim0_transposed",
        FailKind::Unwritten,
        &["never written", "still NaN"],
    );
}

#[test]
fn rejects_wrong_index() {
    g().rejects("04", "wrong_index", FailKind::Wrong, &["expected", "got"]);
}

#[test]
fn rejects_store_one_row_down() {
    g().rejects("04", "out_of_bounds", FailKind::OutOfBounds, &["outside C"]);
}

#[test]
fn rejects_missing_store() {
    g().rejects(
        "04",
        "never_writes",
        FailKind::Unwritten,
        &["never wrote C"],
    );
}

#[test]
fn rejects_writing_into_b() {
    g().rejects(
        "04",
        "writes_into_b",
        FailKind::InputsChanged,
        &["wrote into B"],
    );
}
