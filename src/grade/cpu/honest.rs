//! What makes a CPU speed honest: every timed call is checked, in full where that is cheap and
//! otherwise at secret points and by Freivalds' test (C·x against A·(B·x) for a secret random
//! x, with a rigorous bound on the rounding), and no time may beat what this machine's cores
//! can compute (`cpu_facts`' ceiling). Also the shapes drawn at grading time, which no code can special-case.

use crate::harness::matrix::{self, Comparison, Problem, Rng, Shape};

/// Products up to this many floating-point operations are checked element by element.
const FULL_CHECK_FLOPS: f64 = 2.0 * 512.0 * 512.0 * 512.0;

/// Random points checked besides the edges in a large product.
const SAMPLES: usize = 4096;

/// Checks a call's C: every element of a small product; for a large one the edges and
/// random points chosen by `secret`, and the whole of C by Freivalds' test.
pub fn check_call(p: &Problem, c: &[f32], secret: u64) -> Comparison {
    if p.shape.flops() <= FULL_CHECK_FLOPS {
        return matrix::compare(p.shape, c, &matrix::reference(p), &p.poison);
    }
    let pts = matrix::sample_points(p.shape, SAMPLES, secret);
    let cmp = matrix::compare_sampled(p, c, &pts);
    if !cmp.passed() {
        return cmp;
    }
    match freivalds(p, c, secret) {
        // Some element of this row is out of its allowance: every one of them is checked to
        // say which.
        Some(row) => {
            let whole: Vec<(usize, usize)> = (0..p.shape.n).map(|j| (row, j)).collect();
            let found = matrix::compare_sampled(p, c, &whole);
            if found.passed() {
                cmp
            } else {
                found
            }
        }
        None => cmp,
    }
}

/// Freivalds' test: the first row where C·x differs from A·(B·x) by more than rounding can
/// explain, for a vector x of random signs drawn from `secret`; `None` when C passes. The
/// allowance of row i is the sum over its elements of each element's own allowance
/// ([`matrix::tolerance`]): |(C·x)ᵢ − (A·B·x)ᵢ| ≤ Σⱼ |Cᵢⱼ − (AB)ᵢⱼ|, and each term is within
/// K·u·Σₚ|aᵢₚ·bₚⱼ| for a right C, whose sum over j is (|A|·|B|·1)ᵢ. An element left out or
/// wrong by more than a row's allowance fails the row whatever the signs; several wrong
/// elements cancel each other only by chance, and the signs are secret.
pub fn freivalds(p: &Problem, c: &[f32], secret: u64) -> Option<usize> {
    let Shape { m, n, k } = p.shape;
    let mut rng = Rng::new(secret ^ 0xF4E1_FA15);
    let x: Vec<f64> = (0..n)
        .map(|_| if rng.next_u64() & 1 == 0 { 1.0 } else { -1.0 })
        .collect();
    // B·x and |B|·1, row by row of B.
    let mut bx = vec![0.0f64; k];
    let mut babs = vec![0.0f64; k];
    for p_ in 0..k {
        let row = &p.b[p_ * n..(p_ + 1) * n];
        let (mut s, mut a) = (0.0, 0.0);
        for (v, xv) in row.iter().zip(&x) {
            s += *v as f64 * xv;
            a += (*v as f64).abs();
        }
        bx[p_] = s;
        babs[p_] = a;
    }
    let u = f32::EPSILON as f64 / 2.0;
    (0..m).find(|&i| {
        let arow = &p.a[i * k..(i + 1) * k];
        let (mut want, mut scale) = (0.0f64, 0.0f64);
        for (a, (b, ba)) in arow.iter().zip(bx.iter().zip(&babs)) {
            want += *a as f64 * b;
            scale += (*a as f64).abs() * ba;
        }
        let crow = &c[i * n..(i + 1) * n];
        let mut got = 0.0f64;
        for (v, xv) in crow.iter().zip(&x) {
            got += *v as f64 * xv;
        }
        // The elements' allowances summed, and the f64 sums' own rounding.
        let allowed = (k.max(4) as f64) * u * scale * 1.05
            + 1e-12 * scale
            + n as f64 * f32::MIN_POSITIVE as f64;
        let err = (got - want).abs();
        err.is_nan() || err > allowed
    })
}

