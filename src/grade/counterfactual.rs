//! The unit changed, C changes ([`crate::lesson::Host::counterfactual`]). A count of the
//! unit's calls says it was called, not that its products made C: three calls per tile on
//! zeros, or on the right fragments with what they return dropped, count as the unit's work
//! while the lanes make C. So on a device whose unit is a model, the kernel is built once more
//! after a model whose every product is changed (lesson 11's 1/64 larger, lesson 12's
//! doubled), every other line alike, and run on inputs drawn for the grading: every element of
//! C that is not near zero must be off the product by the change. A kernel whose products go
//! through the unit is; one whose C was made elsewhere gives the right product. The two models
//! differ only inside a function's body, where no `#if` can see.
//!
//! It runs with this device's own defines at the asked size and a small problem, and with the
//! defines the lesson takes on each other kind of device ([`super::kinds`]) at the square the
//! simulator's count of that kind looks at: calls for show only with a large GPU's blocks
//! would otherwise pass wherever the grading machine is not one.

use std::path::Path;

use anyhow::Result;

use crate::harness::device::Gpu;
use crate::harness::matrix::{self, Problem, Shape};
use crate::harness::program::Define;
use crate::harness::timing;
use crate::lesson::{Counterfactual, OclLesson};
use crate::prepared::Prepared;

use super::words::with_defines;
use super::{FailKind, Failure, Options, Progress, Verdict};

/// Products up to this many multiply-adds are compared at every element of C; larger ones at
/// [`SAMPLES`] points drawn for the grading.
const WHOLE_AT_MOST: usize = 1 << 27;

/// Points of C compared in a larger product.
const SAMPLES: usize = 4096;

/// Checks that C changes with the unit's products, where this device's unit is modelled:
/// with `defines` (the device's own) at `shapes`, then with each other kind of device's.
/// Nothing where the technique is not judged (`opts.technique`).
#[allow(clippy::too_many_arguments)]
pub(super) fn check(
    verdict: &mut Verdict,
    gpu: &Gpu,
    ocl: &OclLesson,
    (file, text): (&Path, &str),
    defines: &[Define],
    shapes: &[Shape],
    opts: &Options,
    progress: Progress,
) -> Result<()> {
    if !opts.technique || ocl.host.counterfactual.is_none() {
        return Ok(());
    }
    let Some((source, changed)) = ocl.counterfactual(gpu, text) else {
        verdict.notes.push(
            "not checked on this device: that C changes with the unit's products (the unit is the device's own instruction, which no build can change; a device whose unit is modelled checks it)".into(),
        );
        return Ok(());
    };
    let products = changed.products;
    let options = opts.build_options(ocl);
    let seed = timing::secret_seed().rotate_left(23);
    progress(format!(
        "building {} after a model of the unit whose products are {products}",
        crate::harness::paths::display(file)
    ));
    let own = Prepared::build_as(gpu, ocl, file, &source, defines, &options)?;
    for &shape in shapes {
        if let Some(f) = judged(
            gpu,
            ocl,
            &own,
            defines,
            (shape, seed),
            &changed,
            "",
            progress,
        )? {
            verdict.failure = Some(f);
            return Ok(());
        }
    }
    let mut at: Vec<String> = shapes.iter().map(|s| s.to_string()).collect();
    for (label, defines, shape) in super::looks::other_kinds(ocl, defines, &opts.course) {
        let of = format!(" (the defines the lesson takes on {label})");
        let tried =
            Prepared::build_as(gpu, ocl, file, &source, &defines, &options).and_then(|built| {
                judged(
                    gpu,
                    ocl,
                    &built,
                    &defines,
                    (shape, seed),
                    &changed,
                    &of,
                    progress,
                )
            });
        match tried {
            Ok(Some(f)) => {
                verdict.failure = Some(f);
                return Ok(());
            }
            Ok(None) => at.push(format!("{shape}{}", with_defines(&defines))),
            Err(e) => verdict.notes.push(format!(
                "not checked with the defines the lesson takes on {label}: that C changes with the unit's products (this device could not run them: {e:#})"
            )),
        }
    }
    verdict.notes.push(format!(
        "technique: C changed with the unit's products (the kernel built after a model of the unit whose products are {products}, at {})",
        at.join(", ")
    ));
    Ok(())
}

