//! `cargo run --release`: the scoreboard of every lesson.

use std::process::ExitCode;

use clap::Parser;
use lab::{device, grade, paths, peak, scoreboard};

/// Grades every lesson in your kernels folder and prints a scoreboard beside the reference
/// answers' speeds.
#[derive(Parser)]
#[command(name = "lab", version)]
struct Args {
    /// Folder of kernels to grade instead of kernels/ (also: LAB_KERNELS).
    #[arg(long, value_name = "DIR")]
    kernels: Option<std::path::PathBuf>,
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    device: Option<String>,
    /// Only these lessons (repeatable), e.g. --lesson 5.
    #[arg(long = "lesson", value_name = "N")]
    lessons: Vec<u32>,
    /// Size (M = N = K) at which speeds are measured.
    #[arg(long)]
    size: Option<usize>,
    /// List the OpenCL devices and exit.
    #[arg(long)]
    list_devices: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> anyhow::Result<()> {
    if args.list_devices {
        print!("{}", device::list_table()?);
        return Ok(());
    }
    for &n in &args.lessons {
        if lab::lessons::find(&n.to_string()).is_none() {
            anyhow::bail!("there is no lesson {n}: the ladder runs from 0 to 10");
        }
    }
    let sel = device::selector(args.device.as_deref());
    // Fails here, once and clearly, when there is no OpenCL at all.
    let (_, info) = device::pick(sel.as_deref())?;
    let dir = match &args.kernels {
        Some(d) => paths::absolute(d),
        None => paths::kernels_dir(),
    };
    if !dir.is_dir() {
        anyhow::bail!("{} is not a folder of kernels", dir.display());
    }
    let shape = match args.size {
        Some(s) if s > 0 && s <= lab::cli::MAX_DIM => lab::matrix::Shape::square(s),
        Some(s) => anyhow::bail!("--size {s} is out of range (1 to {})", lab::cli::MAX_DIM),
        None => scoreboard::timing_shape(Some(&info)),
    };
    let opts = grade::Options {
        device: sel,
        time: Some(shape),
        ..Default::default()
    };
    let rows = scoreboard::collect(&dir, &opts, &args.lessons, |l| {
        eprintln!("grading lesson {} ...", l.id());
    });
    print!(
        "{}",
        scoreboard::render(
            &rows,
            &info.describe(),
            &paths::display(&dir),
            shape,
            peak::lookup(&info).as_ref()
        )
    );
    Ok(())
}
