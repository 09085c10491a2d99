// Borrows the course's own reference instead of computing: must not even compile, since a
// student's crate reaches neither the course nor its dependencies.
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let p = lab::harness::matrix::Problem {
        shape: lab::harness::matrix::Shape::new(m, n, k),
        a: a.to_vec(),
        b: b.to_vec(),
    };
    let r = lab::harness::matrix::reference(&p);
    for (x, y) in c.iter_mut().zip(r.c) {
        *x = y as f32;
    }
}
