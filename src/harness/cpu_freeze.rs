//! Pausing a student's driver and everything it started, from outside: the moment every one
//! of its threads has stopped is when a call's time ends ([`super::cpu_session`]), and what C
//! holds then is what the grader checks. A function that returns early and leaves threads
//! (or processes) computing C behind it is either timed until they are stopped too, or
//! checked on the C they had not finished.
//!
//! The processes are found as the grader sees them: the driver's process and all its
//! descendants, read from `/proc/<pid>/task/<tid>/children` of every thread (a child belongs
//! to the thread that made it). In the sandbox's own process-id namespace an orphan is
//! adopted by the namespace's first process, still below the driver's sandbox, so no process
//! of the student's can leave the tree. SIGSTOP cannot be caught, blocked or ignored.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// How long pausing may take before the call is given up: far longer than stopping a few
/// threads ever takes; only a process that keeps resuming itself reaches it.
pub const FREEZE_LIMIT: Duration = Duration::from_millis(500);

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
            signal(pid, libc::SIGCONT);
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
    loop {
        let tree = family(root);
        // A process that was stopped and resumed (by a tracer of the student's) is
        // signalled again: every pass sends SIGSTOP to each process not yet wholly stopped.
        let mut all_stopped = true;
        for &pid in &tree {
            if !stopped(pid) {
                all_stopped = false;
                signal(pid, libc::SIGSTOP);
            }
            frozen.pids.insert(pid);
        }
        if all_stopped && family(root) == tree {
            frozen.at = Instant::now();
            return Ok(frozen);
        }
        if Instant::now() > deadline {
            return Err(format!(
                "its processes could not all be paused within {} ms",
                limit.as_millis()
            ));
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
        for tid in tasks(pid) {
            let children = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/children"))
                .unwrap_or_default();
            todo.extend(
                children
                    .split_whitespace()
                    .filter_map(|c| c.parse::<u32>().ok()),
            );
        }
    }
    seen
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
    tasks(pid).into_iter().all(|tid| {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/stat"));
        // The state is the first field after the command's closing parenthesis (the command
        // itself may hold spaces and parentheses).
        let state = stat
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .map(|(_, rest)| rest.trim_start().to_string())
            })
            .and_then(|rest| rest.chars().next());
        matches!(state, None | Some('T' | 't' | 'Z' | 'X' | 'x'))
    })
}

fn signal(pid: u32, sig: libc::c_int) {
    // SAFETY: kill(2) on a process id of the driver's family; it touches no memory of ours.
    unsafe {
        libc::kill(pid as libc::pid_t, sig);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    /// A shell that starts a child which starts another: three processes, each spinning.
    fn spinning_family() -> std::process::Child {
        Command::new("sh")
            .arg("-c")
            .arg("(sh -c 'while :; do :; done' & while :; do :; done) & while :; do :; done")
            .stdin(Stdio::null())
            .spawn()
            .expect("sh runs")
    }

    fn cpu_ns(pid: u32) -> u64 {
        family(pid)
            .into_iter()
            .filter_map(crate::harness::cpu_watch::process_cpu)
            .sum()
    }

    #[test]
    fn every_process_below_the_root_stops_and_resumes() {
        let mut child = spinning_family();
        let root = child.id();
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
        for pid in family(root) {
            signal(pid, libc::SIGKILL);
        }
        let _ = child.wait();
    }

    #[test]
    fn a_gone_process_counts_as_stopped() {
        assert!(stopped(u32::MAX));
        assert_eq!(family(u32::MAX).len(), 1);
    }
}
