//! Test matrices and the CPU reference every result is checked against.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The sizes of one product C (M×N) = A (M×K) · B (K×N), all row-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shape {
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

impl Shape {
    pub const fn new(m: usize, n: usize, k: usize) -> Shape {
        Shape { m, n, k }
    }

    pub const fn square(s: usize) -> Shape {
        Shape { m: s, n: s, k: s }
    }

    /// Floating-point operations of the product: one multiply and one add per term.
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }

    /// Whether every dimension is a multiple of `tile`... per dimension.
    pub fn multiple_of(&self, m: usize, n: usize, k: usize) -> bool {
        self.m.is_multiple_of(m) && self.n.is_multiple_of(n) && self.k.is_multiple_of(k)
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "M={} N={} K={}", self.m, self.n, self.k)
    }
}

/// A small, fast, seeded generator (SplitMix64): the same seed gives the same matrices
/// on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [-1, 1).
    pub fn next_f32(&mut self) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        2.0 * unit - 1.0
    }
}

/// Random values in [-1, 1): no zeros and no structure a wrong index could hide behind.
pub fn random(len: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_f32()).collect()
}

/// Inputs of one product.
#[derive(Clone)]
pub struct Problem {
    pub shape: Shape,
    pub a: Vec<f32>,
    pub b: Vec<f32>,
}

impl Problem {
    pub fn random(shape: Shape, seed: u64) -> Problem {
        Problem {
            shape,
            a: random(shape.m * shape.k, seed.wrapping_mul(2).wrapping_add(1)),
            b: random(shape.k * shape.n, seed.wrapping_mul(2).wrapping_add(2)),
        }
    }
}

/// The exact product in f64, with Σ|a·b| per element (the scale of its rounding error), and
/// what plain FP32 gives: one multiply-add after another, in f32.
pub struct Reference {
    pub c: Vec<f64>,
    pub scale: Vec<f64>,
    pub fp32: Vec<f32>,
}

/// C = A·B accumulated in f64, in parallel over rows.
pub fn reference(p: &Problem) -> Reference {
    let Shape { m, n, k } = p.shape;
    let mut c = vec![0.0f64; m * n];
    let mut scale = vec![0.0f64; m * n];
    let mut fp32 = vec![0.0f32; m * n];
    c.par_chunks_mut(n.max(1))
        .zip(scale.par_chunks_mut(n.max(1)))
        .zip(fp32.par_chunks_mut(n.max(1)))
        .enumerate()
        .for_each(|(i, ((crow, srow), frow))| {
            for kk in 0..k {
                let a32 = p.a[i * k + kk];
                let a = a32 as f64;
                let brow = &p.b[kk * n..kk * n + n];
                for j in 0..n {
                    let t = a * brow[j] as f64;
                    crow[j] += t;
                    srow[j] += t.abs();
                    frow[j] = a32.mul_add(brow[j], frow[j]);
                }
            }
        });
    Reference { c, scale, fp32 }
}

/// The reference at a few chosen elements only: checks large products in O(samples·K).
/// Each point's exact value, its scale and plain FP32's value ([`Reference`]).
pub fn reference_at(p: &Problem, points: &[(usize, usize)]) -> Vec<(f64, f64, f32)> {
    let Shape { n, k, .. } = p.shape;
    points
        .par_iter()
        .map(|&(i, j)| {
            let (mut c, mut s, mut f) = (0.0f64, 0.0f64, 0.0f32);
            for kk in 0..k {
                let (a, b) = (p.a[i * k + kk], p.b[kk * n + j]);
                let t = a as f64 * b as f64;
                c += t;
                s += t.abs();
                f = a.mul_add(b, f);
            }
            (c, s, f)
        })
        .collect()
}

/// The rounding allowance for one element: a sum of K products in f32, in any order, with or
/// without fused multiply-add, is within about K·u·Σ|a·b| of the exact value (u = 2⁻²⁴).
pub fn tolerance(k: usize, scale: f64) -> f64 {
    let u = f32::EPSILON as f64 / 2.0;
    (k.max(4) as f64) * u * scale * 1.05 + f32::MIN_POSITIVE as f64
}

/// One element that is not what it should be.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Mismatch {
    pub row: usize,
    pub col: usize,
    pub expected: f64,
    pub got: f32,
    pub allowed: f64,
}

