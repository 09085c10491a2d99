// The packed design written another way: 4×8 micro-tiles held in a flat array, B packed once
// per K block, and std::thread::scope over bands of rows instead of rayon.
const MR: usize = 4;
const NR: usize = 8;
const KC: usize = 128;
const MC: usize = 64;

fn pack_b(b: &[f32], n: usize, p0: usize, kc: usize, out: &mut Vec<f32>) {
    let slivers = n.div_ceil(NR);
    out.clear();
    out.resize(slivers * NR * kc, 0.0);
    for s in 0..slivers {
        for p in 0..kc {
            for j in 0..NR {
                let col = s * NR + j;
                if col < n {
                    out[(s * kc + p) * NR + j] = b[(p0 + p) * n + col];
                }
            }
        }
    }
}

fn band(a: &[f32], bp: &[f32], c: &mut [f32], rows: std::ops::Range<usize>, n: usize, k: usize, p0: usize, kc: usize) {
    let mut ap = vec![0.0f32; MR * kc];
    for i0 in rows.clone().step_by(MR) {
        let mr = MR.min(rows.end - i0);
        for p in 0..kc {
            for i in 0..MR {
                ap[p * MR + i] = if i < mr { a[(i0 + i) * k + p0 + p] } else { 0.0 };
            }
        }
        for (s, b_sliver) in bp.chunks_exact(NR * kc).enumerate() {
            let mut acc = [0.0f32; MR * NR];
            for p in 0..kc {
                for i in 0..MR {
                    let a_ip = ap[p * MR + i];
                    for j in 0..NR {
                        acc[i * NR + j] += a_ip * b_sliver[p * NR + j];
                    }
                }
            }
            let j0 = s * NR;
            for i in 0..mr {
                for j in 0..NR.min(n - j0) {
                    let cij = &mut c[(i0 - rows.start + i) * n + j0 + j];
                    *cij = if p0 == 0 { acc[i * NR + j] } else { *cij + acc[i * NR + j] };
                }
            }
        }
    }
}

pub fn matmul_packed(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    let c = &mut c[..m * n];
    if k == 0 {
        c.fill(0.0);
        return;
    }
    if m == 0 || n == 0 {
        return;
    }
    let mut bp = Vec::new();
    for p0 in (0..k).step_by(KC) {
        let kc = KC.min(k - p0);
        pack_b(b, n, p0, kc, &mut bp);
        let bp = &bp;
        std::thread::scope(|scope| {
            for (t, c_band) in c.chunks_mut(MC * n).enumerate() {
                let rows = t * MC..t * MC + c_band.len() / n;
                scope.spawn(move || band(a, bp, c_band, rows, n, k, p0, kc));
            }
        });
    }
}
