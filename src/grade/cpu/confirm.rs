//! A technique an instrument saw, confirmed where the code runs as it is timed.
//!
//! An instrument cannot be hidden from the code it watches. Valgrind's build leaves out
//! AVX-512, its preload shows in the process's maps, it runs fifty times slower; the thread
//! check runs its own pool of threads at a shape of its own, and its spin check pins the
//! process to one core. Code can do the technique only while watched, and the instrument's
//! verdict alone would call it done. So the verdict is confirmed on ordinary calls: the
//! student's function, the course's function with the technique and the course's function
//! without it, each served by its own driver exactly as the timed calls are (the timed build,
//! rayon's own pool, no core pinned), called in turn on the same fresh problems, where the
//! technique makes a clear difference in speed. The student's code must run nearer the one
//! with the technique than the one without. Where the two references are too close on this
//! machine to tell (other work on its cores), the verdict says so. The threads' confirmation
//! also watches those calls from outside, as the thread check does its own: the student's
//! busiest thread must not have done most of the work there either, which does not depend on
//! how fast the machine is.

use crate::harness::cpu_crate::Driver;
use crate::harness::cpu_watch::TryTimes;
use crate::harness::matrix::Shape;
use crate::harness::rng::Rng;
use crate::lesson::Lesson;

use super::super::{FailKind, Failure, Notes, Options, Part};
use super::{builder, outcome, start};

/// How one instrument's verdict is confirmed. Calls of the student's code and of the
/// course's with the technique are made `rounds` times, the fastest of each deciding (a call
/// slowed by the machine's other work only makes a time longer, never shorter). The course's
/// code without the technique is called once where the line is drawn from it: a slow call of
/// it only moves the line toward it, and code without the technique stays beyond the line all
/// the same. Where the line may be drawn from the student's own serial code instead
/// (`own_alone`), the gap between the course's two codes scales that line down, and a slow call
/// of the one without the technique would widen the gap and draw the line too low (beside a
/// busy core, the course's own reference graded as a student once failed so): it is then
/// called every round too.
pub struct Judge {
    /// The instrument, as the verdict names it: "the cache simulator".
    pub seen_by: &'static str,
    /// The calls that are not the instrument's: "without the simulator".
    pub unwatched: &'static str,
    /// The course's function without the technique, in a few words: "on one thread".
    pub bad_is: &'static str,
    /// The part of the verdict left unchecked where the references are too close.
    pub part: Part,
    pub rounds: usize,
    /// The least ratio between the course's functions without and with the technique
    /// (`gap`) at which the student's time can be told from either.
    pub min_gap: f64,
    /// The line: the time without the technique divided by `min(gap, cap) ^ from_bad`.
    pub from_bad: f64,
    pub cap: f64,
    /// Code slower than the course's without the technique by more than this many times is
    /// slow for some other reason, and speed tells nothing of the technique (`None`: such
    /// code is judged as all other code).
    pub slower_tells_nothing: Option<f64>,
    /// The student's own code without the technique, where it can be run so (threads: in a
    /// pool of one, its process on one core), bounds it too where it is faster than the
    /// course's: serial code better
    /// than the course's one-thread i-k-j must not pass for code whose threads share the work.
    /// The references' times are then scaled by the student's serial code's lead.
    pub own_alone: Option<usize>,
}

/// The cache simulator's loop order, confirmed where a column walk costs tens of times more
/// than i-k-j: the line at half the column walk's time, whatever the gap. Honest code slower
/// than i-k-j is slow by a multiple of its adds' latency, not of i-k-j's time: B transposed
/// once and each element of C a dot product along rows (case `transposed_b`) reads the caches
/// as well as i-k-j but sums in one chain of dependent adds that cannot be vectorised, 10 to
/// 30 times slower than i-k-j from one machine to another, and 3.3 to 5 times faster than the
/// column walk on each (a missed load costs that many adds). A line drawn from i-k-j's time
/// (`gap^(3/4)` of it, where the column walk was 94 times slower on one CI machine) fell at
/// 3.1 times faster than the column walk, and the case failed there. Code that walks columns
/// where it is timed runs at the column walk's speed, twice this line.
pub const CACHES: Judge = Judge {
    seen_by: "the cache simulator",
    unwatched: "without the simulator",
    bad_is: "which walks down the columns of B",
    part: Part::Technique,
    rounds: 3,
    min_gap: 8.0,
    from_bad: 1.0,
    cap: 2.0,
    slower_tells_nothing: None,
    own_alone: None,
};

