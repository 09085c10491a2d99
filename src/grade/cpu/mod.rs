//! Grading a CPU lesson: the student's file is built as a crate of its own
//! ([`crate::harness::cpu_crate`]) and served by its driver in a child process, confined
//! where the machine allows; every call gets fresh inputs, and its C is checked and judged
//! here, in the grader, as its time and threads are measured here ([`honest`]).

use std::path::Path;
use std::time::Duration;

use crate::harness::child::Captured;
use crate::harness::cpu_crate::{self, Builder, Driver, RustBuildFailed};
use crate::harness::cpu_facts;
use crate::harness::cpu_session::{secret_seed, Called};
use crate::harness::cpu_watch::ThreadTimes;
use crate::harness::exec::RunOutput;
use crate::harness::matrix::{Comparison, Problem, Shape};
use crate::harness::paths::Course;
use crate::harness::sandbox;
use crate::harness::timing::{self, Target, Timing};
use crate::lesson::{CpuLesson, Lesson};

use super::{CaseReport, FailKind, Failure, Notes, Options, Part, Progress, Verdict};

mod checks;
mod confirm;
pub mod honest;
pub mod policy;
mod spin;

/// The sizes the CPU lessons are checked at: one element, sizes that fit no block, and one
/// larger than the blocks of lessons 02 and 03b; two more are drawn at grading time
/// ([`honest::drawn_shapes`]).
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
        // The course's answers, and the factor lesson 11's modelled unit scales its products
        // by, which code that runs here could read and tell in its output.
        hidden: vec![
            course.solutions(),
            course.root().join(crate::harness::unit_scale::KEPT),
        ],
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

/// A call that returned: its C, its time on the grader's clock, its threads when watched.
pub struct Returned {
    pub c: Vec<f32>,
    pub ms: f64,
    pub threads: Option<ThreadTimes>,
}

/// The failure for a call that did not return, or what one that did returned.
pub fn outcome(
    called: Called,
    function: &str,
    shape: Shape,
    starter: Option<&str>,
    limit_s: f64,
) -> Result<Returned, Failure> {
    match called {
        Called::Done { c, ms, threads } => Ok(Returned { c, ms, threads }),
        Called::Panicked { message, todo } => Err(if todo {
            Failure::new(
                FailKind::NotStarted,
                format!(
                    "`{function}` still says `todo!()`.\nHint: {}",
                    starter.unwrap_or("write the function's loops")
                ),
            )
        } else {
            Failure::new(FailKind::Crash, format!("{shape}: {message}"))
        }),
        Called::Crashed(status) => Err(Failure::new(
            FailKind::Crash,
            format!("{shape}: your program {status} while running `{function}`."),
        )),
        Called::Starved(why) => Err(Failure::new(
            FailKind::Setup,
            format!(
                "{shape}: `{function}` returned, but the grader could not judge the call: {why}."
            ),
        )),
        Called::TimedOut => Err(Failure::new(
            FailKind::Hang,
            format!(
                "{shape}: `{function}` did not finish within {limit_s:.0} s and was stopped. Look for a loop that never ends (a counter that is never incremented, a wrong bound)."
            ),
        )),
        Called::Garbled(what) => Err(Failure::new(
            FailKind::Crash,
            format!(
                "{shape}: while running `{function}`, the channel on which the grader's driver answers carried something else than its answers ({what}). Your code wrote to it: print with `println!` or `eprintln!` only, and leave the process's descriptors alone."
            ),
        )),
    }
}

/// A call's C checked, as every call's is: the verdict's failure if it is wrong. `secret`
/// chooses the points and the vector of the check: drawn apart from the inputs' seed, which
/// the student's process is told.
fn checked(
    p: &Problem,
    c: Vec<f32>,
    ms: f64,
    secret: u64,
    starter: Option<&str>,
) -> Result<Comparison, Failure> {
    let cmp = honest::check_call(p, &c, secret);
    let out = RunOutput::plain(c, ms);
    match super::judge(p.shape, &out, &cmp, starter) {
        Some(f) => Err(f),
        None => Ok(cmp),
    }
}

/// Starts a driver, or the failure to report.
fn start(built: &cpu_crate::Built, function: &str, threads: usize) -> Result<Driver, Failure> {
    Driver::start(built, function, threads)
        .map_err(|e| Failure::new(FailKind::Runtime, format!("{e:#}")))
}

