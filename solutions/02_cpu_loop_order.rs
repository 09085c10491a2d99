// Lesson 02: the same product, in an order the cache likes.
//
// In the i-j-k loop, b[p * n + j] jumps n floats at every step: each access touches a new
// cache line. Swapping the two inner loops (i-k-j) makes every inner access contiguous: one
// element of A times a whole row of B, added into a whole row of C.

// ANCHOR: ikj
pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    // EXERCISE(02.1) BEGIN: clear row i of C, then add a[i][p] times row p of B into it
    for i in 0..m {
        let c_row = &mut c[i * n..(i + 1) * n];
        c_row.fill(0.0); // C arrives holding anything: start each row from zero
        for p in 0..k {
            let a_ip = a[i * k + p];
            let b_row = &b[p * n..(p + 1) * n];
            for (cj, bj) in c_row.iter_mut().zip(b_row) {
                *cj += a_ip * bj;
            }
        }
    }
    // EXERCISE END
}
// ANCHOR_END: ikj

/// Block sizes: a BK×BN block of B (64 KiB at 128×128) stays in L2 while every row of A
/// uses it.
pub const BK: usize = 128;
pub const BN: usize = 128;

// ANCHOR: blocked
pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    c[..m * n].fill(0.0);
    // EXERCISE(02.2) BEGIN: the i-k-j loops, restricted to one BK×BN block of B at a time
    for p0 in (0..k).step_by(BK) {
        let p1 = (p0 + BK).min(k);
        for j0 in (0..n).step_by(BN) {
            let j1 = (j0 + BN).min(n);
            for i in 0..m {
                let c_row = &mut c[i * n + j0..i * n + j1];
                for p in p0..p1 {
                    let a_ip = a[i * k + p];
                    let b_row = &b[p * n + j0..p * n + j1];
                    for (cj, bj) in c_row.iter_mut().zip(b_row) {
                        *cj += a_ip * bj;
                    }
                }
            }
        }
    }
    // EXERCISE END
}
// ANCHOR_END: blocked
