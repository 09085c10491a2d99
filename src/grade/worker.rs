//! Grading in a worker process: the course's own program, started again as
//! `lab worker REQUEST EVENTS`.
//!
//! The worker reports progress and its verdict as JSON lines in the EVENTS file, a private
//! file the code under test is never told about; whatever that code prints (an OpenCL
//! `printf`, a Rust `println!`) goes to the worker's stdout and stderr, which the parent only
//! captures and shows under "your code printed". Printing cannot forge a verdict, and no
//! amount of it can lose the real one.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::harness::child::{self, Captured, EventWriter};
use crate::lesson::Lesson;

use super::simulate;
use super::{grade_here, FailKind, Failure, Options, Source, Verdict};

pub use super::request::Request;

/// What a worker tells its parent.
#[derive(Serialize, Deserialize)]
pub enum Event {
    /// The step about to start (shown when it never finishes).
    Step(String),
    Done(Box<Verdict>),
}

/// Grades a lesson in a worker process, with a watchdog on every step. The worker returns
/// the verdict complete ([`finish`]: the device's checks and timing, the simulator's probes,
/// strictness), and it is not amended here. Only where the worker gave none (it died, or was
/// stopped) does this side look at the kernel under the simulator itself, so that a kernel
/// that crashes the driver still gets the simulator's line on where it went wrong.
pub fn grade(lesson: &Lesson, source: &Source, opts: &Options) -> Verdict {
    match in_worker(lesson, source, opts) {
        Ok(v) => v,
        Err(f) => finish(
            lesson,
            source,
            opts,
            Verdict::failed(lesson, &source.path(lesson), f),
        ),
    }
}

/// The one place a verdict is composed: what the device run found, then the simulator's
/// probes for an OpenCL kernel ([`simulate::review`]), then strictness.
fn finish(lesson: &Lesson, source: &Source, opts: &Options, mut v: Verdict) -> Verdict {
    if let (Some(ocl), true) = (lesson.ocl(), opts.simulate) {
        simulate::review(lesson, ocl, source, opts, &mut v);
    }
    super::strictly(v, opts)
}

/// Runs `work` while telling the parent, every second, that the worker is still at `step`:
/// the parent stops a worker that is silent for a step's time, and the simulator's probes
/// (each supervised by its own watchdog) can together last longer than one step.
fn beating<R>(out: &Mutex<EventWriter>, step: &str, work: impl FnOnce() -> R) -> R {
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut last = Instant::now();
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(50));
                if last.elapsed() >= Duration::from_secs(1) {
                    last = Instant::now();
                    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
                    // A lost heartbeat only risks the watchdog; the verdict is sent apart.
                    let _ = out.send(&Event::Step(step.to_string()));
                }
            }
        });
        let r = work();
        done.store(true, Ordering::Relaxed);
        r
    })
}

fn setup(e: impl std::fmt::Display) -> Failure {
    Failure::new(FailKind::Setup, e.to_string())
}

