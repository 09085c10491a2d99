//! Grading a CPU lesson: the student's file is built as a crate of its own
//! ([`crate::harness::cpu_crate`]) and run once per problem in a child process, confined
//! where the machine allows; its C is checked and judged here, in the grader.

use std::path::Path;

use crate::harness::child::Captured;
use crate::harness::cpu_crate::{self, Builder, CpuRun, RustBuildFailed, Spec};
use crate::harness::exec::{median, RunOutput, Timing};
use crate::harness::matrix::Comparison;
use crate::harness::matrix::{Problem, Shape};
use crate::harness::paths::Course;
use crate::harness::sandbox;
use crate::harness::timing::Clock;
use crate::lesson::{CpuLesson, Lesson};

use super::{verify, CaseReport, FailKind, Failure, Notes, Options, Part, Progress, Verdict};

mod checks;

/// The sizes the CPU lessons are checked at: one element, sizes that fit no block, and one
/// larger than the blocks of lessons 02 and 03b.
pub const CPU_SHAPES: [Shape; 5] = [
    Shape::new(1, 1, 1),
    Shape::new(7, 13, 5),
    Shape::new(64, 48, 80),
    Shape::new(131, 97, 150),
    Shape::new(67, 301, 259),
];

/// The builder of student crates for this course.
pub fn builder(course: &Course) -> Builder {
    Builder {
        cache: course.student_builds(),
        lockfile: course.lockfile(),
    }
}

/// What the student's code printed, for the verdict.
fn printed(c: &Captured) -> String {
    if c.is_empty() {
        String::new()
    } else {
        c.shortened(10)
    }
}

/// The failure for a run that did not return, or the output of one that did.
pub fn outcome(
    run: CpuRun,
    function: &str,
    shape: Shape,
    starter: Option<&str>,
    limit_s: f64,
) -> Result<cpu_crate::Finished, (Failure, String)> {
    match run {
        CpuRun::Finished(f) => Ok(f),
        CpuRun::Panicked { message, printed: p } => {
            let failure = if message.contains("not yet implemented") {
                Failure::new(
                    FailKind::NotStarted,
                    format!(
                        "`{function}` still says `todo!()`.\nHint: {}",
                        starter.unwrap_or("write the function's loops")
                    ),
                )
            } else {
                Failure::new(FailKind::Crash, format!("{shape}: {message}"))
            };
            Err((failure, printed(&p)))
        }
        CpuRun::Crashed {
            status,
            printed: p,
            stderr,
        } => Err((
            Failure::new(
                FailKind::Crash,
                format!(
                    "{shape}: your program {status} while running `{function}`.{}",
                    if stderr.is_empty() {
                        String::new()
                    } else {
                        format!("\nIts last words:\n{}", stderr.shortened(5))
                    }
                ),
            ),
            printed(&p),
        )),
        CpuRun::TimedOut { printed: p } => Err((
            Failure::new(
                FailKind::Hang,
                format!(
                    "{shape}: `{function}` did not finish within {limit_s:.0} s and was stopped. Look for a loop that never ends (a counter that is never incremented, a wrong bound)."
                ),
            ),
            printed(&p),
        )),
    }
}

