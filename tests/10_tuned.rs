//! Lesson 10's grader: the reference passes at sizes with partial tiles and K, N not
//! multiples of 4; kernels wrong on purpose are rejected with a message that says why.

use lab::grade::{self, FailKind, Source};
use lab::harness::matrix::Shape;
use lab::ladder;
use lab::ladder::l10_tuned::tuner::Params;
use lab::report;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

#[test]
fn solution_passes() {
    g().solution_passes("10");
}

#[test]
fn solution_passes_loading_a_along_k() {
    // ALONGK=1: A's float4 loads run along its rows and A's tile is stored swizzled. Two
    // asymmetric shapes, with k-steps of 16 and of 8 (different swizzles), through the whole
    // grader, sanitizer included.
    for p in [
        Params::new(64, 32, 16, 8, 4).along_k(1),
        Params::new(32, 64, 8, 4, 8).along_k(1),
    ] {
        let mut opts = g().opts;
        opts.defines = p.defines();
        let v = grade::grade(
            ladder::get("10"),
            &Source::Folder(opts.course.solutions()),
            &opts,
        );
        assert!(v.passed(), "{p}:\n{}", report::verdict(&v));
        assert!(!v.cases.is_empty(), "{p}: the grader checked no case");
    }
}

#[test]
fn rejects_stores_outside_c() {
    g().rejects_mutant(
        "10",
        "stores_outside_c",
        &[
            (
                "(i % 4);
        if (row < M) {",
                "(i % 4);
        {",
            ),
            (
                "if (col < N) {
                        *(__global float4*)p = v;
                    }",
                "*(__global float4*)p = v;",
            ),
            (
                "if (col + 0 < N) p[0] = v.x;
                    if (col + 1 < N) p[1] = v.y;
                    if (col + 2 < N) p[2] = v.z;
                    if (col + 3 < N) p[3] = v.w;",
                "p[0] = v.x;
                    p[1] = v.y;
                    p[2] = v.z;
                    p[3] = v.w;",
            ),
        ],
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
    );
}

#[test]
fn rejects_tiles_read_without_a_barrier() {
    // PoCL runs a work-group's items one after another between barriers (and adds barriers
    // of its own around loops that contain one), so the race may not show in its numbers;
    // the simulator sees it.
    g().rejects_mutant(
        "10",
        "no_barrier",
        &[("        barrier(CLK_LOCAL_MEM_FENCE);\n", "")],
        FailKind::Race,
        &["data race", "__local", "hint"],
    );
}

#[test]
fn rejects_a_k_loop_that_drops_the_last_partial_step() {
    g().rejects_mutant(
        "10",
        "k_steps_rounded_down",
        &[(
            "const int steps = (K + TSK - 1) / TSK;",
            "const int steps = K / TSK;",
        )],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_tile_of_a_stored_untransposed() {
    g().rejects_mutant(
        "10",
        "a_tile_not_transposed",
        &[
            ("as[(k + 0) * TSM + m]", "as[m * TSK + k + 0]"),
            ("as[(k + 1) * TSM + m]", "as[m * TSK + k + 1]"),
            ("as[(k + 2) * TSM + m]", "as[m * TSK + k + 2]"),
            ("as[(k + 3) * TSM + m]", "as[m * TSK + k + 3]"),
        ],
        FailKind::Wrong,
        &["expected", "got", "max relative error"],
    );
}

#[test]
fn rejects_results_stored_in_the_wrong_columns() {
    g().rejects_mutant(
        "10",
        "neighbouring_columns_in_store",
        &[(
            "const int col = n0 + (j * RTSN + tx) * 4;",
            "const int col = n0 + tx * WPTN + j * 4;",
        )],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_right_answer_without_wide_loads() {
    g().rejects(
        "10",
        "scalar_tiles",
        FailKind::Technique,
        &["bytes each", "float4 (16 bytes)", "Hint"],
    );
}

#[test]
fn launches_any_size_and_refuses_bad_defines() {
    let ocl = ladder::get("10").ocl().unwrap();
    let d = Params::new(128, 128, 16, 8, 8).defines();
    let l = (ocl.launch)(Shape::new(131, 97, 150), &d).unwrap();
    // Two blocks of rows and one of columns, 16×16 work-items each.
    assert_eq!(l.global, [16, 32]);
    assert_eq!(l.local, Some([16, 16]));
    assert!((ocl.launch)(Shape::new(0, 5, 5), &d).is_err());
    let bad = Params::new(128, 128, 16, 6, 8).defines();
    let why = (ocl.launch)(Shape::square(256), &bad).unwrap_err();
    assert!(why.contains("multiples of 4"), "{why}");
}
