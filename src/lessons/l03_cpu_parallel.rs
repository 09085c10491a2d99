use super::{CpuPart, Kind, Lesson};
use crate::cpu_kernels::{reference, student};

pub static LESSON: Lesson = Lesson {
    number: 3,
    slug: "cpu_parallel",
    title: "CPU parallel",
    hint: "in kernels/03_cpu_parallel.rs, split C into rows with `c.par_chunks_mut(n)` and run lesson 02's i-k-j loop on each row.",
    kind: Kind::Cpu(&[CpuPart {
        name: "matmul_parallel",
        student: student::parallel::matmul_parallel,
        reference: reference::parallel::matmul_parallel,
    }]),
};

/// Times `f` at `shape` with 1, 2, 4, ... threads up to the machine's count (and that count
/// itself): how the work scales. Returns (threads, median ms).
pub fn scaling(
    f: super::MatmulFn,
    shape: crate::matrix::Shape,
) -> anyhow::Result<Vec<(usize, f64)>> {
    use anyhow::Context as _;
    let max = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |t| Some(t * 2))
        .take_while(|&t| t <= max)
        .collect();
    if counts.last() != Some(&max) {
        counts.push(max);
    }
    let p = crate::matrix::Problem::random(shape, 5);
    let mut out = Vec::new();
    for t in counts {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .context("creating a thread pool")?;
        let mut times = Vec::new();
        for _ in 0..3 {
            let r = pool.install(|| crate::grade::run_cpu(f, &p));
            let (_, ms) = r.map_err(|msg| anyhow::anyhow!("matmul_parallel panicked: {msg}"))?;
            times.push(ms);
        }
        out.push((t, crate::exec::median(&mut times)));
    }
    Ok(out)
}
