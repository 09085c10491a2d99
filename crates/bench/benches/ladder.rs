//! Criterion benchmarks of the whole ladder: the CPU rungs' references beside
//! matrixmultiply, every OpenCL rung's reference beside CLBlast, in one process. Throughput
//! is in FLOPs, so criterion's "elem/s" reads as FLOP/s.
//!
//!   cargo bench -p lab-bench --bench ladder             # LAB_BENCH_SIZE=2048: a larger problem
//!   cargo bench -p lab-bench --bench ladder -- --test   # run each once (CI)
//!   MATMUL_NUM_THREADS=1 cargo bench -p lab-bench --bench ladder -- matrixmultiply
//!                                                       # the 1-thread peer
//!
//! matrixmultiply fixes its thread count once per process (MATMUL_NUM_THREADS, else the
//! physical cores, at most 4); the benchmark's name says which it ran with.
//!
//! OpenCL rungs are timed on the device with profiling events (`iter_custom`), so the
//! numbers are kernel time, as in the lesson binaries. A rung whose reference does not
//! build or check is reported and skipped.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lab::cli::Edge;
use lab::grade::verify;
use lab::harness::device::Gpu;
use lab::harness::exec::{self, Launch};
use lab::harness::matrix::{Problem, Shape};
use lab::harness::paths::Course;
use lab::harness::program::Define;
use lab::ladder;
use lab::lesson::{Ctx, Kind, Lesson, OclLesson, STANDARD_ARGS};
use lab::prepared::{self, Prepared};
use lab_bench::peers;
use opencl3::kernel::Kernel;

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
use opencl3::memory::{Buffer, CL_MEM_READ_WRITE};

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

fn cpu(c: &mut Criterion) {
    let n = size(None).min(256);
    let shape = Shape::square(n);
    let p = Problem::random(shape, 1);
    let mut out = vec![0.0f32; n * n];
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
        let id = BenchmarkId::new(format!("{lesson}::{function}"), n);
        g.bench_function(id, |b| b.iter(|| f(&p.a, &p.b, &mut out, n, n, n)));
    }
    let threads = std::env::var("MATMUL_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or_else(lab::run::default_threads)
        .clamp(1, 4);
    g.bench_function(
        BenchmarkId::new(format!("matrixmultiply::threads={threads}"), n),
        |b| b.iter(|| peers::matrixmultiply(&p, &mut out)),
    );
    g.finish();
}

/// A rung ready to time: its kernel and launch, checked once against the reference.
struct Rung {
    lesson: &'static Lesson,
    ocl: &'static OclLesson,
    kernel: Kernel,
    launch: Launch,
    defines: Vec<Define>,
}

/// Builds a rung's reference and checks it at `shape`, or says why not.
fn prepare(
    gpu: &Gpu,
    course: &Course,
    lesson: &'static Lesson,
    p: &Problem,
) -> Result<Rung, String> {
    let ocl = lesson.ocl().ok_or("not an OpenCL lesson")?;
    ocl.supports(&gpu.info).map_err(|e| format!("{e:#}"))?;
    let ctx = Ctx {
        info: &gpu.info,
        course,
    };
    let defines = prepared::defines(ocl, &ctx, None, &[])?;
    let launch = (ocl.launch)(p.shape, &defines)?;
    let file = course.solutions().join(lesson.file_name());
    let kernel = Prepared::read(gpu, ocl, &file, &defines, ocl.build_options)
        .map_err(|e| format!("{e:#}"))?
        .kernel;
    let out = (ocl.host.run)(gpu, &kernel, p, &launch, &defines).map_err(|e| format!("{e:#}"))?;
    verify(p, &out, None).map_err(|f| f.message)?;
    Ok(Rung {
        lesson,
        ocl,
        kernel,
        launch,
        defines,
    })
}

/// The standard arguments, set once: A, B and C stay on the device between iterations.
struct Buffers {
    _a: Buffer<f32>,
    _b: Buffer<f32>,
    _c: Buffer<f32>,
}

