//! Lesson 09's grader: the reference passes on every size (square, non-square, not a multiple
//! of anything) and with every alternative its defines offer; kernels and host set-ups wrong
//! on purpose are rejected with a message that says what is wrong; the zero-copy path never
//! copies.

mod common;

use std::sync::{Mutex, MutexGuard};

use lab::grade::{self, judge, FailKind, Options, Source};
use lab::harness::device::Gpu;
use lab::harness::matrix::{self, Problem, Shape};
use lab::harness::program::Define;
use lab::ladder;
use lab::ladder::l09_texture_zero_copy::texture::{self, Op, Order, RowPitch, Setup, Transfer};
use lab::lesson::Ctx;
use lab::prepared::{self, Prepared};
use lab::report;

fn g() -> common::Grader {
    common::grader()
}

/// Your own kernels/ file, graded as `cargo lab 09` grades it, with the same report:
/// `cargo test --test 09_texture_zero_copy -- --ignored` (`LAB_KERNELS=DIR` grades another folder).
#[test]
// A bare `ignore`: editors' "Run Test" lenses pass `--ignored` for it, not always for
// `ignore = "reason"`.
#[ignore]
fn your_kernel() -> Result<(), common::student::NotPassed> {
    common::student::your_kernel("09")
}

const LESSON: &str = "09";

#[test]
fn solution_passes_square_non_square_and_ragged_sizes() {
    let v = g().solution_passes(LESSON);
    let shapes: Vec<Shape> = v.cases.iter().map(|c| c.shape).collect();
    assert!(shapes.iter().any(|s| s.m == s.n && s.n == s.k && s.m > 1));
    assert!(shapes.iter().any(|s| s.m != s.n && s.n != s.k));
    assert!(shapes.iter().any(|s| s.n % 4 != 0 && s.k % 4 != 0));
}

#[test]
fn solution_passes_with_every_alternative_define() {
    let lesson = ladder::get(LESSON);
    for set in [
        vec![Define::new("RM", 16)],
        vec![Define::new("RN", 2)],
        vec![Define::new("A_LOCAL", 0)],
        vec![Define::new("KT", 32), Define::new("RM", 4)],
        vec![Define::new("WGX", 16), Define::new("WGY", 16)],
        vec![
            Define::new("WGX", 8),
            Define::new("WGY", 4),
            Define::new("RN", 2),
            Define::new("RM", 16),
        ],
    ] {
        let opts = Options {
            defines: set.clone(),
            ..g().opts
        };
        let v = grade::grade(lesson, &Source::Folder(g().opts.course.solutions()), &opts);
        assert!(v.passed(), "with {set:?}:\n{}", report::verdict(&v));
    }
}

#[test]
fn the_starter_is_not_started() {
    let lesson = ladder::get(LESSON);
    let g = g();
    let v = grade::grade(lesson, &Source::Folder(g.opts.course.kernels()), &g.opts);
    assert_eq!(
        v.kind(),
        Some(FailKind::NotStarted),
        "{}",
        report::verdict(&v)
    );
    assert!(v.message().contains("read_imagef"), "{}", v.message());
}

#[test]
fn cases() {
    g().assert_cases(cases::CASES);
}

// ---------------------------------------------------------------------------------------
// Host set-ups, run in this process on the test device

/// The tests below open the device in this process. Two of them building programs at the
/// same time crash PoCL's CPU device here, so they take turns.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static DEVICE: Mutex<()> = Mutex::new(());
    DEVICE.lock().unwrap_or_else(|e| e.into_inner())
}

struct Bench {
    gpu: Gpu,
    kernel: lab::harness::program::Kernels,
    defines: Vec<Define>,
    _program: opencl3::program::Program,
}

