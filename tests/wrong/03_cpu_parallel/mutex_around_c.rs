// The borrow checker will not let several threads write into C, so C goes behind a Mutex,
// and each row locks it for the whole of its product: rows are handed to rayon's workers,
// and they compute one at a time.
use rayon::prelude::*;
use std::sync::Mutex;

pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let c = Mutex::new(&mut c[..m * n]);
    (0..m).into_par_iter().for_each(|i| {
        let mut c = c.lock().unwrap();
        let c_row = &mut c[i * n..(i + 1) * n];
        c_row.fill(0.0);
        for p in 0..k {
            let a_ip = a[i * k + p];
            for (cj, bj) in c_row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                *cj += a_ip * bj;
            }
        }
    });
}