pub(super) fn grade(
    lesson: &Lesson,
    cpu: &CpuLesson,
    file: &Path,
    opts: &Options,
    progress: Progress,
) -> Verdict {
    let mut verdict = Verdict::new(lesson, file);
    progress(format!("building {}", crate::harness::paths::display(file)));
    let built = match builder(&opts.course).build(file, cpu.functions) {
        Ok(b) => b,
        Err(e) => {
            let failure = match e.downcast_ref::<RustBuildFailed>() {
                Some(b) => Failure::new(FailKind::Build, b.to_string()),
                None => Failure::new(FailKind::Setup, format!("{e:#}")),
            };
            verdict.failure = Some(failure);
            return verdict;
        }
    };
    if let Some(n) = sandbox::detect().notice() {
        verdict.not_checked(Part::Sandbox, n);
    }
    let starter = std::fs::read_to_string(file)
        .ok()
        .filter(|t| super::is_starter(t))
        .map(|_| lesson.hint);
    let shapes = opts.shapes.clone().unwrap_or_else(|| CPU_SHAPES.to_vec());
    let limit = opts.step_timeout;
    for &function in cpu.functions {
        for (case, &shape) in shapes.iter().enumerate() {
            progress(format!("running `{function}` at {shape}"));
            let p = Problem::random(shape, opts.problem_seed(case));
            let run = match cpu_crate::run(&built, function, &p, Spec::time(0, 0), limit) {
                Ok(r) => r,
                Err(e) => {
                    verdict.failure = Some(Failure::new(FailKind::Runtime, format!("{e:#}")));
                    return verdict;
                }
            };
            let finished = match outcome(run, function, shape, starter, limit.as_secs_f64()) {
                Ok(f) => f,
                Err((failure, out)) => {
                    verdict.failure = Some(failure);
                    verdict.printed = out;
                    return verdict;
                }
            };
            if verdict.printed.is_empty() {
                verdict.printed = printed(&finished.printed);
            }
            let ms = finished.times_ms.first().copied().unwrap_or(0.0);
            let out = RunOutput::plain(finished.c, ms);
            match verify(&p, &out, starter) {
                Ok(cmp) => verdict.cases.push(CaseReport {
                    shape,
                    with: format!("`{function}`"),
                    max_rel_err: cmp.max_rel_err,
                    ms,
                }),
                Err(mut f) => {
                    f.message = format!("`{function}`: {}", f.message);
                    verdict.failure = Some(f);
                    return verdict;
                }
            }
        }
    }
    progress("checking the technique".into());
    let mut notes = Notes::default();
    let checked = checks::run(cpu, &built, opts, &mut notes);
    verdict.absorb(notes);
    if let Err(f) = checked {
        verdict.failure = Some(f);
        return verdict;
    }
    if let Some(shape) = opts.time {
        let function = cpu.functions.last().expect("a CPU lesson has a function");
        progress(format!("timing `{function}` at {shape}"));
        let p = Problem::random(shape, opts.problem_seed(999));
        match time(&built, function, &p, 0, limit) {
            Ok((t, _)) => {
                if t.checked == 0 {
                    verdict.not_checked(
                        Part::Speed,
                        format!("not checked: the timed calls of `{function}` repeat the first call's inputs and their results are not checked; the speed is shown, not proven"),
                    );
                }
                verdict.timing = Some((shape, t));
            }
            Err(f) => verdict.failure = Some(f),
        }
    }
    verdict
}

/// Times a built function: one checked call, then as many repetitions as fit two seconds
/// (at least two), with `threads` rayon threads (0: rayon's default).
pub fn time(
    built: &cpu_crate::Built,
    function: &str,
    p: &Problem,
    threads: usize,
    limit: std::time::Duration,
) -> Result<(Timing, Comparison), Failure> {
    // A first call tells how many repetitions fit.
    let first = cpu_crate::run(built, function, p, Spec::time(0, threads), limit)
        .map_err(|e| Failure::new(FailKind::Runtime, format!("{e:#}")))?;
    let first = outcome(first, function, p.shape, None, limit.as_secs_f64()).map_err(|e| e.0)?;
    let one = first.times_ms.first().copied().unwrap_or(1.0);
    let out = RunOutput::plain(first.c, one);
    let cmp = verify(p, &out, None)?;
    let reps = ((2000.0 / one.max(1e-3)) as usize).clamp(2, 10);
    let run = cpu_crate::run(built, function, p, Spec::time(reps, threads), limit)
        .map_err(|e| Failure::new(FailKind::Runtime, format!("{e:#}")))?;
    let f = outcome(run, function, p.shape, None, limit.as_secs_f64()).map_err(|e| e.0)?;
    // The first call of a process pays for page faults and thread start-up: not timed.
    let mut times: Vec<f64> = f.times_ms.iter().skip(1).copied().collect();
    let best = times.iter().copied().fold(f64::INFINITY, f64::min);
    let worst = times.iter().copied().fold(0.0, f64::max);
    let ms = median(&mut times);
    let timing = Timing {
        device_ms: ms,
        best_ms: best,
        worst_ms: worst,
        host_ms: ms,
        reps: times.len(),
        clock: Clock::Wall,
        checked: 0,
    };
    Ok((timing, cmp))
}
