//! A technique the cache simulator saw, confirmed where the code runs as it is timed.
//!
//! Valgrind cannot be hidden from the code it runs: its build leaves out AVX-512, its preload
//! shows in the process's maps, it runs fifty times slower. Code can walk memory well under it
//! and badly everywhere else, and the simulator's verdict alone would call it done. So the
//! verdict is confirmed on ordinary calls: the student's function, the course's function with
//! the technique and the course's function without it, each served by its own driver in the
//! timed build, called in turn on fresh problems of a shape drawn now, where the technique
//! makes a difference of many times on any machine. The student's code must run nearer the
//! one with the technique than the one without. Where the two references are too close on
//! this machine to tell, the verdict says so.

use crate::harness::cpu_crate::Driver;
use crate::harness::matrix::Shape;
use crate::harness::rng::Rng;
use crate::lesson::Lesson;

use super::super::{FailKind, Failure, Notes, Options, Part};
use super::{builder, outcome, start};

/// Calls of the student's code and of the course's with the technique; the fastest of each
/// decides (a call slowed by the machine's other work only makes a time longer, never
/// shorter). The course's code without the technique, tens of times slower, is called once:
/// a slow call of it only moves the line toward it, and code without the technique stays
/// beyond the line all the same.
const ROUNDS: usize = 2;

/// The least ratio between the course's functions without and with the technique at which
/// the student's time can be told from either: the line between them is two thirds of the
/// way from the one with the technique (by ratio), so that honest code in another style,
/// slower than the course's by a few times, stays on its side.
const MIN_GAP: f64 = 8.0;

/// The shape of the confirmation, drawn now from `around`: M and K grown by up to a half,
/// N once or twice its declared value. N stays a multiple of 1,024 floats when the declared
/// one is: rows of B 4 KiB apart fall on one set of the first-level cache and on few of the
/// others, so a walk down a column misses at every step, where at other strides the
/// prefetcher hides much of it (on a Xeon with AVX-512, i-j-k against i-k-j: 60× at N = 1024
/// or 2048 with K ≥ 768, 2–10× at N = 1100, 1152, 1536 or 1792).
pub fn drawn(around: Shape, secret: u64) -> Shape {
    let mut rng = Rng::new(secret ^ 0xC0_F1_53);
    let mut grow = |x: usize| x + (rng.next_u64() % (x / 2 + 1) as u64) as usize;
    let (m, k) = (grow(around.m), grow(around.k));
    let n = around.n * (1 + (rng.next_u64() % 2) as usize);
    Shape::new(m, n, k)
}

/// The course's function `(lesson, function)`, built from solutions/ and started.
fn reference(course_fn: (&'static Lesson, &'static str), opts: &Options) -> Result<Driver, String> {
    let (lesson, function) = course_fn;
    let cpu = lesson
        .cpu()
        .ok_or_else(|| format!("lesson {} has no CPU functions", lesson.key))?;
    let file = opts.course.solutions().join(lesson.file_name());
    let built = builder(&opts.course)
        .build(&file, cpu.functions)
        .map_err(|e| format!("the course's `{function}` could not be built: {e:#}"))?;
    start(&built, function, 0).map_err(|f| f.message)
}

/// What the student's function, and the course's with and without the technique, took.
struct Times {
    student: f64,
    good: f64,
    bad: f64,
}

