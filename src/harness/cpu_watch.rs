//! Where a process's CPU time goes, measured from outside it: every thread's CPU time from
//! Linux's per-thread counters (`/proc/<pid>/task/<tid>/schedstat`, first field: nanoseconds
//! on a CPU), the process's own CPU clock (which keeps the time of threads that have exited),
//! and how many of the machine's cores sat idle while it ran.
//!
//! The grader watches the student's driver this way ([`super::cpu_session`]): nothing the
//! student's code does inside its process can change what is read here.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Every thread's CPU time during one call, from Linux's per-thread counters
/// (`/proc/self/task/<tid>/schedstat`, first field: nanoseconds on a CPU).
///
/// A monitor thread reads every thread of the process before the call, every 2 ms while it
/// runs (so threads that start and end inside the call are seen while they live), and
/// after. The process's own CPU clock, which keeps the time of threads that have exited,
/// tells how much no sample saw (the tails of threads that ended between two samples); that
/// time is charged to the busiest thread that ended, the worst case for the verdict, so
/// hiding the work in a short-lived thread cannot make it look shared. But no thread runs
/// longer than the call lasts: a kernel that starts many short threads at once, most of
/// them too brief for any sample, is not charged more than the call's wall time for one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadTimes {
    /// CPU time per thread during the call, ns, largest first (the monitor left out).
    pub per_thread: Vec<u64>,
    /// Process CPU time no sample accounted for, ns.
    pub unseen: u64,
    /// The busiest thread among those that ended during the call, ns.
    pub ended_max: u64,
    /// How long the call lasted, ns (0: not known, no bound).
    pub wall: u64,
    /// How long the cores this process may use sat idle during the call, summed over them,
    /// ns (`None` where the system does not tell).
    pub idle: Option<u64>,
}

impl ThreadTimes {
    pub fn total(&self) -> u64 {
        self.per_thread.iter().sum::<u64>() + self.unseen
    }

    /// The busiest thread's time, the unseen time charged to the busiest thread that ended,
    /// up to the call's wall time.
    pub fn busiest(&self) -> u64 {
        let seen = self.per_thread.first().copied().unwrap_or(0);
        let ended = self.ended_max + self.unseen;
        seen.max(if self.wall > 0 {
            ended.min(self.wall)
        } else {
            ended
        })
    }

    /// The busiest thread's share of the call's CPU time, 0 to 1.
    pub fn busiest_share(&self) -> f64 {
        match self.total() {
            0 => 1.0,
            t => self.busiest() as f64 / t as f64,
        }
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::collections::BTreeMap;
    use std::fs::File;
    use std::os::unix::fs::FileExt;

    /// CPU time of process `pid` (this one or another the grader started), threads that
    /// have exited included, ns; `None` once it is gone.
    pub fn process_cpu(pid: u32) -> Option<u64> {
        let mut clock: libc::clockid_t = 0;
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: both calls write only into the locals passed to them.
        let ok = unsafe {
            libc::clock_getcpuclockid(pid as libc::pid_t, &mut clock) == 0
                && libc::clock_gettime(clock, &mut ts) == 0
        };
        ok.then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
    }

    /// The idle time of the CPUs in this process's affinity list, summed, ns: `/proc/stat`'s
    /// idle and iowait ticks of each of them.
    pub fn idle_ns() -> Option<u64> {
        // SAFETY: sysconf reads a constant of the system; it takes no pointers.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        if hz <= 0 {
            return None;
        }
        let allowed = allowed_cpus()?;
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let mut ticks = 0u64;
        let mut seen = 0;
        for line in stat.lines() {
            let mut f = line.split_ascii_whitespace();
            let Some(cpu) = f
                .next()
                .and_then(|w| w.strip_prefix("cpu"))
                .and_then(|n| n.parse::<usize>().ok())
            else {
                continue;
            };
            if !allowed.contains(&cpu) {
                continue;
            }
            // user nice system idle iowait ...
            let v: Vec<u64> = f.take(5).filter_map(|x| x.parse().ok()).collect();
            if v.len() < 5 {
                return None;
            }
            ticks += v[3] + v[4];
            seen += 1;
        }
        (seen > 0).then(|| ticks * 1_000_000_000 / hz as u64)
    }

