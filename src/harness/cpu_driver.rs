//! The `main` of a student's CPU crate. The grader builds the student's lesson file into a
//! small crate of its own (rayon its only dependency) together with a copy of this file, and
//! runs it once per problem: `driver REQUEST RESPONSE`. This file is also compiled into the
//! course, so it is linted and tested like the rest; it may use only std and rayon.
//!
//! The request holds one problem (A and B) and how to run it; the response holds C, the time
//! of every repetition, and where the CPU time went. Whatever the student's code prints goes
//! to stdout and stderr, which the grader only shows; the verdict is computed by the grader
//! from C.
//!
//! Three ways to run: timed repetitions; tries with every thread's CPU time measured
//! ([`measure_threads`], how a lesson's use of threads is judged); and one call with
//! valgrind's callgrind counting only inside it ([`valgrind`], how the order in which code
//! walks memory is judged).

use std::io::{Read, Write};
use std::time::Instant;

/// The signature of every CPU lesson's functions.
pub type Matmul = fn(&[f32], &[f32], &mut [f32], usize, usize, usize);

/// First line of a request and of a response.
pub const MAGIC: &str = "lab-cpu 1";

/// How much CPU time one try of the thread check gathers at least: a shorter call is
/// repeated, up to [`THREADS_TRY_CALLS`] times or [`THREADS_TRY_MAX_MS`]. More than the grader
/// needs to judge the shares. CPU time, not wall time: on a busy machine a try that lasted
/// long enough may still have run too little.
pub const THREADS_TRY_CPU_NS: u64 = 80_000_000;
/// The most calls one try of the thread check makes.
pub const THREADS_TRY_CALLS: usize = 64;
/// The longest one try of the thread check repeats a call, whatever CPU time it got.
pub const THREADS_TRY_MAX_MS: u128 = 1_000;
/// A try whose threads kept this many cores busy on average ran them at the same time: one
/// thread at a time keeps one core busy (a little more while a lock changes hands).
pub const TOGETHER_MIN_USED: f64 = 1.25;
/// Threads that kept fewer cores busy took turns only if the machine had this many free
/// around the try, of the [`PROBE_THREADS`] a probe spins...
pub const TOGETHER_MIN_FREE: f64 = 1.7;
/// ...and if at least this many cores of the machine sat idle during the try: a burst of
/// other work that took a core during the try but not during the probes around it leaves
/// none idle.
pub const TOGETHER_MIN_IDLE: f64 = 0.5;
/// How many such tries it takes to say that threads took turns: a burst of other work that
/// came and went between two probes cannot make a parallel kernel look serial twice.
pub const TOGETHER_QUIET_TRIES: usize = 2;
/// The most tries of the thread check, however busy the machine: past the lesson's own count,
/// tries go on only until they settle whether the threads ran together, and only while the
/// check has lasted less than [`THREADS_MAX_MS`].
pub const THREADS_MAX_TRIES: usize = 12;
/// How long the thread check goes on trying to settle whether the threads ran together, ms.
pub const THREADS_MAX_MS: u128 = 5_000;
/// How long each probe of [`free_cores`] spins, before and after every try.
pub const PROBE_MS: u64 = 20;
/// How many threads a probe of [`free_cores`] spins: two, the fewest a parallel kernel may
/// use, so that a probe sees the machine as a kernel of two threads would.
pub const PROBE_THREADS: usize = 2;

/// How a job runs the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// The first call (checked), then `reps` timed ones.
    Time = 0,
    /// `reps` tries, each with every thread's CPU time measured.
    Threads = 1,
    /// One call with callgrind's instrumentation switched on around it.
    Callgrind = 2,
}

/// How to run the problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
    pub mode: Mode,
    /// Index into the functions the crate was built with.
    pub function: usize,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Timed calls after the first (which is checked).
    pub reps: usize,
    /// Threads of rayon's global pool; 0 leaves rayon's default.
    pub threads: usize,
}

impl Job {
    pub fn header(&self) -> String {
        format!(
            "{MAGIC}\n{} {} {} {} {} {} {}\n",
            self.mode as usize, self.function, self.m, self.n, self.k, self.reps, self.threads
        )
    }