/// The outcome of comparing a result against the reference.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Comparison {
    pub checked: usize,
    /// Elements outside the allowance (NaN included).
    pub wrong: usize,
    /// Elements still NaN: never written.
    pub unwritten: usize,
    /// The first wrong element in row-major order.
    pub first_wrong: Option<Mismatch>,
    /// The first element left unwritten in row-major order (of those checked).
    pub first_unwritten: Option<(usize, usize)>,
    /// max |got − exact| / max |exact|, over finite elements.
    pub max_rel_err: f64,
    pub max_abs_err: f64,
    /// Σ (got − exact)² over the finite elements checked, and Σ (fp32 − exact)² over the same
    /// elements for plain FP32 sums ([`Reference::fp32`]): how precise C is as a whole.
    #[serde(default)]
    pub sq_err: f64,
    #[serde(default)]
    pub sq_err_fp32: f64,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.wrong == 0
    }

    /// How many times plain FP32's error C's error is over the elements checked (root mean
    /// squares); `None` where FP32 made no error to compare with.
    pub fn error_over_fp32(&self) -> Option<f64> {
        (self.sq_err_fp32 > 0.0).then(|| (self.sq_err / self.sq_err_fp32).sqrt())
    }

    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        row: usize,
        col: usize,
        got: f32,
        exact: f64,
        scale: f64,
        fp32: f32,
        k: usize,
    ) {
        self.checked += 1;
        if got.is_finite() {
            self.sq_err += (got as f64 - exact).powi(2);
            self.sq_err_fp32 += (fp32 as f64 - exact).powi(2);
        }
        let allowed = tolerance(k, scale);
        if got.is_nan() {
            self.unwritten += 1;
            // Samples come in no order: keep the lowest, which says where writing stopped.
            self.first_unwritten = Some(
                self.first_unwritten
                    .map_or((row, col), |f| f.min((row, col))),
            );
        }
        let err = (got as f64 - exact).abs();
        if got.is_finite() && err > self.max_abs_err {
            self.max_abs_err = err;
        }
        // NaN compares false with everything: it must count as wrong.
        if err.is_nan() || err > allowed {
            self.wrong += 1;
            if self.first_wrong.is_none() {
                self.first_wrong = Some(Mismatch {
                    row,
                    col,
                    expected: exact,
                    got,
                    allowed,
                });
            }
        }
    }
}

/// Compares every element of `got` (M×N, row-major) with the reference.
pub fn compare(shape: Shape, got: &[f32], reference: &Reference) -> Comparison {
    let mut cmp = Comparison::default();
    let mut max_exact = 0.0f64;
    for (idx, &g) in got.iter().enumerate().take(shape.m * shape.n) {
        let (row, col) = (idx / shape.n, idx % shape.n);
        cmp.add(
            row,
            col,
            g,
            reference.c[idx],
            reference.scale[idx],
            reference.fp32[idx],
            shape.k,
        );
        max_exact = max_exact.max(reference.c[idx].abs());
    }
    cmp.max_rel_err = if max_exact > 0.0 {
        cmp.max_abs_err / max_exact
    } else {
        cmp.max_abs_err
    };
    cmp
}

/// Points to check in a large product: the four corners, the first and last rows and
/// columns (where edge bugs live) sampled, and `random` points chosen by the seed.
pub fn sample_points(shape: Shape, random: usize, seed: u64) -> Vec<(usize, usize)> {
    let Shape { m, n, .. } = shape;
    let mut pts = vec![(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)];
    let step_n = (n / 64).max(1);
    let step_m = (m / 64).max(1);
    for j in (0..n).step_by(step_n) {
        pts.push((0, j));
        pts.push((m - 1, j));
    }
    for i in (0..m).step_by(step_m) {
        pts.push((i, 0));
        pts.push((i, n - 1));
    }
    let mut rng = Rng::new(seed ^ 0x5EED);
    for _ in 0..random {
        pts.push((
            (rng.next_u64() % m as u64) as usize,
            (rng.next_u64() % n as u64) as usize,
        ));
    }
    pts
}

/// Compares `got` with the reference at the sample points only.
pub fn compare_sampled(p: &Problem, got: &[f32], points: &[(usize, usize)]) -> Comparison {
    let exact = reference_at(p, points);
    let mut cmp = Comparison::default();
    let mut max_exact = 0.0f64;
    for (&(i, j), &(c, s, f)) in points.iter().zip(&exact) {
        cmp.add(i, j, got[i * p.shape.n + j], c, s, f, p.shape.k);
        max_exact = max_exact.max(c.abs());
    }
    cmp.max_rel_err = if max_exact > 0.0 {
        cmp.max_abs_err / max_exact
    } else {
        cmp.max_abs_err
    };
    cmp
}

