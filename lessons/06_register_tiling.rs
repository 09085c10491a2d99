//! Lesson 06: run your kernel (or --solution), check it, time it, compare with the previous rung.

use clap::Parser;
use lab::{cli::Common, lessons, runner};

#[derive(Parser)]
#[command(about = "Lesson 06: runs your kernel, checks it against the CPU reference and times it")]
struct Args {
    #[command(flatten)]
    common: Common,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    runner::exit_code(runner::run(lessons::get(6), &args.common).map(|_| ()))
}
