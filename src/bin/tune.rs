//! Lesson 10's autotuner: `cargo run --release --bin tune -- [--device D] [--size 4096]
//! [--budget N] [--write]`. Tries the kernel's tuning defines on a device, checks and times
//! each configuration, prints the fastest, and with `--write` records the winner in
//! results/tuned.csv, where lesson 10 finds it.

use std::path::PathBuf;

use anyhow::Result;
use clap::Parser;
use lab::tuner::{self, TuneOptions};

#[derive(Parser)]
#[command(about = "Autotunes lesson 10's kernel for a device and records the winner")]
struct Args {
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    device: Option<String>,
    /// Square size to tune at (default: 4096 on a GPU, 256 elsewhere).
    #[arg(long, short = 's')]
    size: Option<usize>,
    /// Most configurations to try, likeliest first (default: all that fit the device).
    #[arg(long)]
    budget: Option<usize>,
    /// Milliseconds of timed runs per configuration.
    #[arg(long, default_value_t = 300.0)]
    time_ms: f64,
    /// How many of the fastest configurations to print.
    #[arg(long, default_value_t = 5)]
    top: usize,
    /// Append the winner to results/tuned.csv (or to --out).
    #[arg(long)]
    write: bool,
    /// The file --write appends to.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

fn run(args: Args) -> Result<()> {
    let opts = TuneOptions {
        device: lab::device::selector(args.device.as_deref()),
        size: args.size,
        budget: args.budget,
        time_ms: args.time_ms,
        progress: true,
    };
    let outcome = tuner::tune(&opts)?;
    print!("{}", outcome.report(args.top));
    let Some(best) = outcome.best() else {
        anyhow::bail!(
            "no configuration passed the check{}",
            outcome
                .first_failure
                .as_deref()
                .map(|w| format!(": {w}"))
                .unwrap_or_default()
        );
    };
    if args.write {
        let path = args.out.unwrap_or_else(tuner::tuned_csv);
        outcome.write(&path)?;
        println!(
            "recorded {} for {} in {}",
            best.params,
            outcome.device,
            path.display()
        );
    } else {
        println!("(add --write to record the winner in results/tuned.csv)");
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    match run(Args::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
