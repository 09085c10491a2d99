//! The scale of a modelled unit's products. Where a lesson's matrix unit is a model in OpenCL
//! C (a device without the unit), every product the model makes is multiplied by a power of
//! two from ±2 to ±64, drawn for the copy of the course and unknown to the kernel, and the
//! lesson's run divides C by it when the kernel is done. A power of two changes no rounding,
//! so a kernel whose C is made of the unit's products gives C bit for bit as an unscaled
//! model would; one that makes C elsewhere (FP32 on the lanes, with calls of the unit on
//! zeros, or whose results it drops) gives C divided by the scale.
//!
//! Every run of the model is scaled alike: the calls that are checked, timed, counted by the
//! simulator and run by a student's own program. So no kernel can make C elsewhere in the
//! calls nobody checks and through the unit in those that are, by asking the unit whether it
//! is changed: it always is. The factor is written into the model's source by the host, in a
//! name a lesson's file may not write (`__LAB_`); a kernel that wants C right without the
//! unit's products must learn the factor from the unit at run time and scale its own C by it.
//!
//! The factor is drawn once and kept in `target/lab-unit-scale/` ([`KEPT`]), so that the
//! next program builds the same model's source and finds it built in the OpenCL driver's
//! cache (PoCL keys its cache on the source): a factor drawn for each program made every
//! grading on PoCL build the unit's model again, three times as slow as the one before.
//! Where a grading starts in a fresh copy of the course (a class's autograder), it is drawn
//! there; a worker takes its parent's ([`take`]). The sandbox hides the folder from a
//! student's CPU code, which could otherwise read the factor and tell it in its output.

use std::sync::OnceLock;

use crate::harness::exec::RunOutput;
use crate::harness::matrix::{self, Problem};

static FACTOR: OnceLock<f32> = OnceLock::new();

/// The folder the factor is kept in (its file `factor`), under the course's root.
pub const KEPT: &str = "target/lab-unit-scale";

/// The factor for this process: ±2^r, r from 1 to 6, the one kept for the copy of the course
/// ([`KEPT`]), or drawn and kept at its first use, unless taken from the program that started
/// this one ([`take`]).
pub fn factor() -> f32 {
    *FACTOR.get_or_init(|| {
        let dir = crate::harness::paths::Course::from_env().root().join(KEPT);
        // Only inside a course whose programs were built there (its `target/`): a program
        // copied elsewhere makes no folders in the place it was built.
        if dir.parent().is_some_and(|t| t.is_dir()) {
            let _ = std::fs::create_dir(&dir);
        }
        kept_or_drawn(&dir.join("factor"))
    })
}

/// The factor kept at `path`, or one drawn and kept there (where it can be: else this
/// process's own). Of two programs that draw at once, the one that keeps its factor first
/// gives it to both.
fn kept_or_drawn(path: &std::path::Path) -> f32 {
    let read = || {
        let f: f32 = std::fs::read_to_string(path).ok()?.trim().parse().ok()?;
        drawable(f).then_some(f)
    };
    if let Some(f) = read() {
        return f;
    }
    let s = crate::harness::rng::secret_seed();
    let magnitude = (1u32 << (1 + s % 6)) as f32;
    let f = match (s >> 8) & 1 {
        0 => magnitude,
        _ => -magnitude,
    };
    // Written under a name of its own and then put in place whole, so that no program reads
    // a half-written factor: linked where no file is there yet (which fails where another
    // program kept one first), renamed over a file that holds no factor.
    let own = path.with_extension(format!("{}", std::process::id()));
    let kept = std::fs::write(&own, format!("{f}\n")).and_then(|()| match path.exists() {
        false => std::fs::hard_link(&own, path),
        true => std::fs::rename(&own, path),
    });
    let _ = std::fs::remove_file(&own);
    match kept {
        Ok(()) => f,
        Err(_) => read().unwrap_or(f),
    }
}

