//! Lesson 08's grader: the reference passes for any size (1×1×1, primes, odd and non-square
//! shapes), with small tiles and without padding; kernels wrong on purpose are rejected; the
//! variants measured beside it (no padding, zero-padded copies) give right answers.

use lab::grade::{self, FailKind, Source};
use lab::harness::device::Gpu;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder;
use lab::report;

fn g() -> lab::testing::Grader {
    lab::grader!()
}

fn passes_with(d: Vec<Define>) {
    let opts = grade::Options {
        defines: d,
        ..g().opts
    };
    let v = grade::grade(
        ladder::get("08"),
        &Source::Folder(g().opts.course.solutions()),
        &opts,
    );
    assert!(v.passed(), "{}", report::verdict(&v));
}

#[test]
fn solution_passes_for_any_size() {
    let v = g().solution_passes("08");
    for s in [
        Shape::new(1, 1, 1),
        Shape::new(7, 13, 5),
        Shape::new(31, 33, 17),
        Shape::new(100, 257, 1000),
    ] {
        assert!(v.cases.iter().any(|c| c.shape == s), "{s} is not graded");
    }
}

#[test]
fn solution_passes_with_small_tiles_and_widths() {
    passes_with(vec![
        Define::new("TSM", 32),
        Define::new("TSN", 32),
        Define::new("TSK", 8),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 8),
    ]);
    passes_with(vec![Define::new("WIDTH", 1), Define::new("PAD", 0)]);
}

#[test]
fn variants_give_right_answers() {
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let ocl = ladder::get("08").ocl().unwrap();
    for v in ocl.variants {
        for s in [Shape::new(131, 67, 45), Shape::new(1, 1, 1)] {
            let t = (v.measure)(&gpu, &g().opts.course, s)
                .unwrap_or_else(|e| panic!("{} at {s}: {e:#}", v.name))
                .expect("every size applies");
            assert!(t.device_ms > 0.0, "{}: {t:?}", v.name);
        }
    }
}

// ANCHOR: mutant_example
#[test]
fn rejects_a_guard_that_drops_the_last_row() {
    g().rejects_mutant(
        "08",
        "guard_drops_last_row",
        &[("} else if (row < M) {", "} else if (row < M - 1) {")],
        FailKind::Unwritten,
        &["never wrote C", "guarded by a condition"],
    );
}
// ANCHOR_END: mutant_example

#[test]
fn rejects_edge_loads_that_are_not_zero_outside() {
    g().rejects_mutant(
        "08",
        "edge_loads_clamped_not_zeroed",
        &[
            (
                "a.s[w] = inside ? A[(offM + r) * K + kt + c + w] : 0.0f;",
                "a.s[w] = A[min(offM + r, M - 1) * K + min(kt + c + w, K - 1)];",
            ),
            (
                "b.s[w] = kt + r < K && col < N ? B[(kt + r) * N + col] : 0.0f;",
                "b.s[w] = B[min(kt + r, K - 1) * N + min(col, N - 1)];",
            ),
        ],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_an_edge_store_without_a_column_guard() {
    g().rejects_mutant(
        "08",
        "store_without_column_guard",
        &[(
            "if (col + w < N) {
                        C[row * N + col + w] = out.s[w];
                    }",
            "C[row * N + col + w] = out.s[w];",
        )],
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ column < N"],
    );
}

#[test]
fn rejects_an_edge_store_of_the_wrong_lane() {
    g().rejects_mutant(
        "08",
        "edge_store_wrong_lane",
        &[(
            "C[row * N + col + w] = out.s[w];",
            "C[row * N + col + w] = out.s[0];",
        )],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_missing_barrier() {
    g().rejects_mutant(
        "08",
        "missing_barrier",
        &[(
            "        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: compute",
            "        // EXERCISE END
        // ANCHOR_END: compute",
        )],
        FailKind::Race,
        &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"],
    );
}

#[test]
fn rejects_an_unpadded_local_tile() {
    g().rejects_mutant(
        "08",
        "no_padding",
        &[(
            "__local float Asub[TSK][TSM + PAD];",
            "__local float Asub[TSK][TSM];",
        )],
        FailKind::Technique,
        &["PAD = 2", "bytes", "Asub[TSK][TSM + PAD]"],
    );
}

#[test]
fn launches_whole_tiles_over_any_size() {
    let ocl = ladder::get("08").ocl().unwrap();
    let d = [
        Define::new("TSM", 128),
        Define::new("TSN", 128),
        Define::new("TSK", 16),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 4),
        Define::new("PAD", 2),
    ];
    let l = (ocl.launch)(Shape::new(4095, 129, 7), &d).unwrap();
    assert_eq!(l.global, [32, 512]);
    assert_eq!(l.local, Some([16, 16]));
    let why = (ocl.launch)(Shape::new(0, 5, 5), &d).unwrap_err();
    assert!(why.contains("at least 1"), "{why}");
}