/// What the student's code printed, with a crash's last words, for the verdict.
fn add_printed(verdict: &mut Verdict, c: &Captured) {
    if verdict.printed.is_empty() {
        verdict.printed = printed(c);
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
    if let Some(refused) = std::fs::read_to_string(file)
        .ok()
        .and_then(|t| super::self_contained::rust(&t))
    {
        let file = crate::harness::paths::display(file);
        verdict.failure = Some(Failure::new(
            FailKind::NotSelfContained,
            refused.message(&file),
        ));
        return verdict;
    }
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
    let secret = secret_seed();
    let shapes = opts.shapes.clone().unwrap_or_else(|| {
        let mut all = CPU_SHAPES.to_vec();
        all.extend(honest::drawn_shapes(secret));
        for s in super::shapes::around_asked(opts.asked(false), false, secret) {
            if !all.contains(&s) {
                all.push(s);
            }
        }
        all
    });
    let limit = opts.step_timeout;
    for &function in cpu.functions {
        // One driver serves every shape: code that works only on its first call fails on
        // the second.
        let mut driver = match start(&built, function, 0) {
            Ok(d) => d,
            Err(f) => {
                verdict.failure = Some(f);
                return verdict;
            }
        };
        for (case, &shape) in shapes.iter().enumerate() {
            progress(format!("running `{function}` at {shape}"));
            // Inputs no code can predict: the course's seed mixed with one drawn now.
            let seed = opts.problem_seed(case) ^ secret;
            let (p, called) = driver.call(shape, seed, limit, false);
            let result = outcome(called, function, shape, starter, limit.as_secs_f64())
                .and_then(|r| checked(&p, r.c, r.ms, secret_seed(), starter).map(|c| (c, r.ms)));
            match result {
                Ok((cmp, ms)) => verdict.cases.push(CaseReport {
                    shape,
                    with: format!("`{function}`"),
                    max_rel_err: cmp.max_rel_err,
                    ms,
                    checked: cmp.checked,
                }),
                Err(mut f) => {
                    if !f.message.starts_with('`') {
                        f.message = format!("`{function}`: {}", f.message);
                    }
                    let printed = driver.finish();
                    add_printed(&mut verdict, &printed);
                    if f.kind == FailKind::Crash && !printed.is_empty() {
                        f.message
                            .push_str(&format!("\nIts last words:\n{}", printed.shortened(5)));
                    }
                    verdict.failure = Some(f);
                    return verdict;
                }
            }
        }
        let printed = driver.finish();
        add_printed(&mut verdict, &printed);
    }
    progress("checking the technique".into());
    let mut notes = Notes::default();
    let checked = if opts.technique {
        checks::run(cpu, &built, opts, &mut notes)
    } else {
        Ok(())
    };
    verdict.absorb(notes);
    if let Err(f) = checked {
        verdict.failure = Some(f);
        return verdict;
    }
    if let Some(shape) = opts.timed_shape.or(opts.time) {
        let function = cpu.functions.last().expect("a CPU lesson has a function");
        let reference = match opts.beside {
            true => {
                progress(format!(
                    "building the reference to time beside `{function}`"
                ));
                let file = opts.course.solutions().join(lesson.file_name());
                builder(&opts.course)
                    .build(&file, cpu.functions)
                    .map_err(|e| verdict.not_beside(format!("{e:#}")))
                    .ok()
            }
            false => None,
        };
        progress(format!("timing `{function}` at {shape}"));
        let timed = match &reference {
            Some(r) => time_beside(&built, r, function, shape, limit).map(|(t, b)| {
                match b {
                    Ok(b) => verdict.beside = Some(b),
                    Err(why) => verdict.not_beside(why),
                }
                t
            }),
            None => time_at(&built, function, shape, 0, limit),
        };
        match timed {
            Ok(t) => {
                let (isa, bits) = cpu_crate::simd();
                verdict.notes.push(format!(
                    "timed as built for this CPU: {isa}, {bits}-bit vectors (-Ctarget-cpu=native)"
                ));
                if t.checked == 0 {
                    verdict.not_checked(
                        Part::Speed,
                        format!("not checked: the timed calls of `{function}` were not checked; the speed is shown, not proven"),
                    );
                }
                verdict.timing = Some((shape, t));
            }
            Err(f) => verdict.failure = Some(f),
        }
    }
    verdict
}

/// [`time_at`] with the reference's `function` (`reference`) timed beside it on the same
/// problems, interleaved call by call ([`timing::time_beside`]). A reference that fails is a
/// note and no comparison, never the student's failure: the student is then timed alone.
fn time_beside(
    built: &cpu_crate::Built,
    reference: &cpu_crate::Built,
    function: &str,
    shape: Shape,
    limit: Duration,
) -> Result<(Timing, Result<timing::Beside, String>), Failure> {
    let mut mine = start(built, function, 0)?;
    let mut theirs = match start(reference, function, 0) {
        Ok(d) => d,
        Err(f) => {
            drop(mine.finish());
            return time_at(built, function, shape, 0, limit).map(|t| (t, Err(f.message)));
        }
    };
    let call = |driver: &mut Driver, fresh: &timing::Fresh| {
        let called = driver.call_on(fresh.problem, fresh.seed, fresh.drawn_ms, limit, false);
        let r = outcome(called, function, shape, None, limit.as_secs_f64())?;
        Ok(RunOutput::plain(r.c, r.ms))
    };
    let timed = timing::time_beside(
        shape,
        &cpu_target(),
        |fresh| call(&mut mine, fresh),
        |fresh| call(&mut theirs, fresh),
        |p, out| {
            checked(p, out.c.clone(), out.kernel_ms, secret_seed(), None)
                .map(|_| ())
                .map_err(|f| f.message)
        },
    );
    drop(mine.finish());
    drop(theirs.finish());
    match timed {
        Ok((t, b)) => Ok((t, Ok(b))),
        Err(e) if e.downcast_ref::<timing::BesideFailed>().is_some() => {
            time_at(built, function, shape, 0, limit).map(|t| (t, Err(e.to_string())))
        }
        Err(e) => Err(timing_failure(e, function, shape)),
    }
}

/// What this CPU can be timed against: its ceiling and the course's budget.
fn cpu_target() -> Target<'static> {
    Target {
        device: "this CPU",
        ceiling: Some(cpu_facts::host().ceiling_gflops()),
        budget_ms: timing::BUDGET_MS,
        tie_floor: timing::CPU_TIE_FLOOR,
    }
}

