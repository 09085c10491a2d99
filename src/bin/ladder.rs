//! Measures every rung's reference answer (and the variants each chapter compares) at
//! several sizes on one device, and appends the results to a CSV file under results/.
//! This is the command behind every measured number in the book:
//!
//!     cargo run --release --bin ladder -- --sizes 1024,2048,4096
//!     cargo run --release --bin results        # regenerates the book's tables and charts

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context as _, Result};
use clap::Parser;
use lab::device::{self, Gpu};
use lab::exec::Timing;
use lab::grade::Source;
use lab::lessons::{self, Kind};
use lab::matrix::{Problem, Shape};
use lab::{record, report, runner};

#[derive(Parser)]
#[command(about = "Measures the whole ladder on one device and records it under results/")]
struct Args {
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    device: Option<String>,
    /// Square sizes to measure (default: 1024,2048,4096 on a GPU, 256,512,1024 otherwise).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Only these lessons (default: 1 to 10).
    #[arg(long, value_delimiter = ',')]
    lessons: Vec<u32>,
    /// Largest size at which the CPU lessons run (they are slow).
    #[arg(long, default_value_t = 1024)]
    cpu_max: usize,
    /// The CSV file to append to (default: results/<device>.csv).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Skip the variants (other versions each chapter compares).
    #[arg(long)]
    no_variants: bool,
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// A file-name-friendly form of a device name.
fn slug(name: &str) -> String {
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

fn variant_row(
    device: &str,
    driver: &str,
    lesson: &str,
    variant: &str,
    shape: Shape,
    t: &Timing,
) -> Vec<String> {
    vec![
        record::today(),
        device.to_string(),
        driver.to_string(),
        lesson.to_string(),
        variant.to_string(),
        shape.m.to_string(),
        shape.n.to_string(),
        shape.k.to_string(),
        format!("{:.4}", t.device_ms),
        format!("{:.4}", t.host_ms),
        format!("{:.1}", t.gflops(shape)),
        format!("{:.1}", t.host_gflops(shape)),
        String::new(),
    ]
}

/// matrixmultiply's sgemm, the CPU peer: checked, then timed (median of 3).
fn matrixmultiply(shape: Shape) -> Result<Timing> {
    let p = Problem::random(shape, 3);
    let mut c = vec![0.0f32; shape.m * shape.n];
    let go = |c: &mut [f32]| lab::matrix::matrixmultiply(&p, c);
    go(&mut c);
    let cmp = runner::check(&p, &c);
    anyhow::ensure!(
        cmp.passed(),
        "matrixmultiply's result does not match the reference"
    );
    let mut times = Vec::new();
    for _ in 0..3 {
        let t = Instant::now();
        go(&mut c);
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let ms = lab::exec::median(&mut times);
    Ok(Timing {
        device_ms: ms,
        best_ms: ms,
        host_ms: ms,
        reps: 3,
    })
}

fn run(args: &Args) -> Result<()> {
    let sel = device::selector(args.device.as_deref());
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
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| lab::paths::results_dir().join(format!("{}.csv", slug(&info.name))));
    println!("measuring on {} → {}", info.describe(), out.display());
    let mut rows = Vec::new();
    let say = |what: String, t: &Timing, shape: Shape| {
        println!(
            "  {what:<40} {shape}  {:>10} GFLOP/s  ({})",
            report::gflops(t.gflops(shape)),
            report::ms(t.device_ms)
        );
    };
    for &lesson in lessons::ALL.iter() {
        if lesson.number == 0
            || (!args.lessons.is_empty() && !args.lessons.contains(&lesson.number))
        {
            continue;
        }
        let cpu = matches!(lesson.kind, Kind::Cpu(_));
        for &s in &sizes {
            if cpu && s > args.cpu_max {
                continue;
            }
            let mut shapes = vec![Shape::square(s)];
            // Lessons that handle any size are also measured just below a power of two.
            if lesson.number >= 8 {
                shapes.push(Shape::square(s - 1));
            }
            for shape in shapes {
                match runner::measure(lesson, &Source::Solution, sel.as_deref(), shape, &[]) {
                    Ok(m) => {
                        say(format!("{} reference", lesson.name()), &m.timing, shape);
                        rows.push(runner::row(&m));
                    }
                    Err(e) => println!("  {} at {shape}: not measured: {e:#}", lesson.name()),
                }
                if args.no_variants {
                    continue;
                }
                for v in lesson.ocl().map_or(&[][..], |o| o.variants) {
                    match (v.measure)(&gpu, shape) {
                        Ok(Some(t)) => {
                            say(format!("{} {}", lesson.name(), v.name), &t, shape);
                            rows.push(variant_row(
                                &info.name,
                                &info.driver,
                                &lesson.name(),
                                v.name,
                                shape,
                                &t,
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
        if lesson.number == 3 && !args.no_variants {
            let s = sizes
                .iter()
                .copied()
                .filter(|&s| s <= args.cpu_max)
                .max()
                .unwrap_or(256);
            let shape = Shape::square(s);
            let lessons::Kind::Cpu(parts) = lesson.kind else {
                unreachable!()
            };
            for (t, ms) in lessons::l03_cpu_parallel::scaling(parts[0].reference, shape)? {
                let timing = Timing {
                    device_ms: ms,
                    best_ms: ms,
                    host_ms: ms,
                    reps: 3,
                };
                say(format!("{} threads={t}", lesson.name()), &timing, shape);
                rows.push(variant_row(
                    &runner::cpu_name(),
                    "",
                    &lesson.name(),
                    &format!("threads={t}"),
                    shape,
                    &timing,
                ));
            }
        }
    }
    if args.lessons.is_empty() {
        for &s in sizes.iter().filter(|&&s| s <= args.cpu_max.max(1024)) {
            let shape = Shape::square(s);
            let t = matrixmultiply(shape).context("measuring matrixmultiply")?;
            say("peer matrixmultiply (CPU)".into(), &t, shape);
            rows.push(variant_row(
                &runner::cpu_name(),
                "",
                "peer",
                "matrixmultiply",
                shape,
                &t,
            ));
        }
    }
    record::append(&out, record::LADDER_HEADER, &rows)?;
    println!("recorded {} rows in {}", rows.len(), out.display());
    Ok(())
}
