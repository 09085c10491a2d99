//! `lab ladder`: measures every rung's reference answer, the variants each chapter compares,
//! and the peers, at several sizes on one device, in one run, and appends the results to a
//! CSV file under results/. Every row of one invocation carries the same `run`: they were
//! measured together. This is the command behind every measured number in the book.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context as _, Result};

use crate::cli::Edge;
use crate::grade::Source;
use crate::harness::cpu_crate;
use crate::harness::device::Gpu;
use crate::harness::matrix::Shape;
use crate::harness::record::{self, LadderRow};
use crate::harness::timing::Timing;
use crate::ladder;
use crate::lesson::{CpuRun, Kind, Lesson, Peer};
use crate::peers;
use crate::peers::cpu_blas;
use crate::report;
use crate::run::{self, cpu_model, default_threads, timing_row};

/// What to measure.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    pub device: Option<String>,
    /// Square sizes to measure (default: 1024,2048,4096 on a GPU, 256,512,1024 otherwise).
    #[arg(long, value_delimiter = ',')]
    pub sizes: Vec<usize>,
    /// Only these lessons, e.g. --lessons 5,10 (default: all).
    #[arg(long, value_delimiter = ',')]
    pub lessons: Vec<String>,
    /// Largest size at which the CPU lessons and peers run (they are slow).
    #[arg(long, default_value_t = 1024)]
    pub cpu_max: usize,
    /// The CSV file to append to (default: results/<device>.csv).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Skip the variants (other versions each chapter compares).
    #[arg(long)]
    pub no_variants: bool,
    /// Skip the peers (CLBlast; OpenBLAS, the gemm crate, matrixmultiply).
    #[arg(long)]
    pub no_peers: bool,
    /// The run these rows belong to (default: a new one); `scripts/cublas_sgemm.py --run`
    /// takes the same, so that cuBLAS's rows read as measured together with these.
    #[arg(long)]
    pub run: Option<String>,
    /// Measure only matrixmultiply, with the threads MATMUL_NUM_THREADS gives (a child
    /// process of the ladder measures it single-threaded this way).
    #[arg(long, hide = true)]
    pub matrixmultiply_only: bool,
    /// Measure only OpenBLAS, with the core type OPENBLAS_CORETYPE names (a child process of
    /// the ladder measures its AVX-512 kernel this way where its own pick is older).
    #[arg(long, hide = true)]
    pub openblas_only: bool,
    /// The OpenBLAS library to load (also: OPENBLAS_LIBRARY; default: libopenblas.so.0 and
    /// the like on the library path).
    #[arg(long)]
    pub openblas: Option<String>,
}

/// A file-name-friendly form of a device name.
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            s.push(c);
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    s.trim_matches('-').to_string()
}

fn say(what: &str, t: &Timing, shape: Shape) {
    println!(
        "  {what:<44} {shape}  {:>10} GFLOP/s  ({}, best {}, worst {})",
        report::gflops(t.gflops(shape)),
        report::ms(t.device_ms),
        report::ms(t.best_ms),
        report::ms(t.worst_ms)
    );
}

