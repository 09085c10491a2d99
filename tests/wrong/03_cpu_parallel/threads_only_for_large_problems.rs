// Rows on rayon's pool only for problems of half a billion multiply-adds or more, where a
// thread check would look; one thread below, at every size a student's program times.
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
    if m * n * k >= 500_000_000 {
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
