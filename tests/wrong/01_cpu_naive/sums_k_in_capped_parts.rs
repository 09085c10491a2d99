// Wrong on purpose: the sum over k kept in three partial sums of 300 steps each ("more
// accurate" summation), so a fourth stretch of K lands nowhere: right wherever K is at most
// 900, wrong past it.
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    for i in 0..m {
        for j in 0..n {
            let mut parts = [0.0f32; 3];
            for p in 0..k {
                if let Some(s) = parts.get_mut(p / 300) {
                    *s += a[i * k + p] * b[p * n + j];
                }
            }
            c[i * n + j] = parts.iter().sum();
        }
    }
}
