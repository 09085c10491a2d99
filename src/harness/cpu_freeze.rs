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

/// How long pausing may take before the call is given up, while the family keeps running: only
/// a process that keeps resuming itself (or is resumed by one of its own) gets that far.
pub const FREEZE_LIMIT: Duration = Duration::from_secs(20);

/// How long a family is waited for that has not run since it was told to stop. A thread
/// with the stop pending stops as soon as it gets a core, before any instruction of its own:
/// until then it waits for the machine, not for the student's code. The spin check
/// ([`super::cpu_spin`]) runs the driver on one core with some threads at the idle policy,
/// behind everything else there; with three busy programs on that core such a thread waited
/// about 3 s for a core here, with six 7 s, so a class's grading beside other work can take
/// longer than [`FREEZE_LIMIT`] without anything of the student's running.
pub const STARVED_LIMIT: Duration = Duration::from_secs(300);

/// What the family may run in all, once told to stop, and still count as waiting for a core:
/// each thread runs a few microseconds in the kernel to stop; a process resumed again and
/// again runs for as long as it is let.
const STARVED_CPU_NS: u64 = 100_000_000;

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
/// stopped (or has exited). Fails, leaving nothing paused, if that takes longer than `limit`
/// while the family keeps running, or longer than [`STARVED_LIMIT`] while it waits for a core.
pub fn freeze(root: u32, limit: Duration) -> Result<Frozen, NotPaused> {
    let began = Instant::now();
    let deadline = began + limit;
    let mut frozen = Frozen {
        pids: BTreeSet::new(),
        at: Instant::now(),
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
            return Err(too_long(root, limit, None));
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
    let cpu_at_stop = family_cpu(root);
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
        let now = Instant::now();
        if now > deadline {
            let ran = family_cpu(root).saturating_sub(cpu_at_stop);
            if ran >= STARVED_CPU_NS || now > began + limit.max(STARVED_LIMIT) {
                return Err(too_long(root, now - began, Some(ran)));
            }
        }
        // Polled without a pause at first (a thread on another core stops within
        // microseconds); after that, a pass a millisecond, so that the grader's own polling
        // takes no core from the threads it waits for.
        if now - frozen.at < Duration::from_millis(5) {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Why a family was not paused.
#[derive(Debug)]
pub struct NotPaused {
    /// It ran almost nothing once told to stop: its threads waited for a core all along, on a
    /// machine too busy to give them one. Nothing of the code's doing; no verdict on it.
    pub starved: bool,
    /// The threads still running and what the family ran, in words.
    pub why: String,
}

/// Why pausing was given up after `waited`: the threads still running and, once all were
/// told to stop, what the family ran since (`ran`, ns).
fn too_long(root: u32, waited: Duration, ran: Option<u64>) -> NotPaused {
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
    let why = format!(
        "its processes could not all be paused within {} s ({}){}",
        waited.as_secs(),
        running.join(", "),
        cause(ran)
    );
    NotPaused {
        starved: ran.is_some_and(|ns| ns < STARVED_CPU_NS),
        why,
    }
}

/// What `ran` (ns, from when the family was told to stop) says of why it did not stop.
fn cause(ran: Option<u64>) -> String {
    match ran {
        Some(ns) if ns < STARVED_CPU_NS => format!(
            "; they ran {} ms in all since they were told to stop: they were waiting for a core \
             on a machine too busy to give them one, which says nothing of your code. Grade again \
             when the machine is less busy",
            ns / 1_000_000
        ),
        Some(ns) => format!(
            "; they ran {} ms since they were told to stop: something kept resuming them",
            ns / 1_000_000
        ),
        None => String::new(),
    }
}

/// The CPU time of `root` and every process below it, ns.
fn family_cpu(root: u32) -> u64 {
    family(root)
        .into_iter()
        .filter_map(crate::harness::cpu_watch::process_cpu)
        .sum()
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

    /// Pins `pid` (one thread) to `cpu`, and gives it the idle policy when `idle`.
    fn place(pid: u32, cpu: usize, idle: bool) {
        // SAFETY: the set is a plain bit array built here, the parameter a local; both calls
        // only read them.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            let pinned = libc::sched_setaffinity(
                pid as libc::pid_t,
                std::mem::size_of::<libc::cpu_set_t>(),
                &set,
            );
            assert_eq!(pinned, 0, "pinning {pid} to CPU {cpu}");
            if idle {
                let param = libc::sched_param { sched_priority: 0 };
                let lowered =
                    libc::sched_setscheduler(pid as libc::pid_t, libc::SCHED_IDLE, &param);
                assert_eq!(lowered, 0, "giving {pid} the idle policy");
            }
        }
    }

    #[test]
    fn a_thread_waiting_for_a_core_is_waited_for_past_the_limit() {
        // A spinner at the idle policy and a plain one on one core: the first gets the core
        // now and then (about once in half a second here), so it stops long after a limit
        // of a millisecond, having run nothing meanwhile.
        let cpu = crate::harness::cpu_watch::allowed_cpus()
            .and_then(|c| c.into_iter().max())
            .expect("the allowed CPUs are known on Linux");
        let busy = Shell::start("while :; do :; done");
        let lowered = Shell::start("while :; do :; done");
        place(busy.root(), cpu, false);
        place(lowered.root(), cpu, true);
        for _ in 0..3 {
            let frozen = freeze(lowered.root(), Duration::from_millis(1))
                .expect("a family that only waits for a core pauses");
            assert!(stopped(lowered.root()));
            frozen.thaw();
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn the_reason_given_up_tells_a_busy_machine_from_a_family_kept_running() {
        assert!(cause(Some(3_000_000)).contains("waiting for a core"));
        assert!(cause(Some(STARVED_CPU_NS - 1)).contains("says nothing of your code"));
        assert!(cause(Some(STARVED_CPU_NS)).contains("kept resuming"));
        assert!(cause(Some(20_000_000_000)).contains("ran 20000 ms"));
        assert_eq!(cause(None), "");
    }

    #[test]
    fn only_a_family_that_waited_for_a_core_is_called_starved() {
        let gone = u32::MAX;
        assert!(too_long(gone, STARVED_LIMIT, Some(3_000_000)).starved);
        assert!(!too_long(gone, FREEZE_LIMIT, Some(STARVED_CPU_NS)).starved);
        assert!(!too_long(gone, FREEZE_LIMIT, None).starved);
    }

    #[test]
    fn a_gone_process_counts_as_stopped() {
        assert!(stopped(u32::MAX));
        assert_eq!(family(u32::MAX).len(), 1);
    }
}
