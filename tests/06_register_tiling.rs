//! Lesson 06's grader: the reference passes with the large-GPU tiles, with small tiles and
//! in its 1D form; kernels wrong on purpose are rejected; sizes that are not tile multiples
//! are refused with a reason.

use lab::grade::{self, FailKind, Source};
use lab::harness::device::Gpu;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder;
use lab::report;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

fn defines(tsm: usize, tsn: usize, tsk: usize, wptm: usize, wptn: usize) -> Vec<Define> {
    vec![
        Define::new("TSM", tsm),
        Define::new("TSN", tsn),
        Define::new("TSK", tsk),
        Define::new("WPTM", wptm),
        Define::new("WPTN", wptn),
    ]
}

fn assert_solution_passes_with(d: Vec<Define>) {
    let lesson = ladder::get("06");
    let opts = grade::Options {
        defines: d,
        ..g().opts
    };
    let v = grade::grade(lesson, &Source::Folder(g().opts.course.solutions()), &opts);
    assert!(v.passed(), "{}", report::verdict(&v));
    assert_eq!(v.cases.len(), 3);
}

#[test]
fn solution_passes() {
    g().solution_passes("06");
}

#[test]
fn solution_passes_with_small_tiles() {
    assert_solution_passes_with(defines(32, 32, 8, 8, 8));
    assert_solution_passes_with(defines(64, 32, 16, 4, 8));
}

#[test]
fn solution_passes_in_its_1d_form() {
    assert_solution_passes_with(defines(64, 32, 16, 8, 1));
}

#[test]
fn rejects_a_missing_barrier() {
    // PoCL runs a work-group's items in lock-step between barriers, so the race may not show
    // in the numbers there; the grader insists on both barriers either way.
    g().rejects_mutant(
        "06",
        "missing_barrier",
        &[(
            "still read them.\n        barrier(CLK_LOCAL_MEM_FENCE);\n",
            "still read them.\n",
        )],
        FailKind::Race,
        &["data race", "__local Asub", "line 76", "hint"],
    );
}

#[test]
fn rejects_accumulators_reset_in_every_tile() {
    g().rejects_mutant(
        "06",
        "accumulator_reset_per_tile",
        &[(
            "for (int kt = 0; kt < K; kt += TSK) {",
            "for (int kt = 0; kt < K; kt += TSK) {
        for (int wm = 0; wm < WPTM; wm++) {
            for (int wn = 0; wn < WPTN; wn++) {
                acc[wm][wn] = 0.0f;
            }
        }",
        )],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_step_loop_that_stops_one_short() {
    g().rejects_mutant(
        "06",
        "tile_step_off_by_one",
        &[(
            "for (int k = 0; k < TSK; k++)",
            "for (int k = 0; k < TSK - 1; k++)",
        )],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_tile_of_b_without_its_column_offset() {
    g().rejects_mutant(
        "06",
        "tile_of_b_without_column_offset",
        &[("B[(kt + r) * N + offN + c]", "B[(kt + r) * N + c]")],
        FailKind::Wrong,
        &["expected", "got", "row 0, column"],
    );
}

#[test]
fn rejects_mixed_up_row_ownership() {
    g().rejects_mutant(
        "06",
        "blocked_rows_mixed_up",
        &[("Asub[k][tidm + wm * RTSM]", "Asub[k][tidm * WPTM + wm]")],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_store_past_the_end_of_c() {
    g().rejects_mutant(
        "06",
        "store_shifted_one_column",
        &[(
            "offN + tidn + wn * RTSN] = acc",
            "offN + tidn + wn * RTSN + 1] = acc",
        )],
        FailKind::OutOfBounds,
        &["outside C", "after the end of C"],
    );
}

#[test]
fn rejects_one_result_per_work_item() {
    g().rejects(
        "06",
        "no_register_block",
        FailKind::Unwritten,
        &[
            "never written",
            "Does the launch cover every row and column",
        ],
    );
}

#[test]
fn refuses_sizes_that_are_not_tile_multiples() {
    let ocl = ladder::get("06").ocl().unwrap();
    let d = defines(128, 128, 16, 8, 8);
    let why = (ocl.launch)(Shape::new(128, 200, 32), &d).unwrap_err();
    assert!(why.contains("N of 128"), "{why}");
    assert!(why.contains("Lesson 08"), "{why}");
    let ok = (ocl.launch)(Shape::new(256, 128, 48), &d).unwrap();
    assert_eq!(ok.global, [16, 32]);
    assert_eq!(ok.local, Some([16, 16]));
}

#[test]
fn variants_give_right_answers() {
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let ocl = ladder::get("06").ocl().unwrap();
    for v in ocl.variants {
        let t = (v.measure)(&gpu, &g().opts.course, Shape::new(256, 128, 48))
            .unwrap_or_else(|e| panic!("{}: {e:#}", v.name))
            .expect("the size applies");
        assert!(t.device_ms > 0.0, "{}: {t:?}", v.name);
    }
}