/// The thread check's sharing of the work, confirmed against the course's one-thread i-k-j
/// and its rows on rayon's pool: where those differ by half again or more (two cores with
/// nothing else to run), the student's code must be faster than the one-thread code by the
/// square root of that gap, and by √2 at most however many cores the machine has, so that
/// code on two threads of a large machine still passes. Work done twice, threads spinning
/// beside one that computes, threads only where the thread check runs: each runs at the
/// one-thread code's speed here.
pub const THREADS: Judge = Judge {
    seen_by: "the thread check",
    unwatched: "outside the thread check",
    bad_is: "on one thread",
    part: Part::Threads,
    rounds: 3,
    min_gap: 1.5,
    from_bad: 0.5,
    cap: 2.0,
    // Rows on threads in another loop order (i-j-k) are right and share their work, and run
    // slower than the one-thread i-k-j: not confirmed, rather than taken for code without
    // threads. The decoys above run at the one-thread i-k-j's speed (1.0 to 1.2 times it).
    slower_tells_nothing: Some(1.5),
    own_alone: Some(1),
};

impl Judge {
    /// The most the student's code may take, from the references' times.
    fn line(&self, good: f64, bad: f64) -> f64 {
        bad / (bad / good).min(self.cap).powf(self.from_bad)
    }
}

/// The shape of the thread check's confirmation: the size asked to be timed where it is one
/// of a few tens of milliseconds or more on one core (the calls the verdict is about), else
/// one drawn now with every side from 320 to 831 (no threshold of size or side a kernel could
/// keep its threads for: the timed sizes of a scoreboard lie on both sides of it).
pub fn for_threads(asked: Option<Shape>, secret: u64) -> (Shape, &'static str) {
    if let Some(s) = asked.filter(|s| (1 << 25..=1 << 30).contains(&(s.m * s.n * s.k))) {
        return (s, "the size asked for");
    }
    let mut rng = Rng::new(secret ^ 0x7EAD5);
    let mut side = || 320 + (rng.next_u64() % 512) as usize;
    (Shape::new(side(), side(), side()), "drawn at grading time")
}

/// The shape of the cache simulator's confirmation, drawn now from `around`: M and K grown by up to a half,
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
    /// The student's own code without the technique (`Judge::own_alone`), if measured.
    alone: f64,
}

/// How the student's calls in its own pool shared their CPU time among threads, summed over
/// those during which a core sat idle (`quiet`) and over all of them (`all`).
#[derive(Default)]
struct Shares {
    quiet: TryTimes,
    all: TryTimes,
}

impl Shares {
    /// Adds one call; to `quiet` too where the thread check's policy would call it quiet.
    fn add(&mut self, threads: &crate::harness::cpu_watch::ThreadTimes) {
        let mut call = TryTimes::default();
        call.add(threads);
        let report = crate::harness::cpu_watch::TryReport {
            idle: call.idle_cores(),
            ..Default::default()
        };
        self.all.add(threads);
        if super::policy::quiet(&report) {
            self.quiet.add(threads);
        }
    }
}

impl Times {
    /// The most the student's code may take. Where its own serial code is ahead of the
    /// course's, the references are scaled by that lead, so that the line lies where the
    /// student's code with the technique would be.
    fn line(&self, judge: &Judge) -> f64 {
        match self.alone < self.bad {
            true => judge.line(self.good * self.alone / self.bad, self.alone),
            false => judge.line(self.good, self.bad),
        }
    }

    /// What the verdict says of the student's own serial code, where it set the line.
    fn alone_said(&self, function: &str) -> String {
        match self.alone < self.bad {
            true => format!(
                " Your `{function}` in a pool of one thread took {:.1} ms, less than the course's code without the technique, so the line is drawn from it.",
                self.alone
            ),
            false => String::new(),
        }
    }
}