    /// The CPUs this process may run on, from `/proc/self/status`.
    pub fn allowed_cpus() -> Option<Vec<usize>> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .and_then(super::cpu_list)
    }

    fn run_ns(f: &File) -> Option<u64> {
        let mut buf = [0u8; 128];
        let n = f.read_at(&mut buf, 0).ok().filter(|&n| n > 0)?;
        std::str::from_utf8(&buf[..n])
            .ok()?
            .split_ascii_whitespace()
            .next()?
            .parse()
            .ok()
    }

    /// The threads of one process, their files kept open.
    pub struct Tasks {
        pid: u32,
        files: BTreeMap<i64, File>,
    }

    impl Tasks {
        pub fn new(pid: u32) -> Tasks {
            Tasks {
                pid,
                files: BTreeMap::new(),
            }
        }

        /// Every living thread's CPU time but `skip`'s, in the process and every process it
        /// started (work handed to a child process is work too), and those processes; a
        /// thread whose file no longer reads has ended and is left out.
        pub fn sample(&mut self, skip: i64) -> (BTreeMap<i64, u64>, Vec<u32>) {
            let mut pids = vec![self.pid];
            let mut i = 0;
            while i < pids.len() && pids.len() < 256 {
                let pid = pids[i];
                i += 1;
                let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                    continue;
                };
                for e in dir.flatten() {
                    let Some(tid) = e.file_name().to_str().and_then(|s| s.parse::<i64>().ok())
                    else {
                        continue;
                    };
                    if tid != skip && !self.files.contains_key(&tid) {
                        let path = format!("/proc/{pid}/task/{tid}/schedstat");
                        if let Ok(f) = File::open(path) {
                            self.files.insert(tid, f);
                        }
                    }
                    if let Ok(children) =
                        std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/children"))
                    {
                        pids.extend(
                            children
                                .split_whitespace()
                                .filter_map(|c| c.parse::<u32>().ok()),
                        );
                    }
                }
            }
            let mut now = BTreeMap::new();
            self.files.retain(|&tid, f| match run_ns(f) {
                Some(ns) => {
                    now.insert(tid, ns);
                    true
                }
                None => false,
            });
            (now, pids)
        }
    }

    /// This thread's id.
    pub fn tid() -> i64 {
        // SAFETY: gettid takes no arguments and cannot fail.
        unsafe { libc::syscall(libc::SYS_gettid) }
    }
}

/// One reading of a watched process: when, each living thread's CPU time, the process's, and
/// the idle time so far of the cores the grader may use.
struct Sample {
    at: Instant,
    threads: BTreeMap<i64, u64>,
    process: u64,
    idle: Option<u64>,
}

/// A process watched from outside, with every process it starts: a thread of the grader
/// reads every thread of them every 2 ms (so threads that start and end inside a call are seen while they live), until
/// [`Watch::window`] is asked for the time between two instants.
pub struct Watch {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<Sample>>>,
}

