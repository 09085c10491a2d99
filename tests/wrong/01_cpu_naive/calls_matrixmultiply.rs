// Hands the product to the matrixmultiply crate: not a dependency of a student's crate.
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    unsafe {
        matrixmultiply::sgemm(
            m, k, n, 1.0, a.as_ptr(), k as isize, 1, b.as_ptr(), n as isize, 1, 0.0,
            c.as_mut_ptr(), n as isize, 1,
        );
    }
}