/// Shapes drawn at grading time from `secret`, besides the lesson's fixed ones: one past every
/// block size any CPU lesson's solution uses (more than 48 rows, the most a row block of
/// lesson 03b has on any build; more than 1,024 columns; an odd depth past two blocks of
/// 256, so that the last block along K is a ragged one), and a small rectangle of any
/// proportions, whose sides sometimes land on a power of two.
pub fn drawn_shapes(secret: u64) -> [Shape; 2] {
    let mut rng = Rng::new(secret ^ 0x005A_A9E5);
    let mut pick = |lo: usize, hi: usize| lo + (rng.next_u64() % (hi - lo + 1) as u64) as usize;
    let past = Shape::new(pick(49, 130), pick(1025, 1200), 2 * pick(256, 330) + 1);
    let mut rng = Rng::new(secret ^ 0x0053_A11E);
    let mut side = || crate::grade::shapes::drawn_side(&mut rng, 2, 90);
    let small = Shape::new(side(), side(), side());
    [past, small]
}

/// A shape near `around`, each side drawn from `secret` between itself and a fifth more: the
/// problem a technique check looks at, which no code can detect to change its ways.
pub fn near(around: Shape, secret: u64) -> Shape {
    let mut rng = Rng::new(secret ^ 0x00E4_5EA7);
    let mut grow = |x: usize| x + (rng.next_u64() % (x / 5 + 1) as u64) as usize;
    Shape::new(grow(around.m), grow(around.n), grow(around.k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn product(p: &Problem) -> Vec<f32> {
        matrix::reference(p).c.iter().map(|&x| x as f32).collect()
    }

    #[test]
    fn freivalds_passes_a_right_product_and_finds_a_wrong_element() {
        let p = Problem::random(Shape::new(37, 301, 259), 5);
        let mut c = product(&p);
        for secret in 0..8 {
            assert_eq!(freivalds(&p, &c, secret), None);
        }
        // One element off by a little more than its row's allowance could hide.
        c[20 * 301 + 100] += 0.5;
        assert_eq!(freivalds(&p, &c, 3), Some(20));
        c[20 * 301 + 100] = f32::NAN;
        assert_eq!(freivalds(&p, &c, 3), Some(20));
    }

    #[test]
    fn only_the_sampled_elements_do_not_pass() {
        // A large product of which only the points the check would sample with a known seed
        // are computed: another seed's points and the test over all of C find it.
        let p = Problem::random(Shape::new(600, 520, 560), 9);
        let right = product(&p);
        let mut c = vec![0.0f32; right.len()];
        for (i, j) in matrix::sample_points(p.shape, SAMPLES, 11) {
            c[i * 520 + j] = right[i * 520 + j];
        }
        assert!(!check_call(&p, &c, 12345).passed());
        assert!(check_call(&p, &right, 12345).passed());
    }

    #[test]
    fn drawn_shapes_pass_every_block_and_vary() {
        let a = drawn_shapes(1);
        for secret in 0..64 {
            let [past, _] = drawn_shapes(secret);
            // Past two blocks of 256 along K, and not a multiple of any blocking.
            assert!(past.m > 48 && past.n > 1024 && past.k > 512, "{past:?}");
            assert!(!past.k.is_multiple_of(2), "{past:?}");
        }
        assert!((1..50).any(|s| drawn_shapes(s) != a));
        let s = Shape::new(200, 264, 300);
        let d = near(s, 7);
        assert!(
            d.m >= 200 && d.m <= 240 && d.n >= 264 && d.k <= 360,
            "{d:?}"
        );
    }
}
