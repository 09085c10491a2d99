// Lesson 03b without packing: a register-blocked MR x NR micro-kernel that reads A and B where
// they lie (row-major, strided), K blocked by KC, threads over bands of MC rows. No pack_a,
// no pack_b, no packed buffer at all.
use rayon::prelude::*;

const LANES: usize = if cfg!(target_feature = "avx512f") { 16 } else if cfg!(target_feature = "avx") { 8 } else { 4 };
pub const NR: usize = 2 * LANES;
pub const MR: usize = 6;
pub const KC: usize = 256;
pub const MC: usize = 8 * MR;

#[inline(always)]
fn madd(a: f32, b: f32, c: f32) -> f32 {
    #[cfg(target_feature = "fma")]
    { a.mul_add(b, c) }
    #[cfg(not(target_feature = "fma"))]
    { a * b + c }
}

// One MR x NR tile of C at (i0, j0) over depth p0..p1, read straight from A and B.
#[inline(always)]
fn tile(a: &[f32], b: &[f32], k: usize, n: usize, i0: usize, j0: usize, p0: usize, p1: usize) -> [[f32; NR]; MR] {
    let mut acc = [[0.0f32; NR]; MR];
    for p in p0..p1 {
        let brow: &[f32; NR] = b[p * n + j0..p * n + j0 + NR].try_into().unwrap();
        for r in 0..MR {
            let av = a[(i0 + r) * k + p];
            for j in 0..NR {
                acc[r][j] = madd(av, brow[j], acc[r][j]);
            }
        }
    }
    acc
}

fn band(a: &[f32], b: &[f32], c_rows: &mut [f32], i_start: usize, m: usize, n: usize, k: usize) {
    let rows = c_rows.len() / n;
    c_rows.fill(0.0);
    for p0 in (0..k).step_by(KC) {
        let p1 = (p0 + KC).min(k);
        let mut r0 = 0;
        while r0 < rows {
            let mut j0 = 0;
            if r0 + MR <= rows {
                while j0 + NR <= n {
                    let acc = tile(a, b, k, n, i_start + r0, j0, p0, p1);
                    for r in 0..MR {
                        let c = &mut c_rows[(r0 + r) * n + j0..(r0 + r) * n + j0 + NR];
                        for j in 0..NR { c[j] += acc[r][j]; }
                    }
                    j0 += NR;
                }
            }
            // Edges: plain loops.
            let rend = (r0 + MR).min(rows);
            for r in r0..rend {
                let i = i_start + r;
                let jstart = if r0 + MR <= rows { j0 } else { 0 };
                for p in p0..p1 {
                    let av = a[i * k + p];
                    for j in jstart..n {
                        c_rows[r * n + j] += av * b[p * n + j];
                    }
                }
            }
            r0 += MR;
        }
    }
    let _ = m;
}

pub fn matmul_packed(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    if m == 0 || n == 0 { return; }
    c[..m * n].par_chunks_mut(MC * n).enumerate().for_each(|(t, c_rows)| {
        band(a, b, c_rows, t * MC, m, n, k);
    });
}