fn standard_buffers(gpu: &Gpu, rung: &Rung, p: &Problem) -> Buffers {
    let a = exec::input_buffer(gpu, &p.a, 0).expect("allocating A");
    let b = exec::input_buffer(gpu, &p.b, 0).expect("allocating B");
    let c = unsafe {
        Buffer::<f32>::create(
            &gpu.context,
            CL_MEM_READ_WRITE,
            p.shape.m * p.shape.n,
            std::ptr::null_mut(),
        )
    }
    .expect("allocating C");
    exec::set_standard_args(&rung.kernel, p.shape, &a, &b, &c).expect("setting the arguments");
    Buffers {
        _a: a,
        _b: b,
        _c: c,
    }
}

/// Device time of `iters` launches, from profiling events.
fn time_launches(gpu: &Gpu, rung: &Rung, iters: u64) -> Duration {
    let ms: f64 = (0..iters)
        .map(|_| exec::launch(gpu, &rung.kernel, &rung.launch).expect("the launch"))
        .sum();
    Duration::from_secs_f64(ms * 1e-3)
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
    let p = Problem::random(shape, 2);
    eprintln!("OpenCL rungs on {} at {shape}", gpu.info.describe());
    let mut g = c.benchmark_group("opencl");
    g.throughput(flops(shape))
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    for lesson in ladder::ALL.iter().copied() {
        if !matches!(lesson.kind, Kind::OpenCl(_)) {
            continue;
        }
        let rung = match prepare(&gpu, &edge.course, lesson, &p) {
            Ok(r) => r,
            Err(why) => {
                eprintln!("{} skipped: {why}", lesson.name());
                continue;
            }
        };
        let id = BenchmarkId::new(lesson.name(), n);
        // Lessons whose host does something else (images, mapped memory) are timed by their
        // own host code; the rest launch directly, once per iteration.
        let standard = rung.ocl.args == STANDARD_ARGS && !rung.ocl.host.needs_images;
        let _buffers = standard.then(|| standard_buffers(&gpu, &rung, &p));
        g.bench_function(id, |b| {
            b.iter_custom(|iters| {
                if standard {
                    time_launches(&gpu, &rung, iters)
                } else {
                    // The host's own guarded run, its kernel's device time summed.
                    let ms: f64 = (0..iters)
                        .map(|_| {
                            (rung.ocl.host.run)(&gpu, &rung.kernel, &p, &rung.launch, &rung.defines)
                                .unwrap_or_else(|e| panic!("{}: {e:#}", rung.lesson.name()))
                                .kernel_ms
                        })
                        .sum();
                    Duration::from_secs_f64(ms * 1e-3)
                }
            })
        });
    }
    match peers::load(edge.clblast.as_deref()) {
        Err(why) => eprintln!("clblast skipped: {why}"),
        Ok(lib) => match peers::clblast_sgemm(&lib, &gpu, p.shape) {
            Err(e) => eprintln!("clblast skipped: {e:#}"),
            Ok(_) => {
                let a = exec::input_buffer(&gpu, &p.a, 0).expect("allocating A");
                let b = exec::input_buffer(&gpu, &p.b, 0).expect("allocating B");
                let cbuf = exec::input_buffer(&gpu, &vec![0.0; n * n], 0).expect("allocating C");
                g.bench_function(BenchmarkId::new("clblast", n), |bench| {
                    bench.iter_custom(|iters| {
                        let ms: f64 = (0..iters)
                            .map(|_| {
                                peers::sgemm_ms(&lib, &gpu, &p, &a, &b, &cbuf, 0).expect("CLBlast")
                            })
                            .sum();
                        Duration::from_secs_f64(ms * 1e-3)
                    })
                });
            }
        },
    }
    g.finish();
}

criterion_group!(benches, cpu, opencl);
criterion_main!(benches);