/// A timing's error as the student's failure, naming the function and the shape.
fn timing_failure(e: anyhow::Error, function: &str, shape: Shape) -> Failure {
    let mut f = match e.downcast::<Failure>() {
        Ok(f) => f,
        Err(e) => super::ocl::classify(e),
    };
    if !f.message.starts_with('`') {
        f.message = format!("`{function}` at {shape}: {}", f.message);
    }
    f
}

/// Times a built function at `p`'s shape (its values are not used: every call gets fresh
/// inputs) with the course's one protocol ([`timing::time_fresh`]): a checked warm-up call,
/// then checked calls within the course's budget, each on fresh inputs into a C holding its
/// drawn poison ([`crate::harness::poison`]), timed on the grader's clock, with `threads` rayon threads (0: rayon's default). The
/// median decides; a call faster than this machine can compute fails the timing.
pub fn time(
    built: &cpu_crate::Built,
    function: &str,
    p: &Problem,
    threads: usize,
    limit: Duration,
) -> Result<Timing, Failure> {
    time_at(built, function, p.shape, threads, limit)
}

/// [`time`] at `shape`: also how the ladder times the CPU peers
/// (the bench's `peers::cpu_served`), so that they and the lessons are timed alike.
pub fn time_at(
    built: &cpu_crate::Built,
    function: &str,
    shape: Shape,
    threads: usize,
    limit: Duration,
) -> Result<Timing, Failure> {
    let mut driver = start(built, function, threads)?;
    let timed = timing::time_fresh(
        shape,
        &cpu_target(),
        |fresh| {
            let called = driver.call_on(fresh.problem, fresh.seed, fresh.drawn_ms, limit, false);
            let r = outcome(called, function, shape, None, limit.as_secs_f64())?;
            // The grader's clock around the call is both the call's time and its wall time.
            Ok(RunOutput::plain(r.c, r.ms))
        },
        |p, out| {
            checked(p, out.c.clone(), out.kernel_ms, secret_seed(), None)
                .map(|_| ())
                .map_err(|f| f.message)
        },
    );
    drop(driver.finish());
    timed.map_err(|e| timing_failure(e, function, shape))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_starved_of_a_core_is_not_graded_and_not_a_crash() {
        let shape = Shape::new(3, 5, 7);
        let starved = Called::Starved("they waited for a core".into());
        let f = outcome(starved, "matmul", shape, None, 20.0)
            .err()
            .expect("no C came back");
        assert_eq!(f.kind, FailKind::Setup, "{f:?}");
        assert!(f.message.contains("could not judge"), "{}", f.message);
        let crashed = Called::Crashed("something kept resuming them".into());
        let f = outcome(crashed, "matmul", shape, None, 20.0)
            .err()
            .expect("no C came back");
        assert_eq!(f.kind, FailKind::Crash);
    }
}