/// Times the three codes in turn on the same fresh problems, the student's C checked at each.
fn time_three(
    student: &mut Driver,
    good: &mut Driver,
    bad: &mut Driver,
    function: &str,
    shape: Shape,
    secret: u64,
    opts: &Options,
) -> Result<Result<Times, String>, Failure> {
    let limit = opts.step_timeout;
    let mut t = Times {
        student: f64::INFINITY,
        good: f64::INFINITY,
        bad: f64::INFINITY,
    };
    for round in 0..ROUNDS {
        let seed = secret ^ (round as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // Each round in another order: a machine that grows busier slows all three alike.
        for turn in 0..3 {
            let which = (turn + round) % 3;
            if which == 2 && round > 0 {
                continue;
            }
            match which {
                0 => {
                    let (p, called) = student.call(shape, seed, limit, false);
                    let r = outcome(called, function, shape, None, limit.as_secs_f64())?;
                    super::checked(&p, r.c, r.ms, crate::harness::rng::secret_seed(), None)?;
                    t.student = t.student.min(r.ms);
                }
                which => {
                    let (driver, slot) = match which {
                        1 => (&mut *good, &mut t.good),
                        _ => (&mut *bad, &mut t.bad),
                    };
                    let (_, called) = driver.call(shape, seed, limit, false);
                    match outcome(called, function, shape, None, limit.as_secs_f64()) {
                        Ok(r) => *slot = slot.min(r.ms),
                        Err(f) => return Ok(Err(f.message)),
                    }
                }
            }
        }
    }
    Ok(Ok(t))
}

/// The course's two functions of a confirmation, started once for every function of the
/// lesson that is confirmed against them (a driver takes a process to start).
pub struct Peers {
    of: [&'static str; 4],
    good: Driver,
    bad: Driver,
}

impl Peers {
    pub fn finish(self) {
        drop(self.good.finish());
        drop(self.bad.finish());
    }
}

/// Confirms on ordinary calls what the cache simulator saw of `function`'s `what`: `good`
/// and `bad` are the course's functions with and without it, served by `peers` (started
/// here when it holds none, or others).
#[allow(clippy::too_many_arguments)]
pub fn technique(
    built: &crate::harness::cpu_crate::Built,
    function: &str,
    around: Shape,
    (good, bad): (
        (&'static Lesson, &'static str),
        (&'static Lesson, &'static str),
    ),
    what: &str,
    hint: &str,
    opts: &Options,
    peers: &mut Option<Peers>,
    notes: &mut Notes,
) -> Result<(), Failure> {
    let secret = crate::harness::rng::secret_seed();
    let shape = drawn(around, secret);
    let unconfirmed = |notes: &mut Notes, why: String| {
        notes.not_checked(
            Part::Technique,
            format!("not confirmed where it runs as timed: the {what} of `{function}` (the cache simulator saw it): {why}"),
        );
    };
    let of = [good.0.key, good.1, bad.0.key, bad.1];
    if peers.as_ref().is_some_and(|p| p.of != of) {
        if let Some(p) = peers.take() {
            p.finish();
        }
    }
    if peers.is_none() {
        match (reference(good, opts), reference(bad, opts)) {
            (Ok(g), Ok(b)) => {
                *peers = Some(Peers {
                    of,
                    good: g,
                    bad: b,
                })
            }
            (Err(why), _) | (_, Err(why)) => {
                unconfirmed(notes, why);
                return Ok(());
            }
        }
    }
    let Some(p) = peers.as_mut() else {
        return Ok(());
    };
    let mut mine = start(built, function, 0)?;
    let timed = time_three(
        &mut mine,
        &mut p.good,
        &mut p.bad,
        function,
        shape,
        secret,
        opts,
    );
    drop(mine.finish());
    let t = match timed? {
        Ok(t) => t,
        Err(why) => {
            if let Some(p) = peers.take() {
                p.finish();
            }
            unconfirmed(notes, format!("a course function failed at {shape}: {why}"));
            return Ok(());
        }
    };
    let gap = t.bad / t.good;
    // A NaN (a reference that took no time) is too close to tell, too.
    if gap.is_nan() || gap < MIN_GAP {
        unconfirmed(
            notes,
            format!(
                "at {shape} (drawn at grading time) the course's `{}` took {:.1} ms and its `{}` {:.1} ms, too close on this machine to tell",
                good.1, t.good, bad.1, t.bad
            ),
        );
        return Ok(());
    }
    let line = t.good * gap.powf(2.0 / 3.0);
    if t.student > line {
        return Err(Failure::new(
            FailKind::Technique,
            format!(
                "the cache simulator saw the {what} of your `{function}`, but run the way it is timed, without the simulator, at {shape} (drawn at grading time), it took {:.1} ms: the course's `{}` took {:.1} ms and its `{}`, which lacks the {what}, {:.1} ms, and the line between them is {line:.1} ms. Your code runs as code without the {what} does where it is not under valgrind: it must compute the same way whenever it is called.\nHint: {hint}",
                t.student, good.1, t.good, bad.1, t.bad
            ),
        ));
    }
    notes.say(format!(
        "technique confirmed where it runs as timed: `{function}` took {:.1} ms at {shape} (drawn at grading time), the course's `{}` {:.1} ms and its `{}` {:.1} ms",
        t.student, good.1, t.good, bad.1, t.bad
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_shapes_keep_n_a_multiple_of_the_declared_one_and_vary() {
        let around = Shape::new(8, 1024, 1024);
        let mut seen = std::collections::BTreeSet::new();
        for secret in 0..64 {
            let s = drawn(around, secret);
            assert!(
                (8..=12).contains(&s.m) && (1024..=1536).contains(&s.k),
                "{s}"
            );
            assert!([1024, 2048].contains(&s.n), "{s}");
            seen.insert((s.m, s.n, s.k));
        }
        assert!(seen.len() > 32, "drawn shapes repeat: {}", seen.len());
    }
}
