//! Test matrices and the CPU reference every result is checked against.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::fmt;

use super::poison::{self, Poison};

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

    /// Whether all three sides are equal.
    pub fn is_cube(&self) -> bool {
        self.m == self.n && self.n == self.k
    }

    /// How files and records name a shape: the side of a cube (`4096`), else `MxNxK`.
    pub fn tag(&self) -> String {
        if self.is_cube() {
            self.m.to_string()
        } else {
            format!("{}x{}x{}", self.m, self.n, self.k)
        }
    }

    /// A shape written as [`Shape::tag`] writes it, `MxNxK` or the side of a cube.
    pub fn parse_tag(s: &str) -> Result<Shape, String> {
        let sides: Vec<usize> = s
            .split('x')
            .map(|v| v.trim().parse::<usize>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("{s:?} is not a shape: write MxNxK, e.g. 8192x8192x1024"))?;
        match sides[..] {
            [side] if side > 0 => Ok(Shape::square(side)),
            [m, n, k] if m > 0 && n > 0 && k > 0 => Ok(Shape::new(m, n, k)),
            _ => Err(format!(
                "{s:?} is not a shape: write MxNxK with three sides above 0 (or one side, for a cube)"
            )),
        }
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

pub use super::rng::{secret_seed, Rng};

/// Random values in [-1, 1): no zeros and no structure a wrong index could hide behind.
pub fn random(len: usize, seed: u64) -> Vec<f32> {
    let mut rng = Rng::new(seed);
    (0..len).map(|_| rng.next_f32()).collect()
}

/// Inputs of one product, and what C holds before the call.
#[derive(Clone)]
pub struct Problem {
    pub shape: Shape,
    pub a: Vec<f32>,
    pub b: Vec<f32>,
    /// C before the call: every runner fills C with it, every check knows it.
    pub poison: Poison,
}

impl Problem {
    /// A and B from `seed` (the same on every machine); C's poison drawn apart, from a seed
    /// no code under test can predict ([`poison::draw`]).
    pub fn random(shape: Shape, seed: u64) -> Problem {
        Problem {
            shape,
            a: random(shape.m * shape.k, seed.wrapping_mul(2).wrapping_add(1)),
            b: random(shape.k * shape.n, seed.wrapping_mul(2).wrapping_add(2)),
            poison: poison::draw(shape.m * shape.n, shape.k),
        }
    }

    /// This problem with inputs of wide dynamic range: every row of A and every column of B
    /// scaled by 2^u, u drawn from `seed` in −20..=20, so values span 2^80 where `random`'s
    /// span one binade or a few. Every element of C is its uniform product times a power of
    /// two, so any correct FP32 kernel is exactly as accurate here (the allowance scales with
    /// it); code that assumes |a| < 1, or one scale for a whole matrix, is not.
    pub fn widened(mut self, seed: u64) -> Problem {
        let Shape { m, n, k } = self.shape;
        let mut rng = Rng::new(seed);
        let mut draw = || 2f32.powi((rng.next_f32() * 20.5).round() as i32);
        for row in self.a.chunks_mut(k.max(1)).take(m) {
            let u = draw();
            row.iter_mut().for_each(|x| *x *= u);
        }
        for j in 0..n {
            let u = draw();
            (0..k).for_each(|kk| self.b[kk * n + j] *= u);
        }
        self
    }

    /// This problem with C poisoned with NaN.
    pub fn with_nan(mut self) -> Problem {
        self.poison = Poison::nan(self.shape.m * self.shape.n);
        self
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
                let brow = &p.b[kk * n..kk * n + n];
                fused::add_row(p.a[i * k + kk], brow, crow, srow, frow);
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
            let a = &p.a[i * k..i * k + k];
            fused::dot_column(a, &p.b[j..], n)
        })
        .collect()
}

