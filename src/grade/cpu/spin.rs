//! The thread check's second half: threads that share the CPU time must share the work. A
//! thread spinning beside serial code, or threads taking turns at a hand-written spin lock,
//! keep every core busy and split the CPU time evenly, and are told apart only by what they do
//! when one of them gets less of the CPU ([`crate::harness::cpu_spin`]).

use std::time::Duration;

use crate::harness::cpu_crate::{Built, Driver};
use crate::harness::cpu_session::Called;
use crate::harness::cpu_spin::{self as spin, Cost, Lowered};

use super::policy::{self, POLICY};
use crate::harness::matrix::{Rng, Shape};

use super::super::{FailKind, Failure, Notes, Options, Part};
use super::{honest, outcome};
use crate::harness::cpu_session::secret_seed;

/// One call on one core with `which` lowered, in a driver of its own (a lowered thread cannot
/// be raised again), after a warm-up call that starts the pool and touches the memory.
/// `Ok(None)`: the call could not be watched or ran out of time, which judges nothing.
#[allow(clippy::too_many_arguments)]
fn one(
    built: &Built,
    function: &str,
    warm_up: Shape,
    shape: Shape,
    pool: usize,
    which: Lowered,
    most_ns: Option<u64>,
    limit: Duration,
) -> Result<Option<Cost>, Failure> {
    let threads = if which == Lowered::PoolOfOne { 1 } else { pool };
    let mut driver = Driver::start(built, function, threads)
        .map_err(|e| Failure::new(FailKind::Runtime, format!("{e:#}")))?;
    let mut seeds = Rng::new(secret_seed());
    let check = |p: &crate::harness::matrix::Problem, c: &[f32]| {
        let shape = p.shape;
        if !honest::check_call(p, c, secret_seed()).passed() {
            return Err(Failure::new(
                FailKind::Wrong,
                format!("`{function}` passed the graded problems, but gave a wrong C at {shape} on one core: code must compute the same way however its threads are scheduled."),
            ));
        }
        Ok(())
    };
    // The warm-up at the thread check's shape: it starts the pool and pages in the driver.
    let (p, called) = driver.call(warm_up, seeds.next_u64(), limit, false);
    let r = outcome(called, function, warm_up, None, limit.as_secs_f64())?;
    check(&p, &r.c)?;
    let Some(pid) = driver.pid() else {
        drop(driver.finish());
        return Ok(None);
    };
    if spin::pin_to_one_core(pid).is_none() {
        drop(driver.finish());
        return Ok(None);
    }
    let seed = seeds.next_u64();
    let ((p, called), mut cost) = spin::watched(pid, which, most_ns, || {
        driver.call(shape, seed, limit, false)
    });
    if which == Lowered::PoolOfOne {
        cost.lowered = pool.saturating_sub(1);
    }
    drop(driver.finish());
    if cost.burned {
        return Ok(Some(cost));
    }
    match called {
        Called::TimedOut => Ok(None),
        called => {
            let r = outcome(called, function, shape, None, limit.as_secs_f64())?;
            check(&p, &r.c)?;
            Ok(Some(cost))
        }
    }
}

/// Rejects code whose threads wait by spinning: on one core, with some of its threads given
/// the least priority (or rayon's pool cut to one thread), a call costs far more CPU time than
/// with none (the others burned the core waiting for the lowered one), or far less (the
/// lowered or missing ones had been burning it). Each
/// finding is confirmed by a second pair of calls; anything that could not be measured is said
/// in a note, never failed.
pub fn check(
    built: &Built,
    function: &str,
    shape: Shape,
    pool: usize,
    opts: &Options,
    notes: &mut Notes,
) -> Result<(), Failure> {
    let limit = opts.step_timeout;
    let warm_up = shape;
    // Four times the thread check's rows: the grader lowers a thread a few milliseconds after
    // it starts (later on a busy machine), which must be little beside the product's time.
    let shape = Shape::new(shape.m * 4, shape.n, shape.k);
    let unchecked = |notes: &mut Notes, why: &str| {
        notes.not_checked(
            Part::Threads,
            format!("not checked: that `{function}`'s threads do not wait by spinning ({why})"),
        );
    };
    let Some(base) = one(
        built,
        function,
        warm_up,
        shape,
        pool,
        Lowered::Nothing,
        None,
        limit,
    )?
    else {
        unchecked(notes, "its driver could not be pinned to one core");
        return Ok(());
    };
    // Beyond this much CPU time a lowered call has burned enough to judge: stop it there.
    let most = (base.cpu as f64 * POLICY.spin_burned_ratio * 1.5) as u64 + 50_000_000;
    // A lowered thread waits while other work on the machine runs on its core: on a busy
    // machine honest code may take long, and then nothing is judged, quickly.
    let limit = limit.min(Duration::from_nanos(5_000_000_000 + 20 * base.wall));
    let mut timed_out = false;
    for which in Lowered::ALL.into_iter().skip(1) {
        if timed_out {
            break;
        }
        let Some(first) = one(
            built,
            function,
            warm_up,
            shape,
            pool,
            which,
            Some(most),
            limit,
        )?
        else {
            timed_out = true;
            continue;
        };
        if policy::spins(&base, &first).is_none() {
            continue;
        }
        // Confirmed only if a second baseline and a second lowered call say the same.
        let again = one(
            built,
            function,
            warm_up,
            shape,
            pool,
            Lowered::Nothing,
            None,
            limit,
        )?;
        let second = one(
            built,
            function,
            warm_up,
            shape,
            pool,
            which,
            Some(most),
            limit,
        )?;
        let (Some(again), Some(second)) = (again, second) else {
            timed_out = true;
            continue;
        };
        let (Some(r1), Some(r2)) = (policy::spins(&base, &first), policy::spins(&again, &second))
        else {
            continue;
        };
        // Either way says the threads spin, and a lowered thread may show one way then the
        // other: which depends on whether it held the lock when it was lowered.
        let (ratio, burned) = if (r1 > 1.0) == (r2 > 1.0) {
            let ratio = if r1 > 1.0 { r1.min(r2) } else { r1.max(r2) };
            (ratio, first.burned || second.burned)
        } else {
            (r1, first.burned)
        };
        let what = if ratio > 1.0 {
            format!(
                "its other threads burned {}{ratio:.1} times the CPU time of the whole product while the lowered thread's work waited",
                if burned { "more than " } else { "" }
            )
        } else if which == Lowered::PoolOfOne {
            format!(
                "the product took only {ratio:.2} of the CPU time it takes on a pool of {pool}: the other threads had been burning the core without computing"
            )
        } else {
            format!(
                "the product took only {ratio:.2} of the CPU time it takes with no thread lowered: the lowered threads had been burning the core without computing"
            )
        };
        return Err(Failure::new(
            FailKind::Technique,
            format!(
                "`{function}`'s threads wait by spinning: on one core at {shape}, with {}, {what}. Threads that spin keep every core busy and look like shared work, but the product is done by one thread at a time (a loop polling a flag beside serial code, or a hand-written spin lock that threads take in turns). Give every thread its own rows of C, and wait with `join` or rayon, never a loop.",
                which.describe()
            ),
        ));
    }
    if timed_out {
        unchecked(notes, "a call on one core did not finish in time");
    } else {
        notes.say(format!(
            "technique: `{function}`'s threads do not wait by spinning: on one core, lowering any of them or cutting rayon's pool to one thread changed the product's CPU time by less than {:.0}×",
            POLICY.spin_burned_ratio
        ));
    }
    Ok(())
}