/// Whether `f` is one of the factors [`factor`] draws.
fn drawable(f: f32) -> bool {
    let r = f.abs().log2();
    r.fract() == 0.0 && (1.0..=6.0).contains(&r)
}

/// Takes the factor of the program that started this process (a grading's worker), before
/// any build: one of those [`factor`] draws, else an error.
pub fn take(f: f32) -> anyhow::Result<()> {
    anyhow::ensure!(
        drawable(f),
        "a unit's scale of {f} is not one the harness draws"
    );
    anyhow::ensure!(
        FACTOR.get_or_init(|| f) == &f,
        "this process already scales the unit's products otherwise"
    );
    Ok(())
}

/// The line a modelled unit's source begins with: the factor as the model reads it.
pub fn define() -> String {
    format!("#define __LAB_UNIT_SCALE {:.1}f\n", factor())
}

/// Divides C by the factor, after a run of a kernel built with [`define`]: every element the
/// kernel wrote. One that still holds the poison is left as it was, so that what was never
/// written is seen as such, unless divided it is the product (a written element may equal
/// the poison by chance, an earlier C's value say). Returns the first of the points drawn to
/// look at whose C, as the kernel left it, was the product itself, unscaled: row, column and
/// the value.
pub fn unscale(p: &Problem, out: &mut RunOutput) -> Option<(usize, usize, f32)> {
    let f = factor();
    let n = p.shape.n;
    let points = matrix::sample_points(p.shape, 64, crate::harness::rng::secret_seed());
    let exact: Vec<((usize, usize), f64)> = (points.iter().copied())
        .zip(matrix::reference_at(p, &points).into_iter().map(|v| v.0))
        .collect();
    let raw = near_at_several(&exact, |(i, j)| out.c[i * n + j]);
    let held: Vec<usize> = (out.c.iter().enumerate())
        .filter(|&(e, &x)| p.poison.held(e, x))
        .map(|(e, _)| e)
        .collect();
    // Many elements holding the poison were never written; a few may be chance. Only a few
    // are looked at: the poison divided lands near the product by chance too (within the
    // unit's error of it, about one element in a few hundred where the factor is large), so
    // looking at every element of a C never written would find some "written" there.
    let few = HELD_AT_MOST.min(p.shape.m * p.shape.n / HELD_ONE_IN);
    let chance: Vec<usize> = match held.len() <= few {
        true => {
            let at: Vec<(usize, usize)> = held.iter().map(|&e| (e / n, e % n)).collect();
            (held.iter().zip(matrix::reference_at(p, &at)))
                .filter(|&(&e, (x, scale, _))| {
                    ((out.c[e] / f) as f64 - x).abs() <= scale * CHANCE_WITHIN
                })
                .map(|(&e, _)| e)
                .collect()
        }
        false => Vec::new(),
    };
    for (e, x) in out.c.iter_mut().enumerate() {
        if !p.poison.held(e, *x) {
            *x /= f;
        }
    }
    for e in chance {
        out.c[e] /= f;
    }
    raw
}

/// Up to this many elements holding the poison are each looked at for chance...
const HELD_AT_MOST: usize = 4096;

/// ... and no more than one in this many of C's.
const HELD_ONE_IN: usize = 1000;

/// A poisoned element divided is taken for written where it is this close to the product, in
/// units of the element's scale Σ|a·b|: a few times the unit's own error, far below any
/// poison's chance of landing there.
const CHANCE_WITHIN: f64 = 1e-5;

/// Points of a wrong C that land within 1/128 of the product by chance: about one in a few
/// hundred, so that one of 64 points did in about one grading in six of a kernel whose split
/// parts left C wrong (lesson 11's `only_the_first_part_works`), and its wrong result was
/// named a C made elsewhere. A C made elsewhere is the product at every point it covers:
/// this many points, or every point there is where fewer, one in about ten thousand by chance.
const NEAR_AT_LEAST: usize = 4;

