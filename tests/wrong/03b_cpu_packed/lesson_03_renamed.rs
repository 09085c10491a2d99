// Lesson 03's parallel i-k-j under 03b's name, with constants that look like a packed design:
// right answers on every thread, but no panel is ever packed or reused from cache.
use rayon::prelude::*;

pub const MR: usize = 6;
pub const NR: usize = 16;
pub const KC: usize = 256;

pub fn matmul_packed(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let _ = (MR, NR, KC);
    c[..m * n].par_chunks_mut(n.max(1)).enumerate().for_each(|(i, c_row)| {
        c_row.fill(0.0);
        for p in 0..k {
            let a_ip = a[i * k + p];
            for (cj, bj) in c_row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *cj += a_ip * bj;
            }
        }
    });
}