/// Builds `source` for the test device, with the lesson's defines unless others are given.
fn bench(source: &str, defines: Option<Vec<Define>>) -> Bench {
    let course = g().opts.course;
    let gpu = Gpu::open(g().opts.device.as_deref()).expect("a device");
    let ocl = ladder::get(LESSON).ocl().unwrap();
    let ctx = Ctx {
        info: &gpu.info,
        course: &course,
    };
    let defines = defines.unwrap_or_else(|| prepared::defines(ocl, &ctx, None, &[]).unwrap());
    let path = course.solutions().join("09_texture_zero_copy.cl");
    let prepared = Prepared::build(&gpu, ocl, &path, source, &defines, ocl.build_options)
        .unwrap_or_else(|e| panic!("{e:#}"));
    Bench {
        gpu,
        kernel: prepared.kernel,
        defines,
        _program: prepared.program,
    }
}

fn solution_bench() -> Bench {
    let path = g().opts.course.solutions().join("09_texture_zero_copy.cl");
    bench(&std::fs::read_to_string(path).unwrap(), None)
}

/// Runs the solution with a host set-up and judges the result as the grader would.
fn judge_setup(b: &Bench, shape: Shape, setup: Setup) -> anyhow::Result<Option<grade::Failure>> {
    let ocl = ladder::get(LESSON).ocl().unwrap();
    let l = (ocl.launch)(shape, &b.defines).unwrap();
    let p = Problem::random(shape, 3);
    let run = texture::run(&b.gpu, &b.kernel, &p, &l, &b.defines, setup)?;
    let cmp = matrix::compare(shape, &run.output.c, &matrix::reference(&p), &p.poison);
    Ok(judge(shape, &run.output, &cmp, None))
}

#[test]
fn both_paths_are_right() {
    let _turn = one_at_a_time();
    let b = solution_bench();
    for shape in [Shape::new(67, 69, 37), Shape::new(128, 64, 96)] {
        for setup in [Setup::ZERO_COPY, Setup::COPY] {
            let f = judge_setup(&b, shape, setup).unwrap();
            assert!(f.is_none(), "{setup:?} at {shape}: {f:?}");
        }
    }
}

#[test]
fn rejects_a_host_that_ignores_the_row_pitch_of_the_mapped_image() {
    let _turn = one_at_a_time();
    let b = solution_bench();
    for transfer in [Transfer::ZeroCopy, Transfer::Copy] {
        let setup = Setup {
            transfer,
            pitch: RowPitch::Ignore,
            order: Order::UnmapFirst,
        };
        let f = judge_setup(&b, Shape::new(67, 69, 37), setup)
            .unwrap()
            .expect("a fill that ignores the row pitch must give a wrong C");
        assert_eq!(f.kind, FailKind::Wrong, "{}", f.message);
        assert!(
            f.message.contains("expected") && f.message.contains("got"),
            "{}",
            f.message
        );
    }
}

#[test]
fn refuses_to_launch_while_b_is_mapped() {
    let _turn = one_at_a_time();
    let b = solution_bench();
    let setup = Setup {
        order: Order::LaunchWhileMapped,
        ..Setup::ZERO_COPY
    };
    let e = judge_setup(&b, Shape::new(64, 64, 64), setup).unwrap_err();
    let f = grade::ocl::classify(e);
    assert_eq!(f.kind, FailKind::Runtime);
    assert!(
        f.message.contains("while B is still mapped"),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("Unmap every memory object"),
        "{}",
        f.message
    );
}

#[test]
fn the_zero_copy_path_only_maps_and_unmaps() {
    let _turn = one_at_a_time();
    let b = solution_bench();
    let shape = Shape::new(40, 36, 20);
    let ocl = ladder::get(LESSON).ocl().unwrap();
    let l = (ocl.launch)(shape, &b.defines).unwrap();
    let p = Problem::random(shape, 5);
    let run = texture::run(&b.gpu, &b.kernel, &p, &l, &b.defines, Setup::ZERO_COPY).unwrap();
    assert!(
        !run.log
            .iter()
            .any(|op| matches!(op, Op::Write(_) | Op::Read(_))),
        "the zero-copy path enqueued a transfer: {:?}",
        run.log
    );
    assert_eq!(
        &run.log[..7],
        &[
            Op::Map("A"),
            Op::Unmap("A"),
            Op::Map("B"),
            Op::Unmap("B"),
            Op::Launch,
            Op::Map("C"),
            Op::Unmap("C"),
        ]
    );
    let copy = texture::run(&b.gpu, &b.kernel, &p, &l, &b.defines, Setup::COPY).unwrap();
    assert_eq!(
        &copy.log[..4],
        &[Op::Write("A"), Op::Write("B"), Op::Launch, Op::Read("C")]
    );
    assert!(!copy.log.iter().any(|op| matches!(op, Op::Map(_))));
}

