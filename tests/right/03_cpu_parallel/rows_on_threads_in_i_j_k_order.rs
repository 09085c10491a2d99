// Rows on rayon's threads, each row by lesson 01's i-j-k loops: right, and its threads share
// the work, though each walks down B's columns and runs slower than lesson 02's i-k-j on one
// thread. Its speed cannot confirm the threads, and it is not taken for code without them.
use rayon::prelude::*;

pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    c[..m * n]
        .par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(i, c_row)| {
            for (j, cij) in c_row.iter_mut().enumerate() {
                let mut acc = 0.0f32;
                for p in 0..k {
                    acc += a[i * k + p] * b[p * n + j];
                }
                *cij = acc;
            }
        });
}