/// [`first_near`]'s point, where at least [`NEAR_AT_LEAST`] of `exact`'s points are near
/// (every one of them where there are fewer): a C that is the product at one point only is
/// wrong, not made elsewhere, and the verdict's other checks say where.
pub fn near_at_several(
    exact: &[((usize, usize), f64)],
    c: impl Fn((usize, usize)) -> f32,
) -> Option<(usize, usize, f32)> {
    let largest = largest(exact);
    let near = (exact.iter())
        .filter(|&&(at, x)| is_near(x, c(at), largest))
        .count();
    match near >= NEAR_AT_LEAST.min(exact.len()) {
        true => first_near(exact, c),
        false => None,
    }
}

/// The first of `exact`'s points whose C is within 1/128 of it, among those at least a
/// thousandth of the largest (below that, rounding may hide any change).
pub fn first_near(
    exact: &[((usize, usize), f64)],
    c: impl Fn((usize, usize)) -> f32,
) -> Option<(usize, usize, f32)> {
    let largest = largest(exact);
    (exact.iter()).find_map(|&((i, j), x)| {
        let got = c((i, j));
        is_near(x, got, largest).then_some((i, j, got))
    })
}

fn largest(exact: &[((usize, usize), f64)]) -> f64 {
    exact.iter().fold(0.0f64, |m, (_, x)| m.max(x.abs()))
}

