// rayon::join, with the whole product on one side and nothing on the other.
pub fn matmul_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    rayon::join(
        || {
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
        },
        || {},
    );
}