#[test]
fn the_adreno_blog_kernel_runs_on_whole_micro_tiles() {
    let _turn = one_at_a_time();
    let b = bench(
        texture::ADRENO_BLOG_KERNEL,
        Some(texture::adreno_blog_defines()),
    );
    for shape in [Shape::new(64, 64, 64), Shape::new(72, 68, 12)] {
        let l = texture::adreno_blog_launch(shape).unwrap();
        let p = Problem::random(shape, 9);
        let run = texture::run(&b.gpu, &b.kernel, &p, &l, &b.defines, Setup::ZERO_COPY).unwrap();
        let cmp = matrix::compare(shape, &run.output.c, &matrix::reference(&p), &p.poison);
        let f = judge(shape, &run.output, &cmp, None);
        assert!(f.is_none(), "{shape}: {f:?}");
    }
}

#[test]
fn variants_measure_or_decline() {
    let _turn = one_at_a_time();
    let course = g().opts.course;
    let gpu = Gpu::open(g().opts.device.as_deref()).unwrap();
    let ocl = ladder::get(LESSON).ocl().unwrap();
    let names: Vec<&str> = ocl.variants.iter().map(|v| v.name).collect();
    assert_eq!(names, ["copy", "b-as-buffer", "adreno-blog"]);
    for v in ocl.variants {
        let t = (v.measure)(&gpu, &course, Shape::square(64)).unwrap();
        assert!(
            t.is_some_and(|t| t.device_ms > 0.0 && t.host_ms > 0.0),
            "{}",
            v.name
        );
    }
    let blog = &ocl.variants[2];
    assert!((blog.measure)(&gpu, &course, Shape::new(64, 66, 64))
        .unwrap()
        .is_none());
}

pub mod cases {
    //! Lesson 09's cases: mistakes students make with B as an image and micro-tiles, each with
    //! what the grader must say, and correct kernels in other styles. Graded here and by tests/suite.rs.
    use lab::grade::cases::{Case, Class::*, Code::*};
    use lab::grade::FailKind;

    const L: &str = "09";

    /// The words every race report has.
    const RACE: &[&str] = &["data race", "__local Atile", "barrier(CLK_LOCAL_MEM_FENCE)"];

