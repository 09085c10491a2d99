//! The CPU wing's policy: every threshold lesson 03's thread and spin checks judge by, in one
//! table, each with what it means and the recorded run that set it (the commit whose message
//! holds the measurement). The mechanism that measures — every thread's CPU time and the
//! cores' idle time read from outside the driver during each call, a call run on one core
//! with threads lowered — is on the harness floor (`cpu_watch`, `cpu_spin`) and judges nothing; what the
//! numbers mean is decided here and nowhere else.
//!
//! A threshold changed here changes the verdict of every case in `tests/suite.rs`'s lesson 03
//! and 03b rows: re-run the suite on a quiet machine and beside a busy core before committing,
//! and name the run in the entry's `set_by`.

use crate::harness::cpu_spin::Cost;
use crate::harness::cpu_watch::TryReport;

/// The thread check's and the spin check's thresholds.
pub struct Policy {
    /// Calls shorter than this (CPU time, ns) are too short to tell how the work was shared.
    /// Set by 78b53f4 (2026-11-22): below 50 ms of CPU time, a pool's start-up decides the
    /// busiest thread's share.
    pub min_thread_ns: u64,
    /// How much CPU time one try gathers at least (ns): a shorter call is repeated. Set by
    /// 4b669b3 (2026-11-24): a one-sided `rayon::join` whose side ran on different workers
    /// passed at 50 %, and a sequential decoy on a busy machine went unjudged, when tries were
    /// counted in wall time.
    pub try_cpu_ns: u64,
    /// The most calls one try makes. Set by 8928a7d (2026-11-22).
    pub try_calls: usize,
    /// The longest one try repeats a call, ms of wall time inside the calls. Set by 4b669b3.
    pub try_max_ms: u128,
    /// ...and the longest one try lasts in all, ms. Set by ce7174a (2026-11-26): on a busy
    /// machine drawing inputs and checking C took most of each second, and 03b's solution was
    /// left "not checked (too briefly)" in CI's busy pass.
    pub try_max_elapsed_ms: u128,
    /// A try whose threads kept this many cores busy ran them at the same time: no kernel
    /// whose threads take turns has been seen this high. Set by 15c09fd (2026-11-27): rows
    /// behind one `Mutex`, 8 threads, kept 1.3 cores busy on a busy 2-core machine; and by
    /// the commit that made it the only way to be judged together (2026-11-29): the same
    /// decoy kept 1.2 cores busy with one thread taking most rows, and passed in CI under
    /// the bar for threads that split the work unevenly (1.1 cores), which is gone.
    pub together_min_used: f64,
    /// ...and, where cores sat idle during the calls, this share of the cores the threads
    /// could have had (those they used and those left idle), up to `together_idle_min_used`.
    /// Set by 41ef702 (2026-11-26): rows behind one `Mutex` kept 1.3 cores busy handing the
    /// lock over on a quiet 2-core machine and passed once in CI.
    pub together_of_had: f64,
    /// The most `together_of_had` asks for: threads sharing two idle cores keep 1.8 to 2 of
    /// them busy. Set by 41ef702.
    pub together_idle_min_used: f64,
    /// Threads that kept fewer cores busy took turns only where this many cores sat idle
    /// while the calls ran: Linux leaves no core idle while a thread is ready to run, so
    /// threads that were ready together would have taken it. Set by 749d85d (2026-11-24) as
    /// idle time over the whole try; measured over the calls alone since 2026-11-29 (the
    /// grader's own checking of C between calls left a core idle on a busy machine, and a
    /// correct 03b slowed by other work was once taken for turns).
    pub together_min_idle: f64,
    /// How many such quiet tries it takes to say that threads took turns.
    pub together_quiet_tries: usize,
    /// The most tries, however busy the machine...
    pub max_tries: usize,
    /// ...and how long the check goes on trying to settle whether the threads ran together, ms.
    pub max_ms: u128,
    /// A call with threads lowered that costs more than this many times the baseline's CPU
    /// time spins (the others burned the core while the lowered thread's work waited)...
    /// Set by e685e5c (2026-11-26), with the next: a spinner beside serial code and a
    /// hand-written spin lock taken in turns, against the course's answers, whose CPU time
    /// moved by a few tens of percent (one core's caches shared among threads).
    pub spin_burned_ratio: f64,
    /// ...or less than this share of it (the lowered threads had been burning it).
    pub spin_saved_ratio: f64,
}

/// The one table.
pub const POLICY: Policy = Policy {
    min_thread_ns: 50_000_000,
    try_cpu_ns: 80_000_000,
    try_calls: 64,
    try_max_ms: 1_000,
    try_max_elapsed_ms: 6_000,
    together_min_used: 1.45,
    together_of_had: 0.8,
    together_idle_min_used: 1.5,
    together_min_idle: 0.5,
    together_quiet_tries: 2,
    max_tries: 12,
    max_ms: 5_000,
    spin_burned_ratio: 3.0,
    spin_saved_ratio: 0.6,
};

