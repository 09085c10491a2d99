//! Lesson 09's grader: the reference passes on every size (square, non-square, not a multiple
//! of anything) and with every alternative its defines offer; kernels and host set-ups wrong
//! on purpose are rejected with a message that says what is wrong; the zero-copy path never
//! copies.

mod common;

use std::sync::{Mutex, MutexGuard};

use lab::grade::{self, judge, FailKind, Options, Source};
use lab::harness::device::Gpu;
use lab::harness::matrix::{self, Problem, Shape};
use lab::harness::program::{self, Define};
use lab::ladder;
use lab::ladder::l09_texture_zero_copy::texture::{self, Op, Order, RowPitch, Setup, Transfer};
use lab::lesson::Ctx;
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
    g().assert_cases(ladder::cases("09"));
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
    kernel: opencl3::kernel::Kernel,
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
    let defines = defines.unwrap_or_else(|| (ocl.defines)(&ctx));
    let path = course.solutions().join("09_texture_zero_copy.cl");
    let prog = program::build_source(&gpu, &path, source, &defines, ocl.build_options)
        .unwrap_or_else(|e| panic!("{e:#}"));
    let kernel = program::kernel(&prog, &path, "matmul", ocl.args).unwrap();
    Bench {
        gpu,
        kernel,
        defines,
        _program: prog,
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
