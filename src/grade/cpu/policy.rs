//! The CPU wing's policy: every threshold lesson 03's thread and spin checks judge by, in one
//! table, each with what it means and the recorded run that set it (the commit whose message
//! holds the measurement). The mechanism that measures — every thread's CPU time read from
//! outside the driver, the cores free around a try, a call run on one core with threads
//! lowered — is on the harness floor (`cpu_watch`, `cpu_spin`) and judges nothing; what the
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
    /// A try whose threads kept this many cores busy ran them at the same time. Set by 15c09fd
    /// (2026-11-27): rows behind one `Mutex`, 8 threads, kept 1.3 cores busy on a busy 2-core
    /// machine.
    pub together_min_used: f64,
    /// ...and, where cores were free around the try, this share of them, up to
    /// `together_free_min_used`. Set by 41ef702 (2026-11-26): rows behind one `Mutex` kept 1.3
    /// cores busy handing the lock over on a quiet 2-core machine and passed once in CI.
    pub together_of_free: f64,
    /// The most `together_of_free` asks for: threads sharing two free cores keep 1.8 to 2 of
    /// them busy. Set by 41ef702.
    pub together_free_min_used: f64,
    /// ...or this share of the cores the split of the work allows (1 / the busiest thread's
    /// share). Set by 27a9b9d (2026-11-26): a correct scoped-threads 03b, slowed on a busy
    /// machine, was rejected as taking turns.
    pub together_of_split: f64,
    /// ...but never fewer than this many cores. Set by 0dc4894 (2026-11-26): a serial decoy
    /// whose one thread did nearly all the work kept 0.9 cores busy and was judged together
    /// on a busy machine.
    pub together_split_min_used: f64,
    /// Threads that kept fewer cores busy took turns only if two spinning threads got this
    /// many cores around the try... Set by 749d85d (2026-11-24), with the next four: the first
    /// check of threads that take turns (a lock around the product, each thread joined before
    /// the next), judged only where the machine had cores to spare.
    pub together_min_free: f64,
    /// ...and at least this many cores sat idle during the try (a burst of other work that took
    /// a core during the try but not during the probes leaves none idle).
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
    together_of_free: 0.8,
    together_free_min_used: 1.5,
    together_of_split: 0.8,
    together_split_min_used: 1.1,
    together_min_free: 1.7,
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
/// `together_min_used` (more where cores were free: `together_of_free`), or most of what the
/// split of the work allows. Threads that split it unevenly (the busiest did a share s of it)
/// can keep at most 1/s cores busy, and fewer on a machine where one of them is slowed down and
/// the others finish early; threads that take turns keep one core busy however evenly they
/// split it, and a little of another passing the turn on.
pub fn together(t: &TryReport) -> bool {
    let p = &POLICY;
    let used = t.cores_used();
    let bar = p
        .together_min_used
        .max((p.together_of_free * t.free).min(p.together_free_min_used));
    let split_allows = if t.share > 0.0 {
        1.0 / t.share
    } else {
        f64::INFINITY
    };
    used >= bar || (used >= p.together_split_min_used && used >= p.together_of_split * split_allows)
}

/// Whether the machine had cores enough for threads to be seen running together: free just
/// before and just after the try, and some left idle during it.
pub fn quiet(t: &TryReport) -> bool {
    t.free >= POLICY.together_min_free && t.idle >= POLICY.together_min_idle
}

/// Whether the tries so far tell if the threads ran at the same time: one try in which they
/// did settles it; otherwise `together_quiet_tries` tries on a machine with cores free.
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

    fn try_of(used: f64, free: f64, share: f64) -> TryReport {
        TryReport {
            share,
            total: (used * 1e9) as u64,
            wall: 1_000_000_000,
            free,
            idle: 1.0,
        }
    }

    #[test]
    fn the_bars_are_where_the_table_puts_them() {
        // A Mutex's hand-overs (1.3 cores) are not together, on a busy or a quiet machine.
        assert!(!together(&try_of(1.3, 0.0, 0.5)));
        assert!(!together(&try_of(1.3, 2.0, 0.5)));
        // Two threads on two free cores are.
        assert!(together(&try_of(1.8, 2.0, 0.5)));
        // An uneven split kept busy as far as it allows is; one thread doing it all is not.
        assert!(together(&try_of(1.15, 0.0, 0.8)));
        assert!(!together(&try_of(0.9, 0.0, 0.95)));
        // Quiet: cores free around the try and idle during it.
        assert!(quiet(&try_of(1.0, 1.8, 0.5)));
        assert!(!quiet(&try_of(1.0, 1.2, 0.5)));
        assert!(settled(&[try_of(1.0, 1.8, 0.5), try_of(1.0, 1.9, 0.5)]));
        assert!(!settled(&[try_of(1.0, 1.8, 0.5), try_of(1.0, 1.0, 0.5)]));
    }
}