impl Watch {
    /// Starts watching process `pid`; a thread of this process, if `pid` is this process,
    /// is not counted (the watcher itself).
    #[cfg(target_os = "linux")]
    pub fn start(pid: u32) -> Watch {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopping = std::sync::Arc::clone(&stop);
        let (ready_tx, ready_rx) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let me = linux::tid();
            let mut tasks = linux::Tasks::new(pid);
            let mut samples = Vec::new();
            let mut take = |tasks: &mut linux::Tasks| {
                let (threads, pids) = tasks.sample(me);
                // The watcher's own time is not the watched code's: subtracted when watching
                // this very process.
                let own = if pid == std::process::id() {
                    std::fs::read_to_string("/proc/thread-self/schedstat")
                        .ok()
                        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
                        .unwrap_or(0)
                } else {
                    0
                };
                // The processes' own clocks keep the time of their threads that ended.
                let process = pids
                    .iter()
                    .filter_map(|&p| linux::process_cpu(p))
                    .sum::<u64>()
                    .saturating_sub(own);
                samples.push(Sample {
                    at: Instant::now(),
                    threads,
                    process,
                    idle: linux::idle_ns(),
                });
            };
            take(&mut tasks);
            let _ = ready_tx.send(());
            while !stopping.load(Ordering::Acquire) {
                std::thread::sleep(Duration::from_millis(2));
                take(&mut tasks);
            }
            take(&mut tasks);
            samples
        });
        let _ = ready_rx.recv();
        Watch {
            stop,
            thread: Some(thread),
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn start(_pid: u32) -> Watch {
        Watch {
            stop: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)),
            thread: None,
        }
    }

    /// Stops watching and tells where the CPU time went between `from` and `to` (see
    /// [`ThreadTimes`]): from the last reading at or before `from` to the first at or after
    /// `to`.
    pub fn window(mut self, from: Instant, to: Instant) -> ThreadTimes {
        self.stop.store(true, std::sync::atomic::Ordering::Release);
        let samples = self
            .thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        times_between(&samples, from, to)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn times_between(samples: &[Sample], from: Instant, to: Instant) -> ThreadTimes {
    let (Some(first), Some(last_sample)) = (samples.first(), samples.last()) else {
        return ThreadTimes::default();
    };
    let a = samples.iter().rev().find(|s| s.at <= from).unwrap_or(first);
    let b_idx = samples
        .iter()
        .position(|s| s.at >= to)
        .unwrap_or(samples.len() - 1);
    let b = &samples[b_idx];
    let _ = last_sample;
    // Each thread's last reading up to `b`: a thread that ended keeps its last value.
    let mut last: BTreeMap<i64, u64> = BTreeMap::new();
    let mut ended = Vec::new();
    let a_idx = samples.iter().position(|s| std::ptr::eq(s, a)).unwrap_or(0);
    for s in &samples[a_idx..=b_idx] {
        for (&tid, &ns) in &s.threads {
            last.insert(tid, ns);
        }
    }
    for tid in last.keys() {
        if !b.threads.contains_key(tid) {
            ended.push(*tid);
        }
    }
    let delta = |tid: &i64, ns: u64| ns.saturating_sub(a.threads.get(tid).copied().unwrap_or(0));
    let mut per: Vec<(i64, u64)> = last.iter().map(|(t, &ns)| (*t, delta(t, ns))).collect();
    per.sort_unstable_by_key(|t| std::cmp::Reverse(t.1));
    let seen: u64 = per.iter().map(|t| t.1).sum();
    let unseen = b.process.saturating_sub(a.process).saturating_sub(seen);
    let ended_max = per
        .iter()
        .filter(|t| ended.contains(&t.0))
        .map(|t| t.1)
        .max()
        .unwrap_or(0);
    ThreadTimes {
        per_thread: per.into_iter().map(|t| t.1).filter(|&ns| ns > 0).collect(),
        unseen,
        ended_max,
        wall: b.at.saturating_duration_since(a.at).as_nanos() as u64,
        idle: b.idle.zip(a.idle).map(|(b, a)| b.saturating_sub(a)),
    }
}

/// Runs `f` and measures every thread of this process during it, watched as the grader
/// watches a student's driver.
pub fn measure_threads<R>(f: impl FnOnce() -> R) -> (R, ThreadTimes) {
    let watch = Watch::start(std::process::id());
    let from = Instant::now();
    let r = f();
    let to = Instant::now();
    (r, watch.window(from, to))
}

/// CPU time of process `pid` so far, ns (`None` where it cannot be read).
pub fn process_cpu(pid: u32) -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        linux::process_cpu(pid)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = pid;
        None
    }
}

