// Lesson 02: the same product, in an order the cache likes.
//
// In the i-j-k loop, b[p * n + j] jumps n floats at every step: each access touches a new
// cache line. Swapping the two inner loops (i-k-j) makes every inner access contiguous: one
// element of A times a whole row of B, added into a whole row of C.

// ANCHOR: ikj
pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    // EXERCISE(02.1) BEGIN: clear row i of C, then add a[i][p] times row p of B into it
    // TODO: for each row i: take c_row = &mut c[i * n..(i + 1) * n] and fill it with 0.0
    // TODO: (C arrives holding anything); then for each p in 0..k, add a[i * k + p] * b[p * n + j]
    // TODO: to c_row[j] for every j.
    let _ = (a, b, c, m, n, k);
    todo!("lesson 02: write the i-k-j loop")
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
    // TODO: loop p0 over 0..k in steps of BK and j0 over 0..n in steps of BN
    // TODO: (the last block may be short);
    // TODO: inside, run the i-k-j loop for all rows i, but only for p in p0..p1 and j in j0..j1.
    let _ = (a, b, k);
    todo!("lesson 02: write the blocked loop")
    // EXERCISE END
}
// ANCHOR_END: blocked