/// Checks a result: every element of a small product. For a large one, the edges and a random
/// sample of elements against the f64 reference (the reference of every element would take
/// longer than the product), chosen by a seed drawn for this check alone, so that no code can
/// compute only the elements it expects to be checked; and every element for NaN and
/// infinity, so that an element left unwritten in a C filled with NaN is seen wherever it is.
pub fn check(p: &Problem, c: &[f32]) -> Comparison {
    if p.shape.flops() <= 2.0 * 512.0 * 512.0 * 512.0 {
        return compare(p.shape, c, &reference(p));
    }
    let pts = sample_points(p.shape, 4096, secret_seed());
    let mut cmp = compare_sampled(p, c, &pts);
    let sampled: std::collections::HashSet<usize> =
        pts.iter().map(|&(i, j)| i * p.shape.n + j).collect();
    let elsewhere: Vec<usize> = c
        .iter()
        .enumerate()
        .filter(|(idx, x)| !x.is_finite() && !sampled.contains(idx))
        .map(|(idx, _)| idx)
        .collect();
    // The first few are located exactly; the rest only counted.
    let located: Vec<(usize, usize)> = elsewhere
        .iter()
        .take(16)
        .map(|&idx| (idx / p.shape.n, idx % p.shape.n))
        .collect();
    for (&(i, j), &(exact, scale, fp32)) in located.iter().zip(&reference_at(p, &located)) {
        cmp.add(i, j, c[i * p.shape.n + j], exact, scale, fp32, p.shape.k);
    }
    for &idx in elsewhere.iter().skip(located.len()) {
        cmp.checked += 1;
        cmp.wrong += 1;
        if c[idx].is_nan() {
            cmp.unwritten += 1;
        }
    }
    cmp
}

/// A seed no code under test can predict: 8 bytes of the operating system's randomness (the
/// time and process id where it cannot be read).
pub fn secret_seed() -> u64 {
    let mut b = [0u8; 8];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut b))
        .is_ok()
    {
        return u64::from_le_bytes(b);
    }
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_matches_hand_computed_product() {
        // [1 2; 3 4] · [5 6; 7 8] = [19 22; 43 50]
        let p = Problem {
            shape: Shape::square(2),
            a: vec![1.0, 2.0, 3.0, 4.0],
            b: vec![5.0, 6.0, 7.0, 8.0],
        };
        let r = reference(&p);
        assert_eq!(r.c, vec![19.0, 22.0, 43.0, 50.0]);
        let cmp = compare(p.shape, &[19.0, 22.0, 43.0, 50.0], &r);
        assert!(cmp.passed());
        let cmp = compare(p.shape, &[19.0, 22.0, 43.0, 51.0], &r);
        assert_eq!(cmp.wrong, 1);
        let bad = cmp.first_wrong.unwrap();
        assert_eq!((bad.row, bad.col, bad.got), (1, 1, 51.0));
    }

    #[test]
    fn nan_is_never_within_tolerance() {
        let p = Problem::random(Shape::new(3, 4, 5), 1);
        let r = reference(&p);
        let mut got: Vec<f32> = r.c.iter().map(|&x| x as f32).collect();
        assert!(compare(p.shape, &got, &r).passed());
        got[5] = f32::NAN;
        let cmp = compare(p.shape, &got, &r);
        assert_eq!((cmp.wrong, cmp.unwritten), (1, 1));
        assert_eq!(cmp.first_unwritten, Some((1, 1)));
    }

    #[test]
    fn random_is_seeded_and_spread() {
        assert_eq!(random(8, 42), random(8, 42));
        assert_ne!(random(8, 42), random(8, 43));
        let v = random(10_000, 7);
        assert!(v.iter().all(|x| (-1.0..1.0).contains(x)));
        let mean: f32 = v.iter().sum::<f32>() / v.len() as f32;
        assert!(mean.abs() < 0.05, "mean {mean}");
    }

    /// Code that computes only some elements of a large C and leaves the rest as they were
    /// (NaN) fails wherever they are; the sample is drawn anew for each check.
    #[test]
    fn a_large_check_sees_every_unwritten_element() {
        let p = Problem::random(Shape::new(520, 515, 513), 5);
        let exact = reference_at(&p, &[(0, 0)]);
        let mut c = vec![f32::NAN; 520 * 515];
        c[0] = exact[0].0 as f32;
        let cmp = check(&p, &c);
        // Sampled points may repeat (corners, edges): every unwritten one is counted at least once.
        assert!(cmp.unwritten >= 520 * 515 - 1, "{cmp:?}");
        assert_eq!(cmp.first_unwritten, Some((0, 1)), "{cmp:?}");
        assert!(!cmp.passed());
        assert_ne!(
            sample_points(p.shape, 8, secret_seed()),
            sample_points(p.shape, 8, secret_seed())
        );
    }

    #[test]
    fn sampled_comparison_finds_a_wrong_edge() {
        let p = Problem::random(Shape::new(70, 90, 33), 3);
        let r = reference(&p);
        let mut got: Vec<f32> = r.c.iter().map(|&x| x as f32).collect();
        let pts = sample_points(p.shape, 100, 1);
        assert!(compare_sampled(&p, &got, &pts).passed());
        got[69 * 90 + 89] += 1.0;
        assert!(!compare_sampled(&p, &got, &pts).passed());
    }
}
