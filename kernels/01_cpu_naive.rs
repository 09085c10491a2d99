// Lesson 01: the textbook triple loop, C = A·B, all matrices row-major.
//
// A is m×k, B is k×n, C is m×n. Element (i, j) of C lives at c[i * n + j].
// C arrives holding anything (NaN, numbers, an earlier result): every element must be written, not added to.

// ANCHOR: naive
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    // EXERCISE(01) BEGIN: for every i and j, c[i][j] = sum over p of a[i][p] * b[p][j]
    // TODO: loop over rows i (0..m) and columns j (0..n) of C;
    // TODO: for each, sum a[i * k + p] * b[p * n + j] over p in 0..k,
    // TODO: and store the sum in c[i * n + j].
    let _ = (a, b, c, m, n, k);
    todo!("lesson 01: write the i-j-k triple loop")
    // EXERCISE END
}
// ANCHOR_END: naive
