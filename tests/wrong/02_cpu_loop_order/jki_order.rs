// j-k-i: the innermost loop walks down a column of C and of A.
pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    c[..m * n].fill(0.0);
    for j in 0..n {
        for p in 0..k {
            let b_pj = b[p * n + j];
            for i in 0..m {
                c[i * n + j] += a[i * k + p] * b_pj;
            }
        }
    }
}

pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    matmul_ikj(a, b, c, m, n, k)
}