/// The CPUs this process may run on (`None` where the system does not tell).
pub fn allowed_cpus() -> Option<Vec<usize>> {
    #[cfg(target_os = "linux")]
    {
        linux::allowed_cpus()
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// Whether this machine tells each thread's CPU time (Linux with `CONFIG_SCHED_INFO`).
pub fn thread_times_available() -> bool {
    cfg!(target_os = "linux") && std::fs::read_to_string("/proc/thread-self/schedstat").is_ok()
}

/// The CPU time of one try of the thread check, over its calls. Each call is measured on its
/// own and adds its busiest thread: which thread carries a call's work may change from call
/// to call (a `rayon::join` with all the work on one side runs it on whichever worker took
/// that side), and summing each thread over the calls would then spread one-thread work over
/// several threads.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TryTimes {
    /// The busiest thread's time of every call, summed, ns.
    pub busiest: u64,
    /// All threads' time of every call, summed, ns.
    pub total: u64,
    /// How long the calls lasted, summed, ns.
    pub wall: u64,
    /// How long the allowed cores sat idle during the calls, summed, ns (`None` once one
    /// call could not tell).
    pub idle: Option<u64>,
    /// Whether a call has been added.
    calls: bool,
}

impl TryTimes {
    pub fn add(&mut self, call: &ThreadTimes) {
        self.busiest += call.busiest();
        self.total += call.total();
        self.wall += call.wall;
        self.idle = match (self.calls, self.idle, call.idle) {
            (false, _, now) => now,
            (true, Some(so_far), Some(now)) => Some(so_far + now),
            _ => None,
        };
        self.calls = true;
    }

    /// How many cores sat idle during the calls, on average (0 where the system does not
    /// tell: no core is then taken for idle).
    pub fn idle_cores(&self) -> f64 {
        match (self.idle, self.wall) {
            (Some(idle), wall) if wall > 0 => idle as f64 / wall as f64,
            _ => 0.0,
        }
    }

    /// The busiest threads' share of the try's CPU time, 0 to 1.
    pub fn busiest_share(&self) -> f64 {
        match self.total {
            0 => 1.0,
            t => self.busiest as f64 / t as f64,
        }
    }
}

/// What one try of the thread check reports to the grader: how the work was shared among the
/// threads, and whether they ran at the same time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TryReport {
    /// The busiest thread's share of the try's CPU time, 0 to 1.
    pub share: f64,
    /// The try's CPU time, ns.
    pub total: u64,
    /// The try's wall time, ns.
    pub wall: u64,
    /// How many of the cores this process may use sat idle while the try's calls ran, on
    /// average (0 where the system does not tell). Linux does not leave a core idle while a
    /// thread is ready to run: cores idle during a call are cores its threads did not ask
    /// for, and none idle means other work took what the threads did not use.
    pub idle: f64,
}

impl TryReport {
    /// How many cores the try kept busy on average: its CPU time over its wall time.
    pub fn cores_used(&self) -> f64 {
        match self.wall {
            0 => 0.0,
            w => self.total as f64 / w as f64,
        }
    }
}

/// The CPUs of a list such as `/proc/self/status`'s `Cpus_allowed_list` (`0-3,8,10-11`).
pub fn cpu_list(list: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in list.trim().split(',') {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.trim().parse::<usize>().ok()?..=b.trim().parse().ok()?),
            None => cpus.push(part.trim().parse().ok()?),
        }
    }
    Some(cpus)
}

/// The idle time so far of the cores this process may run on, summed, ns (`None` where the
/// system does not tell). Two readings a try apart say how many cores sat idle during it.
#[cfg(target_os = "linux")]
pub fn idle_ns() -> Option<u64> {
    linux::idle_ns()
}

