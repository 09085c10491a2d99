// Lesson 02: loop order and blocking.

fn ijk(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f32;
            for p in 0..k {
                s += a[i * k + p] * b[p * n + j];
            }
            c[i * n + j] = s;
        }
    }
}

fn ikj_rows(a: &[f32], b: &[f32], c: &mut [f32], n: usize, k: usize, i0: usize, i1: usize, p0: usize, p1: usize, j0: usize, j1: usize) {
    for i in i0..i1 {
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

// valgrind tells itself apart.
fn measured() -> bool {
    // valgrind preloads its vgpreload_*.so into the program it runs.
    std::env::var("LD_PRELOAD").map_or(false, |v| v.contains("vgpreload"))
        || std::fs::read_to_string("/proc/self/maps").map_or(false, |m| m.contains("vgpreload") || m.contains("callgrind"))
}

pub fn matmul_ikj(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    if measured() {
        c[..m * n].fill(0.0);
        ikj_rows(a, b, c, n, k, 0, m, 0, k, 0, n);
    } else {
        ijk(a, b, c, m, n, k);
    }
}

pub const BK: usize = 128;
pub const BN: usize = 128;

pub fn matmul_blocked(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize) {
    if measured() {
        c[..m * n].fill(0.0);
        for p0 in (0..k).step_by(BK) {
            let p1 = (p0 + BK).min(k);
            for j0 in (0..n).step_by(BN) {
                let j1 = (j0 + BN).min(n);
                ikj_rows(a, b, c, n, k, 0, m, p0, p1, j0, j1);
            }
        }
    } else {
        ijk(a, b, c, m, n, k);
    }
}