// A try gathers more CPU time than a call needs to be judged.
const _: () = assert!(POLICY.try_cpu_ns > POLICY.min_thread_ns);

/// Whether a try's threads were seen running at the same time: as many cores busy as
/// `together_min_used`, more where cores sat idle during the calls (`together_of_had` of the
/// cores the threads could have had). Only overlap counts: threads that take turns keep one
/// core busy however the work is split, and a little of another passing the turn on, and a
/// thread that did most of the work cannot make its share of the split an excuse (threads
/// that split it evenly but were slowed by other work are not judged at all: see [`quiet`]).
pub fn together(t: &TryReport) -> bool {
    let p = &POLICY;
    let had = t.cores_used() + t.idle;
    let bar = p
        .together_min_used
        .max((p.together_of_had * had).min(p.together_idle_min_used));
    t.cores_used() >= bar
}

/// Whether the machine had cores for the threads to run together: cores sat idle while the
/// calls ran. On a busy machine (other work took every core the threads did not use) nothing
/// tells threads that take turns from threads that were given one core between them.
pub fn quiet(t: &TryReport) -> bool {
    t.idle >= POLICY.together_min_idle
}

/// Whether the tries so far tell if the threads ran at the same time: one try in which they
/// did settles it; otherwise `together_quiet_tries` tries during whose calls cores sat idle.
pub fn settled(tries: &[TryReport]) -> bool {
    tries.iter().any(together)
        || tries.iter().filter(|t| quiet(t)).count() >= POLICY.together_quiet_tries
}

/// The verdict of one comparison of a lowered call with the baseline: `Some(ratio)` where it
/// says the threads spin. Honest code costs the same CPU time whoever runs when, within what
/// sharing one core's caches among threads costs.
pub fn spins(baseline: &Cost, lowered: &Cost) -> Option<f64> {
    if baseline.cpu == 0 || lowered.lowered == 0 {
        return None;
    }
    let ratio = lowered.cpu as f64 / baseline.cpu as f64;
    let honest = POLICY.spin_saved_ratio..=POLICY.spin_burned_ratio;
    (lowered.burned || !honest.contains(&ratio)).then_some(ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(cpu: u64, lowered: usize) -> Cost {
        Cost {
            cpu,
            lowered,
            ..Cost::default()
        }
    }

    #[test]
    fn only_a_large_change_of_cpu_time_says_spinning() {
        let base = cost(100, 0);
        assert_eq!(spins(&base, &cost(110, 1)), None);
        assert_eq!(spins(&base, &cost(75, 2)), None);
        assert_eq!(spins(&base, &cost(3000, 1)), Some(30.0));
        assert_eq!(spins(&base, &cost(50, 1)), Some(0.5));
        // Nothing was lowered: no comparison.
        assert_eq!(spins(&base, &cost(50, 0)), None);
        assert_eq!(spins(&cost(0, 0), &cost(50, 1)), None);
        let stopped = Cost {
            burned: true,
            ..cost(100, 1)
        };
        assert!(spins(&base, &stopped).is_some());
    }

    fn try_of(used: f64, idle: f64, share: f64) -> TryReport {
        TryReport {
            share,
            total: (used * 1e9) as u64,
            wall: 1_000_000_000,
            idle,
        }
    }

    #[test]
    fn the_bars_are_where_the_table_puts_them() {
        // A Mutex's hand-overs (1.3 cores) are not together, on a busy or a quiet machine.
        assert!(!together(&try_of(1.3, 0.0, 0.5)));
        assert!(!together(&try_of(1.3, 0.7, 0.5)));
        // Two threads on two idle cores are; on one core and a half of another, too.
        assert!(together(&try_of(1.8, 0.2, 0.5)));
        assert!(together(&try_of(1.5, 0.0, 0.5)));
        // One thread taking most rows from a lock, with others spinning a little, is not,
        // whatever its share of the work allows.
        assert!(!together(&try_of(1.2, 0.0, 0.85)));
        assert!(!together(&try_of(1.15, 0.0, 0.8)));
        // Quiet: cores idle while the calls ran.
        assert!(quiet(&try_of(1.2, 0.8, 0.5)));
        assert!(!quiet(&try_of(1.0, 0.1, 0.5)));
        assert!(settled(&[try_of(1.0, 0.9, 0.5), try_of(1.0, 0.8, 0.5)]));
        assert!(!settled(&[try_of(1.0, 0.9, 0.5), try_of(1.0, 0.1, 0.5)]));
    }
}
