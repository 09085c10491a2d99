//! Pausing a student's driver and everything it started, from outside: the moment the last
//! of its processes has been sent SIGSTOP is when a call's time ends ([`super::cpu_session`]),
//! and what C holds once all their threads are seen stopped is what the grader checks. A
//! function that returns early and leaves threads (or processes) computing C behind it is
//! either timed until they are stopped too, or checked on the C they had not finished.
//!
//! Why the time ends at the signal and not when the threads are seen stopped: from the
//! moment kill(2) returns, every thread of the process has the stop pending; one running on
//! another core is interrupted at once, one waiting for a core stops as soon as it gets one,
//! before any more of its own instructions run. Seeing them all stopped takes as long as the
//! busiest of them waits for a core, which on a loaded machine is milliseconds that no code
//! of the student's runs in. A process seen stopped and then running again (resumed by a
//! tracer of the student's) moves the end to when it is seen stopped for good.
//!
//! The processes are found as the grader sees them: the driver's process and all its
//! descendants, read from `/proc/<pid>/task/<tid>/children` of every thread (a child belongs
//! to the thread that made it). In the sandbox's own process-id namespace an orphan is
//! adopted by the namespace's first process, still below the driver's sandbox, so no process
//! of the student's can leave the tree. SIGSTOP cannot be caught, blocked or ignored.

use std::collections::BTreeSet;

#[cfg(unix)]
use libc::{SIGCONT, SIGSTOP};
#[cfg(not(unix))]
const SIGSTOP: i32 = 19;
#[cfg(not(unix))]
const SIGCONT: i32 = 18;
use std::time::{Duration, Instant};

/// How long pausing may take before the call is given up. A thread stops only once it gets
/// a core, and the spin check ([`super::cpu_spin`]) runs the driver on one core with some
/// threads at the idle policy, behind the others: on a loaded machine such a thread waited
/// more than half a second. Only a process that keeps resuming itself reaches this.
pub const FREEZE_LIMIT: Duration = Duration::from_secs(20);

/// The processes paused by [`freeze`], resumed by [`Frozen::thaw`] (or when dropped).
#[derive(Debug)]
pub struct Frozen {
    pids: BTreeSet<u32>,
    /// When the last of their threads was seen stopped.
    pub at: Instant,
}

impl Frozen {
    /// Resumes every process paused.
    pub fn thaw(mut self) {
        self.resume();
    }

    fn resume(&mut self) {
        for pid in std::mem::take(&mut self.pids) {
            signal(pid, SIGCONT);
        }
    }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        self.resume();
    }
}

/// Pauses `root` and every process below it, and waits until each of their threads is seen
/// stopped (or has exited). Fails, leaving nothing paused, if that takes longer than `limit`.
pub fn freeze(root: u32, limit: Duration) -> Result<Frozen, String> {
    let deadline = Instant::now() + limit;
    let mut frozen = Frozen {
        pids: BTreeSet::new(),
        at: Instant::now(),
    };
    let too_long = |root: u32| {
        let running: Vec<String> = family(root)
            .into_iter()
            .flat_map(|pid| {
                tasks(pid)
                    .into_iter()
                    .filter_map(move |tid| Some((pid, tid, state(pid, tid)?)))
            })
            .filter(|&(_, _, st)| !is_stopped(Some(st)))
            .map(|(pid, tid, st)| format!("{pid}/{tid} in state {st}"))
            .collect();
        format!(
            "its processes could not all be paused within {} s ({})",
            limit.as_secs(),
            running.join(", ")
        )
    };
    // Each process is signalled before its children are read: a fork that completes after
    // the signal was sent is undone by the kernel (a fork with a signal pending restarts),
    // so the children read afterwards are all it will ever have until it is resumed.
    let mut todo = vec![root];
    while let Some(pid) = todo.pop() {
        if !frozen.pids.insert(pid) {
            continue;
        }
        signal(pid, SIGSTOP);
        todo.extend(children(pid));
        if Instant::now() > deadline {
            return Err(too_long(root));
        }
    }
    // A process signalled late in the walk may have sent SIGCONT to one signalled before it
    // (SIGCONT drops a pending stop). Once every one has the stop pending, none can run
    // code of its own any more, and a second SIGSTOP to each undoes any such SIGCONT (the
    // passes below send it again to any process still seen running).
    for &pid in &frozen.pids {
        signal(pid, SIGSTOP);
    }
    frozen.at = Instant::now();
    let mut seen_stopped = BTreeSet::new();
    // Set when something ran after the end was first set: the end is then when all are seen
    // stopped.
    let mut late = false;
    loop {
        let mut all_stopped = true;
        for pid in family(root) {
            if frozen.pids.insert(pid) {
                signal(pid, SIGSTOP);
                late = true;
            }
            if stopped(pid) {
                seen_stopped.insert(pid);
                continue;
            }
            all_stopped = false;
            // Sent again on every pass: a stop already pending is not doubled.
            signal(pid, SIGSTOP);
            late |= seen_stopped.contains(&pid);
        }
        if all_stopped {
            if late {
                frozen.at = Instant::now();
            }
            return Ok(frozen);
        }
        if Instant::now() > deadline {
            return Err(too_long(root));
        }
        std::thread::yield_now();
    }
}