/// The reference's inner loops with the processor's fused multiply-add where it has one.
/// `f32::mul_add` is exact (one rounding) on every machine, but where the build does not
/// assume an FMA unit (x86-64's baseline has none) each call is a library routine, and the
/// row loop, which is most of a grading's own work on a CPU, cannot be vectorised. The same
/// loops compiled for FMA give the same bits, faster.
mod fused {
    /// crow += a·brow in f64, srow += |a·brow|, frow = fma(a, brow, frow) in f32.
    #[inline(always)]
    fn add_row_body(a32: f32, brow: &[f32], crow: &mut [f64], srow: &mut [f64], frow: &mut [f32]) {
        let a = a32 as f64;
        for (((b, c), s), f) in brow.iter().zip(crow).zip(srow).zip(frow) {
            let t = a * *b as f64;
            *c += t;
            *s += t.abs();
            *f = a32.mul_add(*b, *f);
        }
    }

    /// Σ a[kk]·b[kk·n] in f64, Σ|a·b|, and the f32 fused sum in order.
    #[inline(always)]
    fn dot_column_body(a: &[f32], b: &[f32], n: usize) -> (f64, f64, f32) {
        let (mut c, mut s, mut f) = (0.0f64, 0.0f64, 0.0f32);
        for (kk, &x) in a.iter().enumerate() {
            let y = b[kk * n];
            let t = x as f64 * y as f64;
            c += t;
            s += t.abs();
            f = x.mul_add(y, f);
        }
        (c, s, f)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn add_row_fma(
        a32: f32,
        brow: &[f32],
        crow: &mut [f64],
        srow: &mut [f64],
        frow: &mut [f32],
    ) {
        add_row_body(a32, brow, crow, srow, frow)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn dot_column_fma(a: &[f32], b: &[f32], n: usize) -> (f64, f64, f32) {
        dot_column_body(a, b, n)
    }

    /// The standard library caches what it detects: a call costs a load.
    #[cfg(target_arch = "x86_64")]
    fn has_fma() -> bool {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }

    pub fn add_row(a32: f32, brow: &[f32], crow: &mut [f64], srow: &mut [f64], frow: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if has_fma() {
            // SAFETY: the processor was just found to have AVX2 and FMA.
            return unsafe { add_row_fma(a32, brow, crow, srow, frow) };
        }
        add_row_body(a32, brow, crow, srow, frow)
    }

    pub fn dot_column(a: &[f32], b: &[f32], n: usize) -> (f64, f64, f32) {
        #[cfg(target_arch = "x86_64")]
        if has_fma() {
            // SAFETY: as above.
            return unsafe { dot_column_fma(a, b, n) };
        }
        dot_column_body(a, b, n)
    }
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
    /// Wrong elements still holding what C held before the call: never written.
    pub unwritten: usize,
    /// Elements, right or wrong, still holding exactly what C held before the call: a kernel
    /// that wrote nothing leaves all of them so, even where a random poison happens to lie
    /// within the allowance of the right value.
    #[serde(default)]
    pub untouched: usize,
    /// Wrong elements that hold what C held before the call plus the right product: added
    /// into C instead of written.
    #[serde(default)]
    pub added: usize,
    /// What C held before the call.
    #[serde(default)]
    pub poison: poison::Kind,
    /// Elements that are NaN, and the first of them in row-major order (of those checked).
    #[serde(default)]
    pub nans: usize,
    #[serde(default)]
    pub first_nan: Option<(usize, usize)>,
    /// The first wrong element in row-major order.
    pub first_wrong: Option<Mismatch>,
    /// The first element left unwritten in row-major order (of those checked).
    pub first_unwritten: Option<(usize, usize)>,
    /// max |got − exact| / max |exact|, over finite elements.
    pub max_rel_err: f64,
    pub max_abs_err: f64,
    /// Σ ((got − exact)/scale)² over the finite elements checked, and Σ ((fp32 − exact)/scale)²
    /// over the same elements for plain FP32 sums ([`Reference::fp32`]), each element in units
    /// of its own scale Σ|a·b|: how precise C is as a whole, whatever powers of two scale the
    /// rows of A and columns of B (no handful of large elements decides it alone).
    #[serde(default)]
    pub sq_err: f64,
    #[serde(default)]
    pub sq_err_fp32: f64,
    /// The largest error of a wrong element in units of its allowance (infinite for NaN, or
    /// for a wrong element counted without its exact value): near 1 where every wrong element
    /// only just misses, as lower precision makes them; far above it for a wrong index.
    #[serde(default)]
    pub worst_miss: f64,
}

impl Comparison {
    pub fn passed(&self) -> bool {
        self.wrong == 0
    }

    /// Whether the wrong elements that hold C's value from before the call are too many to be
    /// chance: at least one in a hundred of the wrong ones. A numeric poison's value turns up
    /// in a computed element about once in 2^25 (the largest checks scan 17 million elements
    /// for it), so a kernel wrong everywhere may meet it once or twice; a store that is
    /// missing leaves every element it misses so, and those that are wrong otherwise are then
    /// rarely a hundred times more.
    pub fn unwritten_beyond_chance(&self) -> bool {
        self.unwritten > 0 && self.unwritten.saturating_mul(100) >= self.wrong
    }

    /// How many times plain FP32's error C's error is over the elements checked (root mean
    /// squares); `None` where FP32 made no error to compare with.
    pub fn error_over_fp32(&self) -> Option<f64> {
        (self.sq_err_fp32 > 0.0).then(|| (self.sq_err / self.sq_err_fp32).sqrt())
    }

    /// Adds element (`row`, `col`), `got`, against its exact value; `before` is the poison
    /// and `idx` the element's index in C.
    #[allow(clippy::too_many_arguments)]
    fn add(
        &mut self,
        (row, col): (usize, usize),
        got: f32,
        (exact, scale, fp32): (f64, f64, f32),
        k: usize,
        before: &Poison,
        idx: usize,
    ) {
        self.checked += 1;
        if got.is_finite() {
            let w = 1.0 / scale.max(f64::MIN_POSITIVE);
            self.sq_err += ((got as f64 - exact) * w).powi(2);
            self.sq_err_fp32 += ((fp32 as f64 - exact) * w).powi(2);
        }
        let allowed = tolerance(k, scale);
        let err = (got as f64 - exact).abs();
        if got.is_finite() && err > self.max_abs_err {
            self.max_abs_err = err;
        }
        if got.is_nan() {
            self.nans += 1;
            self.first_nan = Some(self.first_nan.map_or((row, col), |f| f.min((row, col))));
        }
        // NaN compares false with everything: it must count as wrong.
        let wrong = err.is_nan() || err > allowed;
        if before.held(idx, got) {
            self.untouched += 1;
        }
        // An element equal to the poison by chance while right is right: only a wrong one
        // that still holds the poison was never written.
        if wrong && before.held(idx, got) {
            self.unwritten += 1;
            // Samples come in no order: keep the lowest, which says where writing stopped.
            self.first_unwritten = Some(
                self.first_unwritten
                    .map_or((row, col), |f| f.min((row, col))),
            );
        } else if wrong && got.is_finite() {
            // The product summed onto C's old value: within the rounding of sums that carry
            // the old value's size along.
            let old = before.at(idx) as f64;
            if old.is_finite()
                && (got as f64 - old - exact).abs() <= tolerance(k, scale + old.abs())
            {
                self.added += 1;
            }
        }
        if wrong {
            self.wrong += 1;
            let miss = if got.is_finite() {
                err / allowed
            } else {
                f64::INFINITY
            };
            self.worst_miss = self.worst_miss.max(miss);
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

/// Compares every element of `got` (M×N, row-major) with the reference; `before` is what C
/// held before the call.
pub fn compare(shape: Shape, got: &[f32], reference: &Reference, before: &Poison) -> Comparison {
    let mut cmp = Comparison {
        poison: before.kind,
        ..Comparison::default()
    };
    let mut max_exact = 0.0f64;
    for (idx, &g) in got.iter().enumerate().take(shape.m * shape.n) {
        let (row, col) = (idx / shape.n, idx % shape.n);
        cmp.add(
            (row, col),
            g,
            (reference.c[idx], reference.scale[idx], reference.fp32[idx]),
            shape.k,
            before,
            idx,
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

/// Up to `most` of the elements of a C that only some work-groups wrote (no longer holding the
/// call's poison), evenly spaced from an offset drawn from `seed`; empty where none was written.
pub fn written_sample(p: &Problem, got: &[f32], most: usize, seed: u64) -> Vec<(usize, usize)> {
    let written: Vec<(usize, usize)> = (got.iter().enumerate())
        .filter(|&(idx, &x)| !p.poison.held(idx, x))
        .map(|(idx, _)| (idx / p.shape.n, idx % p.shape.n))
        .collect();
    if written.is_empty() {
        return written;
    }
    let step = written.len().div_ceil(most.max(1));
    let offset = (seed % step as u64) as usize;
    written.into_iter().skip(offset).step_by(step).collect()
}

/// Whether a C that only some work-groups wrote (the simulator's quick mode runs the first
/// and the last) is right where it was written: some element no longer holds the call's
/// poison, and up to 4 096 of those, drawn from the secret seed, are what they should be.
pub fn written_right(p: &Problem, got: &[f32]) -> bool {
    let points = written_sample(p, got, 4096, secret_seed());
    !points.is_empty() && compare_sampled(p, got, &points).passed()
}

/// Compares `got` with the reference at the sample points only.
pub fn compare_sampled(p: &Problem, got: &[f32], points: &[(usize, usize)]) -> Comparison {
    let exact = reference_at(p, points);
    let mut cmp = Comparison {
        poison: p.poison.kind,
        ..Comparison::default()
    };
    let mut max_exact = 0.0f64;
    for (&(i, j), &e) in points.iter().zip(&exact) {
        let idx = i * p.shape.n + j;
        cmp.add((i, j), got[idx], e, p.shape.k, &p.poison, idx);
        max_exact = max_exact.max(e.0.abs());
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
/// compute only the elements it expects to be checked; and every element for NaN, infinity and
/// the value C held there before the call, so that an element left unwritten is seen wherever
/// it is, whatever the poison.
pub fn check(p: &Problem, c: &[f32]) -> Comparison {
    if p.shape.flops() <= 2.0 * 512.0 * 512.0 * 512.0 {
        return compare(p.shape, c, &reference(p), &p.poison);
    }
    let pts = sample_points(p.shape, 4096, secret_seed());
    let mut cmp = compare_sampled(p, c, &pts);
    let sampled: std::collections::HashSet<usize> =
        pts.iter().map(|&(i, j)| i * p.shape.n + j).collect();
    let suspect: Vec<usize> = c
        .iter()
        .enumerate()
        .filter(|&(idx, &x)| (!x.is_finite() || p.poison.held(idx, x)) && !sampled.contains(&idx))
        .map(|(idx, _)| idx)
        .collect();
    // Located and checked exactly: a right element may equal a numeric poison by chance, and
    // is right; the first few hundred of them decide. Past that many, no chance explains them:
    // the rest are counted as what they are.
    let located: Vec<(usize, usize)> = suspect
        .iter()
        .take(LOCATED)
        .map(|&idx| (idx / p.shape.n, idx % p.shape.n))
        .collect();
    for (&(i, j), &e) in located.iter().zip(&reference_at(p, &located)) {
        let idx = i * p.shape.n + j;
        cmp.add((i, j), c[idx], e, p.shape.k, &p.poison, idx);
    }
    for &idx in suspect.iter().skip(located.len()) {
        cmp.checked += 1;
        cmp.wrong += 1;
        cmp.worst_miss = f64::INFINITY;
        cmp.nans += usize::from(c[idx].is_nan());
        if p.poison.held(idx, c[idx]) {
            cmp.unwritten += 1;
            cmp.untouched += 1;
        }
    }
    cmp
}

/// Elements of a large C outside the sample, NaN or equal to the poison, checked exactly.
const LOCATED: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_what_was_written_the_edges_among_it() {
        let mut p = Problem::random(Shape::new(300, 200, 4), 3);
        p.poison = Poison::nan(300 * 200);
        let mut c = vec![f32::NAN; 300 * 200];
        // A window's two groups of 16×16: one inside, one at the corner.
        for i in (40..56).chain(284..300) {
            for j in (64..80).chain(184..200) {
                c[i * 200 + j] = 1.0;
            }
        }
        let pts = written_sample(&p, &c, 4096, 99);
        assert_eq!(
            pts.len(),
            4 * 256,
            "every written element, fewer than the most"
        );
        assert!(pts.iter().all(|&(i, j)| c[i * 200 + j] == 1.0));
        assert!(pts.contains(&(299, 199)) && pts.contains(&(299, 64)) && pts.contains(&(40, 199)));
        assert!(written_sample(&p, &vec![f32::NAN; 300 * 200], 4096, 1).is_empty());
    }

    #[test]
    fn reference_matches_hand_computed_product() {
        // [1 2; 3 4] · [5 6; 7 8] = [19 22; 43 50]
        let p = Problem {
            shape: Shape::square(2),
            a: vec![1.0, 2.0, 3.0, 4.0],
            b: vec![5.0, 6.0, 7.0, 8.0],
            poison: Poison::nan(4),
        };
        let r = reference(&p);
        assert_eq!(r.c, vec![19.0, 22.0, 43.0, 50.0]);
        let cmp = compare(p.shape, &[19.0, 22.0, 43.0, 50.0], &r, &p.poison);
        assert!(cmp.passed());
        let cmp = compare(p.shape, &[19.0, 22.0, 43.0, 51.0], &r, &p.poison);
        assert_eq!(cmp.wrong, 1);
        let bad = cmp.first_wrong.unwrap();
        assert_eq!((bad.row, bad.col, bad.got), (1, 1, 51.0));
    }

    /// What the simulator's quick mode leaves: C written by some work-groups only. Right where
    /// written passes; a wrong written element, or nothing written, does not.
    #[test]
    fn written_right_judges_only_what_was_written() {
        let mut p = Problem::random(Shape::new(32, 24, 17), 4);
        p.poison = Poison::from_values(poison::Kind::Random, vec![7.5; 32 * 24]);
        let r = reference(&p);
        let mut got: Vec<f32> = p.poison.to_vec();
        assert!(!written_right(&p, &got), "nothing written");
        // The first 8 rows written, right.
        for (g, &e) in got.iter_mut().zip(&r.c).take(8 * 24) {
            *g = e as f32;
        }
        assert!(written_right(&p, &got));
        got[5] += 0.5;
        assert!(!written_right(&p, &got), "a written element wrong");
    }

    #[test]
    fn nan_is_never_within_tolerance() {
        let p = Problem::random(Shape::new(3, 4, 5), 1).with_nan();
        let r = reference(&p);
        let mut got: Vec<f32> = r.c.iter().map(|&x| x as f32).collect();
        assert!(compare(p.shape, &got, &r, &p.poison).passed());
        got[5] = f32::NAN;
        let cmp = compare(p.shape, &got, &r, &p.poison);
        assert_eq!((cmp.wrong, cmp.unwritten), (1, 1));
        assert_eq!(cmp.first_unwritten, Some((1, 1)));
    }

    /// Widened inputs span 2^80, and a plain FP32 loop on them is as right as on uniform ones
    /// (the allowance scales with each element), while one scale for all of A is not.
    #[test]
    fn widened_inputs_span_far_and_fp32_stays_right() {
        let p = Problem::random(Shape::new(23, 17, 301), 3).widened(9);
        let span = |v: &[f32]| {
            let l = |x: &f32| x.abs().log2();
            v.iter().map(l).fold(f32::MIN, f32::max) - v.iter().map(l).fold(f32::MAX, f32::min)
        };
        assert!(span(&p.a) > 40.0 && span(&p.b) > 40.0);
        let Shape { m, n, k } = p.shape;
        let fp32 = |a: &[f32]| -> Vec<f32> {
            let mut c = vec![0f32; m * n];
            for i in 0..m {
                for j in 0..n {
                    c[i * n + j] =
                        (0..k).fold(0f32, |s, kk| a[i * k + kk].mul_add(p.b[kk * n + j], s));
                }
            }
            c
        };
        assert!(check(&p, &fp32(&p.a)).passed());
        // Each value of A rounded to 12 bits of one scale for the whole matrix: the small
        // rows lose everything.
        let top = p.a.iter().fold(0f32, |t, x| t.max(x.abs()));
        let coarse: Vec<f32> =
            p.a.iter()
                .map(|x| (x / top * 4096.0).round() / 4096.0 * top)
                .collect();
        assert!(!check(&p, &fp32(&coarse)).passed());
        assert_eq!(Problem::random(p.shape, 3).widened(9).a, p.a);
    }

    /// The reference's loops give the same bits with the processor's FMA as one multiply-add
    /// after another in plain Rust, row-wise and at sampled points.
    #[test]
    fn the_reference_is_the_same_with_or_without_the_fma_unit() {
        let p = Problem::random(Shape::new(9, 37, 203), 11).widened(3);
        let Shape { m, n, k } = p.shape;
        let r = reference(&p);
        let points: Vec<_> = (0..m).flat_map(|i| (0..n).map(move |j| (i, j))).collect();
        let at = reference_at(&p, &points);
        for (&(i, j), &(c_at, s_at, f_at)) in points.iter().zip(&at) {
            let (mut c, mut s, mut f) = (0.0f64, 0.0f64, 0.0f32);
            for kk in 0..k {
                let (a, b) = (p.a[i * k + kk], p.b[kk * n + j]);
                let t = a as f64 * b as f64;
                c += t;
                s += t.abs();
                f = a.mul_add(b, f);
            }
            let e = i * n + j;
            assert_eq!(
                (r.c[e].to_bits(), r.scale[e].to_bits(), r.fp32[e].to_bits()),
                (c.to_bits(), s.to_bits(), f.to_bits()),
                "row-wise at ({i}, {j})"
            );
            assert_eq!(
                (c_at.to_bits(), s_at.to_bits(), f_at.to_bits()),
                (c.to_bits(), s.to_bits(), f.to_bits()),
                "sampled at ({i}, {j})"
            );
        }
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
        let p = Problem::random(Shape::new(520, 515, 513), 5).with_nan();
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

    /// Whatever C held before the call, an element left as it was is found wherever it is in a
    /// large C, and a right element that happens to equal the poison is right.
    #[test]
    fn an_element_left_as_the_poison_is_found_whatever_the_poison() {
        let shape = Shape::new(520, 515, 513);
        let right = |p: &Problem| -> Vec<f32> {
            let pts: Vec<(usize, usize)> = (0..shape.m)
                .flat_map(|i| (0..shape.n).map(move |j| (i, j)))
                .collect();
            reference_at(p, &pts).iter().map(|e| e.0 as f32).collect()
        };
        let mut p = Problem::random(shape, 6);
        let c = right(&p);
        // A numeric poison that equals the right C at one element, by chance.
        let mut before: Vec<f32> = random(shape.m * shape.n, 77);
        before[17] = c[17];
        p.poison = Poison::from_values(poison::Kind::Random, before.clone());
        assert!(check(&p, &c).passed(), "a right C passes");
        // One element, far from the edges, left as it was.
        let mut kept = c.clone();
        let idx = 300 * shape.n + 200;
        kept[idx] = before[idx];
        let cmp = check(&p, &kept);
        assert_eq!((cmp.unwritten, cmp.first_unwritten), (1, Some((300, 200))));
        assert_eq!(cmp.poison, poison::Kind::Random);
        // Nothing written: every element checked is untouched, element 17 too, though it is
        // right (a kernel not started reads as not started, whatever the poison).
        let untouched = check(&p, &before);
        assert_eq!(untouched.untouched, untouched.checked);
        assert!(untouched.unwritten < untouched.checked, "{untouched:?}");
        // The product added onto what C held.
        let added: Vec<f32> = c.iter().zip(&before).map(|(x, b)| x + b).collect();
        let small = Problem {
            shape: Shape::new(9, 7, 33),
            ..Problem::random(Shape::new(9, 7, 33), 8)
        };
        let mut small = small;
        let r = reference(&small);
        small.poison = Poison::from_values(poison::Kind::Earlier, random(63, 5));
        let summed: Vec<f32> =
            r.c.iter()
                .enumerate()
                .map(|(i, x)| *x as f32 + small.poison.at(i))
                .collect();
        let cmp = compare(small.shape, &summed, &r, &small.poison);
        assert_eq!((cmp.added, cmp.wrong, cmp.unwritten), (63, 63, 0));
        assert!(!check(&p, &added).passed());
    }
}