/// The threads matrixmultiply uses in this process (its own rule: MATMUL_NUM_THREADS, else
/// the physical cores, at most 4).
fn matrixmultiply_threads() -> usize {
    let cores = default_threads().clamp(1, 4);
    std::env::var("MATMUL_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(cores)
        .clamp(1, 4)
}

/// Runs the ladder.
pub fn run(args: &Args, edge: &Edge) -> Result<()> {
    let sel = edge.device(args.device.as_deref());
    let gpu = Gpu::open(sel.as_deref())?;
    let info = gpu.info.clone();
    let sizes = if args.sizes.is_empty() {
        if info.is_gpu() {
            vec![1024, 2048, 4096]
        } else {
            vec![256, 512, 1024]
        }
    } else {
        args.sizes.clone()
    };
    for &s in &sizes {
        crate::cli::check_shape(Shape::square(s))?;
    }
    let out = args.out.clone().unwrap_or_else(|| {
        edge.course
            .results()
            .join(format!("{}.csv", slug(&info.name)))
    });
    let run_id = args.run.clone().unwrap_or_else(record::run_id);
    let cpu = format!("{} ({} threads)", cpu_model(), default_threads());
    let cpu_sizes: Vec<usize> = sizes
        .iter()
        .copied()
        .filter(|&s| s <= args.cpu_max)
        .collect();
    let mut rows: Vec<LadderRow> = Vec::new();

    if args.matrixmultiply_only {
        for &s in &cpu_sizes {
            rows.push(matrixmultiply_row(&run_id, Shape::square(s))?);
        }
        return record::append(&out, &rows);
    }
    let openblas_path = args
        .openblas
        .clone()
        .or_else(|| std::env::var("OPENBLAS_LIBRARY").ok());
    if args.openblas_only {
        let lib = cpu_blas::load(openblas_path.as_deref())?;
        let wanted = std::env::var("OPENBLAS_CORETYPE").unwrap_or_default();
        anyhow::ensure!(
            lib.corename().eq_ignore_ascii_case(&wanted),
            "OpenBLAS {} runs its {} kernel although OPENBLAS_CORETYPE={wanted}: this build cannot be told which kernel to run",
            lib.version(),
            lib.corename()
        );
        rows.extend(openblas_rows(&lib, &cpu_sizes, &run_id, true));
        return record::append(&out, &rows);
    }

    println!(
        "measuring on {} → {} (run {run_id})",
        info.describe(),
        out.display()
    );
    let only: Vec<&'static Lesson> = args
        .lessons
        .iter()
        .map(|k| {
            ladder::find(k).with_context(|| {
                format!("there is no lesson {k}: the lessons are {}", ladder::keys())
            })
        })
        .collect::<Result<_>>()?;
    let solutions = Source::Folder(edge.course.solutions());
    let mut written = 0;
    for &lesson in ladder::ALL.iter() {
        if !lesson.graded() || !(only.is_empty() || only.iter().any(|l| l.key == lesson.key)) {
            continue;
        }
        // What is measured is kept as it comes: a run stopped halfway keeps its rows.
        record::append(&out, &rows)?;
        written += rows.len();
        rows.clear();
        let is_cpu = matches!(lesson.kind, Kind::Cpu(_));
        let lesson_sizes = if is_cpu { &cpu_sizes } else { &sizes };
        for &s in lesson_sizes {
            let mut shapes = vec![Shape::square(s)];
            // Lessons that handle any size are also measured just below a power of two.
            if lesson.ocl().is_some_and(|o| o.any_size) {
                shapes.push(Shape::square(s - 1));
            }
            for shape in shapes {
                match run::measure(lesson, &solutions, edge, sel.as_deref(), shape, &[]) {
                    Ok(m) => {
                        say(&format!("{} reference", lesson.name()), &m.timing, shape);
                        let mut row = run::row(&m, &run_id);
                        if is_cpu && row.defines.is_empty() {
                            // The vector width the student crate was built for, here.
                            row.defines = format!("SIMD={}", cpu_crate::simd().1);
                        }
                        rows.push(row);
                    }
                    Err(e) => println!("  {} at {shape}: not measured: {e:#}", lesson.name()),
                }
                if args.no_variants {
                    continue;
                }
                for v in lesson.ocl().map_or(&[][..], |o| o.variants) {
                    match (v.measure)(&gpu, &edge.course, shape) {
                        Ok(Some(t)) => {
                            say(&format!("{} {}", lesson.name(), v.name), &t, shape);
                            rows.push(timing_row(
                                &run_id,
                                &info.name,
                                &info.driver,
                                0,
                                &lesson.name(),
                                v.name,
                                shape,
                                &t,
                                None,
                            ));
                        }
                        Ok(None) => println!("  {} {}: does not apply here", lesson.name(), v.name),
                        Err(e) => println!(
                            "  {} {} at {shape}: not measured: {e:#}",
                            lesson.name(),
                            v.name
                        ),
                    }
                }
            }
        }
        let cpu_variants = lesson.cpu().and_then(|c| c.variants);
        if let (Some(measure), false) = (cpu_variants, args.no_variants) {
            if let Some(&s) = cpu_sizes.last() {
                let shape = Shape::square(s);
                let file = solutions.path(lesson);
                let on = CpuRun {
                    course: &edge.course,
                    file: &file,
                    shape,
                    timeout: edge.timeout,
                };
                for (name, t, timing) in measure(lesson, &on)? {
                    say(&format!("{} {name}", lesson.name()), &timing, shape);
                    rows.push(timing_row(
                        &run_id,
                        &cpu,
                        "",
                        t,
                        &lesson.name(),
                        &name,
                        shape,
                        &timing,
                        None,
                    ));
                }
            }
        }
    }
    // Write what the rungs gave before the peers, which may be absent or slow.
    record::append(&out, &rows)?;
    written += rows.len();
    rows.clear();
    // A peer is measured when a lesson measured here declares it.
    let wants = |peer: Peer| {
        ladder::ALL
            .iter()
            .filter(|l| only.is_empty() || only.iter().any(|o| o.key == l.key))
            .any(|l| l.peers.contains(&peer))
    };
    if !args.no_peers && wants(Peer::Clblast) {
        rows.extend(clblast_rows(&gpu, edge, &sizes, &run_id));
        record::append(&out, &rows)?;
        written += rows.len();
        rows.clear();
    }
    if !args.no_peers && wants(Peer::Matrixmultiply) {
        // matrixmultiply with its threads, here; and with one thread in a child process,
        // since the crate fixes its thread count once per process.
        let threads = matrixmultiply_threads();
        for &s in &cpu_sizes {
            rows.push(matrixmultiply_row(&run_id, Shape::square(s))?);
        }
        record::append(&out, &rows)?;
        written += rows.len();
        rows.clear();
        if threads > 1 && !cpu_sizes.is_empty() {
            let me = crate::cli::this_program()?;
            let sizes: Vec<String> = cpu_sizes.iter().map(|s| s.to_string()).collect();
            let status = Command::new(me)
                .args([
                    "ladder",
                    "--matrixmultiply-only",
                    "--run",
                    &run_id,
                    "--sizes",
                ])
                .arg(sizes.join(","))
                .arg("--out")
                .arg(&out)
                .arg("--cpu-max")
                .arg(args.cpu_max.to_string())
                .env("MATMUL_NUM_THREADS", "1")
                .status()
                .context("measuring matrixmultiply on one thread")?;
            anyhow::ensure!(
                status.success(),
                "measuring matrixmultiply on one thread failed"
            );
            println!("  peer matrixmultiply threads=1: measured in a child process");
        }
    }
    if !args.no_peers && wants(Peer::CpuBlas) {
        rows.extend(gemm_crate_rows(&cpu_sizes, &run_id));
        match cpu_blas::load(openblas_path.as_deref()) {
            Ok(lib) => {
                rows.extend(openblas_rows(&lib, &cpu_sizes, &run_id, false));
                // Its own pick leaves the CPU's widest vectors unused: its AVX-512 kernel too,
                // in a child process, since OpenBLAS reads OPENBLAS_CORETYPE once, on loading.
                let core = cpu_blas::AVX512_CORE;
                if cpu_blas::cpu_has_avx512()
                    && !cpu_blas::uses_avx512(&lib.corename())
                    && !cpu_sizes.is_empty()
                {
                    let me = crate::cli::this_program()?;
                    let sizes: Vec<String> = cpu_sizes.iter().map(|s| s.to_string()).collect();
                    let mut child = Command::new(me);
                    child
                        .args(["ladder", "--openblas-only", "--run", &run_id, "--sizes"])
                        .arg(sizes.join(","))
                        .arg("--out")
                        .arg(&out)
                        .arg("--cpu-max")
                        .arg(args.cpu_max.to_string())
                        .env("OPENBLAS_CORETYPE", core);
                    if let Some(p) = &openblas_path {
                        child.arg("--openblas").arg(p);
                    }
                    let status = child
                        .status()
                        .context("measuring OpenBLAS's AVX-512 kernel")?;
                    if status.success() {
                        println!("  peer OpenBLAS core={core}: measured in a child process");
                    } else {
                        println!("  peer OpenBLAS core={core}: not measured (see above)");
                    }
                }
            }
            Err(why) => println!("  {why}"),
        }
        record::append(&out, &rows)?;
        written += rows.len();
        rows.clear();
    }
    println!(
        "recorded {written} rows (and any child's) in {} as run {run_id}",
        out.display()
    );
    Ok(())
}

/// The CPU this process runs on, with `threads` threads, as the rows name it.
fn cpu_device(threads: usize) -> String {
    format!("{} ({threads} threads)", cpu_model())
}

/// matrixmultiply with the threads this process gives it, and the kernel it selects here.
fn matrixmultiply_row(run_id: &str, shape: Shape) -> Result<LadderRow> {
    let threads = matrixmultiply_threads();
    let t = peers::time_matrixmultiply(shape).context("measuring matrixmultiply")?;
    let kernel = cpu_blas::matrixmultiply_kernel();
    say(
        &format!("peer matrixmultiply threads={threads} ({kernel})"),
        &t,
        shape,
    );
    let mut row = timing_row(
        run_id,
        &cpu_device(threads),
        "",
        threads,
        "matrixmultiply",
        &format!("threads={threads}"),
        shape,
        &t,
        None,
    );
    row.defines = format!("kernel={kernel}");
    Ok(row)
}

/// The `gemm` crate at each CPU size, on all the threads, with the kernel family it runs.
fn gemm_crate_rows(sizes: &[usize], run_id: &str) -> Vec<LadderRow> {
    let threads = crate::run::default_threads();
    let kernel = cpu_blas::gemm_crate_kernel();
    let mut rows = Vec::new();
    for &s in sizes {
        let shape = Shape::square(s);
        let t = peers::time_host("the gemm crate", shape, |p, c| {
            cpu_blas::gemm_crate(p, c, threads);
            Ok(())
        });
        match t {
            Ok(t) => {
                say(
                    &format!("peer gemm threads={threads} ({kernel})"),
                    &t,
                    shape,
                );
                let mut row = timing_row(
                    run_id,
                    &cpu_device(threads),
                    "",
                    threads,
                    "gemm",
                    &format!("threads={threads}"),
                    shape,
                    &t,
                    None,
                );
                row.defines = format!("kernel={kernel} version=0.19");
                rows.push(row);
            }
            Err(e) => println!("  the gemm crate at {shape}: not measured: {e:#}"),
        }
    }
    rows
}

/// OpenBLAS at each CPU size, on all the threads, with the core type it runs (`forced`: the
/// one OPENBLAS_CORETYPE named).
fn openblas_rows(
    lib: &cpu_blas::OpenBlas,
    sizes: &[usize],
    run_id: &str,
    forced: bool,
) -> Vec<LadderRow> {
    let threads = crate::run::default_threads();
    lib.set_threads(threads);
    let core = lib.corename();
    let mut rows = Vec::new();
    for &s in sizes {
        let shape = Shape::square(s);
        match peers::time_host("OpenBLAS", shape, |p, c| lib.sgemm(p, c)) {
            Ok(t) => {
                say(
                    &format!("peer OpenBLAS threads={threads} (core {core})"),
                    &t,
                    shape,
                );
                let mut row = timing_row(
                    run_id,
                    &cpu_device(threads),
                    "",
                    threads,
                    "openblas",
                    &format!("threads={threads}"),
                    shape,
                    &t,
                    None,
                );
                let how = if forced { " OPENBLAS_CORETYPE" } else { "" };
                row.defines = format!("kernel={core}{how} version={}", lib.version());
                rows.push(row);
            }
            Err(e) => println!("  OpenBLAS at {shape}: not measured: {e:#}"),
        }
    }
    rows
}

/// CLBlast at each size, where it is installed.
fn clblast_rows(gpu: &Gpu, edge: &Edge, sizes: &[usize], run_id: &str) -> Vec<LadderRow> {
    let lib = match peers::load(edge.clblast.as_deref()) {
        Ok(l) => l,
        Err(why) => {
            println!("  {why}");
            return Vec::new();
        }
    };
    let mut rows = Vec::new();
    for &s in sizes {
        let shape = Shape::square(s);
        match peers::clblast_sgemm(&lib, gpu, shape) {
            Ok(t) => {
                say("peer CLBlast", &t, shape);
                rows.push(timing_row(
                    run_id,
                    &gpu.info.name,
                    &gpu.info.driver,
                    0,
                    "clblast",
                    "sgemm",
                    shape,
                    &t,
                    None,
                ));
            }
            Err(e) => println!("  CLBlast at {shape}: not measured: {e:#}"),
        }
    }
    rows
}
