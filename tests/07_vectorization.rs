//! Lesson 07's grader: the reference passes at every vector width and with small tiles;
//! kernels wrong on purpose are rejected; sizes that are not tile multiples are refused.

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
        ladder::get("07"),
        &Source::Folder(g().opts.course.solutions()),
        &opts,
    );
    assert!(v.passed(), "{}", report::verdict(&v));
}

#[test]
fn solution_passes() {
    g().solution_passes("07");
}

#[test]
fn solution_passes_at_every_width() {
    for w in [1, 2, 8] {
        passes_with(vec![Define::new("WIDTH", w)]);
    }
}

#[test]
fn solution_passes_with_small_tiles() {
    passes_with(vec![
        Define::new("TSM", 32),
        Define::new("TSN", 32),
        Define::new("TSK", 8),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 4),
    ]);
}

#[test]
fn rejects_a_missing_barrier() {
    g().rejects_mutant(
        "07",
        "missing_barrier",
        &[(
            "        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: load",
            "        // EXERCISE END
        // ANCHOR_END: load",
        )],
        FailKind::Race,
        &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"],
    );
}

#[test]
fn rejects_a_vector_offset_counted_in_vectors() {
    g().rejects_mutant(
        "07",
        "vector_offset_not_scaled",
        &[(
            "const int c = (id % (TSK / WIDTH)) * WIDTH;",
            "const int c = id % (TSK / WIDTH);",
        )],
        FailKind::Race,
        &["data race", "__local", "also failed", "expected", "got"],
    );
}

#[test]
fn rejects_lanes_of_a_that_are_not_transposed() {
    g().rejects_mutant(
        "07",
        "lanes_of_a_not_transposed",
        &[(
            "Asub[c + w][r] = a.s[w];",
            "Asub[(r * TSK + c + w) / TSM][(r * TSK + c + w) % TSM] = a.s[w];",
        )],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_lanes_in_reverse_order() {
    g().rejects_mutant(
        "07",
        "lane_order_reversed",
        &[(
            "Asub[c + w][r] = a.s[w];",
            "Asub[c + w][r] = a.s[WIDTH - 1 - w];",
        )],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_a_vector_store_past_the_end_of_c() {
    g().rejects_mutant(
        "07",
        "store_vector_index_off_by_one",
        &[(
            "tidn + wv * RTSN] = acc[wm][wv];",
            "tidn + wv * RTSN + 1] = acc[wm][wv];",
        )],
        FailKind::OutOfBounds,
        &["outside C", "after the end of C"],
    );
}

#[test]
fn rejects_accumulators_reset_in_every_tile() {
    g().rejects_mutant(
        "07",
        "accumulator_reset_per_tile",
        &[(
            "for (int kt = 0; kt < K; kt += TSK) {",
            "for (int kt = 0; kt < K; kt += TSK) {
        for (int wm = 0; wm < WPTM; wm++) {
            for (int wv = 0; wv < WPTN / WIDTH; wv++) {
                acc[wm][wv] = (floatX)(0.0f);
            }
        }",
        )],
        FailKind::Wrong,
        &["expected", "got"],
    );
}

#[test]
fn rejects_scalar_accesses() {
    g().rejects(
        "07",
        "scalar_accesses",
        FailKind::Technique,
        &[
            "global loads move 4.0 bytes each",
            "float4 accesses move 16",
            "Hint",
        ],
    );
}

#[test]
fn refuses_sizes_that_are_not_tile_multiples() {
    let ocl = ladder::get("07").ocl().unwrap();
    let d = [
        Define::new("TSM", 128),
        Define::new("TSN", 128),
        Define::new("TSK", 16),
        Define::new("WPTM", 8),
        Define::new("WPTN", 8),
        Define::new("WIDTH", 4),
    ];
    let why = (ocl.launch)(Shape::new(128, 128, 40), &d).unwrap_err();
    assert!(why.contains("K of 16"), "{why}");
    assert!((ocl.launch)(Shape::new(256, 128, 48), &d).is_ok());
}

#[test]
fn variants_give_right_answers() {
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("an OpenCL device");
    let ocl = ladder::get("07").ocl().unwrap();
    for v in ocl.variants {
        let t = (v.measure)(&gpu, &g().opts.course, Shape::new(256, 128, 48))
            .unwrap_or_else(|e| panic!("{}: {e:#}", v.name))
            .expect("the size applies");
        assert!(t.device_ms > 0.0, "{}: {t:?}", v.name);
    }
}
