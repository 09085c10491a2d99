// Lesson 03: two threads, but only one does the product into C; the other computes the same
// product again into a scratch buffer that is thrown away. Both threads are busy the whole
// call, each takes half the CPU time, neither waits on the other, and the wall time is the
// serial loop's.
use rayon::prelude::*;

fn ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    for i in 0..m {
        let c_row = &mut c[i * n..(i + 1) * n];
        c_row.fill(0.0);
        for p in 0..k {
            let a_ip = a[i * k + p];
            for (cj, bj) in c_row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *cj += a_ip * bj;
            }
        }
    }
}

pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let _ = [0.0f32].par_iter();
    rayon::join(
        || ikj(a, b, c, m, n, k),
        || {
            let mut scratch = vec![0.0f32; m * n];
            ikj(a, b, &mut scratch, m, n, k);
            std::hint::black_box(&scratch);
        },
    );
}
