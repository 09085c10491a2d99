// Lesson 03: every row of C is independent work, so rayon can hand rows to threads.
//
// Each row of C is written by exactly one thread (par_chunks_mut gives out disjoint rows),
// so no locks are needed; A and B are only read, and shared.

use rayon::prelude::*;

// ANCHOR: parallel
pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    // EXERCISE(03) BEGIN: give each row of C to rayon, and run the i-k-j loop on it
    // TODO: c[..m * n].par_chunks_mut(n).enumerate().for_each(|(i, c_row)| { ... }) hands out rows;
    // TODO: inside, do lesson 02's i-k-j work for row i: clear c_row,
    // TODO: then add a[i * k + p] * row p of B.
    let _ = (a, b, c, m, n, k);
    let _ = [0.0f32].par_iter(); // keeps `use rayon::prelude::*` in use until you write the loop
    todo!("lesson 03: split C into rows for rayon")
    // EXERCISE END
}
// ANCHOR_END: parallel
