// A right i-k-j, and a "blocked" version that is the same loop: no block of B is reused.
pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
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

pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    matmul_ikj(a, b, c, m, n, k)
}