#[cfg(not(target_os = "linux"))]
pub fn idle_ns() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_read_as_the_kernel_writes_them() {
        assert_eq!(cpu_list("0-1\n"), Some(vec![0, 1]));
        assert_eq!(cpu_list("0,2-4,7"), Some(vec![0, 2, 3, 4, 7]));
        assert_eq!(cpu_list("x"), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn idle_time_is_read_in_nanoseconds_of_the_allowed_cores() {
        let cores = linux::allowed_cpus()
            .expect("the affinity list is readable")
            .len() as u64;
        let start = Instant::now();
        let a = idle_ns().expect("/proc/stat tells the idle time");
        std::thread::sleep(Duration::from_millis(100));
        let b = idle_ns().unwrap();
        // No more idle time than every allowed core idle for the whole sleep, give or take a
        // clock tick each: a reading in ticks or microseconds would be far off.
        let most = cores * (start.elapsed().as_nanos() as u64 + 20_000_000);
        assert!(
            b - a <= most,
            "{} ns idle on {cores} cores in 100 ms",
            b - a
        );
    }

    #[test]
    fn a_try_adds_each_calls_busiest_thread_whichever_it_was() {
        // Two calls, each done wholly by one thread, not the same one: one thread's work,
        // though summed per thread it would look split in half.
        let mut t = TryTimes::default();
        let call = ThreadTimes {
            per_thread: vec![60, 1],
            unseen: 0,
            ended_max: 0,
            wall: 0,
            idle: None,
        };
        t.add(&call);
        t.add(&call);
        assert_eq!(t.total, 122);
        assert!(t.busiest_share() > 0.98, "{t:?}");
        assert_eq!(TryTimes::default().busiest_share(), 1.0);
    }

    #[test]
    fn unseen_time_is_charged_to_the_busiest_thread_that_ended() {
        let t = ThreadTimes {
            per_thread: vec![50, 40, 10],
            unseen: 45,
            ended_max: 40,
            wall: 0,
            idle: None,
        };
        assert_eq!(t.total(), 145);
        assert_eq!(t.busiest(), 85);
        assert!((t.busiest_share() - 85.0 / 145.0).abs() < 1e-9);
        // A call of 100 ns: the thread that ended may have run that long, no longer.
        assert_eq!(
            ThreadTimes {
                wall: 100,
                ..t.clone()
            }
            .busiest(),
            85
        );
        assert_eq!(ThreadTimes { wall: 60, ..t }.busiest(), 60);
    }

    #[test]
    fn many_brief_threads_at_once_are_not_charged_as_one() {
        // Two cores busy for 10 ms with threads too brief for any sample: 20 ms of CPU time,
        // unseen. One thread cannot have run more than the 10 ms the call lasted.
        let parallel = ThreadTimes {
            per_thread: vec![1_000_000],
            unseen: 19_000_000,
            ended_max: 0,
            wall: 10_000_000,
            idle: None,
        };
        assert!(
            (parallel.busiest_share() - 0.5).abs() < 1e-9,
            "{parallel:?}"
        );
        // The same 20 ms in brief threads one after the other: the call lasted 20 ms, and one
        // thread may have done 19 of it.
        let serial = ThreadTimes {
            wall: 20_000_000,
            ..parallel
        };
        assert!(serial.busiest_share() > 0.9, "{serial:?}");
    }

    #[test]
    fn a_window_counts_threads_from_the_readings_around_it() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let sample = |ms, threads: &[(i64, u64)], process| Sample {
            at: at(ms),
            threads: threads.iter().copied().collect(),
            process,
            idle: Some(process / 2),
        };
        // Thread 1 runs throughout, thread 2 is born inside the window and ends in it.
        let samples = [
            sample(0, &[(1, 100)], 100),
            sample(10, &[(1, 200)], 200),
            sample(20, &[(1, 300), (2, 50)], 350),
            sample(30, &[(1, 400)], 520),
            sample(40, &[(1, 500)], 620),
        ];
        let t = times_between(&samples, at(5), at(35));
        // From the reading at 0 ms to the one at 40 ms.
        assert_eq!(t.per_thread, vec![400, 50]);
        assert_eq!(t.ended_max, 50);
        assert_eq!(t.unseen, 520 - 450);
        assert_eq!(t.wall, 40_000_000);
        // The cores' idle time between the same two readings.
        assert_eq!(t.idle, Some(310 - 50));
    }

    #[test]
    fn a_try_adds_its_calls_idle_time_and_knows_when_one_could_not_tell() {
        let call = |idle| ThreadTimes {
            per_thread: vec![100],
            unseen: 0,
            ended_max: 0,
            wall: 100,
            idle,
        };
        let mut t = TryTimes::default();
        t.add(&call(Some(80)));
        t.add(&call(Some(40)));
        assert!((t.idle_cores() - 0.6).abs() < 1e-9, "{t:?}");
        t.add(&call(None));
        t.add(&call(Some(80)));
        assert_eq!(t.idle, None);
        assert_eq!(t.idle_cores(), 0.0);
    }
}
