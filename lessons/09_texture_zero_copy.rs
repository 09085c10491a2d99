//! Lesson 09: run your kernel (or --solution), check it, time it, compare with the previous
//! rung; then time the zero-copy and copy paths side by side (`--path`), and optionally search
//! a few work-group shapes for this device (`--search`).

use anyhow::{Context as _, Result};
use clap::Parser;
use lab::device::Gpu;
use lab::grade::Source;
use lab::lessons::{self, with_overrides};
use lab::matrix::{Problem, Shape};
use lab::program::{self, Define};
use lab::texture::{self, Setup, Transfer};
use lab::{cli::Common, report, runner};

#[derive(Parser)]
#[command(
    about = "Lesson 09: runs your kernel with B as an image, checks it against the CPU reference and times the zero-copy and copy paths"
)]
struct Args {
    #[command(flatten)]
    common: Common,
    /// How A, B and C reach the device: zero-copy (map/unmap of host-visible memory),
    /// copy (enqueued writes and reads), or both.
    #[arg(long, value_name = "zero-copy|copy|both", default_value = "both")]
    path: String,
    /// Time every work-group shape of the lesson's small search (8 or 16 rows per work-item)
    /// at this size, and name the fastest.
    #[arg(long)]
    search: bool,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    runner::exit_code(body(&args))
}

fn body(args: &Args) -> Result<()> {
    let transfers: Vec<Transfer> = match args.path.as_str() {
        "both" => vec![Transfer::ZeroCopy, Transfer::Copy],
        p => vec![p.parse().map_err(anyhow::Error::msg)?],
    };
    let lesson = lessons::get(9);
    let m = runner::run(lesson, &args.common)?;
    let source = if args.common.solution {
        Source::Solution
    } else {
        Source::student()
    };
    let gpu = Gpu::open(lab::device::selector(args.common.device.as_deref()).as_deref())?;
    println!(
        "\nhost paths at {} (kernel time, and end to end with filling A and B and reading C):",
        m.shape
    );
    for t in transfers {
        let (kernel_ms, host_ms) = time_path(&gpu, &source, m.shape, &m.defines, t)?;
        println!(
            "  {:<10} kernel {:>10} ({} GFLOP/s), end to end {:>10} ({} GFLOP/s)",
            t.name(),
            report::ms(kernel_ms),
            report::gflops(m.shape.flops() / (kernel_ms * 1e6)),
            report::ms(host_ms),
            report::gflops(m.shape.flops() / (host_ms * 1e6)),
        );
    }
    if args.search {
        search(&gpu, &source, m.shape, &args.common.defines)?;
    }
    Ok(())
}

/// Builds the kernel with `defines` and checks it once with the given path, then times it.
fn time_path(
    gpu: &Gpu,
    source: &Source,
    shape: Shape,
    defines: &[Define],
    transfer: Transfer,
) -> Result<(f64, f64)> {
    let lesson = lessons::get(9);
    let ocl = lesson.ocl().expect("lesson 09 is an OpenCL lesson");
    let file = source.path(lesson);
    let l = (ocl.launch)(shape, defines).map_err(anyhow::Error::msg)?;
    let prog = program::build_file(gpu, &file, defines, ocl.build_options)?;
    let kernel = program::kernel(&prog, &file, ocl.kernel, ocl.args)?;
    let p = Problem::random(shape, 7);
    let setup = Setup {
        transfer,
        ..Setup::ZERO_COPY
    };
    let run = texture::run(gpu, &kernel, &p, &l, defines, setup)
        .with_context(|| format!("running the {} path", transfer.name()))?;
    let cmp = runner::check(&p, &run.output.c);
    anyhow::ensure!(
        cmp.passed() && run.output.guard.clean(),
        "the {} path gave a wrong result ({} of {} checked elements wrong)",
        transfer.name(),
        cmp.wrong,
        cmp.checked
    );
    let t = texture::time(gpu, &kernel, &p, &l, defines, 2000.0, transfer)?;
    Ok((t.device_ms, t.host_ms))
}

/// Times each candidate work-group shape (kernel time, zero-copy path) and names the fastest.
fn search(gpu: &Gpu, source: &Source, shape: Shape, overrides: &[Define]) -> Result<()> {
    println!("\nwork-group search at {shape} on {}:", gpu.info.name);
    let mut best: Option<(f64, Vec<Define>)> = None;
    for cand in texture::candidates(&gpu.info) {
        // -D flags other than the searched ones (A_LOCAL, KT...) still apply.
        let rest: Vec<Define> = overrides
            .iter()
            .filter(|d| !["WGX", "WGY", "RM"].contains(&d.name.as_str()))
            .cloned()
            .collect();
        let defines = with_overrides(cand, &rest);
        let label = defines
            .iter()
            .map(|d| format!("-D {}={}", d.name, d.value))
            .collect::<Vec<_>>()
            .join(" ");
        match time_path(gpu, source, shape, &defines, Transfer::ZeroCopy) {
            Ok((ms, _)) => {
                println!(
                    "  {label:<60} {:>10} {} GFLOP/s",
                    report::ms(ms),
                    report::gflops(shape.flops() / (ms * 1e6))
                );
                if best.as_ref().is_none_or(|(b, _)| ms < *b) {
                    best = Some((ms, defines));
                }
            }
            Err(e) => println!("  {label:<60} failed: {e:#}"),
        }
    }
    if let Some((ms, d)) = best {
        let flags: Vec<String> = d
            .iter()
            .map(|d| format!("-D {}={}", d.name, d.value))
            .collect();
        println!(
            "fastest: {} ({} GFLOP/s); pass these flags to use it",
            flags.join(" "),
            report::gflops(shape.flops() / (ms * 1e6))
        );
    }
    Ok(())
}
