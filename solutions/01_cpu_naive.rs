// Lesson 01: the textbook triple loop, C = A·B, all matrices row-major.
//
// A is m×k, B is k×n, C is m×n. Element (i, j) of C lives at c[i * n + j].
// C arrives holding anything (NaN, numbers, an earlier result): every element must be written, not added to.

// ANCHOR: naive
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    // EXERCISE(01) BEGIN: for every i and j, c[i][j] = sum over p of a[i][p] * b[p][j]
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0.0f32;
            for p in 0..k {
                // a walks along row i (contiguous); b walks down column j (stride n).
                sum += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = sum;
        }
    }
    // EXERCISE END
}
// ANCHOR_END: naive
