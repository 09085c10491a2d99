//! Lesson 07's grader: the reference passes at every vector width and with small tiles; the
//! cases below (kernels wrong on purpose, and correct ones in
//! other styles) are graded as they expect; sizes that are not tile multiples are refused.

mod common;

use lab::grade::{self, Source};
use lab::harness::device::Gpu;
use lab::harness::matrix::Shape;
use lab::harness::program::Define;
use lab::ladder;
use lab::report;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 07` grades it, with the same report:
/// `cargo test --test 07_vectorization -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("07")
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
fn cases() {
    g().assert_cases(cases::CASES);
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

pub mod cases {
    //! Lesson 07's cases: mistakes students make with vector accesses, each with what the
    //! grader must say, and correct kernels in other styles. Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "07";

    /// The words every race report has.
    const RACE: &[&str] = &["data race", "__local", "barrier(CLK_LOCAL_MEM_FENCE)"];

    /// The first barrier, after the loads, and what is left without it.
    const FIRST_BARRIER: &str = "        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: load";
    const NO_FIRST_BARRIER: &str = "        // EXERCISE END
        // ANCHOR_END: load";

    /// The defines of the lesson's set with a 16×4 work-group and two vectors per block row.
    const RTSM_NE_RTSN: &str = "with -D TSM=32 -D TSN=64 -D TSK=8 -D WPTM=8 -D WPTN=4 -D WIDTH=2";

    pub const CASES: &[Case] = &[
    // Barriers. PoCL hides these races; the simulator does not.
    Case::rejects(
        L,
        "missing_barrier",
        Race,
        Mutant(&[(FIRST_BARRIER, NO_FIRST_BARRIER)]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "no_second_barrier",
        Race,
        Mutant(&[(
            "        barrier(CLK_LOCAL_MEM_FENCE);
        // EXERCISE END
        // ANCHOR_END: compute",
            "        // EXERCISE END
        // ANCHOR_END: compute",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "barrier_before_the_loads",
        Barrier,
        Mutant(&[
            (
                "for (int kt = 0; kt < K; kt += TSK) {",
                "for (int kt = 0; kt < K; kt += TSK) {
        barrier(CLK_LOCAL_MEM_FENCE);",
            ),
            (FIRST_BARRIER, NO_FIRST_BARRIER),
        ]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "vector_offset_not_scaled",
        Race,
        Mutant(&[(
            "const int c = (id % (TSK / WIDTH)) * WIDTH;",
            "const int c = id % (TSK / WIDTH);",
        )]),
        // Two work-items write the same elements of A's tile, and some are never written.
        FailKind::Race,
        &["data race", "__local", "also failed", "expected", "got"],
    ),
    // Directions swapped, hidden by square tiles and work-groups.
    Case::rejects(
        L,
        "b_registers_strided_by_rtsm",
        Asymmetric,
        Mutant(&[(
            "Breg[wv] = Bsub[k][tidn + wv * RTSN];",
            "Breg[wv] = Bsub[k][tidn + wv * RTSM];",
        )]),
        FailKind::Wrong,
        &[RTSM_NE_RTSN, "expected", "got"],
    ),
    Case::rejects(
        L,
        "store_strided_by_rtsm",
        Asymmetric,
        Mutant(&[(
            "tidn + wv * RTSN] = acc[wm][wv];",
            "tidn + wv * RTSM] = acc[wm][wv];",
        )]),
        FailKind::Unwritten,
        &[RTSM_NE_RTSN, "never written"],
    ),
    Case::rejects(
        L,
        "b_tile_rows_of_tsm",
        Asymmetric,
        Mutant(&[(
            "const int r = id / (TSN / WIDTH);
            const int c = id % (TSN / WIDTH);",
            "const int r = id / (TSM / WIDTH);
            const int c = id % (TSM / WIDTH);",
        )]),
        FailKind::BadAccess,
        &["Bsub"],
    ),
    Case::rejects(
        L,
        "lanes_of_a_not_transposed",
        Asymmetric,
        Mutant(&[(
            "Asub[c + w][r] = a.s[w];",
            "Asub[(r * TSK + c + w) / TSM][(r * TSK + c + w) % TSM] = a.s[w];",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "lane_order_reversed",
        WrongResult,
        Mutant(&[(
            "Asub[c + w][r] = a.s[w];",
            "Asub[c + w][r] = a.s[WIDTH - 1 - w];",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Edges and bounds.
    Case::rejects(
        L,
        "one_tile_too_many",
        Edge,
        Mutant(&[(
            "for (int kt = 0; kt < K; kt += TSK) {",
            "for (int kt = 0; kt <= K; kt += TSK) {",
        )]),
        FailKind::BadAccess,
        &["past the end of", "k < K, not k <= K"],
    ),
    // The wrapped index also has two work-items write one element of C where C has more
    // than 65 536: where the simulator runs such a problem (drawn per grading), it names
    // that race, the device's words on the 16 bits after it.
    Case::rejects_any(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[(
            "Cv[(row * N + offN) / WIDTH + tidn + wv * RTSN] = acc[wm][wv];",
            "Cv[(ushort)((row * N + offN) / WIDTH + tidn + wv * RTSN)] = acc[wm][wv];",
        )]),
        &[FailKind::Unwritten, FailKind::Race],
        &["16 bits", "ushort"],
    ),
    Case::rejects(
        L,
        "one_b_vector_too_many",
        OutOfBoundsRead,
        Mutant(&[(
            "for (int wv = 0; wv < WPTN / WIDTH; wv++) {
                Breg[wv]",
            "for (int wv = 0; wv <= WPTN / WIDTH; wv++) {
                Breg[wv]",
        )]),
        FailKind::BadAccess,
        &["Breg"],
    ),
    Case::rejects(
        L,
        "store_vector_index_off_by_one",
        OutOfBoundsWrite,
        Mutant(&[(
            "tidn + wv * RTSN] = acc[wm][wv];",
            "tidn + wv * RTSN + 1] = acc[wm][wv];",
        )]),
        FailKind::OutOfBounds,
        &["outside C", "after the end of C"],
    ),
    Case::rejects(
        L,
        "accumulators_uninitialised",
        Uninitialised,
        Mutant(&[(
            "            acc[wm][wv] = (floatX)(0.0f);
",
            "",
        )]),
        FailKind::Uninitialized,
        &["never initialised"],
    ),
    Case::rejects(
        L,
        "accumulator_reset_per_tile",
        WrongResult,
        Mutant(&[(
            "for (int kt = 0; kt < K; kt += TSK) {",
            "for (int kt = 0; kt < K; kt += TSK) {
        for (int wm = 0; wm < WPTM; wm++) {
            for (int wv = 0; wv < WPTN / WIDTH; wv++) {
                acc[wm][wv] = (floatX)(0.0f);
            }
        }",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    // Right answers that only look vectorised.
    Case::rejects(
        L,
        "scalar_accesses",
        Decoy,
        File("scalar_accesses"),
        FailKind::Technique,
        &[
            "global loads move 4.0 bytes each",
            "float4 accesses move 16",
            "Hint",
        ],
    ),
    Case::rejects(
        L,
        "vectors_filled_lane_by_lane",
        Decoy,
        Mutant(&[
            (
                "a.v = Av[((offM + r) * K + kt + c) / WIDTH];",
                "for (int w = 0; w < WIDTH; w++) {
                a.s[w] = A[(offM + r) * K + kt + c + w];
            }",
            ),
            (
                "Bsub[r][c] = Bv[((kt + r) * N + offN) / WIDTH + c];",
                "lanesX b;
            for (int w = 0; w < WIDTH; w++) {
                b.s[w] = B[(kt + r) * N + offN + c * WIDTH + w];
            }
            Bsub[r][c] = b.v;",
            ),
        ]),
        FailKind::Technique,
        &["global loads move 4.0 bytes each", "filled lane by lane"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    // EXERCISE(07.4) BEGIN: store the results as vectors
",
            "    // EXERCISE(07.4) BEGIN: store the results as vectors
    if (get_global_id(0) == 0 && get_global_id(1) == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"07_vectorization\\\",\\\"failure\\\":null}}\\n\");
    }
    acc[0][0] = (floatX)(1.0f);
",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // Oclgrind 21.10 runs a `switch` on a number's lowest bits wrongly in its optimised
    // build (research/oclgrind-selects/): a test of it tells that build from a device. Here
    // the kernel takes scalar loads unless the test fails; the simulator's unoptimised build
    // runs it right, so the counts there are of the scalar path.
    Case::rejects(
        L,
        "vectors_only_where_the_simulator_misruns_a_switch",
        Cheat,
        Mutant(&[(
            "    const int offM = get_group_id(1) * TSM;
",
            "    const int offM = get_group_id(1) * TSM;
    __local float4 lanes[1];
    if (tid == 0) {
        lanes[0] = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const float4 lo = lanes[0];
    const int v = (get_group_id(0) + 4) * (get_group_id(0) + 4);
    const int w = v & 3;
    if ((w == 0 ? lo.x : w == 1 ? lo.y : w == 2 ? lo.z : lo.w) - (float)w == 1.0f) {
        for (int wm = 0; wm < WPTM; wm++) {
            const int row = offM + tidm + wm * RTSM;
            for (int j = 0; j < WPTN; j++) {
                const int col = offN + (tidn + (j / WIDTH) * RTSN) * WIDTH + j % WIDTH;
                float acc = 0.0f;
                for (int k = 0; k < K; k++) {
                    acc += A[row * K + k] * B[k * N + col];
                }
                C[row * N + col] = acc;
            }
        }
        return;
    }
",
        )]),
        FailKind::Technique,
        &["vector accesses", "4.0 bytes", "built unoptimised"],
    ),
    // Scalar loads on the device, vectors under the simulator, told apart by a float
    // converted past int's range (implementation-defined: INT_MIN on this CPU's device, the
    // number wrapped under the simulator). The scalar path's accesses never run under the
    // simulator; asked, the device runs them.
    Case::rejects(
        L,
        "vectors_only_where_a_conversion_wraps",
        Cheat,
        Mutant(&[(
            "    const int offM = get_group_id(1) * TSM;
",
            "    const int offM = get_group_id(1) * TSM;
    if ((int)((float)(K + 1) * 4.0e9f) == -2147483647 - 1) {
        for (int wm = 0; wm < WPTM; wm++) {
            const int row = offM + tidm + wm * RTSM;
            for (int j = 0; j < WPTN; j++) {
                const int col = offN + (tidn + (j / WIDTH) * RTSN) * WIDTH + j % WIDTH;
                float sum = 0.0f;
                for (int k = 0; k < K; k++) {
                    sum += A[row * K + k] * B[k * N + col];
                }
                C[row * N + col] = sum;
            }
        }
        return;
    }
",
        )]),
        FailKind::NotSelfContained,
        &["on the device at", "never ran under the simulator"],
    ),
    // Correct in another style.
    Case::accepts(
        L,
        "vload_and_vstore",
        Mutant(&[
            (
                "// ANCHOR_END: vector_type",
                "// ANCHOR_END: vector_type
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define VLOADX CAT(vload, WIDTH)
#define VSTOREX CAT(vstore, WIDTH)",
            ),
            (
                "a.v = Av[((offM + r) * K + kt + c) / WIDTH];",
                "a.v = VLOADX(0, A + (offM + r) * K + kt + c);",
            ),
            (
                "Bsub[r][c] = Bv[((kt + r) * N + offN) / WIDTH + c];",
                "Bsub[r][c] = VLOADX(0, B + (kt + r) * N + offN + c * WIDTH);",
            ),
            (
                "Cv[(row * N + offN) / WIDTH + tidn + wv * RTSN] = acc[wm][wv];",
                "VSTOREX(acc[wm][wv], 0, C + row * N + offN + (tidn + wv * RTSN) * WIDTH);",
            ),
        ]),
    ),
    Case::accepts(
        L,
        "b_tile_of_floats",
        Mutant(&[
            (
                "__local floatX Bsub[TSK][TSN / WIDTH];",
                "__local float Bsub[TSK][TSN];",
            ),
            (
                "Bsub[r][c] = Bv[((kt + r) * N + offN) / WIDTH + c];",
                "*(__local floatX*)&Bsub[r][c * WIDTH] = Bv[((kt + r) * N + offN) / WIDTH + c];",
            ),
            (
                "Breg[wv] = Bsub[k][tidn + wv * RTSN];",
                "Breg[wv] = *(__local floatX*)&Bsub[k][(tidn + wv * RTSN) * WIDTH];",
            ),
        ]),
    ),
    // A's tile read four floats at a time, the row's lane picked by its two lowest bits: the
    // simulator's optimised build runs this wrongly (research/oclgrind-selects/), its
    // unoptimised build and every device right, so the counts are taken again unoptimised.
    Case::accepts(
        L,
        "a_tile_read_as_float4_lanes",
        Mutant(&[
            (
                "__local float Asub[TSK][TSM];",
                "__local float Asub[TSK][TSM] __attribute__((aligned(16)));",
            ),
            (
                "const float a = Asub[k][tidm + wm * RTSM];",
                "const int m = tidm + wm * RTSM;
                const float4 v = ((const __local float4*)Asub[k])[m / 4];
                const int w = m & 3;
                const float a = w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;",
            ),
        ]),
    ),
];
}
