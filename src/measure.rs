//! Checking and timing a kernel outside grading: the variants a chapter compares, the ladder
//! tool and the lesson programs. Every product is judged by the grader's own [`verify`]
//! before it is timed: a variant that computes the wrong thing is an error, not a number in
//! the book.

use std::path::Path;

use anyhow::{Context as _, Result};

use crate::grade::verify;
use crate::harness::device::Gpu;
use crate::harness::exec::Launch;
use crate::harness::matrix::{Comparison, Problem, Shape};
use crate::harness::paths;
use crate::harness::program::{self, Define, Kernels};
use crate::harness::timing::Timing;
use crate::lesson::{Lesson, OclLesson};
use crate::prepared::Prepared;

/// Runs a kernel once guarded with the lesson's host code, judges it, then times it with the
/// course's one protocol (every timed call checked).
pub fn checked_time(
    gpu: &Gpu,
    ocl: &OclLesson,
    kernel: &Kernels,
    shape: Shape,
    launch: &Launch,
    defines: &[Define],
) -> Result<(Timing, Comparison)> {
    let p = Problem::random(shape, 7);
    let out = (ocl.host.run)(gpu, kernel, &p, launch, defines)?;
    let cmp = verify(&p, &out, None).map_err(|f| anyhow::anyhow!("wrong: {}", f.message))?;
    let t = crate::grade::ocl::time(gpu, ocl, kernel, shape, launch, defines, None)?;
    Ok((t, cmp))
}

/// Builds `file` as the lesson's kernel with `defines`, checks it at `shape` and times it.
/// `Ok(None)` when the lesson's launch refuses the size.
pub fn measure_file(
    gpu: &Gpu,
    lesson: &Lesson,
    file: &Path,
    defines: &[Define],
    shape: Shape,
) -> Result<Option<Timing>> {
    let ocl = lesson.ocl().context("not an OpenCL lesson")?;
    (ocl.check_defines)(defines).map_err(anyhow::Error::msg)?;
    let Ok(launch) = (ocl.launch)(shape, defines) else {
        return Ok(None);
    };
    let prepared = Prepared::read(gpu, ocl, file, defines, ocl.build_options)?;
    let (t, _) =
        checked_time(gpu, ocl, &prepared.kernel, shape, &launch, defines).with_context(|| {
            format!(
                "{} with {}",
                paths::display(file),
                program::options(defines, "")
            )
        })?;
    Ok(Some(t))
}
