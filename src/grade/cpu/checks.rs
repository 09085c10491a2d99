//! The CPU lessons' technique, judged by what the code does: how it walks memory (cache
//! misses per multiply-add under valgrind's simulated caches, against two of the course's
//! own functions measured the same way), and whether the work is shared among threads (the
//! busiest thread's share of the call's CPU time). What cannot be checked here becomes a
//! note in the verdict, never a pass by accident.

use std::collections::BTreeMap;
use std::path::Path;

use crate::harness::callgrind::{self, Judgement};
use crate::harness::cpu_crate::{self, Built, Caches, Driver, Simulated};
use crate::harness::cpu_session::{secret_seed, Called};
use crate::harness::cpu_watch::{self as watch, ThreadTimes, TryReport, TryTimes};
use crate::harness::matrix::{Problem, Shape};
use crate::lesson::{CpuCheck, CpuLesson, Lesson, Level};

use super::super::{FailKind, Failure, Notes, Options, Part, TOO_FEW_CORES};
use super::policy::{self, POLICY};
use super::{builder, honest, outcome};

static THREAD_CHECK: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs every check of the lesson on the built file. `Err` is a failure the student reads;
/// notes say what was measured or why something was not checked.
pub fn run(
    cpu: &CpuLesson,
    built: &Built,
    opts: &Options,
    notes: &mut Notes,
) -> Result<(), Failure> {
    let mut peers = None;
    let checked = run_checks(cpu, built, opts, &mut peers, notes);
    if let Some(p) = peers {
        p.finish();
    }
    checked?;
    if !cpu.not_checked.is_empty() {
        notes.say(format!("not checked: {}", cpu.not_checked));
    }
    Ok(())
}

/// What to do when threads seen sharing the work are not seen making it faster.
const THREADS_HINT: &str = "hand rows of C to rayon (`c.par_chunks_mut(n)`) and compute each row once, on the thread it was handed to, whatever the pool, the size or the cores the process sees; no thread should wait by spinning while another computes.";

