//! Lesson 03: threads on the CPU, rayon over the rows of C. The declaration the grader, the
//! scoreboard and the book read, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 03_cpu_parallel [-- --solution --size 1024]
//! ```
//!
//! runs your `matmul_parallel` (or the reference), checks it, times it against lesson 02,
//! then times it with 1, 2, 4, ... threads: how the work scales.

use std::process::ExitCode;

use clap::Parser;
use lab::cli::{Common, Edge};
use lab::harness::exec::Timing;
use lab::harness::matrix::{Problem, Shape};
use lab::lesson::{CpuCheck, CpuLesson, Kind, Lesson};
use lab::report;

pub static LESSON: Lesson = Lesson {
    key: "03",
    slug: "cpu_parallel",
    title: "CPU parallel",
    teaches: "rayon over rows of C, and how the speed scales with threads",
    hint: "in kernels/03_cpu_parallel.rs, split C into rows with `c.par_chunks_mut(n)` and run lesson 02's i-k-j loop on each row.",
    kind: Kind::Cpu(&CPU),
};

pub static CPU: CpuLesson = CpuLesson {
    functions: &["matmul_parallel"],
    checks: &[("matmul_parallel", &THREADS)],
    not_checked: "",
    serial: false,
};

/// Threads show in where the CPU time goes: with rayon's pool of 8 threads, a product split
/// among them leaves the busiest thread a fraction of the work; a sequential one leaves it
/// all of it (more threads than cores is fine: each still does its share).
static THREADS: CpuCheck = CpuCheck::Threads {
    shape: Shape::new(960, 704, 832),
    pool: 8,
    tries: 3,
    max_share: 0.75,
};

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

pub fn main() -> ExitCode {
    if let Some(served) = lab::cli::serve_if_worker() {
        return served;
    }
    let args = Args::parse();
    lab::cli::finish(Edge::from_env().and_then(|edge| {
        let Some(m) = lab::run::run_lesson(&LESSON, &args.common, &edge)? else {
            return Ok(());
        };
        if !args.no_scaling {
            let table = scaling(&LESSON, &args.common, &edge, m.shape)?;
            print!("{}", scaling_table(m.shape, &table));
        }
        Ok(())
    }))
}

/// Thread counts to try: 1, 2, 4, ... up to the machine's count, and that count itself.
pub fn thread_counts() -> Vec<usize> {
    let max = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |t| Some(t * 2))
        .take_while(|&t| t <= max)
        .collect();
    if counts.last() != Some(&max) {
        counts.push(max);
    }
    counts
}

/// Times the lesson's function at `shape` with each of [`thread_counts`] threads.
pub fn scaling(
    lesson: &Lesson,
    common: &Common,
    edge: &Edge,
    shape: Shape,
) -> anyhow::Result<Vec<(usize, Timing)>> {
    let source = lab::run::source(common, edge);
    let cpu = lesson.cpu().expect("lesson 03 is a CPU lesson");
    let file = source.path(lesson);
    let built = lab::grade::cpu::builder(&edge.course).build(&file, cpu.functions)?;
    let p = Problem::random(shape, 5);
    let function = cpu.functions[0];
    let mut out = Vec::new();
    for t in thread_counts() {
        let (timing, _) = lab::grade::cpu::time(&built, function, &p, t, edge.timeout)
            .map_err(|f| anyhow::anyhow!("{}", f.message))?;
        out.push((t, timing));
    }
    Ok(out)
}

fn scaling_table(shape: Shape, table: &[(usize, Timing)]) -> String {
    let one = table[0].1.device_ms;
    let mut s = String::from("\n  threads   time (median)   GFLOP/s   speed-up over 1 thread\n");
    for (t, timing) in table {
        s.push_str(&format!(
            "  {t:>7}   {:<14}  {:>7}   {:.2}×\n",
            report::ms(timing.device_ms),
            report::gflops(timing.gflops(shape)),
            one / timing.device_ms
        ));
    }
    s
}