/// `got` within 1/128 of `x`, where `x` is at least a thousandth of `largest`. A NaN or an
/// infinity is never near.
fn is_near(x: f64, got: f32, largest: f64) -> bool {
    x.abs() >= largest / 1000.0 && (got as f64 - x).abs() < x.abs() / 128.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factor_is_a_power_of_two_other_than_one() {
        let f = factor().abs();
        assert!((2.0..=64.0).contains(&f) && f.log2().fract() == 0.0, "{f}");
        assert_eq!(factor(), factor(), "one factor per process");
        assert!(define().contains(&format!("{:.1}f", factor())));
        // A worker takes its parent's factor; none the harness would not draw.
        assert!(take(factor()).is_ok());
        for bad in [1.0, -1.0, 3.0, 0.5, 128.0, f32::NAN, 0.0] {
            assert!(take(bad).is_err(), "{bad}");
        }
    }

    /// The first program keeps its factor; the next reads it; a file that holds no factor
    /// the harness draws is replaced by one drawn again.
    #[test]
    fn the_factor_is_kept_for_the_next_program() {
        let dir = std::env::temp_dir().join(format!("lab-unit-scale-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("kept");
        let first = kept_or_drawn(&path);
        assert!(drawable(first), "{first}");
        assert_eq!(kept_or_drawn(&path), first);
        std::fs::write(&path, "1\n").unwrap();
        let again = kept_or_drawn(&path);
        assert!(drawable(again), "{again}");
        assert_eq!(kept_or_drawn(&path), again);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_element_that_is_the_product_is_found_and_near_zero_ones_are_not_read() {
        let exact: Vec<((usize, usize), f64)> = [1.0, -2.0, 3.0, 4.0, 5.0, 1e-5]
            .iter()
            .enumerate()
            .map(|(e, &x)| ((e / 3, e % 3), x))
            .collect();
        let at = |c: Vec<f32>| move |(i, j): (usize, usize)| c[i * 3 + j];
        let product: Vec<f32> = exact.iter().map(|(_, x)| *x as f32).collect();
        let grown: Vec<f32> = product.iter().map(|x| x * 1.015625).collect();
        assert_eq!(first_near(&exact, at(grown.clone())), None);
        let mut one_kept = grown.clone();
        one_kept[4] = product[4];
        assert_eq!(first_near(&exact, at(one_kept)), Some((1, 1, 5.0)));
        // Near zero the change is below what rounding may hide: not read.
        let mut tiny_kept = grown.clone();
        tiny_kept[5] = product[5];
        assert_eq!(first_near(&exact, at(tiny_kept)), None);
        let mut nan = grown;
        nan[0] = f32::NAN;
        assert_eq!(first_near(&exact, at(nan)), None);
        assert_eq!(first_near(&exact, at(product)), Some((0, 0, 1.0)));
    }

    #[test]
    fn a_wrong_c_near_the_product_at_one_point_is_not_named_made_elsewhere() {
        let exact: Vec<((usize, usize), f64)> =
            (0..64).map(|e| ((e / 8, e % 8), 1.0 + e as f64)).collect();
        let at = |c: Vec<f32>| move |(i, j): (usize, usize)| c[i * 8 + j];
        let wrong: Vec<f32> = exact.iter().map(|(_, x)| -3.0 * *x as f32).collect();
        let mut by_chance = wrong.clone();
        by_chance[9] = 10.02;
        assert_eq!(
            first_near(&exact, at(by_chance.clone())),
            Some((1, 1, 10.02))
        );
        assert_eq!(near_at_several(&exact, at(by_chance)), None);
        // A C made elsewhere in a part (here a sixteenth) is the product at every point there.
        let mut a_part = wrong;
        for e in [3, 4, 5, 6] {
            a_part[e] = exact[e].1 as f32;
        }
        assert_eq!(near_at_several(&exact, at(a_part)), Some((0, 3, 4.0)));
        // Where there are fewer points than that, every one of them.
        assert_eq!(
            near_at_several(&exact[..2], at(vec![1.0, 2.0])),
            Some((0, 0, 1.0))
        );
        assert_eq!(near_at_several(&exact[..2], at(vec![1.0, 7.0])), None);
    }

    #[test]
    fn c_is_divided_where_written_and_the_product_left_unscaled_is_named() {
        let shape = matrix::Shape::new(40, 50, 5);
        let p = Problem::random(shape, 7);
        let exact = matrix::reference(&p).c;
        let scaled: Vec<f32> = exact.iter().map(|&x| x as f32 * factor()).collect();
        let mut out = RunOutput::plain(scaled.clone(), 0.0);
        assert_eq!(unscale(&p, &mut out), None);
        for (got, x) in out.c.iter().zip(&exact) {
            assert!(
                (*got as f64 - x).abs() <= x.abs() * 1e-6 + 1e-6,
                "{got} {x}"
            );
        }
        // A written element that equals the poison by chance is divided; one never written
        // keeps the poison.
        let mut q = p.clone();
        let mut poison: Vec<f32> = scaled.iter().map(|x| x + 1.0).collect();
        poison[1] = scaled[1];
        q.poison = crate::harness::poison::Poison::from_values(
            crate::harness::poison::Kind::Earlier,
            poison.clone(),
        );
        let mut left = scaled.clone();
        left[2] = poison[2];
        let mut out = RunOutput::plain(left, 0.0);
        unscale(&q, &mut out);
        assert_eq!(out.c[1], scaled[1] / factor());
        assert_eq!(out.c[2], poison[2]);
        // The product as the lanes make it: named, and wrong once divided.
        let mut out = RunOutput::plain(exact.iter().map(|&x| x as f32).collect(), 0.0);
        let (i, j, v) = unscale(&p, &mut out).expect("an unscaled product found");
        assert_eq!(v, exact[i * 50 + j] as f32);
        assert_eq!(out.c[i * 50 + j], v / factor());
        // A C never written, all of it the poison, stays so, though the poison divided lands
        // on the product here and there (as a random one does, within the unit's error).
        let mut r = p.clone();
        let mut never: Vec<f32> = scaled.iter().map(|x| x + 1.0).collect();
        for e in (0..never.len()).step_by(100) {
            never[e] = scaled[e];
        }
        r.poison = crate::harness::poison::Poison::from_values(
            crate::harness::poison::Kind::Earlier,
            never.clone(),
        );
        let mut out = RunOutput::plain(never.clone(), 0.0);
        unscale(&r, &mut out);
        assert_eq!(out.c, never);
    }
}
