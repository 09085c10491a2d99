//! Whether a process's threads wait by spinning, found from outside it. CPU time alone cannot
//! tell a thread that computes from one that spins beside it (a `while !done {}` next to serial
//! code, a hand-written spin lock that threads take in turns): both keep a core busy. What
//! tells them apart is what happens when one thread is given less of the CPU. The grader pins
//! the driver to one core and gives some of its threads the least priority (the idle policy):
//! honest threads that wait block, so the product costs the same CPU time whoever runs when;
//! threads that spin burn the core while the lowered thread's work waits (far more CPU time),
//! or, when the lowered ones are the spinners, stop burning it (far less).
//!
//! Only CPU time is compared, never wall time: other work on the machine delays a lowered
//! thread, but it does not make honest code burn CPU.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Which of the driver's threads a call gives the least priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lowered {
    /// None: the baseline, on one core.
    Nothing,
    /// The thread that calls the student's function, once the function has started another
    /// (lowered earlier, every thread it starts would inherit the priority).
    Caller,
    /// The first thread the function starts.
    FirstStarted,
    /// Every thread the function starts but the first.
    StartedButFirst,
    /// The first thread of the pool that existed before the call (rayon's workers).
    FirstOfPool,
    /// Every thread of that pool but the first.
    PoolButFirst,
    /// None, but rayon's pool started with one thread instead of the check's: rayon's workers
    /// that take turns at a spin lock have nobody to wait for, and cost the product's CPU time
    /// alone. Unlike a lowered thread, which now and then runs and takes the lock (and then
    /// the others burn the core for as long as it waits, by chance), this comes out the same
    /// every time.
    PoolOfOne,
}

impl Lowered {
    pub const ALL: [Lowered; 7] = [
        Lowered::Nothing,
        Lowered::PoolOfOne,
        Lowered::Caller,
        Lowered::FirstStarted,
        Lowered::StartedButFirst,
        Lowered::FirstOfPool,
        Lowered::PoolButFirst,
    ];

    /// How the threads were lowered, for a message.
    pub fn describe(self) -> &'static str {
        match self {
            Lowered::Nothing => "no thread lowered",
            Lowered::Caller => "the calling thread lowered",
            Lowered::FirstStarted => "the first thread it started lowered",
            Lowered::StartedButFirst => "every thread it started but the first lowered",
            Lowered::FirstOfPool => "one of rayon's workers lowered",
            Lowered::PoolButFirst => "all of rayon's workers but one lowered",
            Lowered::PoolOfOne => "rayon's pool cut to one thread",
        }
    }
}

/// What one watched call cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Cost {
    /// The driver's CPU time from before the call to its end, ns.
    pub cpu: u64,
    /// The call was stopped early, having burned more than the limit of CPU time.
    pub burned: bool,
    /// How many threads were lowered (or, for [`Lowered::PoolOfOne`], left out of the pool).
    pub lowered: usize,
    /// How long the call took on the wall clock, ns.
    pub wall: u64,
}

#[cfg(target_os = "linux")]
fn tasks(pid: u32) -> BTreeSet<i32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Gives thread `tid` the least priority there is: the idle policy (it runs only when nothing
/// else on its core wants to), else nice 19. Lowering needs no privilege; raising again would.
#[cfg(target_os = "linux")]
fn lower(tid: i32) -> bool {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: both calls take plain integers and a pointer to a local they only read; on Linux
    // they act on the one thread `tid`.
    unsafe {
        libc::sched_setscheduler(tid, libc::SCHED_IDLE, &param) == 0
            || libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19) == 0
    }
}

/// Pins every thread of process `pid` to one core, the last this process may use; threads
/// they start inherit it. `None` where the system does not allow it.
#[cfg(target_os = "linux")]
pub fn pin_to_one_core(pid: u32) -> Option<usize> {
    let cpu = super::cpu_watch::allowed_cpus()?.into_iter().max()?;
    let tids = tasks(pid);
    if tids.is_empty() {
        return None;
    }
    for tid in tids {
        // SAFETY: the set is a plain bit array built here; sched_setaffinity only reads it.
        let ok = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
        };
        if !ok {
            return None;
        }
    }
    Some(cpu)
}

#[cfg(not(target_os = "linux"))]
pub fn pin_to_one_core(_pid: u32) -> Option<usize> {
    None
}

/// Watches process `pid` while `call` runs: lowers the threads `which` names as they appear,
/// reads the process's CPU time, and kills the process once it has burned more than
/// `most_ns` of CPU time (the call then ends as a crash, and the cost says `burned`).
#[cfg(target_os = "linux")]
pub fn watched<R>(
    pid: u32,
    which: Lowered,
    most_ns: Option<u64>,
    call: impl FnOnce() -> R,
) -> (R, Cost) {
    let stop = AtomicBool::new(false);
    let before = tasks(pid);
    let cpu0 = super::cpu_watch::process_cpu(pid).unwrap_or(0);
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let pool: Vec<i32> = before
                .iter()
                .copied()
                .filter(|&t| t != pid as i32)
                .collect();
            let mut lowered = 0;
            match which {
                Lowered::FirstOfPool => lowered += pool.first().map_or(0, |&t| lower(t) as usize),
                Lowered::PoolButFirst => {
                    lowered += pool.iter().skip(1).filter(|&&t| lower(t)).count()
                }
                _ => {}
            }
            let mut started: Vec<i32> = Vec::new();
            let mut burned = None;
            while !stop.load(Ordering::Acquire) {
                for t in tasks(pid) {
                    if before.contains(&t) || started.contains(&t) {
                        continue;
                    }
                    started.push(t);
                    let first = started.len() == 1;
                    lowered += match which {
                        Lowered::Caller if first => lower(pid as i32) as usize,
                        Lowered::FirstStarted if first => lower(t) as usize,
                        Lowered::StartedButFirst if !first => lower(t) as usize,
                        _ => 0,
                    };
                }
                let cpu = super::cpu_watch::process_cpu(pid).unwrap_or(0);
                if most_ns.is_some_and(|m| cpu.saturating_sub(cpu0) > m) {
                    burned = Some(cpu.saturating_sub(cpu0));
                    // SAFETY: kill takes plain integers; the driver is this grader's child.
                    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
                    break;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            (burned, lowered)
        });
        let started = std::time::Instant::now();
        let r = call();
        let wall = started.elapsed().as_nanos() as u64;
        let cpu = super::cpu_watch::process_cpu(pid)
            .unwrap_or(0)
            .saturating_sub(cpu0);
        stop.store(true, Ordering::Release);
        let (burned, lowered) = watcher.join().unwrap_or((None, 0));
        // A process killed for burning has no clock left: its time is the one read then.
        let cost = match burned {
            Some(at_kill) => Cost {
                cpu: at_kill.max(cpu),
                burned: true,
                lowered,
                wall,
            },
            None => Cost {
                cpu,
                burned: false,
                lowered,
                wall,
            },
        };
        (r, cost)
    })
}

#[cfg(not(target_os = "linux"))]
pub fn watched<R>(
    _pid: u32,
    _which: Lowered,
    _most_ns: Option<u64>,
    call: impl FnOnce() -> R,
) -> (R, Cost) {
    (call(), Cost::default())
}