/// `root` and every process below it, as far as /proc shows them now.
fn family(root: u32) -> BTreeSet<u32> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![root];
    while let Some(pid) = todo.pop() {
        if !seen.insert(pid) {
            continue;
        }
        todo.extend(children(pid));
    }
    seen
}

/// The children of every thread of `pid` (a child belongs to the thread that made it).
fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for tid in tasks(pid) {
        let list =
            std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/children")).unwrap_or_default();
        out.extend(
            list.split_whitespace()
                .filter_map(|c| c.parse::<u32>().ok()),
        );
    }
    out
}

fn tasks(pid: u32) -> Vec<u32> {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether every thread of `pid` is stopped, traced-stopped, a zombie or gone.
fn stopped(pid: u32) -> bool {
    tasks(pid)
        .into_iter()
        .all(|tid| is_stopped(state(pid, tid)))
}

fn is_stopped(state: Option<char>) -> bool {
    matches!(state, None | Some('T' | 't' | 'Z' | 'X' | 'x'))
}

/// A thread's state letter (`R`, `S`, `T`...), `None` if it is gone.
fn state(pid: u32, tid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat")).ok()?;
    // The state is the first field after the command's closing parenthesis (the command
    // itself may hold spaces and parentheses).
    let (_, rest) = stat.rsplit_once(')')?;
    rest.trim_start().chars().next()
}

#[cfg(unix)]
fn signal(pid: u32, sig: libc::c_int) {
    // SAFETY: kill(2) on a process id of the driver's family; it touches no memory of ours.
    unsafe {
        libc::kill(pid as libc::pid_t, sig);
    }
}

#[cfg(not(unix))]
fn signal(_pid: u32, _sig: i32) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    /// A shell's processes, killed when the test ends, whether it passed or not: they spin.
    struct Shell(std::process::Child);

    impl Shell {
        fn start(script: &str) -> Shell {
            let child = Command::new("sh")
                .arg("-c")
                .arg(script)
                .stdin(Stdio::null())
                .spawn()
                .expect("sh runs");
            Shell(child)
        }

        fn root(&self) -> u32 {
            self.0.id()
        }
    }

    impl Drop for Shell {
        fn drop(&mut self) {
            for pid in family(self.root()) {
                signal(pid, libc::SIGKILL);
            }
            let _ = self.0.wait();
        }
    }

    /// A shell that starts a child which starts another: three processes, each spinning.
    fn spinning_family() -> Shell {
        Shell::start("(sh -c 'while :; do :; done' & while :; do :; done) & while :; do :; done")
    }

    fn cpu_ns(pid: u32) -> u64 {
        family(pid)
            .into_iter()
            .filter_map(crate::harness::cpu_watch::process_cpu)
            .sum()
    }

    #[test]
    fn every_process_below_the_root_stops_and_resumes() {
        let shell = spinning_family();
        let root = shell.root();
        // The grandchild exists once the family has three members.
        let born = Instant::now();
        while family(root).len() < 3 && born.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(family(root).len(), 3, "the shell family was not started");
        let frozen = freeze(root, FREEZE_LIMIT).expect("a plain family pauses");
        assert!(family(root).into_iter().all(stopped));
        let before = cpu_ns(root);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(cpu_ns(root), before, "a paused process ran");
        frozen.thaw();
        let resumed = Instant::now();
        while cpu_ns(root) == before && resumed.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(cpu_ns(root) > before, "the family did not resume");
    }

    #[test]
    fn a_child_that_resumes_its_parent_does_not_keep_it_running() {
        // The parent spins; its child sends it SIGCONT as fast as it can.
        let shell = Shell::start("p=$$; (while :; do kill -CONT $p; done) & while :; do :; done");
        let root = shell.root();
        let born = Instant::now();
        while family(root).len() < 2 && born.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(family(root).len(), 2, "the helper was not started");
        // The helper's SIGCONT lands between the two processes' SIGSTOPs only now and then.
        for _ in 0..100 {
            let frozen = freeze(root, Duration::from_secs(2)).expect("the family pauses");
            let before = cpu_ns(root);
            std::thread::sleep(Duration::from_millis(2));
            assert_eq!(cpu_ns(root), before, "a paused process ran");
            frozen.thaw();
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_gone_process_counts_as_stopped() {
        assert!(stopped(u32::MAX));
        assert_eq!(family(u32::MAX).len(), 1);
    }
}