/// Runs the build after the changed model at one shape: the failure where an element of C is
/// the product as the unchanged unit would give it.
#[allow(clippy::too_many_arguments)]
fn judged(
    gpu: &Gpu,
    ocl: &OclLesson,
    built: &Prepared,
    defines: &[Define],
    (shape, seed): (Shape, u64),
    changed: &Counterfactual,
    of: &str,
    progress: Progress,
) -> Result<Option<Failure>> {
    let products = changed.products;
    progress(format!(
        "running {shape}{} with the unit's products {products}",
        with_defines(defines)
    ));
    let launch = (ocl.launch)(shape, defines).map_err(anyhow::Error::msg)?;
    let p = Problem::random(shape, seed);
    let out = (ocl.host.run)(gpu, &built.kernel, &p, &launch, defines)?;
    let Some((i, j, c)) = unchanged(&p, &out.c, seed) else {
        return Ok(None);
    };
    Ok(Some(Failure::new(
        FailKind::Technique,
        format!(
            "your C does not come from the matrix unit: built after a model of the unit whose every product is {products}{with}{of}, at {shape}, C[{i}][{j}] came out {c}, the product itself, where a C made of the unit's products changes with them. Calls of the unit whose results never reach C (on zeros, or dropped) do its work for show, and the products that made C were done elsewhere.\nHint: {}",
            changed.hint,
            with = with_defines(defines)
        ),
    )))
}

/// The first element of C (row, column, value) within 1/128 of the product A·B, among those
/// at least a thousandth of the largest: every element of a small product, points drawn from
/// `seed` in a large one. A C made of changed products is off by more everywhere.
fn unchanged(p: &Problem, c: &[f32], seed: u64) -> Option<(usize, usize, f32)> {
    let Shape { m, n, k } = p.shape;
    let exact: Vec<((usize, usize), f64)> = match m * n * k <= WHOLE_AT_MOST {
        true => {
            let r = matrix::reference(p);
            (0..m * n).map(|e| ((e / n, e % n), r.c[e])).collect()
        }
        false => {
            let points = matrix::sample_points(p.shape, SAMPLES, seed);
            let values = matrix::reference_at(p, &points);
            points.into_iter().zip(values.iter().map(|v| v.0)).collect()
        }
    };
    first_unchanged(&exact, |(i, j)| c[i * n + j])
}

/// [`unchanged`] over the exact values given: the first whose C is within 1/128 of it.
fn first_unchanged(
    exact: &[((usize, usize), f64)],
    c: impl Fn((usize, usize)) -> f32,
) -> Option<(usize, usize, f32)> {
    let largest = exact.iter().fold(0.0f64, |m, (_, x)| m.max(x.abs()));
    exact.iter().find_map(|&((i, j), x)| {
        let got = c((i, j));
        // A NaN or an infinity is a change too.
        let same = (got as f64 - x).abs() < x.abs() / 128.0;
        (x.abs() >= largest / 1000.0 && same).then_some((i, j, got))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(first_unchanged(&exact, at(grown.clone())), None);
        let mut one_kept = grown.clone();
        one_kept[4] = product[4];
        assert_eq!(first_unchanged(&exact, at(one_kept)), Some((1, 1, 5.0)));
        // Near zero the change is below what rounding may hide: not read.
        let mut tiny_kept = grown.clone();
        tiny_kept[5] = product[5];
        assert_eq!(first_unchanged(&exact, at(tiny_kept)), None);
        let mut nan = grown;
        nan[0] = f32::NAN;
        assert_eq!(first_unchanged(&exact, at(nan)), None);
        assert_eq!(first_unchanged(&exact, at(product)), Some((0, 0, 1.0)));
    }
}
