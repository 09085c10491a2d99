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

pub mod cases {
//! Lesson 03's cases: rows handed to threads gone wrong, each with what the grader must say.
//! Read by tests/03_cpu_parallel.rs and tests/suite.rs.
use lab::grade::cases::{Case, Class::*, Code::*};
use lab::grade::FailKind;

const L: &str = "03";

pub const CASES: &[Case] = &[
    Case::rejects(
        L,
        "chunks_of_k",
        Asymmetric,
        Mutant(&[(".par_chunks_mut(n)", ".par_chunks_mut(k.max(1))")]),
        FailKind::Crash,
        &["`matmul_parallel` panicked"],
    ),
    Case::rejects(
        L,
        "rows_of_a_of_n",
        Asymmetric,
        Mutant(&[("let a_ip = a[i * k + p];", "let a_ip = a[i * n + p];")]),
        FailKind::Crash,
        &["`matmul_parallel` panicked", "index out of bounds"],
    ),
    Case::rejects(
        L,
        "rows_not_cleared",
        Uninitialised,
        Mutant(&[("            c_row.fill(0.0);\n", "")]),
        FailKind::Unwritten,
        &["`matmul_parallel`", "NaN"],
    ),
    // The product on one thread, under the lesson's name.
    Case::rejects(
        L,
        "sequential",
        Decoy,
        File("sequential"),
        FailKind::Technique,
        &["`matmul_parallel` did", "on one thread", "par_chunks_mut"],
    ),
    // A parallel zero-fill, then the product on one thread.
    Case::rejects(
        L,
        "parallel_fill_only",
        Decoy,
        File("parallel_fill_only"),
        FailKind::Technique,
        &["on one thread"],
    ),
    Case::rejects(
        L,
        "join_with_all_on_one_side",
        Decoy,
        File("join_with_all_on_one_side"),
        FailKind::Technique,
        &["on one thread"],
    ),
    // std::thread::scope over bands of rows instead of rayon.
    Case::accepts(L, "scoped_threads", File("scoped_threads")),
    // Rows handed out two at a time, each pair with its own i-k-j loops.
    Case::accepts(
        L,
        "pairs_of_rows",
        Mutant(&[(
            "        .par_chunks_mut(n)
        .enumerate()
        .for_each(|(i, c_row)| {
            c_row.fill(0.0);
            for p in 0..k {
                let a_ip = a[i * k + p];
                let b_row = &b[p * n..(p + 1) * n];
                for (cj, bj) in c_row.iter_mut().zip(b_row) {
                    *cj += a_ip * bj;
                }
            }
        });",
            "        .par_chunks_mut(2 * n.max(1))
        .enumerate()
        .for_each(|(t, rows)| {
            for (r, c_row) in rows.chunks_mut(n.max(1)).enumerate() {
                let i = 2 * t + r;
                c_row.fill(0.0);
                for p in 0..k {
                    let a_ip = a[i * k + p];
                    let b_row = &b[p * n..(p + 1) * n];
                    for (cj, bj) in c_row.iter_mut().zip(b_row) {
                        *cj += a_ip * bj;
                    }
                }
            }
        });",
        )]),
    ),
    // Every row behind one lock: the work is spread over the threads, and they take turns.
    Case::rejects(
        L,
        "rows_behind_one_lock",
        Decoy,
        Mutant(&[
            (
                "pub fn matmul_parallel(",
                "static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());\n\npub fn matmul_parallel(",
            ),
            (
                "            c_row.fill(0.0);",
                "            let _turn = ONE_AT_A_TIME.lock().unwrap();\n            c_row.fill(0.0);",
            ),
        ]),
        FailKind::Technique,
        &["threads took turns", "Mutex"],
    ),
    // C behind a Mutex, to please the borrow checker, locked for each row's whole product.
    Case::rejects(
        L,
        "mutex_around_c",
        Decoy,
        File("mutex_around_c"),
        FailKind::Technique,
        &["threads took turns", "Mutex"],
    ),
    // A thread per band of rows, each joined before the next is spawned.
    Case::rejects(
        L,
        "each_thread_joined_at_once",
        Decoy,
        File("each_thread_joined_at_once"),
        FailKind::Technique,
        &["threads took turns", "joining each thread"],
    ),
    // Threads that keep the cores busy without sharing the work: judged on one core, with
    // some of the threads given the least priority.
    Case::rejects(
        L,
        "spinning_beside_serial_code",
        Decoy,
        File("spinning_beside_serial_code"),
        FailKind::Technique,
        &["`matmul_parallel`'s threads wait by spinning", "one thread at a time"],
    ),
    Case::rejects(
        L,
        "spin_lock_taking_turns",
        Decoy,
        File("spin_lock_taking_turns"),
        FailKind::Technique,
        &["`matmul_parallel`'s threads wait by spinning", "spin lock"],
    ),
    Case::rejects(
        L,
        "spin_lock_over_scoped_threads",
        Decoy,
        File("spin_lock_over_scoped_threads"),
        FailKind::Technique,
        &["`matmul_parallel`'s threads wait by spinning", "spin lock"],
    ),
    // One thread, and a forged report of threads sharing the work written where an earlier
    // driver wrote its own: the threads are measured from outside the student's process.
    Case::rejects(
        L,
        "sequential_forges_thread_shares",
        Forged,
        File("sequential_forges_thread_shares"),
        FailKind::Technique,
        &["`matmul_parallel` did", "on one thread"],
    ),
    // C read as an accumulator whenever it holds numbers (C += A·B), cleared only when it holds
    // NaN: the lesson's C is overwritten, and it holds numbers before many checked calls.
    Case::rejects(
        L,
        "accumulates_when_c_holds_numbers",
        Cheat,
        Mutant(&[(
            "            c_row.fill(0.0);\n",
            "            if c_row.iter().any(|x| x.is_nan()) {\n                c_row.fill(0.0);\n            }\n",
        )]),
        FailKind::Unwritten,
        &["`matmul_parallel`", "before the call", "without clearing it first"],
    ),
];
}
