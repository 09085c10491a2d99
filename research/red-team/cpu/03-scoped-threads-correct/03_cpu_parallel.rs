// Lesson 03, correct, without rayon's pool: std::thread::scope over one band of rows per core.
fn band(a: &[f32], b: &[f32], c: &mut [f32], i0: usize, n: usize, k: usize) {
    for (r, c_row) in c.chunks_mut(n).enumerate() {
        let i = i0 + r;
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
    if m == 0 || n == 0 { return; }
    let t = std::thread::available_parallelism().map_or(2, |x| x.get()).max(2);
    let rows = m.div_ceil(t);
    std::thread::scope(|s| {
        for (band_no, chunk) in c[..m * n].chunks_mut(rows * n).enumerate() {
            s.spawn(move || band(a, b, chunk, band_no * rows, n, k));
        }
    });
}
