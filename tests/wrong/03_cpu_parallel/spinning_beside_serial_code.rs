// The product on the calling thread, and a second thread spinning beside it until it is done:
// two cores busy and the CPU time split in half, the work done by one thread.
use std::sync::atomic::{AtomicBool, Ordering};

pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
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
        done.store(true, Ordering::Relaxed);
    });
}
