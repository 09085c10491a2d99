//! `lab ladder`: measures every rung's reference answer, the variants each chapter compares,
//! and the peers, at several sizes on one device, in one run, and appends the results to a
//! CSV file under results/. Every row of one invocation carries the same `run`: they were
//! measured together. This is the command behind every measured number in the book.

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context as _, Result};

use crate::cli::Edge;
use crate::grade::Source;
use crate::harness::device::Gpu;
use crate::harness::exec::Timing;
use crate::harness::matrix::Shape;
use crate::harness::record::{self, LadderRow};
use crate::ladder::{self, l03_cpu_parallel};
use crate::lesson::{Kind, Lesson};
use crate::peers;
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
    /// Skip the peers (CLBlast, matrixmultiply).
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
        let threads = matrixmultiply_threads();
        for &s in &cpu_sizes {
            let shape = Shape::square(s);
            let t = peers::time_matrixmultiply(shape)?;
            rows.push(timing_row(
                &run_id,
                &format!("{} ({threads} threads)", cpu_model()),
                "",
                threads,
                "matrixmultiply",
                &format!("threads={threads}"),
                shape,
                &t,
                None,
            ));
        }
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
            if lesson.key >= "08" && !is_cpu {
                shapes.push(Shape::square(s - 1));
            }
            for shape in shapes {
                match run::measure(lesson, &solutions, edge, sel.as_deref(), shape, &[]) {
                    Ok(m) => {
                        say(&format!("{} reference", lesson.name()), &m.timing, shape);
                        rows.push(run::row(&m, &run_id));
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
        if lesson.key == l03_cpu_parallel::LESSON.key && !args.no_variants {
            if let Some(&s) = cpu_sizes.last() {
                let shape = Shape::square(s);
                let common = crate::cli::Common {
                    solution: true,
                    ..Default::default()
                };
                for (t, timing) in l03_cpu_parallel::scaling(lesson, &common, edge, shape)? {
                    say(&format!("{} threads={t}", lesson.name()), &timing, shape);
                    rows.push(timing_row(
                        &run_id,
                        &cpu,
                        "",
                        t,
                        &lesson.name(),
                        &format!("threads={t}"),
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
    let wants = |key: &str| only.is_empty() || only.iter().any(|l| l.key == key);
    if !args.no_peers && wants("10") {
        rows.extend(clblast_rows(&gpu, edge, &sizes, &run_id));
        record::append(&out, &rows)?;
        written += rows.len();
        rows.clear();
    }
    if !args.no_peers && only.iter().all(|l| matches!(l.kind, Kind::Cpu(_))) {
        // matrixmultiply with its threads, here; and with one thread in a child process,
        // since the crate fixes its thread count once per process.
        let threads = matrixmultiply_threads();
        for &s in &cpu_sizes {
            let shape = Shape::square(s);
            let t = peers::time_matrixmultiply(shape).context("measuring matrixmultiply")?;
            say(&format!("peer matrixmultiply threads={threads}"), &t, shape);
            rows.push(timing_row(
                &run_id,
                &format!("{} ({threads} threads)", cpu_model()),
                "",
                threads,
                "matrixmultiply",
                &format!("threads={threads}"),
                shape,
                &t,
                None,
            ));
        }
        record::append(&out, &rows)?;
        written += rows.len();
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
    println!(
        "recorded {written} rows (and any child's) in {} as run {run_id}",
        out.display()
    );
    Ok(())
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
