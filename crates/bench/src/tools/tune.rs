//! `lab-bench tune`: the course's one tuner (`lab::tuner`) on any lesson that declares knobs (the
//! top rung unless `--lesson` says otherwise). Tries every combination the lesson declares for
//! the device, checks and times each as the grader does, prints the fastest, and with `--write`
//! records the winner in results/tuned.csv, where the lesson finds it. It tunes the reference,
//! or with `--kernels DIR` the lesson's kernel in DIR.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

use lab::cli::Edge;
use lab::ladder;
use lab::tuner::{self, TuneOptions};

/// How to tune.
#[derive(Clone, Debug, clap::Args)]
pub struct Args {
    /// The lesson to tune, by number (`10`, `11`); default: the top rung.
    #[arg(long, short = 'l')]
    pub lesson: Option<String>,
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    pub device: Option<String>,
    /// Square size to tune at (default: 4096 on a GPU, 256 elsewhere).
    #[arg(long, short = 's', conflicts_with = "shape")]
    pub size: Option<usize>,
    /// A shape to tune at, MxNxK (8192x8192x1024): a long, flat or small problem's winner,
    /// which the lesson then takes at shapes whose every side is near it.
    #[arg(long, value_parser = lab::harness::matrix::Shape::parse_tag)]
    pub shape: Option<lab::harness::matrix::Shape>,
    /// Most configurations to try, likeliest first (default: all that fit the device).
    #[arg(long)]
    pub budget: Option<usize>,
    /// Milliseconds of timed runs per configuration.
    #[arg(long, default_value_t = 300.0)]
    pub time_ms: f64,
    /// How many of the fastest configurations to print.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Append the winner to results/tuned.csv (or to --out).
    #[arg(long)]
    pub write: bool,
    /// The file --write appends to.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// Tunes the lesson-10 kernel of `kernels` (the global `--kernels DIR`), else the reference.
pub fn run(args: &Args, kernels: Option<&Path>, edge: &Edge) -> Result<()> {
    let shape = args
        .shape
        .or(args.size.map(lab::harness::matrix::Shape::square));
    if let Some(s) = shape {
        lab::cli::check_shape(s)?;
    }
    let opts = TuneOptions {
        course: edge.course.clone(),
        device: edge.device(args.device.as_deref()),
        shape,
        budget: args.budget,
        time_ms: args.time_ms,
        progress: true,
        kernels: kernels.map(|d| edge.kernels(Some(d))).transpose()?,
    };
    let lesson = match &args.lesson {
        None => ladder::top(),
        Some(key) => ladder::find(key).with_context(|| {
            format!(
                "no lesson {key}: lessons with knobs to tune are {}",
                tunable()
            )
        })?,
    };
    let outcome = tuner::tune(lesson, &opts)?;
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
        let path = args
            .out
            .clone()
            .unwrap_or_else(|| tuner::tuned_csv(&edge.course.results()));
        outcome.write(&path)?;
        println!(
            "recorded {} for {} in {}",
            lab::harness::program::line(&best.defines),
            outcome.device,
            path.display()
        );
    } else {
        println!("(add --write to record the winner in results/tuned.csv)");
    }
    Ok(())
}

/// The lessons that declare knobs, by number: "10, 11".
fn tunable() -> String {
    ladder::ALL
        .iter()
        .filter(|l| l.ocl().is_some_and(|o| o.knobs.is_some()))
        .map(|l| l.key)
        .collect::<Vec<_>>()
        .join(", ")
}