/// [`run`]'s checks in their order, the first failure ending them.
fn run_checks(
    cpu: &CpuLesson,
    built: &Built,
    opts: &Options,
    peers: &mut Option<super::confirm::Peers>,
    notes: &mut Notes,
) -> Result<(), Failure> {
    for (function, check) in cpu.checks {
        match check {
            CpuCheck::Threads {
                shape,
                pool,
                tries,
                max_share,
                confirm,
            } => {
                let unjudged = notes.unchecked.len();
                threads(
                    built, function, *shape, *pool, *tries, *max_share, opts, notes,
                )?;
                // Confirmed where the thread check judged: where it could not (no core to
                // spare), the verdict already says the threads are unchecked, and a busy
                // machine would leave the confirmation little to go on.
                let judged = notes.unchecked.len() == unjudged;
                let secret = crate::harness::rng::secret_seed();
                let at = super::confirm::for_threads(opts.timed_shape.or(opts.time), secret);
                match (judged, confirm) {
                    (true, Some(refs)) => super::confirm::technique(
                        built,
                        function,
                        &super::confirm::THREADS,
                        at,
                        *refs,
                        ("work shared among threads", THREADS_HINT),
                        Some(*max_share),
                        opts,
                        peers,
                        notes,
                    )?,
                    // No reference to time beside it: the shares of its calls in rayon's own
                    // pool are judged all the same, without the speed line.
                    (true, None) => super::confirm::shares_alone(
                        built,
                        function,
                        at,
                        (*max_share, THREADS_HINT),
                        opts,
                        notes,
                    )?,
                    (false, _) => {}
                }
            }
            CpuCheck::Caches {
                level,
                shape,
                caches,
                good,
                bad,
                what,
                hint,
                confirm,
            } => {
                let refs = References {
                    good: *good,
                    bad: *bad,
                };
                let seen = caches_check(
                    built, function, *level, *shape, *caches, refs, what, hint, opts, notes,
                )?;
                if let (true, Some(around)) = (seen, confirm) {
                    let secret = crate::harness::rng::secret_seed();
                    super::confirm::technique(
                        built,
                        function,
                        &super::confirm::CACHES,
                        (
                            super::confirm::drawn(*around, secret),
                            "drawn at grading time",
                        ),
                        (*good, *bad),
                        (what, hint),
                        None,
                        opts,
                        peers,
                        notes,
                    )?
                }
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn threads(
    built: &Built,
    function: &str,
    shape: Shape,
    pool: usize,
    tries: usize,
    max_share: f64,
    opts: &Options,
    notes: &mut Notes,
) -> Result<(), Failure> {
    if !watch::thread_times_available() {
        notes.not_checked(Part::Threads, format!(
            "not checked: that `{function}` shares its work among threads. Measuring each thread's CPU time needs Linux's /proc/<pid>/task/<tid>/schedstat; your result is checked, the use of threads is not"
        ));
        return Ok(());
    }
    // One thread check at a time in this process: graders running side by side (the course's
    // tests grade several cases at once) would otherwise take each other's cores.
    let tries = {
        let _alone = THREAD_CHECK.lock().unwrap_or_else(|e| e.into_inner());
        thread_tries(built, function, shape, pool, tries, opts)?
    };
    // The best try decides: a kernel in which one thread does the product has that thread do
    // all of it in every try, so more tries can only rescue a parallel kernel that was
    // scheduled unluckily once, never pass a sequential one.
    let judged: Vec<TryReport> = tries
        .iter()
        .copied()
        .filter(|t| t.total >= POLICY.min_thread_ns)
        .collect();
    let Some(best) = judged.iter().min_by(|a, b| a.share.total_cmp(&b.share)) else {
        notes.not_checked(
            Part::Threads,
            format!(
            "not checked: `{function}` ran too briefly at {shape} to tell how its work was shared"
        ),
        );
        return Ok(());
    };
    // A high share is the code's only where the machine had a core to spare: on a busy one,
    // rayon's other workers may simply not have been scheduled.
    let quiet_best = judged
        .iter()
        .filter(|t| policy::quiet(t))
        .min_by(|a, b| a.share.total_cmp(&b.share));
    if best.share > max_share {
        let Some(best) = quiet_best else {
            notes.not_checked(
                Part::Threads,
                format!(
                    "{TOO_FEW_CORES}: that `{function}` shares its work among threads. Its busiest thread did {:.0} % of the CPU time at {shape}, but the machine had no core to spare while it ran (at most {:.1} cores sat idle during the calls of a try), so the other threads may not have had a core to run on",
                    100.0 * best.share,
                    judged.iter().map(|t| t.idle).fold(0.0, f64::max)
                ),
            );
            return Ok(());
        };
        return Err(Failure::new(
            FailKind::Technique,
            format!(
                "`{function}` did {:.1} % of its work on one thread ({:.0} ms of {:.0} ms of CPU time at {shape}, with a core to spare; rayon's pool had {pool} threads). The product must be split among threads: `c.par_chunks_mut(n)` over the rows of C hands rows to rayon's workers. (A parallel zero-fill, or `rayon::join` with all the work on one side, leaves the product on one thread.)",
                100.0 * best.share,
                best.share * best.total as f64 / 1e6,
                best.total as f64 / 1e6,
            ),
        ));
    }
    notes.say(format!(
        "technique: `{function}` shares its work: its busiest thread did {:.0} % of the CPU time at {shape} (rayon's pool had {pool} threads)",
        100.0 * best.share
    ));
    super::spin::check(built, function, shape, pool, opts, notes)?;
    together(function, shape, &judged, notes)
}

/// The tries of the thread check, each measured from outside the driver: [`TryReport`]s of
/// calls repeated until a try has `POLICY.try_cpu_ns` of CPU time, with how long the
/// machine's cores sat idle during the calls; more tries (up to `POLICY.max_tries`)
/// while they do not settle whether the threads ran together. Every call's C is checked.
fn thread_tries(
    built: &Built,
    function: &str,
    shape: Shape,
    pool: usize,
    tries: usize,
    opts: &Options,
) -> Result<Vec<TryReport>, Failure> {
    let limit = opts.step_timeout;
    let mut driver = Driver::start(built, function, pool)
        .map_err(|e| Failure::new(FailKind::Runtime, format!("{e:#}")))?;
    let secret = secret_seed();
    let mut seeds = crate::harness::matrix::Rng::new(secret);
    let mut call = |driver: &mut Driver| -> Result<ThreadTimes, Failure> {
        let seed = seeds.next_u64();
        let (p, called) = driver.call(shape, seed, limit, true);
        let r = outcome(called, function, shape, None, limit.as_secs_f64())?;
        let cmp = honest::check_call(&p, &r.c, secret_seed());
        if !cmp.passed() {
            return Err(Failure::new(
                FailKind::Wrong,
                format!("`{function}` passed the graded problems, but gave a wrong C at {shape} while its threads were measured: code must compute the same way on every call."),
            ));
        }
        Ok(r.threads.unwrap_or_default())
    };
    // The first call pays for page faults and the pool's start: not measured.
    call(&mut driver)?;
    let started = std::time::Instant::now();
    let mut reports = Vec::new();
    for n in 0..POLICY.max_tries.max(tries) {
        if n >= tries.max(1)
            && (policy::settled(&reports) || started.elapsed().as_millis() >= POLICY.max_ms)
        {
            break;
        }
        let try_start = std::time::Instant::now();
        let mut t = TryTimes::default();
        // A fast or busy machine gives one call too little CPU time to tell how the work was
        // shared: call again until the try has gathered enough.
        for _ in 0..POLICY.try_calls {
            t.add(&call(&mut driver)?);
            if t.total >= POLICY.try_cpu_ns
                || u128::from(t.wall) >= POLICY.try_max_ms * 1_000_000
                || try_start.elapsed().as_millis() >= POLICY.try_max_elapsed_ms
            {
                break;
            }
        }
        reports.push(TryReport {
            share: t.busiest_share(),
            total: t.total,
            wall: t.wall,
            idle: t.idle_cores(),
        });
    }
    drop(driver.finish());
    Ok(reports)
}

/// Threads that share the work must also run at the same time. Each try reports how many
/// cores its calls kept busy (CPU time over wall time) and how many sat idle while they ran.
/// One try in which the threads kept well over one core busy shows that they overlap. A
/// kernel is rejected only when none did and at least two tries were quiet (cores idle while
/// the calls ran, which threads ready to run would have taken); on a machine too busy for
/// that the check says so and judges nothing.
fn together(
    function: &str,
    shape: Shape,
    tries: &[TryReport],
    notes: &mut Notes,
) -> Result<(), Failure> {
    let Some(most) = tries
        .iter()
        .max_by(|a, b| a.cores_used().total_cmp(&b.cores_used()))
    else {
        return Ok(());
    };
    if policy::together(most) {
        notes.say(format!(
            "technique: `{function}`'s threads ran at the same time: {:.1} cores busy on average at {shape}",
            most.cores_used()
        ));
        return Ok(());
    }
    let quiet: Vec<&TryReport> = tries.iter().filter(|t| policy::quiet(t)).collect();
    if quiet.len() < POLICY.together_quiet_tries {
        notes.not_checked(Part::Threads, format!(
            "{TOO_FEW_CORES}: that `{function}`'s threads ran at the same time. They kept {:.1} cores busy, and the machine had no core to spare: at most {:.1} cores sat idle during the calls of a try (other work was running, or the machine has one core)",
            most.cores_used(),
            tries.iter().map(|t| t.idle).fold(0.0, f64::max)
        ));
        return Ok(());
    }
    let (total, wall) = quiet
        .iter()
        .fold((0, 0), |(t, w), q| (t + q.total, w + q.wall));
    let idle = quiet.iter().map(|q| q.idle).fold(f64::INFINITY, f64::min);
    Err(Failure::new(
        FailKind::Technique,
        format!(
            "`{function}`'s threads took turns: they shared the work, but together they kept {:.2} cores busy at {shape} ({:.0} ms of CPU time in {:.0} ms), while {idle:.1} cores or more sat idle beside them during each of those tries. Something makes each thread wait for the others: a lock held while computing (a `Mutex` around the work), or joining each thread before starting the next. Let every thread write its own rows of C, with nothing shared to wait for.",
            total as f64 / wall.max(1) as f64,
            total as f64 / 1e6,
            wall as f64 / 1e6,
        ),
    ))
}

/// The two references of a cache check.
struct References {
    good: (&'static Lesson, &'static str),
    bad: (&'static Lesson, &'static str),
}

#[allow(clippy::too_many_arguments)]
fn caches_check(
    built: &Built,
    function: &str,
    level: Level,
    shape: Shape,
    caches: Caches,
    refs: References,
    what: &str,
    hint: &str,
    opts: &Options,
    notes: &mut Notes,
) -> Result<bool, Failure> {
    let version = match cpu_crate::valgrind() {
        Ok(v) => v,
        Err(why) => {
            notes.not_checked(Part::Technique, format!(
                "not checked: the {what} of `{function}` (it is measured with valgrind's simulated caches, and {why}); your result is checked, the technique is not"
            ));
            return Ok(false);
        }
    };
    if let Some(f) = client_requests(built, function, what, refs.good.0, opts) {
        return Err(f);
    }
    // The student's code is measured at a shape drawn now, near the references' one: per
    // multiply-add, the counts of the two hardly differ, and no code can tell it is looked at.
    let secret = secret_seed();
    let drawn = honest::near(shape, secret);
    let per = |c: &callgrind::Counts, s: Shape| {
        let f = callgrind::per_fma(c, s.m, s.n, s.k);
        match level {
            Level::L1 => f.d1_miss,
            Level::Last => f.ll_miss,
        }
    };
    let counted =
        cpu_crate::run_callgrind(built, function, drawn, secret, caches, 1, opts.step_timeout)
            .map_err(|e| Failure::new(FailKind::Runtime, format!("{e:#}")))?;
    let student = match counted {
        Simulated::Counted(c, p, out) => {
            if !honest::check_call(&p, &out, secret_seed()).passed() {
                return Err(Failure::new(
                    FailKind::Wrong,
                    format!("`{function}` passed the graded problems, but gave a wrong C under the cache simulator: code must compute the same way whenever it is called."),
                ));
            }
            if let Some(f) = too_little_work(&c, drawn, function) {
                return Err(f);
            }
            per(&c, drawn)
        }
        Simulated::NotMeasured(why) => {
            notes.not_checked(
                Part::Technique,
                format!("not checked: the {what} of `{function}`: {why}"),
            );
            return Ok(false);
        }
        Simulated::Failed(called, _) => return Err(failed(called, function, drawn, opts)),
    };
    let p = Problem::random(shape, opts.seed);
    let reference = |(lesson, f): (&'static Lesson, &'static str)| -> Result<f64, String> {
        reference_misses(lesson, f, &p, caches, &version, opts).map(|c| per(&c, shape))
    };
    let (good, bad) = match (reference(refs.good), reference(refs.bad)) {
        (Ok(g), Ok(b)) => (g, b),
        (Err(why), _) | (_, Err(why)) => {
            notes.not_checked(
                Part::Technique,
                format!("not checked: the {what} of `{function}`: {why}"),
            );
            return Ok(false);
        }
    };
    let level_name = match level {
        Level::L1 => "the first-level cache",
        Level::Last => "the last-level cache",
    };
    match callgrind::judge(student, good, bad, callgrind::MIN_GAP) {
        Judgement::Uses { value, .. } => {
            notes.say(format!(
                "technique: the {what} of `{function}`: {value:.4} misses of {level_name} per multiply-add (simulated {}, on a problem drawn at grading time); the course's {} gets {good:.4}, its {} {bad:.4}",
                caches.describe(),
                refs.good.1,
                refs.bad.1
            ));
            Ok(true)
        }
        Judgement::DoesNot { value, threshold } => Err(Failure::new(
            FailKind::Technique,
            format!(
                "lesson {} is about {what}, but your `{function}` misses {level_name} {value:.4} times per multiply-add (simulated {}, on a problem of a size drawn at grading time, different at every grading); the course's {} misses {good:.4} times, its {} {bad:.4}, and the line between them is {threshold:.4}.\nHint: {hint}",
                refs.good.0.key,
                caches.describe(),
                refs.good.1,
                refs.bad.1
            ),
        )),
        Judgement::CannotTell { good, bad } => {
            notes.not_checked(Part::Technique, format!(
                "not checked: the {what} of `{function}`: on this build the course's own references are too close to tell apart ({good:.4} and {bad:.4} misses per multiply-add)"
            ));
            Ok(false)
        }
    }
}

fn failed(called: Called, function: &str, shape: Shape, opts: &Options) -> Failure {
    match outcome(
        called,
        function,
        shape,
        None,
        opts.step_timeout.as_secs_f64(),
    ) {
        Err(f) => f,
        Ok(_) => Failure::new(
            FailKind::Crash,
            format!("`{function}` failed under valgrind"),
        ),
    }
}

/// The least a product of M·N·K multiply-adds makes the simulator count, whatever the code:
/// one instruction per 16 of them (the widest vector of multiply-adds, 512 bits of f32), one
/// data read per 64 (a register-blocked micro-kernel loads a few vectors per hundred or so).
/// Fewer means the simulator was not counting while the product ran.
fn too_little_work(c: &callgrind::Counts, s: Shape, function: &str) -> Option<Failure> {
    let macs = (s.m * s.n * s.k) as f64;
    let (ir, dr) = (c.get("Ir") as f64, c.get("Dr") as f64);
    (ir < macs / 16.0 || dr < macs / 64.0).then(|| {
        Failure::new(
            FailKind::Technique,
            format!(
                "the cache simulator saw less work than a product needs: while `{function}` ran, it counted {:.3} instructions and {:.4} data reads per multiply-add, and no code does a multiply-add with fewer than 1/16 of an instruction and 1/64 of a read. The simulator's counting was switched off while your code ran (a valgrind client request such as CALLGRIND_STOP_INSTRUMENTATION or a toggle of collection): the grader counts the whole call, and your code must leave that alone.",
                ir / macs,
                dr / macs
            ),
        )
    })
}

/// Valgrind's client requests begin with this instruction sequence on x86-64 (`rol rdi` by 3,
/// 13, 61 and 51 bits: no change, a marker valgrind recognises).
const CLIENT_REQUEST_X86_64: [u8; 16] = [
    0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d, 0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33,
];

fn client_request_count(binary: &Path) -> Option<usize> {
    let bytes = std::fs::read(binary).ok()?;
    Some(
        bytes
            .windows(CLIENT_REQUEST_X86_64.len())
            .filter(|w| *w == CLIENT_REQUEST_X86_64)
            .count(),
    )
}

/// A student's crate with more valgrind client requests in it than the course's own driver
/// has (its reference, built from the solution, holds only the driver's): code that talks to
/// the cache simulator, to switch its counting off or on.
fn client_requests(
    built: &Built,
    function: &str,
    what: &str,
    reference: &Lesson,
    opts: &Options,
) -> Option<Failure> {
    if !cfg!(target_arch = "x86_64") {
        return None;
    }
    // The build valgrind runs is the one that must not talk to it.
    let theirs = client_request_count(&built.for_simulator().ok()?.binary)?;
    let lesson = reference;
    let cpu = lesson.cpu()?;
    let file = opts.course.solutions().join(lesson.file_name());
    let reference = builder(&opts.course)
        .build(&file, cpu.functions)
        .ok()?
        .for_simulator()
        .ok()?;
    let ours = client_request_count(&reference.binary)?;
    (theirs > ours).then(|| {
        Failure::new(
            FailKind::Technique,
            format!(
                "your crate sends requests to valgrind of its own ({} beyond the {ours} of the grader's driver): the {what} of `{function}` is measured with valgrind's cache simulator, and code that switches its counting off or on (CALLGRIND_STOP_INSTRUMENTATION, CALLGRIND_TOGGLE_COLLECT and the like) cannot be graded. Remove them.",
                theirs - ours
            ),
        )
    })
}

/// A reference function's counts: measured once per build of it, valgrind version, shape
/// and caches, and kept beside the student crates (valgrind's counts are repeatable, and the
/// slow reference takes seconds under it).
fn reference_misses(
    lesson: &Lesson,
    function: &str,
    p: &Problem,
    caches: Caches,
    version: &str,
    opts: &Options,
) -> Result<callgrind::Counts, String> {
    let cpu = lesson.cpu().ok_or("a reference is not a CPU lesson")?;
    let file = opts.course.solutions().join(lesson.file_name());
    let built = builder(&opts.course)
        .build(&file, cpu.functions)
        .map_err(|e| format!("the reference {} did not build: {e:#}", lesson.file_name()))?;
    let stamp = std::fs::metadata(&built.binary)
        .and_then(|m| m.modified())
        .map(|t| format!("{t:?}"))
        .unwrap_or_default();
    let key = format!(
        "{}|{stamp}|{function}|{}|{caches:?}|{version}|{}",
        built.binary.display(),
        p.shape,
        opts.seed
    );
    let store = opts
        .course
        .student_builds()
        .join("callgrind-references.json");
    let mut cache = load(&store);
    if let Some(c) = cache.get(&key) {
        return Ok(callgrind::Counts {
            events: c.0.clone(),
            values: c.1.clone(),
        });
    }
    let counted = cpu_crate::run_callgrind(
        &built,
        function,
        p.shape,
        opts.seed,
        caches,
        1,
        opts.step_timeout * 4,
    );
    match counted {
        Ok(Simulated::Counted(c, ..)) => {
            cache.insert(key, (c.events.clone(), c.values.clone()));
            save(&store, &cache);
            Ok(c)
        }
        Ok(Simulated::NotMeasured(why)) => Err(why),
        Ok(Simulated::Failed(..)) => Err(format!("the reference {function} failed under valgrind")),
        Err(e) => Err(format!("{e:#}")),
    }
}

type Store = BTreeMap<String, (Vec<String>, Vec<u64>)>;

fn load(path: &Path) -> Store {
    std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn save(path: &Path, store: &Store) {
    if let Ok(bytes) = serde_json::to_vec(store) {
        let part = path.with_extension(format!("part{}", std::process::id()));
        if std::fs::write(&part, bytes).is_ok() {
            let _ = std::fs::rename(&part, path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE: Shape = Shape::new(64, 64, 64);

    /// A try that kept `used` cores busy for 100 ms, with `idle` cores idle while it ran.
    fn try_of(used: f64, idle: f64) -> TryReport {
        TryReport {
            share: 0.2,
            total: (used * 100e6) as u64,
            wall: 100_000_000,
            idle,
        }
    }

    #[test]
    fn one_try_with_threads_together_passes_however_busy_the_others() {
        let tries = [try_of(1.0, 0.9), try_of(1.0, 0.9), try_of(1.6, 0.0)];
        let mut notes = Notes::default();
        assert!(together("f", SHAPE, &tries, &mut notes).is_ok());
        assert!(
            notes.said[0].contains("ran at the same time: 1.6 cores"),
            "{notes:?}"
        );
    }

    #[test]
    fn one_thread_doing_most_of_the_work_is_not_together_by_its_share() {
        // Rows behind one Mutex that one thread kept taking: it did 85 % of the work, the
        // others spun a little, 1.2 cores busy. On a busy machine that judges nothing...
        let taken = TryReport {
            share: 0.85,
            ..try_of(1.2, 0.05)
        };
        assert!(!policy::together(&taken));
        let mut notes = Notes::default();
        assert!(together("f", SHAPE, &[taken; 4], &mut notes).is_ok());
        assert!(notes.said[0].starts_with(TOO_FEW_CORES), "{notes:?}");
        // ...and with a core idle beside it, it took turns.
        let beside_idle = TryReport { idle: 0.8, ..taken };
        let e = together("f", SHAPE, &[beside_idle; 2], &mut Notes::default()).unwrap_err();
        assert!(e.message.contains("took turns"), "{}", e.message);
    }

    #[test]
    fn a_lock_handed_over_beside_an_idle_core_is_taking_turns() {
        // Rows behind one Mutex, 8 threads: the lock's hand-overs kept 1.3 cores busy, with
        // the rest of two cores idle, and on a machine where other programs took the rest.
        let handed = TryReport {
            share: 0.32,
            ..try_of(1.3, 0.7)
        };
        assert!(!policy::together(&handed));
        let e = together("f", SHAPE, &[handed, handed], &mut Notes::default()).unwrap_err();
        assert!(e.message.contains("took turns"), "{}", e.message);
        let handed_on_a_busy_machine = TryReport {
            share: 0.32,
            ..try_of(1.3, 0.0)
        };
        assert!(!policy::together(&handed_on_a_busy_machine));
        let mut notes = Notes::default();
        assert!(together("f", SHAPE, &[handed_on_a_busy_machine; 2], &mut notes).is_ok());
        assert!(notes.said[0].starts_with(TOO_FEW_CORES), "{notes:?}");
        // Threads sharing the one free core of a busy machine and half of another.
        let busy_but_together = TryReport {
            share: 0.5,
            ..try_of(1.5, 0.0)
        };
        assert!(policy::together(&busy_but_together));
    }

    #[test]
    fn threads_taking_turns_on_a_quiet_machine_are_rejected() {
        let tries = [try_of(1.02, 0.9), try_of(1.0, 0.95), try_of(1.05, 0.1)];
        let e = together("f", SHAPE, &tries, &mut Notes::default()).unwrap_err();
        assert_eq!(e.kind, FailKind::Technique);
        assert!(e.message.contains("took turns"), "{}", e.message);
        assert!(e.message.contains("1.01 cores busy"), "{}", e.message);
    }

    #[test]
    fn one_quiet_try_or_none_judges_nothing() {
        for tries in [
            vec![try_of(1.0, 0.9), try_of(1.0, 0.3), try_of(1.0, 0.0)],
            vec![try_of(1.0, 0.0); 12],
        ] {
            let mut notes = Notes::default();
            assert!(together("f", SHAPE, &tries, &mut notes).is_ok());
            assert!(notes.said[0].starts_with(TOO_FEW_CORES), "{notes:?}");
            assert_eq!(notes.unchecked[0].part, Part::Threads, "{notes:?}");
        }
    }

    #[test]
    fn counts_below_any_product_mean_the_counting_was_off() {
        let s = Shape::new(100, 100, 100);
        let counts = |ir, dr| callgrind::Counts {
            events: vec!["Ir".into(), "Dr".into()],
            values: vec![ir, dr],
        };
        let off = too_little_work(&counts(10_000, 1_000), s, "f").unwrap();
        assert_eq!(off.kind, FailKind::Technique);
        assert!(off.message.contains("switched off"), "{}", off.message);
        // The i-k-j loop: about three instructions and two reads per multiply-add.
        assert!(too_little_work(&counts(3_000_000, 2_000_000), s, "f").is_none());
        // A vectorised micro-kernel: an eighth of an instruction, a twelfth of a read.
        assert!(too_little_work(&counts(125_000, 83_000), s, "f").is_none());
    }

    #[test]
    fn tries_settle_once_threads_ran_together_or_two_were_quiet() {
        assert!(policy::settled(&[try_of(1.5, 0.0)]));
        assert!(!policy::settled(&[try_of(1.0, 0.9), try_of(1.0, 0.2)]));
        assert!(policy::settled(&[try_of(1.0, 0.9), try_of(1.0, 0.7)]));
    }
}
