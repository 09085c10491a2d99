// Lesson 03: threads only at the shapes the thread checks use (declared in lessons/03: N=704;
// the spin check multiplies 4x the rows at the same N and K); one thread everywhere else.
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
    if n == 0 { return; }
    if n == 704 && k == 832 {
        c[..m * n].par_chunks_mut(n).enumerate().for_each(|(i, c_row)| row(a, b, c_row, i, n, k));
    } else {
        for (i, c_row) in c[..m * n].chunks_mut(n).enumerate() {
            row(a, b, c_row, i, n, k);
        }
    }
}
