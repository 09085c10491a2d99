// Bands of rows on threads of their own, but each thread is joined as soon as it is
// spawned: every band gets a thread, and the next starts only when it has finished.
pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    const THREADS: usize = 4;
    let rows = m.div_ceil(THREADS).max(1);
    std::thread::scope(|s| {
        for (band, chunk) in c[..m * n].chunks_mut(rows * n.max(1)).enumerate() {
            s.spawn(move || {
                for (r, c_row) in chunk.chunks_mut(n.max(1)).enumerate() {
                    let i = band * rows + r;
                    c_row.fill(0.0);
                    for p in 0..k {
                        let a_ip = a[i * k + p];
                        for (cj, bj) in c_row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                            *cj += a_ip * bj;
                        }
                    }
                }
            })
            .join()
            .unwrap();
        }
    });
}
