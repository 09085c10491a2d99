//! Lesson 03: threads on the CPU, rayon over the rows of C. The declaration the grader, the
//! scoreboard and the book read, and the lesson's program:
//!
//! ```text
//! cargo run --release --bin 03_cpu_parallel [-- --solution --size 1024]
//! ```
//!
//! runs your `matmul_parallel` (or the reference), checks it, times it against lesson 02,
//! then times it with 1, 2, 4, ... threads: how the work scales.

use clap::{Args as _, FromArgMatches as _};
use lab::harness::timing::Timing;
use lab::harness::matrix::{Problem, Shape};
use lab::lesson::{CpuCheck, CpuLesson, CpuRun, Kind, Lesson, Peer, Program};
use lab::report;

pub static LESSON: Lesson = Lesson {
    key: "03",
    slug: "cpu_parallel",
    title: "CPU parallel",
    teaches: "rayon over rows of C, and how the speed scales with threads",
    hint: "in kernels/03_cpu_parallel.rs, split C into rows with `c.par_chunks_mut(n)` and run lesson 02's i-k-j loop on each row.",
    kind: Kind::Cpu(&CPU),
    // Lesson 02's i-k-j loop, requested the same, but row by row without its blocks.
    intensity: Some(lab::lesson::Intensity {
        walk: |_| Some(lab::lesson::Walk::Rows),
        ..lab::ladder::l02_cpu_loop_order::INTENSITY
    }),
    peers: &[Peer::Matrixmultiply],
    top: false,
    program: Some(&PROGRAM),
    unit: lab::lesson::Unit::Fp32,
};

pub static CPU: CpuLesson = CpuLesson {
    functions: &["matmul_parallel"],
    checks: &[("matmul_parallel", &THREADS)],
    not_checked: "",
    serial: false,
    variants: Some(scaling),
};

/// Threads show in where the CPU time goes: with rayon's pool of 8 threads, a product split
/// among them leaves the busiest thread a fraction of the work; a sequential one leaves it
/// all of it (more threads than cores is fine: each still does its share).
static THREADS: CpuCheck = CpuCheck::Threads {
    shape: Shape::new(960, 704, 832),
    pool: 8,
    tries: 3,
    max_share: 0.75,
    // Rows on rayon's pool against lesson 02's i-k-j on one thread: on two free cores, nearly
    // twice as fast.
    confirm: Some((
        (&LESSON, "matmul_parallel"),
        (&lab::ladder::l02_cpu_loop_order::LESSON, "matmul_ikj"),
    )),
};

/// The program: the standard run, then the thread-scaling table.
static PROGRAM: Program = Program {
    about: "Lesson 03: runs your code, checks it against the CPU reference, times it and measures thread scaling",
    flags: Args::augment_args,
    standard: true,
    then: |matches, session| {
        let args = Args::from_arg_matches(matches)?;
        let Some((shape, _)) = &session.measured else {
            return Ok(());
        };
        if !args.no_scaling {
            let run = CpuRun {
                course: session.course,
                file: &session.file,
                shape: *shape,
                timeout: session.timeout,
            };
            let table = scaling(&LESSON, &run)?;
            print!("{}", scaling_table(*shape, &table));
        }
        Ok(())
    },
};

#[derive(clap::Args)]
struct Args {
    /// Skip the thread-scaling table.
    #[arg(long)]
    no_scaling: bool,
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

/// Times the lesson's function at the run's size with each of [`thread_counts`] threads:
/// the lesson's variants, `threads=T`, which `lab-bench ladder` records beside the reference.
pub fn scaling(lesson: &Lesson, run: &CpuRun) -> anyhow::Result<Vec<(String, usize, Timing)>> {
    let cpu = lesson.cpu().expect("lesson 03 is a CPU lesson");
    let built = lab::grade::cpu::builder(run.course).build(run.file, cpu.functions)?;
    let p = Problem::random(run.shape, 5);
    let function = cpu.functions[0];
    let mut out = Vec::new();
    for t in thread_counts() {
        let timing = lab::grade::cpu::time(&built, function, &p, t, run.timeout)
            .map_err(|f| anyhow::anyhow!("{}", f.message))?;
        out.push((format!("threads={t}"), t, timing));
    }
    Ok(out)
}

fn scaling_table(shape: Shape, table: &[(String, usize, Timing)]) -> String {
    let one = table[0].2.device_ms;
    let mut s = String::from("\n  threads   time (median)   GFLOP/s   speed-up over 1 thread\n");
    for (_, t, timing) in table {
        s.push_str(&format!(
            "  {t:>7}   {:<14}  {:>7}   {:.2}×\n",
            report::ms(timing.device_ms),
            report::gflops(timing.gflops(shape)),
            one / timing.device_ms
        ));
    }
    s
}
