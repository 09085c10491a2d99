// Rows handed to rayon, each row's product behind a hand-written spin lock: the threads share
// the work and keep every core busy, but only the one holding the lock computes; the others
// spin.
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

static HELD: AtomicBool = AtomicBool::new(false);

pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    c[..m * n]
        .par_chunks_mut(n.max(1))
        .enumerate()
        .for_each(|(i, c_row)| {
            while HELD.swap(true, Ordering::Acquire) {
                std::hint::spin_loop();
            }
            c_row.fill(0.0);
            for p in 0..k {
                let a_ip = a[i * k + p];
                for (cj, bj) in c_row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                    *cj += a_ip * bj;
                }
            }
            HELD.store(false, Ordering::Release);
        });
}
