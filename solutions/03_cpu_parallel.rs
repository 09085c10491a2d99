// Lesson 03: every row of C is independent work, so rayon can hand rows to threads.
//
// Each row of C is written by exactly one thread (par_chunks_mut gives out disjoint rows),
// so no locks are needed; A and B are only read, and shared.

use rayon::prelude::*;

// ANCHOR: parallel
pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    // EXERCISE(03) BEGIN: give each row of C to rayon, and run the i-k-j loop on it
    c[..m * n]
        .par_chunks_mut(n)
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
        });
    // EXERCISE END
}
// ANCHOR_END: parallel
