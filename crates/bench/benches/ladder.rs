//! Criterion benchmarks of the whole ladder: the CPU rungs' references beside
//! matrixmultiply, every OpenCL rung's reference beside CLBlast, in one process. Throughput
//! is in FLOPs, so criterion's "elem/s" reads as FLOP/s.
//!
//!   cargo bench -p lab-bench --bench ladder             # LAB_BENCH_SIZE=2048: a larger problem
//!   cargo bench -p lab-bench --bench ladder -- --test   # run each once (CI)
//!   MATMUL_NUM_THREADS=1 cargo bench -p lab-bench --bench ladder -- matrixmultiply
//!                                                       # the 1-thread peer
//!
//! Criterion decides how many calls to make and what statistics to take; every call it times
//! is one call of the course's protocol (`timing::CheckedCalls`): fresh inputs drawn from a
//! secret seed, C poisoned, C checked before its time counts, no time above the device's
//! ceiling. A code that remembered the last inputs, or skipped work where C already held
//! numbers, is as wrong here as in grading. OpenCL rungs give their kernel's device time
//! (profiling events), CLBlast and the CPU codes their wall time, as in `lab-bench ladder`.
//!
//! matrixmultiply fixes its thread count once per process (MATMUL_NUM_THREADS, else the
//! physical cores, at most 4); the benchmark's name says which it ran with.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lab::cli::Edge;
use lab::grade::verify;
use lab::harness::cpu_facts;
use lab::harness::device::Gpu;
use lab::harness::exec::{Launch, RunOutput};
use lab::harness::matrix::{Problem, Shape};
use lab::harness::paths::Course;
use lab::harness::program::{Define, Kernels};
use lab::harness::timing::{self, CheckedCalls, Target};
use lab::ladder;
use lab::lesson::{Ctx, Kind, Lesson, OclLesson};
use lab::prepared::{self, Prepared};
use lab_bench::peers;

#[path = "../../../solutions/02_cpu_loop_order.rs"]
mod loop_order;
/// The CPU rungs' reference answers, compiled into the benchmark (the grader builds them as
/// a crate of their own; a benchmark only times them).
#[path = "../../../solutions/01_cpu_naive.rs"]
mod naive;
#[path = "../../../solutions/03b_cpu_packed.rs"]
mod packed;
#[path = "../../../solutions/03_cpu_parallel.rs"]
mod parallel;

type Matmul = fn(&[f32], &[f32], &mut [f32], usize, usize, usize);

/// Every CPU lesson's functions, by lesson.
const CPU_RUNGS: &[(&str, &str, Matmul)] = &[
    ("01_cpu_naive", "matmul", naive::matmul),
    ("02_cpu_loop_order", "matmul_ikj", loop_order::matmul_ikj),
    (
        "02_cpu_loop_order",
        "matmul_blocked",
        loop_order::matmul_blocked,
    ),
    (
        "03_cpu_parallel",
        "matmul_parallel",
        parallel::matmul_parallel,
    ),
    ("03b_cpu_packed", "matmul_packed", packed::matmul_packed),
];

/// `LAB_BENCH_SIZE`, else 1024 on a GPU and 128 elsewhere.
fn size(gpu: Option<&Gpu>) -> usize {
    std::env::var("LAB_BENCH_SIZE")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&s| s > 0)
        .unwrap_or(match gpu {
            Some(g) if g.info.is_gpu() => 1024,
            _ => 128,
        })
}

fn flops(s: Shape) -> Throughput {
    Throughput::Elements((2 * s.m * s.n * s.k) as u64)
}

/// Whether a call's C is right, in the protocol's terms.
fn check(p: &Problem, out: &RunOutput) -> Result<(), String> {
    verify(p, out, None).map(|_| ()).map_err(|f| f.message)
}

/// A sample of `iters` checked calls: their times summed, as criterion's `iter_custom` asks.
/// A wrong or impossible call ends the benchmark with the protocol's reason.
fn sample(
    name: &str,
    calls: &mut CheckedCalls,
    iters: u64,
    mut once: impl FnMut(&Problem) -> anyhow::Result<RunOutput>,
) -> Duration {
    let ms: f64 = (0..iters)
        .map(|_| {
            calls
                .call(&mut once, check)
                .unwrap_or_else(|e| panic!("{name}: {e:#}"))
        })
        .sum();
    Duration::from_secs_f64(ms * 1e-3)
}

/// A CPU code run on the problem into its poisoned C, timed on the wall clock.
fn on_the_cpu(p: &Problem, f: impl FnOnce(&Problem, &mut [f32])) -> anyhow::Result<RunOutput> {
    let mut c = p.poison.to_vec();
    let t = Instant::now();
    f(p, &mut c);
    Ok(RunOutput::plain(c, t.elapsed().as_secs_f64() * 1e3))
}

