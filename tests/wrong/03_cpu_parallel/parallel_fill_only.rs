// Looks parallel: rayon clears C, then one thread does the whole product.
use rayon::prelude::*;

pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    c[..m * n].par_iter_mut().for_each(|x| *x = 0.0);
    for i in 0..m {
        for p in 0..k {
            let a_ip = a[i * k + p];
            for j in 0..n {
                c[i * n + j] += a_ip * b[p * n + j];
            }
        }
    }
}