    pub const CASES: &[Case] = &[
    // Barriers around the shared tile of A (A_LOCAL = 1). PoCL hides these races.
    Case::rejects(
        L,
        "no_barrier_after_loading_a",
        Race,
        Mutant(&[(
            "        barrier(CLK_LOCAL_MEM_FENCE);
        // ANCHOR_END: load_a",
            "        // ANCHOR_END: load_a",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "no_barrier_before_refilling_a",
        Race,
        Mutant(&[(
            "        // Nobody refills the tile while others still read it.
        barrier(CLK_LOCAL_MEM_FENCE);
",
            "",
        )]),
        FailKind::Race,
        RACE,
    ),
    Case::rejects(
        L,
        "early_return_below_c",
        Barrier,
        // Work-items whose micro-tile starts below C leave at once: the others wait for
        // them at the barriers.
        Mutant(&[(
            "    const int lda = (K + KT - 1) / KT * KT;
",
            "    const int lda = (K + KT - 1) / KT * KT;
    if (row0 >= M) {
        return;
    }
",
        )]),
        // PoCL's run already goes wrong; the simulator says why.
        FailKind::OutOfBounds,
        &["outside C", "reached this barrier", "early `return`"],
    ),
    // Directions swapped: RM ≠ RN and WGX ≠ WGY in the lesson's second define set.
    Case::rejects(
        L,
        "pixel_columns_of_rm",
        Asymmetric,
        Mutant(&[(
            "const int x0 = get_group_id(0) * (WGX * RN) + lx;",
            "const int x0 = get_group_id(0) * (WGX * RM) + lx;",
        )]),
        FailKind::Unwritten,
        &["never written"],
    ),
    Case::rejects(
        L,
        "macro_tile_rows_of_wgx",
        Asymmetric,
        Mutant(&[(
            "const int tile_row = get_group_id(1) * TM;",
            "const int tile_row = get_group_id(1) * WGX * RM;",
        )]),
        FailKind::BadAccess,
        &["past the end of A", "never written"],
    ),
    Case::rejects(
        L,
        "b_transposed",
        Asymmetric,
        Mutant(&[("(int2)(x0 + j * WGX, k + q)", "(int2)(k + q, x0 + j * WGX)")]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "wrong_pixel_coordinate",
        Asymmetric,
        Mutant(&[(
            "(int2)(x0 + j * WGX, k + q)",
            "(int2)(4 * (x0 + j * WGX), k + q)",
        )]),
        FailKind::Wrong,
        &["expected", "got", "row"],
    ),
    // Edges.
    Case::rejects(
        L,
        "unpadded_a_rows",
        Edge,
        Mutant(&[(
            "const int lda = (K + KT - 1) / KT * KT;",
            "const int lda = K;",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "three_rows_of_b",
        Edge,
        Mutant(&[
            (
                "for (int q = 0; q < 4; q++) {",
                "for (int q = 0; q < 3; q++) {",
            ),
            ("a.w * b[j][3]", "a.w * b[j][2]"),
        ]),
        FailKind::Wrong,
        &["expected", "got"],
    ),
    Case::rejects(
        L,
        "vector_store_by_pointer_cast",
        Edge,
        // A float4 store through a cast pointer needs a 16-byte aligned address: rows of C
        // start there only when N is a multiple of 4.
        Mutant(&[(
            "vstore4(acc[i][j], 0, out);",
            "*(__global float4*)out = acc[i][j];",
        )]),
        FailKind::BadAccess,
        &["not a multiple of the vector's size"],
    ),
    // The wrapped index also has two work-items write one element of C where C has more
    // than 65 536: where the simulator runs such a problem (drawn per grading), it names
    // that race, the device's words on the 16 bits after it.
    Case::rejects_any(
        L,
        "ushort_index_of_c",
        Edge,
        Mutant(&[(
            "__global float* out = C + row * N + col;",
            "__global float* out = C + (ushort)(row * N + col);",
        )]),
        &[FailKind::Unwritten, FailKind::Race],
        &["16 bits", "ushort"],
    ),
    Case::rejects(
        L,
        "a_tile_loaded_one_float4_too_far",
        OutOfBoundsRead,
        Mutant(&[(
            "t < TM * KT4; t += WGX * WGY",
            "t <= TM * KT4; t += WGX * WGY",
        )]),
        FailKind::BadAccess,
        &["Atile"],
    ),
    Case::rejects_any(
        L,
        "accumulators_uninitialised",
        Uninitialised,
        Mutant(&[(
            "            acc[i][j] = (float4)(0.0f);
",
            "",
        )]),
        // The simulator sees the never-initialised accumulators reach C (the device's C,
        // garbage or NaN from one run to the next, is wrong too: its words follow).
        &[FailKind::Uninitialized],
        &["never initialised", "vstore4(acc[i][j], 0, out)"],
    ),
    Case::rejects_any(
        L,
        "a_tile_loaded_in_one_pass",
        Edge,
        // One float4 per work-item: enough only where the group has as many work-items as
        // the tile of A has float4 (32×8 items with 8 rows each), not for a CPU's 8×4 group
        // of 16 rows (256 float4), a 4×8 group (64), nor the simulator's 4×2 group (16): the
        // simulator sees the unloaded part of the tile reach C, and the device's C is wrong.
        Mutant(&[(
            "for (int t = ly * WGX + lx; t < TM * KT4; t += WGX * WGY) {",
            "for (int t = ly * WGX + lx; t < WGX * WGY; t += WGX * WGY) {",
        )]),
        &[FailKind::Uninitialized],
        &["never initialised", "C is wrong at row"],
    ),
    Case::rejects(
        L,
        "store_without_guard",
        OutOfBoundsWrite,
        Mutant(&[
            ("if (row < M) {", "{"),
            ("if (col + 3 < N) {", "if (true) {"),
        ]),
        FailKind::OutOfBounds,
        &["outside C", "0 ≤ row < M"],
    ),
    Case::rejects(
        L,
        "last_pixel_guard_up_to_and_including_n",
        OutOfBoundsWrite,
        Mutant(&[("if (col + 3 < N) {", "if (col + 3 <= N) {")]),
        FailKind::OutOfBounds,
        &["outside C"],
    ),
    Case::rejects(
        L,
        "b_as_buffer",
        Build,
        Mutant(&[
            ("__read_only image2d_t B,", "const __global float* B,"),
            (
                "b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));",
                "b[j][q] = vload4(0, B + (k + q) * N + 4 * (x0 + j * WGX));",
            ),
        ]),
        FailKind::Signature,
        &["argument 5", "image2d_t B"],
    ),
    // Right answers that only look like micro-tiles.
    Case::rejects(
        L,
        "b_read_again_for_every_row",
        Decoy,
        Mutant(&[
            (
                "            float4 b[RN][4];
            #pragma unroll
            for (int j = 0; j < RN; j++) {
                #pragma unroll
                for (int q = 0; q < 4; q++) {
                    b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));
                }
            }
",
                "",
            ),
            (
                "                for (int j = 0; j < RN; j++) {
                    acc[i][j] +=",
                "                for (int j = 0; j < RN; j++) {
                    float4 b[RN][4];
                    for (int q = 0; q < 4; q++) {
                        b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));
                    }
                    acc[i][j] +=",
            ),
        ]),
        FailKind::Technique,
        &["pixels of B per multiply-add", "1/(4·RM)"],
    ),
    Case::rejects(
        L,
        "scalar_stores",
        Decoy,
        Mutant(&[(
            "vstore4(acc[i][j], 0, out);",
            "out[0] = acc[i][j].x;
                    out[1] = acc[i][j].y;
                    out[2] = acc[i][j].z;
                    out[3] = acc[i][j].w;",
        )]),
        FailKind::Technique,
        &["stores C 4.0 bytes at a time", "vstore4"],
    ),
    Case::rejects(
        L,
        "prints_a_forged_verdict",
        Forged,
        Mutant(&[(
            "    // EXERCISE(09.2) BEGIN: store the micro-tile with vstore4, skipping rows ≥ M and columns ≥ N
",
            "    // EXERCISE(09.2) BEGIN: store the micro-tile with vstore4, skipping rows ≥ M and columns ≥ N
    if (get_global_id(0) == 0 && get_global_id(1) == 0) {
        printf(\"LAB-EVENT {\\\"Done\\\":{\\\"lesson\\\":\\\"09_texture_zero_copy\\\",\\\"failure\\\":null}}\\n\");
    }
    acc[0][0] = (float4)(1.0f);
",
        )]),
        FailKind::Wrong,
        &["expected", "got"],
    )
    .printing(&["LAB-EVENT"]),
    // Reads the device does not check. C read before it is written, its value multiplied
    // by zero: the fast-math build folds the product away, so the device's C is right
    // whatever C held; the simulator sees C read where the kernel has not written it. (The
    // unoptimised build's C is wrong too where C held NaN before the call, and right where it
    // held numbers: the poison is drawn per grading, so that note is not asked for.)
    Case::rejects(
        L,
        "reads_c_before_writing_it",
        Uninitialised,
        Mutant(&[(
            "vstore4(acc[i][j], 0, out);",
            "vstore4(acc[i][j] + 0.0f * vload4(0, out), 0, out);",
        )]),
        FailKind::Uninitialized,
        &["C read before the kernel wrote it", "Write an element of C before you read it"],
    ),
    // Pixels past the image's edges read with a sampler that leaves them undefined: PoCL
    // returns zeros there, the simulator's stand-in reads past its buffer.
    Case::rejects(
        L,
        "sampler_without_clamp",
        OutOfBoundsRead,
        Mutant(&[("CLK_ADDRESS_CLAMP |", "CLK_ADDRESS_NONE |")]),
        FailKind::BadAccess,
        &["reads B outside the image", "CLK_ADDRESS_CLAMP"],
    ),
    Case::rejects(
        L,
        "reads_without_a_sampler",
        OutOfBoundsRead,
        Mutant(&[(
            "b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));",
            "b[j][q] = read_imagef(B, (int2)(x0 + j * WGX, k + q));",
        )]),
        FailKind::BadAccess,
        &["reads B outside the image", "with no sampler"],
    ),
    // Correct in another style.
    Case::accepts(
        L,
        "normalised_coordinates",
        // Pixel centres in coordinates from 0 to 1, the image's size from get_image_dim.
        Mutant(&[
            (
                "CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP |",
                "CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP |",
            ),
            (
                "b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));",
                "b[j][q] = read_imagef(B, pixel, ((float2)(x0 + j * WGX, k + q) + 0.5f) / convert_float2(get_image_dim(B)));",
            ),
        ]),
    ),
    Case::accepts(
        L,
        "a_from_global_memory",
        // A_LOCAL = 0 whatever the host asks: each work-item reads its rows of A itself.
        Mutant(&[(
            "#define TM (WGY * RM)",
            "#undef A_LOCAL
#define A_LOCAL 0
#define TM (WGY * RM)",
        )]),
    ),
    Case::accepts(
        L,
        "one_mad_per_row_of_b",
        Mutant(&[(
            "acc[i][j] += a.x * b[j][0] + a.y * b[j][1] + a.z * b[j][2] + a.w * b[j][3];",
            "acc[i][j] = mad((float4)(a.x), b[j][0], acc[i][j]);
                    acc[i][j] = mad((float4)(a.y), b[j][1], acc[i][j]);
                    acc[i][j] = mad((float4)(a.z), b[j][2], acc[i][j]);
                    acc[i][j] = mad((float4)(a.w), b[j][3], acc[i][j]);",
        )]),
    ),
    Case::accepts(
        L,
        "sampler_clamps_to_the_edge",
        // Rows of B past K read the last row instead of zero, but they meet the zero columns
        // the host pads A with; columns past N only reach elements of C that are not stored.
        Mutant(&[("CLK_ADDRESS_CLAMP |", "CLK_ADDRESS_CLAMP_TO_EDGE |")]),
    ),
    Case::accepts(
        L,
        "pixels_outer_rows_inner",
        // For each pixel column j: read its four rows of B, then update every row of the
        // micro-tile with them.
        Mutant(&[(
            "            float4 b[RN][4];
            #pragma unroll
            for (int j = 0; j < RN; j++) {
                #pragma unroll
                for (int q = 0; q < 4; q++) {
                    b[j][q] = read_imagef(B, pixel, (int2)(x0 + j * WGX, k + q));
                }
            }
            // Row i of C gains A[i][k]·B[k] + A[i][k+1]·B[k+1] + ... four columns at a time.
            #pragma unroll
            for (int i = 0; i < RM; i++) {
                const float4 a = A4(i, kk);
                #pragma unroll
                for (int j = 0; j < RN; j++) {
                    acc[i][j] += a.x * b[j][0] + a.y * b[j][1] + a.z * b[j][2] + a.w * b[j][3];
                }
            }",
            "            for (int j = 0; j < RN; j++) {
                const int2 at = (int2)(x0 + j * WGX, k);
                const float4 b0 = read_imagef(B, pixel, at);
                const float4 b1 = read_imagef(B, pixel, at + (int2)(0, 1));
                const float4 b2 = read_imagef(B, pixel, at + (int2)(0, 2));
                const float4 b3 = read_imagef(B, pixel, at + (int2)(0, 3));
                for (int i = 0; i < RM; i++) {
                    const float4 a = A4(i, kk);
                    acc[i][j] += a.x * b0 + a.y * b1 + a.z * b2 + a.w * b3;
                }
            }",
        )]),
    ),
];
}
