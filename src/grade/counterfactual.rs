//! The unit's products make C. A count of the unit's calls says it was called, not that its
//! products made C: three calls per tile on zeros, or on the right fragments with what they
//! return dropped, count as the unit's work while the lanes make C. Two ways to ask the
//! question the count stood for, where the device's unit is a model in OpenCL C:
//!
//! - Every product scaled, in every run (lesson 11, [`crate::lesson::Prelude::products_scaled`]):
//!   the model multiplies what it returns by a power of two the kernel cannot know and the run
//!   divides C by it ([`crate::harness::unit_scale`]), so that the ordinary checks of C judge
//!   where it comes from, on calls no kernel can tell from any other. The defines the lesson
//!   takes on each other kind of device ([`super::kinds`]) are checked so too, at the square
//!   the simulator's count of that kind looks at: by the simulator's own run of them, or here
//!   on the device where no simulator runs. Calls for show only with a large GPU's blocks
//!   would otherwise pass wherever the grading machine is not one.
//! - A build after a changed model (lesson 12, [`crate::lesson::Host::counterfactual`]: every
//!   residue product doubled, which no power of two can undo once the integers wrap), every
//!   other line alike, run on inputs drawn for the grading: every element of C that is not
//!   near zero must be off the product. The two models differ only inside a function's body,
//!   where no `#if` can see.

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

/// What a verdict says where every run of the model scales the unit's products.
/// It says what the scale shows, no more: a kernel that learns the factor by calling the unit
/// on fragments it knows, and scales a C made elsewhere by it, comes out scaled too; the
/// lesson's count of the lanes' multiplications is what sees that.
const SCALED: &str = "technique: C comes out scaled as the unit's products are, in every run (the model multiplies them by a power of two the kernel is not told, and C is divided by it; a kernel that learned the factor from the unit at run time would too, and only the simulator's count of the multiplications made outside the unit tells it apart)";

/// Products up to this many multiply-adds are compared at every element of C; larger ones at
/// [`SAMPLES`] points drawn for the grading.
const WHOLE_AT_MOST: usize = 1 << 27;

/// Points of C compared in a larger product.
const SAMPLES: usize = 4096;

/// Checks that the unit's products make C, where this device's unit is modelled: with the
/// defines each other kind of device takes (products scaled), or after the changed model with
/// `defines` (the device's own) at `shapes`. Nothing where the technique is not judged
/// (`opts.technique`).
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
    let Some(prelude) = ocl.prelude(gpu).filter(|_| opts.technique) else {
        return Ok(());
    };
    if prelude.products_scaled {
        // The simulator counts the unit's work with every other kind's defines, and checks
        // C there as every run of the scaled model is checked; where it does not run, the
        // device runs them here.
        if opts.simulate && crate::harness::oclgrind::find_icd().is_some() {
            verdict.notes.push(SCALED.into());
            return Ok(());
        }
        return other_kinds(verdict, gpu, ocl, (file, text), defines, opts, progress);
    }
    let Some((source, changed)) = ocl.counterfactual(gpu, text) else {
        verdict.notes.push(
            "not checked on this device: that C is made of the unit's products (the unit is the device's own instruction, which no build can change; a device whose unit is modelled checks it)".into(),
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
        if let Some(f) = judged(gpu, ocl, &own, defines, (shape, seed), &changed, progress)? {
            verdict.failure = Some(f);
            return Ok(());
        }
    }
    let at: Vec<String> = shapes.iter().map(|s| s.to_string()).collect();
    verdict.notes.push(format!(
        "technique: C changed with the unit's products (the kernel built after a model of the unit whose products are {products}, at {})",
        at.join(", ")
    ));
    Ok(())
}

/// The defines the lesson takes on each other kind of device, built and run here at that
/// kind's square, C checked (made of the unit's products, since every run scales them).
fn other_kinds(
    verdict: &mut Verdict,
    gpu: &Gpu,
    ocl: &OclLesson,
    (file, text): (&Path, &str),
    defines: &[Define],
    opts: &Options,
    progress: Progress,
) -> Result<()> {
    let options = opts.build_options(ocl);
    let seed = timing::secret_seed().rotate_left(23);
    let mut at = Vec::new();
    for (label, defines, shape) in super::looks::other_kinds(ocl, defines, &opts.course) {
        let of = format!(
            "{} (the defines the lesson takes on {label})",
            with_defines(&defines)
        );
        progress(format!("running {shape}{of}"));
        let p = Problem::random(shape, seed);
        let ran = Prepared::build(gpu, ocl, file, text, &defines, &options).and_then(|built| {
            let launch = (ocl.launch)(shape, &defines).map_err(anyhow::Error::msg)?;
            (ocl.host.run)(gpu, &built.kernel, &p, &launch, &defines)
        });
        let out = match ran {
            Ok(out) => out,
            Err(e) => {
                verdict.notes.push(format!(
                    "not checked with the defines the lesson takes on {label}: that C is made of the unit's products (this device could not run them: {e:#})"
                ));
                continue;
            }
        };
        if let Err(mut f) = super::traced(super::verify(&p, &out, None), &out, "") {
            f.message = format!("{}, at {shape}: {}", of.trim_start(), f.message);
            verdict.failure = Some(f);
            return Ok(());
        }
        at.push(format!("{shape}{}", with_defines(&defines)));
    }
    verdict.notes.push(match at.is_empty() {
        true => SCALED.into(),
        false => format!("{SCALED}, also at {}", at.join(", ")),
    });
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
            "your C does not come from the matrix unit: built after a model of the unit whose every product is {products}{with}, at {shape}, C[{i}][{j}] came out {c}, the product itself, where a C made of the unit's products changes with them. Calls of the unit whose results never reach C (on zeros, or dropped) do its work for show, and the products that made C were done elsewhere.\nHint: {}",
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
    crate::harness::unit_scale::first_near(&exact, |(i, j)| c[i * n + j])
}
