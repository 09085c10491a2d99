//! Lesson 03: run your parallel product (or --solution), check it, time it, compare with
//! lesson 02, then show how it scales with the number of threads.

use clap::Parser;
use lab::{cli::Common, lessons, record, report, runner};

#[derive(Parser)]
#[command(
    about = "Lesson 03: runs your code, checks it against the CPU reference, times it and measures thread scaling"
)]
struct Args {
    #[command(flatten)]
    common: Common,
    /// Skip the thread-scaling table.
    #[arg(long)]
    no_scaling: bool,
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    runner::exit_code(run(&args))
}

fn run(args: &Args) -> anyhow::Result<()> {
    let lesson = lessons::get(3);
    let m = runner::run(lesson, &args.common)?;
    if args.no_scaling {
        return Ok(());
    }
    let lessons::Kind::Cpu(parts) = lesson.kind else {
        unreachable!("lesson 03 is a CPU lesson")
    };
    let f = if args.common.solution {
        parts[0].reference
    } else {
        parts[0].student
    };
    let table = lessons::l03_cpu_parallel::scaling(f, m.shape)?;
    println!("\n  threads   time          GFLOP/s   speed-up over 1 thread");
    let one = table[0].1;
    let mut rows = Vec::new();
    for &(t, ms) in &table {
        let gf = m.shape.flops() / (ms * 1e-3) / 1e9;
        println!(
            "  {t:>7}   {:<12}  {:>7}   {:.2}×",
            report::ms(ms),
            report::gflops(gf),
            one / ms
        );
        let mut row = runner::row(&m);
        row[4] = format!("threads={t}");
        row[8] = format!("{ms:.4}");
        row[9] = format!("{ms:.4}");
        row[10] = format!("{gf:.1}");
        row[11] = format!("{gf:.1}");
        rows.push(row);
    }
    if let Some(path) = &args.common.record {
        record::append(path, record::LADDER_HEADER, &rows)?;
    }
    Ok(())
}