    pub fn parse(line: &str) -> Option<Job> {
        let v: Vec<usize> = line
            .split_whitespace()
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        let mode = match v.first()? {
            0 => Mode::Time,
            1 => Mode::Threads,
            2 => Mode::Callgrind,
            _ => return None,
        };
        match v[1..] {
            [function, m, n, k, reps, threads] => Some(Job {
                mode,
                function,
                m,
                n,
                k,
                reps,
                threads,
            }),
            _ => None,
        }
    }
}

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

    extern "C" {
        fn clock_gettime(clk: i32, ts: *mut [i64; 2]) -> i32;
        fn syscall(num: i64, ...) -> i64;
        fn sysconf(name: i32) -> i64;
    }

    /// CPU time of the whole process, threads that have exited included, ns.
    pub fn process_cpu() -> u64 {
        const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
        let mut ts = [0i64; 2];
        // SAFETY: ts has the layout of a 64-bit timespec; the call writes only into it.
        unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
        ts[0] as u64 * 1_000_000_000 + ts[1] as u64
    }

    /// The idle time of the CPUs in this process's affinity list, summed, ns: `/proc/stat`'s
    /// idle and iowait ticks of each of them.
    pub fn idle_ns() -> Option<u64> {
        const SC_CLK_TCK: i32 = 2;
        // SAFETY: sysconf reads a constant of the system; it takes no pointers.
        let hz = unsafe { sysconf(SC_CLK_TCK) };
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

    /// This thread's id.
    pub fn tid() -> i64 {
        #[cfg(target_arch = "aarch64")]
        const SYS_GETTID: i64 = 178;
        #[cfg(not(target_arch = "aarch64"))]
        const SYS_GETTID: i64 = 186;
        // SAFETY: gettid takes no arguments and cannot fail.
        unsafe { syscall(SYS_GETTID) }
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

    /// The threads of the process, their files kept open, their last reading.
    #[derive(Default)]
    pub struct Tasks {
        files: BTreeMap<i64, File>,
        pub last: BTreeMap<i64, u64>,
        pub ended: Vec<i64>,
    }

    impl Tasks {
        /// Reads every thread but `skip`; a thread whose file no longer reads has ended.
        pub fn sample(&mut self, skip: i64) {
            if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
                for e in dir.flatten() {
                    let Some(tid) = e.file_name().to_str().and_then(|s| s.parse::<i64>().ok())
                    else {
                        continue;
                    };
                    if tid != skip && !self.files.contains_key(&tid) {
                        if let Ok(f) = File::open(format!("/proc/self/task/{tid}/schedstat")) {
                            self.files.insert(tid, f);
                        }
                    }
                }
            }
            let mut gone = Vec::new();
            for (&tid, f) in &self.files {
                match run_ns(f) {
                    Some(ns) => {
                        self.last.insert(tid, ns);
                    }
                    None => gone.push(tid),
                }
            }
            for tid in gone {
                self.files.remove(&tid);
                self.ended.push(tid);
            }
        }

        pub fn own(skip: i64) -> u64 {
            File::open(format!("/proc/self/task/{skip}/schedstat"))
                .ok()
                .and_then(|f| run_ns(&f))
                .unwrap_or(0)
        }
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
}

impl TryTimes {
    pub fn add(&mut self, call: &ThreadTimes) {
        self.busiest += call.busiest();
        self.total += call.total();
        self.wall += call.wall;
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
    /// How many of [`PROBE_THREADS`] spinning threads the machine ran at once, just before and
    /// just after the try (the smaller of the two): how many cores the try could have had.
    pub free: f64,
    /// How many of the cores this process may use sat idle during the try, on average (0
    /// where the system does not tell).
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

    /// Whether the threads were seen running at the same time.
    pub fn together(&self) -> bool {
        self.cores_used() >= TOGETHER_MIN_USED
    }

    /// Whether the machine had cores enough for threads to be seen running together: free just
    /// before and just after the try, and some left idle during it.
    pub fn quiet(&self) -> bool {
        self.free >= TOGETHER_MIN_FREE && self.idle >= TOGETHER_MIN_IDLE
    }

    /// One word of the response's `shares` line.
    pub fn word(&self) -> String {
        format!(
            "{:.4}:{}:{}:{:.3}:{:.3}",
            self.share, self.total, self.wall, self.free, self.idle
        )
    }

    pub fn parse(word: &str) -> Option<TryReport> {
        let mut f = word.split(':');
        let r = TryReport {
            share: f.next()?.parse().ok()?,
            total: f.next()?.parse().ok()?,
            wall: f.next()?.parse().ok()?,
            free: f.next()?.parse().ok()?,
            idle: f.next()?.parse().ok()?,
        };
        f.next().is_none().then_some(r)
    }
}

/// Whether the tries so far tell if the threads ran at the same time: one try in which they
/// did settles it; otherwise [`TOGETHER_QUIET_TRIES`] tries on a machine with cores free.
pub fn together_settled(tries: &[TryReport]) -> bool {
    tries.iter().any(TryReport::together)
        || tries.iter().filter(|t| t.quiet()).count() >= TOGETHER_QUIET_TRIES
}

/// How many cores the machine gives this process right now: [`PROBE_THREADS`] threads spin
/// for `ms`, and the process's CPU time over that wall time says how many of them ran at
/// once (0 where the CPU time cannot be read).
#[cfg(target_os = "linux")]
pub fn free_cores(ms: u64) -> f64 {
    let p0 = linux::process_cpu();
    let start = Instant::now();
    let deadline = start + std::time::Duration::from_millis(ms);
    std::thread::scope(|s| {
        for _ in 0..PROBE_THREADS {
            s.spawn(|| {
                while Instant::now() < deadline {
                    std::hint::spin_loop();
                }
            });
        }
    });
    let wall = start.elapsed().as_nanos() as f64;
    linux::process_cpu().saturating_sub(p0) as f64 / wall.max(1.0)
}

#[cfg(not(target_os = "linux"))]
pub fn free_cores(_ms: u64) -> f64 {
    0.0
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

/// Runs `f` and measures every thread's CPU time during it (see [`ThreadTimes`]).
#[cfg(target_os = "linux")]
pub fn measure_threads<R>(f: impl FnOnce() -> R) -> (R, ThreadTimes) {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};
    let stop = Arc::new(AtomicBool::new(false));
    let (ready_tx, ready_rx) = mpsc::channel();
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let stopping = Arc::clone(&stop);
    let monitor = std::thread::spawn(move || {
        let me = linux::tid();
        let mut tasks = linux::Tasks::default();
        tasks.sample(me);
        let before = tasks.last.clone();
        let own_before = linux::Tasks::own(me);
        let _ = ready_tx.send(());
        let _ = go_rx.recv();
        while !stopping.load(Ordering::Acquire) {
            std::thread::sleep(std::time::Duration::from_millis(2));
            tasks.sample(me);
        }
        tasks.sample(me);
        let own = linux::Tasks::own(me).saturating_sub(own_before);
        (before, tasks.last, tasks.ended, own)
    });
    let _ = ready_rx.recv();
    let p0 = linux::process_cpu();
    let started = std::time::Instant::now();
    let _ = go_tx.send(());
    let r = f();
    let wall = started.elapsed().as_nanos() as u64;
    stop.store(true, Ordering::Release);
    let (before, after, ended, monitor_ns) = monitor.join().unwrap_or_default();
    let p1 = linux::process_cpu();
    let delta = |tid: &i64, ns: u64| ns.saturating_sub(before.get(tid).copied().unwrap_or(0));
    let mut per: Vec<(i64, u64)> = after.iter().map(|(t, &ns)| (*t, delta(t, ns))).collect();
    per.sort_unstable_by_key(|t| std::cmp::Reverse(t.1));
    let seen: u64 = per.iter().map(|t| t.1).sum();
    let unseen = p1
        .saturating_sub(p0)
        .saturating_sub(monitor_ns)
        .saturating_sub(seen);
    let ended_max = per
        .iter()
        .filter(|t| ended.contains(&t.0))
        .map(|t| t.1)
        .max()
        .unwrap_or(0);
    let times = ThreadTimes {
        per_thread: per.into_iter().map(|t| t.1).filter(|&ns| ns > 0).collect(),
        unseen,
        ended_max,
        wall,
    };
    (r, times)
}

/// Elsewhere the call runs unmeasured.
#[cfg(not(target_os = "linux"))]
pub fn measure_threads<R>(f: impl FnOnce() -> R) -> (R, ThreadTimes) {
    (f(), ThreadTimes::default())
}

/// Valgrind's client requests: the magic no-op instruction sequences of valgrind.h, which
/// valgrind recognises and which do nothing when the program runs on its own.
pub mod valgrind {
    const CALLGRIND_BASE: u64 = ((b'C' as u64) << 24) | ((b'T' as u64) << 16);
    pub const START_INSTRUMENTATION: u64 = CALLGRIND_BASE + 4;
    pub const STOP_INSTRUMENTATION: u64 = CALLGRIND_BASE + 5;

    /// Sends a request to valgrind, if the program runs under it.
    #[inline(always)]
    pub fn request(req: u64) {
        let args: [u64; 6] = [req, 0, 0, 0, 0, 0];
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the sequence rotates rdi by 64 bits in all (no change) and exchanges rbx
        // with itself; valgrind reads the request from the array rax points to and writes
        // its answer into rdx, which is declared clobbered.
        unsafe {
            std::arch::asm!(
                "rol rdi, 3", "rol rdi, 13", "rol rdi, 61", "rol rdi, 51",
                "xchg rbx, rbx",
                inout("rdx") 0u64 => _,
                in("rax") args.as_ptr(),
            );
        }
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above, with aarch64's sequence.
        unsafe {
            std::arch::asm!(
                "ror x12, x12, #3", "ror x12, x12, #13", "ror x12, x12, #51", "ror x12, x12, #61",
                "orr x10, x10, x10",
                inout("x3") 0u64 => _,
                in("x4") args.as_ptr(),
            );
        }
        let _ = &args;
    }
}

/// The one call a cache simulator measures: `--toggle-collect=*lab_measured_call*` counts
/// what happens inside it and nothing of the set-up around it.
#[inline(never)]
pub fn lab_measured_call(f: Matmul, a: &[f32], b: &[f32], c: &mut [f32], job: &Job) {
    let f = std::hint::black_box(f);
    f(a, b, c, job.m, job.n, job.k);
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Reads the request, runs it, writes the response. Returns the process's exit code: 0 when a
/// response was written (even if the student's code panicked), 2 for a bad request.
pub fn main(functions: &[(&str, Matmul)]) -> i32 {
    let args: Vec<String> = std::env::args().collect();
    let (Some(req), Some(resp)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: driver REQUEST RESPONSE (started by the course's grader)");
        return 2;
    };
    let mut raw = Vec::new();
    if std::fs::File::open(req)
        .and_then(|mut f| f.read_to_end(&mut raw))
        .is_err()
    {
        eprintln!("driver: cannot read {req}");
        return 2;
    }
    let text_end = raw
        .iter()
        .enumerate()
        .filter(|(_, &b)| b == b'\n')
        .nth(1)
        .map(|(i, _)| i + 1);
    let Some(text_end) = text_end else {
        return 2;
    };
    let header = String::from_utf8_lossy(&raw[..text_end]).to_string();
    let mut lines = header.lines();
    let job = match (lines.next(), lines.next().and_then(Job::parse)) {
        (Some(MAGIC), Some(job)) => job,
        _ => {
            eprintln!("driver: malformed request");
            return 2;
        }
    };
    let Some(&(name, f)) = functions.get(job.function) else {
        return 2;
    };
    let body = &raw[text_end..];
    let (na, nb) = (job.m * job.k * 4, job.k * job.n * 4);
    if body.len() != na + nb {
        eprintln!("driver: request size does not match its header");
        return 2;
    }
    let a = floats(&body[..na]);
    let b = floats(&body[na..]);
    if job.threads > 0 {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(job.threads)
            .build_global();
    }
    // A panic is the student's failure to report, not ours: keep its message quietly, and
    // whether it is `todo!()`'s (the starter's body: not a crash, a function not written).
    let message = std::sync::Arc::new(std::sync::Mutex::new(None::<(bool, String)>));
    let slot = std::sync::Arc::clone(&message);
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| info.payload().downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into());
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let todo = text == "not yet implemented" || text.starts_with("not yet implemented: ");
        if let Ok(mut m) = slot.lock() {
            m.get_or_insert((todo, format!("{text}{place}")));
        }
    }));

    let mut c = vec![f32::NAN; job.m * job.n];
    let mut times = Vec::with_capacity(job.reps + 1);
    let mut shares = Vec::new();
    let mut status = String::from("ok");
    let panicked = |msg: &std::sync::Mutex<Option<(bool, String)>>| {
        let (todo, m) = msg.lock().ok().and_then(|m| m.clone()).unwrap_or_default();
        format!(
            "{} `{name}` panicked: {}",
            if todo { "todo" } else { "panic" },
            m.replace('\n', " ")
        )
    };
    match job.mode {
        Mode::Time => {
            for rep in 0..=job.reps {
                if rep > 0 {
                    c.fill(f32::NAN);
                }
                let t = Instant::now();
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    lab_measured_call(f, &a, &b, &mut c, &job)
                }));
                times.push(t.elapsed().as_nanos());
                if r.is_err() {
                    status = panicked(&message);
                    break;
                }
            }
        }
        Mode::Threads => {
            // Every worker of the pool exists before the first measurement.
            rayon::broadcast(|_| ());
            let started = Instant::now();
            for n in 0..THREADS_MAX_TRIES.max(job.reps) {
                if n >= job.reps.max(1)
                    && (together_settled(&shares)
                        || started.elapsed().as_millis() >= THREADS_MAX_MS)
                {
                    break;
                }
                c.fill(f32::NAN);
                let free_before = free_cores(PROBE_MS);
                let idle_before = idle_ns();
                let try_start = Instant::now();
                let mut t = TryTimes::default();
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    // A fast or busy machine gives one call too little CPU time to tell how
                    // the work was shared: call again (C as the last call left it) until the
                    // try has gathered enough.
                    let start = Instant::now();
                    for _ in 0..THREADS_TRY_CALLS {
                        let ((), call) =
                            measure_threads(|| lab_measured_call(f, &a, &b, &mut c, &job));
                        t.add(&call);
                        if t.total >= THREADS_TRY_CPU_NS
                            || start.elapsed().as_millis() >= THREADS_TRY_MAX_MS
                        {
                            break;
                        }
                    }
                }));
                let try_wall = try_start.elapsed().as_nanos() as f64;
                let idle = match (idle_before, idle_ns()) {
                    (Some(a), Some(b)) => b.saturating_sub(a) as f64 / try_wall.max(1.0),
                    _ => 0.0,
                };
                if r.is_err() {
                    status = panicked(&message);
                    break;
                }
                shares.push(TryReport {
                    share: t.busiest_share(),
                    total: t.total,
                    wall: t.wall,
                    free: free_before.min(free_cores(PROBE_MS)),
                    idle,
                });
            }
        }
        Mode::Callgrind => {
            rayon::broadcast(|_| ());
            valgrind::request(valgrind::START_INSTRUMENTATION);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                lab_measured_call(f, &a, &b, &mut c, &job)
            }));
            valgrind::request(valgrind::STOP_INSTRUMENTATION);
            if r.is_err() {
                status = panicked(&message);
            }
        }
    }
    let mut out = format!("{MAGIC}\nstatus {status}\ntimes");
    for t in &times {
        out.push_str(&format!(" {t}"));
    }
    out.push_str("\nshares");
    for t in &shares {
        out.push(' ');
        out.push_str(&t.word());
    }
    out.push_str("\ndata\n");
    let mut bytes = out.into_bytes();
    for v in &c {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    match std::fs::File::create(resp).and_then(|mut f| f.write_all(&bytes)) {
        Ok(()) => 0,
        Err(_) => 2,
    }
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
        std::thread::sleep(std::time::Duration::from_millis(100));
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
    fn job_headers_round_trip() {
        let j = Job {
            mode: Mode::Threads,
            function: 1,
            m: 3,
            n: 4,
            k: 5,
            reps: 2,
            threads: 8,
        };
        let h = j.header();
        let line = h.lines().nth(1).unwrap();
        assert_eq!(Job::parse(line), Some(j));
        assert_eq!(Job::parse("1 2 3"), None);
    }

    #[test]
    fn a_try_adds_each_calls_busiest_thread_whichever_it_was() {
        // Two calls, each done wholly by one thread, not the same one: one thread's work,
        // though summed per thread it would look split in half.
        let mut t = TryTimes::default();
        t.add(&ThreadTimes {
            per_thread: vec![60, 1],
            unseen: 0,
            ended_max: 0,
            wall: 0,
        });
        t.add(&ThreadTimes {
            per_thread: vec![60, 1],
            unseen: 0,
            ended_max: 0,
            wall: 0,
        });
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
}