fn in_worker(lesson: &Lesson, source: &Source, opts: &Options) -> Result<Verdict, Failure> {
    let request = Request {
        lesson: lesson.name(),
        source: source.clone(),
        opts: opts.clone(),
        look: None,
        unit_scale: Some(crate::harness::unit_scale::factor()),
    };
    let mut step = String::from("starting");
    let mut verdict: Option<Verdict> = None;
    let started = Instant::now();
    // `LAB_TRACE`: each new step on stderr with the seconds since the worker started, to see
    // where a grading's time goes.
    let trace = std::env::var_os("LAB_TRACE").is_some();
    let ended = super::request::spawn(&request, &[], &[], child::KEEP, |ev| match ev {
        Event::Step(s) => {
            if trace && s != step {
                eprintln!("[{:7.2} s] {s}", started.elapsed().as_secs_f64());
            }
            step = s
        }
        Event::Done(v) => verdict = Some(*v),
    })
    .map_err(|e| setup(format!("{e:#}")))?;
    // A verdict counts only from a worker that finished by itself: one that was killed or
    // died may not have written the last line of its file.
    let finished = ended.status.is_some_and(|s| s.success());
    if let (Some(mut v), true) = (verdict, finished) {
        add_printed(&mut v, &ended.stdout);
        return Ok(v);
    }
    let mut failure = if ended.killed() {
        Failure::new(
            FailKind::Hang,
            format!(
                "the code did not finish: stopped after {:.0} s while {step}. Look for a loop that never ends or a barrier that only some work-items of a group reach.",
                opts.step_timeout.as_secs_f64()
            ),
        )
    } else {
        Failure::new(
            FailKind::Crash,
            format!(
                "the grading worker died while {step}, after {:.1} s: {}.{}",
                started.elapsed().as_secs_f64(),
                ended.status.map_or("no status".into(), describe),
                last_words(&ended.stderr)
            ),
        )
    };
    let printed = ended.stdout.shortened(10);
    if !ended.stdout.is_empty() {
        failure
            .message
            .push_str(&format!("\nYour code printed:\n{printed}"));
    }
    Err(failure)
}

fn add_printed(v: &mut Verdict, stdout: &Captured) {
    if stdout.is_empty() {
        return;
    }
    let text = stdout.shortened(10);
    if v.printed.is_empty() {
        v.printed = text;
    } else {
        v.printed = format!("{}\n{text}", v.printed);
    }
}

fn last_words(stderr: &Captured) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("\nIts last words:\n{}", stderr.shortened(8))
    }
}

/// How a process ended, in words: the signal's name where there was one.
pub fn describe(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(sig) = status.signal() {
            let name = match sig {
                libc::SIGSEGV => "SIGSEGV (an invalid memory access in the runtime or the kernel)",
                libc::SIGBUS => "SIGBUS (an invalid memory access)",
                libc::SIGABRT => "SIGABRT (the runtime aborted)",
                libc::SIGKILL => "SIGKILL (killed from outside, possibly for memory)",
                libc::SIGFPE => "SIGFPE (an arithmetic fault)",
                libc::SIGILL => "SIGILL (an illegal instruction)",
                _ => "a signal",
            };
            return format!("ended by signal {sig}, {name}");
        }
    }
    format!("exited with {status} without a verdict")
}

/// The worker's side: reads the request, grades, writes the events. `find` looks a lesson
/// up by name (the registry lives above this module).
pub fn serve(
    request: &Path,
    events: &Path,
    find: impl Fn(&str) -> Option<&'static Lesson>,
) -> Result<()> {
    let body = std::fs::read(request)
        .with_context(|| format!("reading the grading request {}", request.display()))?;
    let Request {
        lesson,
        source,
        opts,
        look,
        unit_scale,
    } = serde_json::from_slice(&body).context("reading the grading request")?;
    if let Some(f) = unit_scale {
        crate::harness::unit_scale::take(f)?;
    }
    let lesson = find(&lesson).with_context(|| format!("no lesson named {lesson}"))?;
    let mut out = EventWriter::create(events)?;
    if let Some(look) = look {
        return simulate::serve_probe(lesson, &source, &opts, look, &mut out);
    }
    // The device and the simulator grade with the same drawn shape.
    let opts = match lesson.ocl() {
        Some(ocl) => super::ocl::with_shape_drawn(ocl, &opts),
        None => opts,
    };
    let out = Mutex::new(out);
    let send = |ev: &Event| out.lock().unwrap_or_else(|e| e.into_inner()).send(ev);
    let mut failed_to_send = None;
    let verdict = grade_here(lesson, &source, &opts, &mut |s| {
        if let Err(e) = send(&Event::Step(s)) {
            failed_to_send.get_or_insert(e);
        }
    });
    if let Some(e) = failed_to_send {
        return Err(e);
    }
    let verdict = beating(&out, "looking at the kernel under the simulator", || {
        finish(lesson, &source, &opts, verdict)
    });
    send(&Event::Done(Box::new(verdict)))
}
