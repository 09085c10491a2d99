//! Grading an OpenCL lesson in this process: build, check the signature, run every case
//! guarded, judge it, then time it if asked.

use std::path::Path;

use anyhow::{Context as _, Result};

use crate::harness::device::Gpu;
use crate::harness::exec::Launch;
use crate::harness::matrix::{Problem, Shape};
use crate::harness::paths;
use crate::harness::program::{self, BuildFailed, Define, SignatureMismatch};
use crate::lesson::{round_up, Ctx, Lesson, OclLesson};

use super::{
    is_starter, judge::technique, verify, CaseReport, FailKind, Failure, Options, Progress, Verdict,
};

/// Sorts an error from the harness into a failure category.
pub fn classify(e: anyhow::Error) -> Failure {
    if let Some(b) = e.downcast_ref::<BuildFailed>() {
        return Failure::new(FailKind::Build, b.to_string());
    }
    if let Some(s) = e.downcast_ref::<SignatureMismatch>() {
        return Failure::new(FailKind::Signature, s.to_string());
    }
    Failure::new(FailKind::Runtime, format!("{e:#}"))
}

pub(super) fn grade(
    lesson: &Lesson,
    ocl: &OclLesson,
    file: &Path,
    opts: &Options,
    progress: Progress,
) -> Verdict {
    let mut verdict = Verdict::new(lesson, file);
    if let Err(e) = grade_into(&mut verdict, lesson, ocl, file, opts, progress) {
        verdict.failure = Some(classify(e));
    }
    verdict
}

fn grade_into(
    verdict: &mut Verdict,
    lesson: &Lesson,
    ocl: &OclLesson,
    file: &Path,
    opts: &Options,
    progress: Progress,
) -> Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", paths::display(file)))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) if !t.trim().is_empty() => t,
        Ok(_) => {
            verdict.failure = Some(Failure::new(
                FailKind::Build,
                format!(
                    "{} is empty: the lesson expects a kernel\n  {}",
                    paths::display(file),
                    program::signature(ocl.kernel, ocl.args)
                ),
            ));
            return Ok(());
        }
        Err(_) => {
            verdict.failure = Some(Failure::new(
                FailKind::Build,
                format!(
                    "{} is not a text file (it is not valid UTF-8): the lesson expects OpenCL C source",
                    paths::display(file)
                ),
            ));
            return Ok(());
        }
    };
    let starter = is_starter(&text).then_some(lesson.hint);
    let gpu = Gpu::open(opts.device.as_deref())?;
    verdict.device = Some(gpu.info.name.clone());
    if let Err(why) = ocl.supports(&gpu.info) {
        verdict.failure = Some(Failure::new(FailKind::Unsupported, format!("{why:#}")));
        return Ok(());
    }
    let ctx = Ctx {
        info: &gpu.info,
        course: &opts.course,
    };
    let defines = match ocl.defines_for(&ctx, &opts.defines) {
        Ok(d) => d,
        Err(why) => {
            verdict.failure = Some(Failure::new(FailKind::Setup, why));
            return Ok(());
        }
    };
    let shapes = match &opts.shapes {
        Some(s) => s.clone(),
        None => match (ocl.shapes)(&defines) {
            Ok(s) => s,
            Err(why) => {
                verdict.failure = Some(Failure::new(FailKind::Setup, why));
                return Ok(());
            }
        },
    };
    progress(format!("building {}", paths::display(file)));
    let program = program::build_source(&gpu, file, &text, &defines, ocl.build_options)?;
    let kernel = program::kernel(&program, file, ocl.kernel, ocl.args)?;
    // A missing technique often explains a wrong result: report it first, unless the file
    // is simply not started.
    let missing_technique = technique(lesson, &text);
    for (case, &shape) in shapes.iter().enumerate() {
        let launch: Launch = match (ocl.launch)(shape, &defines) {
            Ok(l) => l,
            Err(why) => {
                verdict.failure = Some(Failure::new(FailKind::Setup, why));
                return Ok(());
            }
        };
        progress(format!(
            "running {shape} (global {:?}, local {:?})",
            launch.global, launch.local
        ));
        let p = Problem::random(shape, opts.problem_seed(case));
        let out = (ocl.host.run)(&gpu, &kernel, &p, &launch, &defines)?;
        match verify(&p, &out, starter) {
            Ok(cmp) => verdict.cases.push(CaseReport {
                shape,
                max_rel_err: cmp.max_rel_err,
                ms: out.kernel_ms,
            }),
            Err(f) => {
                verdict.failure = match (f.kind, &missing_technique) {
                    (FailKind::NotStarted, _) | (_, None) => Some(f),
                    (_, Some(t)) => Some(Failure::new(
                        t.kind,
                        format!("{}\n(It also fails: {})", t.message, f.message),
                    )),
                };
                return Ok(());
            }
        }
    }
    if let Some(f) = missing_technique {
        verdict.failure = Some(f);
        return Ok(());
    }
    if let Some(asked) = opts.time {
        // Lessons limited to whole tiles are timed at the nearest size they accept.
        let (shape, launch) = timing_launch(ocl, asked, &defines)?;
        progress(format!("timing {shape}"));
        let p = Problem::random(shape, opts.problem_seed(999));
        let t = (ocl.host.time)(&gpu, &kernel, &p, &launch, &defines, 1000.0)?;
        verdict.timing = Some((shape, t));
    }
    Ok(())
}

/// The launch for timing at `asked`, or at the first larger size made of whole tiles.
pub fn timing_launch(ocl: &OclLesson, asked: Shape, defines: &[Define]) -> Result<(Shape, Launch)> {
    let mut why = String::new();
    for step in [1, 64, 128, 256, 512] {
        let s = Shape::new(
            round_up(asked.m, step),
            round_up(asked.n, step),
            round_up(asked.k, step),
        );
        match (ocl.launch)(s, defines) {
            Ok(l) => return Ok((s, l)),
            Err(e) if why.is_empty() => why = e,
            Err(_) => {}
        }
    }
    Err(anyhow::anyhow!(why))
}