/// Times the three codes (four, with the student's alone) in turn on the same fresh problems,
/// the student's C checked at each.
fn time_three(
    (student, mut alone): (&mut Driver, Option<&mut Driver>),
    (good, bad): (&mut Driver, &mut Driver),
    function: &str,
    (shape, rounds): (Shape, usize),
    secret: u64,
    mut shares: Option<&mut Shares>,
    opts: &Options,
) -> Result<Result<Times, String>, Failure> {
    let watch = shares.is_some();
    let limit = opts.step_timeout;
    let mut t = Times {
        student: f64::INFINITY,
        good: f64::INFINITY,
        bad: f64::INFINITY,
        alone: f64::INFINITY,
    };
    let codes = if alone.is_some() { 4 } else { 3 };
    for round in 0..rounds {
        let seed = secret ^ (round as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // Each round in another order: a machine that grows busier slows all three alike.
        for turn in 0..codes {
            let which = (turn + round) % codes;
            // The course's code without the technique is slow, and where the line is drawn
            // from it a slow call only moves the line toward it: once. Where the student's
            // alone may draw the line, that code's time widens the gap that scales the line
            // down (`Times::line`): every round, as the student's.
            if which == 2 && round > 0 && alone.is_none() {
                continue;
            }
            match which {
                // The student's code, in its pool or alone: its C checked.
                0 | 3 => {
                    let (driver, slot) = match (which, alone.as_deref_mut()) {
                        (0, _) => (&mut *student, &mut t.student),
                        (_, Some(alone)) => (alone, &mut t.alone),
                        (_, None) => continue,
                    };
                    let (p, called) = driver.call(shape, seed, limit, watch);
                    let r = outcome(called, function, shape, None, limit.as_secs_f64())?;
                    if let (0, Some(threads), Some(shares)) =
                        (which, &r.threads, shares.as_deref_mut())
                    {
                        shares.add(threads);
                    }
                    super::checked(&p, r.c, r.ms, crate::harness::rng::secret_seed(), None)?;
                    *slot = slot.min(r.ms);
                }
                which => {
                    let (driver, slot) = match which {
                        1 => (&mut *good, &mut t.good),
                        _ => (&mut *bad, &mut t.bad),
                    };
                    let (_, called) = driver.call(shape, seed, limit, watch);
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

/// Confirms on ordinary calls at `shape` (`drawn` says how it was chosen) what `judge`'s
/// instrument saw of `function`'s `what`: `good` and `bad` are the course's functions with
/// and without it, served by `peers` (started here when it holds none, or others).
///
/// With `max_share`, every call is also watched from outside as the thread check's are
/// (each code's alike, so that the watching costs them all the same), and the student's calls
/// in its own pool must show the work shared there: the busiest thread at most that share of
/// their CPU time, over the calls during which a core sat idle beside them. Code whose
/// threads share the work only where the thread check or the pool of one look (their pool,
/// their shape, their pinned core) is so judged where it runs as timed.
#[allow(clippy::too_many_arguments)]
pub fn technique(
    built: &crate::harness::cpu_crate::Built,
    function: &str,
    judge: &Judge,
    (shape, drawn): (Shape, &str),
    (good, bad): (
        (&'static Lesson, &'static str),
        (&'static Lesson, &'static str),
    ),
    (what, hint): (&str, &str),
    max_share: Option<f64>,
    opts: &Options,
    peers: &mut Option<Peers>,
    notes: &mut Notes,
) -> Result<(), Failure> {
    let secret = crate::harness::rng::secret_seed();
    let seen_by = judge.seen_by;
    let unconfirmed = |notes: &mut Notes, why: String| {
        notes.not_checked(
            judge.part,
            format!("not confirmed where it runs as timed: the {what} in `{function}` ({seen_by} saw it): {why}"),
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
    // The student's code alone: in a pool of `threads` rayon threads, and its process pinned
    // to one core, so that code starting threads of its own (`std::thread::scope`) runs on
    // one core too. Where it cannot be pinned there is no such bound (a right file over
    // scoped threads, measured "alone" on every core, was once held to its own parallel time).
    let mut alone = match judge.own_alone {
        Some(threads) => match start(built, function, threads) {
            Ok(mut d) => {
                let pinned = d
                    .pid()
                    .and_then(crate::harness::cpu_spin::pin_to_one_core)
                    .is_some();
                match pinned {
                    true => Some(d),
                    false => {
                        drop(d.finish());
                        None
                    }
                }
            }
            Err(f) => {
                drop(mine.finish());
                return Err(f);
            }
        },
        None => None,
    };
    // A finding against the student is measured twice, on new problems: a burst of other
    // work on the machine during one measurement's calls of the student's code alone would
    // otherwise read as code without the technique. Code without it is as slow both times.
    let mut judged = Ok(None);
    let mut shares = Shares::default();
    for attempt in 0..2u64 {
        let timed = time_three(
            (&mut mine, alone.as_mut()),
            (&mut p.good, &mut p.bad),
            function,
            (shape, judge.rounds + attempt as usize),
            secret ^ attempt.wrapping_mul(0xA5A5_5A5A_0F0F),
            max_share.map(|_| &mut shares),
            opts,
        );
        let t = match timed {
            Ok(Ok(t)) => t,
            Ok(Err(why)) => {
                judged = Err(format!("a course function failed at {shape}: {why}"));
                break;
            }
            Err(f) => {
                drop(mine.finish());
                drop(alone.map(Driver::finish));
                return Err(f);
            }
        };
        let gap = t.bad / t.good;
        // A NaN (a reference that took no time) is too close to tell, too.
        if gap.is_nan() || gap < judge.min_gap {
            judged = Err(format!(
                "at {shape} ({drawn}) the course's `{}` took {:.1} ms and its `{}` {:.1} ms, too close on this machine to tell",
                good.1, t.good, bad.1, t.bad
            ));
            break;
        }
        let line = t.line(judge);
        let passed = t.student <= line;
        judged = Ok(Some((t, line)));
        if passed {
            break;
        }
    }
    drop(alone.map(Driver::finish));
    if let Some(most) = max_share {
        let watched = more_watched(&mut mine, function, shape, secret, &mut shares, opts)
            .and_then(|()| shared(function, (shape, drawn), &shares, (most, hint)));
        match watched {
            Ok(Said::Seen(said)) => notes.say(said),
            Ok(Said::Unjudged(said)) => notes.not_checked(Part::Threads, said),
            Err(f) => {
                drop(mine.finish());
                return Err(f);
            }
        }
    }
    drop(mine.finish());
    let (t, line) = match judged {
        Ok(Some(j)) => j,
        Ok(None) => return Ok(()),
        Err(why) => {
            if why.starts_with("a course function failed") {
                if let Some(p) = peers.take() {
                    p.finish();
                }
            }
            unconfirmed(notes, why);
            return Ok(());
        }
    };
    let unwatched = judge.unwatched;
    if let Some(x) = judge.slower_tells_nothing.filter(|x| t.student > x * t.bad) {
        unconfirmed(
            notes,
            format!(
                "at {shape} ({drawn}) it took {:.1} ms, more than {x} times the course's `{}` ({:.1} ms; its `{}` {:.1} ms): code that slow is slow for another reason, and its speed cannot tell whether its threads share the work where it runs as timed",
                t.student, bad.1, t.bad, good.1, t.good
            ),
        );
        return Ok(());
    }
    if t.student > line {
        return Err(Failure::new(
            FailKind::Technique,
            format!(
                "{seen_by} saw the {what} in your `{function}`, but run the way it is timed, {unwatched}, at {shape} ({drawn}), it took {:.1} ms: the course's `{}` took {:.1} ms and its `{}`, {}, {:.1} ms, and the line between them is {line:.1} ms (measured twice, on new problems each time).{} Your code runs as code without the {what} does {unwatched}: it must compute the same way whenever it is called.\nHint: {hint}",
                t.student, good.1, t.good, bad.1, judge.bad_is, t.bad, t.alone_said(function)
            ),
        ));
    }
    notes.say(format!(
        "technique confirmed where it runs as timed: `{function}` took {:.1} ms at {shape} ({drawn}), the course's `{}` {:.1} ms and its `{}` {:.1} ms{}",
        t.student,
        good.1,
        t.good,
        bad.1,
        t.bad,
        match t.alone.is_finite() {
            true => format!(", `{function}` in a pool of one thread {:.1} ms", t.alone),
            false => String::new(),
        }
    ));
    Ok(())
}

/// What the student's watched calls showed of how their work was shared.
enum Said {
    /// Shared: the note that says so.
    Seen(String),
    /// Not judged (no core sat idle beside the calls, or they were too brief): why.
    Unjudged(String),
}

/// How `function`'s calls in rayon's own pool at `shape` share their work, where no course
/// code can be timed beside it (lesson 03b: packing alone gains what threads do, so a speed
/// line cannot tell them apart): the same watched calls as `technique`'s, judged by `shared`.
pub fn shares_alone(
    built: &crate::harness::cpu_crate::Built,
    function: &str,
    (shape, drawn): (Shape, &str),
    (most, hint): (f64, &str),
    opts: &Options,
    notes: &mut Notes,
) -> Result<(), Failure> {
    let secret = crate::harness::rng::secret_seed();
    let mut mine = start(built, function, 0)?;
    let mut shares = Shares::default();
    let watched = more_watched(&mut mine, function, shape, secret, &mut shares, opts)
        .and_then(|()| shared(function, (shape, drawn), &shares, (most, hint)));
    drop(mine.finish());
    match watched? {
        Said::Seen(said) => notes.say(said),
        Said::Unjudged(said) => notes.not_checked(Part::Threads, said),
    }
    Ok(())
}

/// Whether the student's calls in its own pool shared their work (`t`): the failure where
/// the busiest thread did more than `most` of the CPU time of those during which a core sat
/// idle, else what to say of them. As in the thread check, a high share counts against the
/// code only where a core was free: on a busy machine the other threads may have had none.
fn shared(
    function: &str,
    (shape, drawn): (Shape, &str),
    t: &Shares,
    (most, hint): (f64, &str),
) -> Result<Said, Failure> {
    let min_ns = super::policy::POLICY.min_thread_ns;
    if t.all.total < min_ns {
        return Ok(Said::Unjudged(format!(
            "not checked where it runs as timed: how `{function}` shares its work; its calls at {shape} ({drawn}) took too little CPU time to tell ({:.0} ms)",
            t.all.total as f64 / 1e6
        )));
    }
    let seen = |share: f64| {
        Said::Seen(format!(
            "technique: `{function}` shares its work where it runs as timed: its busiest thread did {:.0} % of the CPU time of its calls at {shape} ({drawn}), in rayon's own pool",
            100.0 * share
        ))
    };
    if t.all.busiest_share() <= most {
        return Ok(seen(t.all.busiest_share()));
    }
    if t.quiet.total < min_ns {
        return Ok(Said::Unjudged(format!(
            "{}: how `{function}` shares its work where it runs as timed; its busiest thread did {:.0} % of the CPU time of its calls at {shape} ({drawn}), but no core sat idle beside them, so the others may not have had one",
            super::super::TOO_FEW_CORES,
            100.0 * t.all.busiest_share()
        )));
    }
    let share = t.quiet.busiest_share();
    if share <= most {
        return Ok(seen(share));
    }
    Err(Failure::new(
        FailKind::Technique,
        format!(
            "run the way it is timed, outside the thread check, in rayon's own pool at {shape} ({drawn}), `{function}` did {:.1} % of its work on one thread ({:.0} ms of {:.0} ms of CPU time, with a core to spare). The thread check may have seen the work shared, but code must compute the same way whenever it is called: every call's product split among threads.\nHint: {hint}",
            100.0 * share,
            t.quiet.busiest as f64 / 1e6,
            t.quiet.total as f64 / 1e6,
        ),
    ))
}

/// Calls the student's function in its own pool at `shape` again, watched, on fresh problems
/// (each C checked), until its calls so far add up to the CPU time the thread check's tries
/// gather: the timed calls of a small shape are too brief to tell how the work was shared.
/// They are the same calls as the timed ones, of the same driver.
fn more_watched(
    mine: &mut Driver,
    function: &str,
    shape: Shape,
    secret: u64,
    shares: &mut Shares,
    opts: &Options,
) -> Result<(), Failure> {
    let policy = &super::policy::POLICY;
    let limit = opts.step_timeout;
    let started = std::time::Instant::now();
    let mut seeds = Rng::new(secret ^ 0x05EE_D0F5_A4E5);
    for _ in 0..policy.try_calls {
        if shares.all.total >= policy.try_cpu_ns
            || started.elapsed().as_millis() >= policy.try_max_elapsed_ms
        {
            break;
        }
        let (p, called) = mine.call(shape, seeds.next_u64(), limit, true);
        let r = outcome(called, function, shape, None, limit.as_secs_f64())?;
        if let Some(threads) = &r.threads {
            shares.add(threads);
        }
        super::checked(&p, r.c, r.ms, crate::harness::rng::secret_seed(), None)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_shapes_keep_n_a_multiple_of_the_declared_one_and_vary() {
        let around = Shape::new(32, 1024, 1024);
        let mut seen = std::collections::BTreeSet::new();
        for secret in 0..64 {
            let s = drawn(around, secret);
            assert!(
                (32..=48).contains(&s.m) && (1024..=1536).contains(&s.k),
                "{s}"
            );
            assert!([1024, 2048].contains(&s.n), "{s}");
            seen.insert((s.m, s.n, s.k));
        }
        assert!(seen.len() > 32, "drawn shapes repeat: {}", seen.len());
    }
}
