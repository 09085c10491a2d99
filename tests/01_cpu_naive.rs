//! Lesson 01's grader: the reference passes; files wrong on purpose (tests/wrong/01_cpu_naive)
//! are rejected with what the student needs to read. The student's Rust is built as a crate
//! of its own, so these also prove what that crate can and cannot do.

use lab::grade::FailKind;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn solution_passes() {
    g().solution_passes("01");
}

#[test]
fn rejects_a_file_that_does_not_compile_with_rustcs_message() {
    let v = g().rejects(
        "01",
        "does_not_compile",
        FailKind::Build,
        &[
            "does_not_compile.rs",
            "did not compile",
            "expected `;`",
            "accc",
        ],
    );
    // rustc's own lines, with the file and line of each error.
    assert!(
        v.message().contains("does_not_compile.rs:5"),
        "{}",
        v.message()
    );
}

#[test]
fn the_course_and_its_dependencies_are_out_of_reach() {
    g().rejects(
        "01",
        "calls_the_course",
        FailKind::Build,
        &["`lab`", "calls_the_course.rs"],
    );
    g().rejects(
        "01",
        "calls_matrixmultiply",
        FailKind::Build,
        &["`matrixmultiply`", "calls_matrixmultiply.rs"],
    );
}

#[test]
fn a_missing_function_names_the_signature_wanted() {
    g().rejects(
        "01",
        "missing_function",
        FailKind::Build,
        &["pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize)"],
    );
}

#[test]
fn rejects_a_wrong_stride() {
    g().rejects(
        "01",
        "wrong_stride",
        FailKind::Wrong,
        &["`matmul`", "expected", "got", "row"],
    );
}

#[test]
fn rejects_adding_into_the_nan_of_c() {
    g().rejects(
        "01",
        "adds_into_nan",
        FailKind::Unwritten,
        &["NaN", "without clearing it first"],
    );
}

#[test]
fn a_panic_is_reported_with_its_place() {
    g().rejects(
        "01",
        "index_out_of_range",
        FailKind::Crash,
        &["panicked", "index out of bounds", "index_out_of_range.rs:"],
    );
}

#[test]
fn a_loop_that_never_ends_is_stopped() {
    let t = std::time::Instant::now();
    g().impatient(20).rejects(
        "01",
        "never_finishes",
        FailKind::Hang,
        &["did not finish", "`matmul`"],
    );
    assert!(t.elapsed().as_secs() < 120, "{:?}", t.elapsed());
}

#[test]
fn printing_forges_nothing() {
    let v = g().rejects(
        "01",
        "prints_a_forged_verdict",
        FailKind::Wrong,
        &["expected", "got"],
    );
    assert!(
        v.printed.contains("LAB-EVENT"),
        "what it printed is shown: {v:?}"
    );
}

#[test]
fn what_a_right_file_prints_is_shown_and_it_passes() {
    let v = g().grade_file("01", g().wrong("01", "prints_while_right"));
    assert!(v.passed(), "{}", lab::report::verdict(&v));
    assert!(v.printed.contains("computing a"), "{v:?}");
    assert!(lab::report::verdict(&v).contains("your code printed"));
}