fn cpu(c: &mut Criterion) {
    let n = size(None).min(256);
    let shape = Shape::square(n);
    let target = Target {
        device: "this CPU",
        ceiling: Some(cpu_facts::host().ceiling_gflops()),
        budget_ms: timing::BUDGET_MS,
        tie_floor: timing::CPU_TIE_FLOOR,
    };
    let mut g = c.benchmark_group("cpu");
    g.throughput(flops(shape)).sample_size(10);
    // Every CPU lesson of the ladder has its functions here.
    for lesson in ladder::ALL
        .iter()
        .filter(|l| matches!(l.kind, Kind::Cpu(_)))
    {
        let cpu = lesson.cpu().expect("a CPU lesson");
        for function in cpu.functions {
            assert!(
                CPU_RUNGS
                    .iter()
                    .any(|r| r.0 == lesson.name() && r.1 == *function),
                "{}::{function} is not benchmarked",
                lesson.name()
            );
        }
    }
    for &(lesson, function, f) in CPU_RUNGS {
        let name = format!("{lesson}::{function}");
        let mut calls = CheckedCalls::new(shape, &target);
        g.bench_function(BenchmarkId::new(&name, n), |b| {
            b.iter_custom(|iters| {
                sample(&name, &mut calls, iters, |p| {
                    on_the_cpu(p, |p, c| f(&p.a, &p.b, c, n, n, n))
                })
            })
        });
    }
    let threads = std::env::var("MATMUL_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or_else(lab::run::default_threads)
        .clamp(1, 4);
    let name = format!("matrixmultiply::threads={threads}");
    let mut calls = CheckedCalls::new(shape, &target);
    g.bench_function(BenchmarkId::new(&name, n), |b| {
        b.iter_custom(|iters| {
            sample(&name, &mut calls, iters, |p| {
                on_the_cpu(p, peers::matrixmultiply)
            })
        })
    });
    g.finish();
}

/// A rung ready to time: its kernel and launch, checked once against the reference.
struct Rung {
    ocl: &'static OclLesson,
    kernel: Kernels,
    launch: Launch,
    defines: Vec<Define>,
}

/// Builds a rung's reference and checks one call of it at `shape`, or says why not.
fn prepare(
    gpu: &Gpu,
    course: &Course,
    lesson: &'static Lesson,
    shape: Shape,
    target: &Target,
) -> Result<Rung, String> {
    let ocl = lesson.ocl().ok_or("not an OpenCL lesson")?;
    ocl.supports(&gpu.info).map_err(|e| format!("{e:#}"))?;
    let ctx = Ctx {
        info: &gpu.info,
        course,
    };
    let defines = prepared::defines(ocl, &ctx, None, &[])?;
    let launch = (ocl.launch)(shape, &defines)?;
    let file = course.solutions().join(lesson.file_name());
    let kernel = Prepared::read(gpu, ocl, &file, &defines, ocl.build_options)
        .map_err(|e| format!("{e:#}"))?
        .kernel;
    CheckedCalls::new(shape, target)
        .call(
            |p| (ocl.host.run)(gpu, &kernel, p, &launch, &defines),
            check,
        )
        .map_err(|e| format!("{e:#}"))?;
    Ok(Rung {
        ocl,
        kernel,
        launch,
        defines,
    })
}

fn opencl(c: &mut Criterion) {
    let edge = match Edge::from_env() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("OpenCL rungs skipped: {e:#}");
            return;
        }
    };
    let gpu = match Gpu::open(edge.device.as_deref()) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("OpenCL rungs skipped: {e:#}");
            return;
        }
    };
    let n = size(Some(&gpu));
    let shape = Shape::square(n);
    let target = Target::device(&gpu.info);
    eprintln!("OpenCL rungs on {} at {shape}", gpu.info.describe());
    let mut g = c.benchmark_group("opencl");
    g.throughput(flops(shape))
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    for lesson in ladder::ALL.iter().copied() {
        if !matches!(lesson.kind, Kind::OpenCl(_)) {
            continue;
        }
        let rung = match prepare(&gpu, &edge.course, lesson, shape, &target) {
            Ok(r) => r,
            Err(why) => {
                eprintln!("{} skipped: {why}", lesson.name());
                continue;
            }
        };
        // Each call through the lesson's own host code (buffers or images, mapped memory),
        // as grading runs it: the kernel's device time.
        let mut calls = CheckedCalls::new(shape, &target);
        g.bench_function(BenchmarkId::new(lesson.name(), n), |b| {
            b.iter_custom(|iters| {
                sample(&lesson.name(), &mut calls, iters, |p| {
                    (rung.ocl.host.run)(&gpu, &rung.kernel, p, &rung.launch, &rung.defines)
                })
            })
        });
    }
    match peers::load(edge.clblast.as_deref()) {
        Err(why) => eprintln!("clblast skipped: {why}"),
        Ok(lib) => {
            let mut batch = 1;
            let mut calls = CheckedCalls::new(shape, &target);
            // One checked call first: CLBlast compiles its kernels then, or says why it cannot.
            match calls.call(|p| peers::clblast_call(&lib, &gpu, p, &mut batch), check) {
                Err(e) => eprintln!("clblast skipped: {e:#}"),
                Ok(_) => {
                    g.bench_function(BenchmarkId::new("clblast", n), |b| {
                        b.iter_custom(|iters| {
                            sample("clblast", &mut calls, iters, |p| {
                                peers::clblast_call(&lib, &gpu, p, &mut batch)
                            })
                        })
                    });
                }
            }
        }
    }
    g.finish();
}

criterion_group!(benches, cpu, opencl);
criterion_main!(benches);
