// Another cache-friendly way: transpose B once, then every dot product runs along rows.
// Blocked: the same over blocks of rows of A and of Bᵀ that fit the cache.
fn transposed(b: &[f32], n: usize, k: usize) -> Vec<f32> {
    let mut t = vec![0.0; n * k];
    for p in 0..k {
        for j in 0..n {
            t[j * k + p] = b[p * n + j];
        }
    }
    t
}

pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let bt = transposed(b, n, k);
    for i in 0..m {
        for j in 0..n {
            let row = &a[i * k..(i + 1) * k];
            let col = &bt[j * k..(j + 1) * k];
            c[i * n + j] = row.iter().zip(col).map(|(x, y)| x * y).sum();
        }
    }
}

pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    const BJ: usize = 64;
    const BP: usize = 256;
    let bt = transposed(b, n, k);
    c[..m * n].fill(0.0);
    for j0 in (0..n).step_by(BJ) {
        for p0 in (0..k).step_by(BP) {
            let (j1, p1) = ((j0 + BJ).min(n), (p0 + BP).min(k));
            for i in 0..m {
                let row = &a[i * k + p0..i * k + p1];
                for j in j0..j1 {
                    let col = &bt[j * k + p0..j * k + p1];
                    c[i * n + j] += row.iter().zip(col).map(|(x, y)| x * y).sum::<f32>();
                }
            }
        }
    }
}
