//! The grader's side of a student's CPU driver ([`super::cpu_driver`]): starts it confined,
//! asks it for calls one at a time, and measures each from outside its process.
//!
//! Every call is a fresh problem: the grader draws a seed and writes the call's poison into C
//! ([`super::poison`]), the driver makes A and B from the seed (so the inputs exist only once
//! the call is asked for), and answers
//! `ready`; the grader says `go`, and the call is timed on the grader's own clock from that
//! moment until, after the driver's `done`, every thread of the driver and of any process it
//! started has been paused ([`super::cpu_freeze`]). C is then read, while they are paused,
//! from the memory the grader made for it and handed to the driver (a sealed memory file:
//! the driver reaches nothing else of the grader's through it), and they stay paused until the
//! driver's next call is asked for (or it is ended). So work left running after the function
//! returns is timed until it is stopped, whatever it had not written by then is checked as it
//! is, and nothing of it runs between calls, while the grader checks C or other code is timed
//! beside it. The driver's CPU time, read
//! from outside, says whether anything beyond making the inputs ran before `go`: code that
//! starts computing while the inputs are made is timed from the request instead.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};

use super::child::{self, Captured, Drain};
use super::cpu_driver::{Call, Mode, C_BYTES, C_FD};
use super::cpu_freeze::{self, Frozen, NotPaused, FREEZE_LIMIT};
use super::cpu_watch::{ThreadTimes, Watch};
use super::matrix::{Problem, Shape};

/// What the driver's answer channel carried.
enum Answer {
    Ready,
    /// `done`, read: the student's function returned, and its processes are being paused.
    Returned,
    /// `done BYTES`: the student's function returned, C is in the shared memory; the driver's
    /// processes, paused as soon as the line was read, or why they could not be.
    Computed(usize, Result<Frozen, NotPaused>),
    /// A panic: its message, and whether it was `todo!()`'s.
    Panic(String, bool),
    /// Something that is not the driver's protocol.
    Garbled(String),
    /// The channel closed.
    Closed,
}

/// Reads the driver's answers on a thread of their own. On `done` that thread pauses the
/// driver's processes (everything below `root`) itself, at once: the call's time ends
/// there, and handing the line to another thread first would only lengthen it.
fn read_answers(out: impl Read + Send + 'static, root: u32) -> Receiver<Answer> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut r = BufReader::new(out);
        loop {
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let _ = tx.send(Answer::Closed);
                    return;
                }
                Ok(_) => {}
            }
            let line = line.trim_end();
            let answer = if line == "ready" {
                Answer::Ready
            } else if let Some(msg) = line.strip_prefix("panic ") {
                Answer::Panic(msg.to_string(), false)
            } else if let Some(msg) = line.strip_prefix("todo ") {
                Answer::Panic(msg.to_string(), true)
            } else if let Some(len) = line
                .strip_prefix("done ")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|&n| n % 4 == 0 && n <= C_BYTES)
            {
                // The call's limit is the function's: it no longer runs once `done` is read,
                // and pausing has limits of its own (a machine too busy to give the paused
                // threads a core is waited for longer than the student's code is).
                if tx.send(Answer::Returned).is_err() {
                    return;
                }
                Answer::Computed(len, cpu_freeze::freeze(root, FREEZE_LIMIT))
            } else {
                Answer::Garbled(line.chars().take(80).collect())
            };
            if tx.send(answer).is_err() {
                return;
            }
        }
    });
    rx
}

/// How one call ended.
#[derive(Debug)]
pub enum Called {
    /// C came back: its time on the grader's clock, and where the call's CPU time went when
    /// the call was watched.
    Done {
        c: Vec<f32>,
        ms: f64,
        threads: Option<ThreadTimes>,
    },
    /// The student's code panicked: its message, and whether it was `todo!()`'s (a function
    /// not written yet).
    Panicked { message: String, todo: bool },
    /// The driver died: how.
    Crashed(String),
    /// No answer within the limit; the driver was stopped.
    TimedOut,
    /// The call returned, but its driver's threads waited minutes for a core to stop on: the
    /// machine too busy to judge it, which says nothing of the code.
    Starved(String),
    /// The answer channel carried something else than the driver's answers: the student's
    /// code wrote to it.
    Garbled(String),
}

/// A running driver.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The memory C is written into, shared with the driver.
    c_memory: File,
    answers: Receiver<Answer>,
    stderr: Option<Drain>,
    /// The driver's process id as this process sees it, once found.
    pid: Option<u32>,
    confined: bool,
    /// The driver has ended or was stopped: no more calls.
    over: bool,
    /// The driver's processes, paused since its last call returned: they run only while a call
    /// of theirs is in flight, so nothing a function leaves running after it returns can take
    /// the machine from the grader's checks or from other code timed beside it.
    paused: Option<Frozen>,
}

/// The pieces of a driver's command line.
pub struct Launch<'a> {
    /// The program to start (the driver, or valgrind with the driver as its argument).
    pub program: &'a Path,
    pub args: Vec<String>,
    pub cwd: &'a Path,
    pub view: super::sandbox::View<'a>,
}

impl Session {
    /// Starts the driver confined as the machine allows.
    pub fn start(launch: Launch) -> Result<Session> {
        let confinement = super::sandbox::detect();
        let confined = matches!(confinement, super::sandbox::Confinement::Bubblewrap(..));
        let mut cmd: Command = super::sandbox::command(
            confinement,
            launch.program,
            &launch.args,
            launch.cwd,
            &launch.view,
        );
        // Nothing of the grader's environment (the course's paths in Cargo's variables, the
        // LAB_ settings): the driver needs only its arguments, and PATH for valgrind's tools.
        cmd.env_clear();
        if let Some(path) = std::env::var_os("PATH") {
            cmd.env("PATH", path);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let c_memory = c_memory().context("making the memory a driver writes C into")?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd as _;
            use std::os::unix::process::CommandExt as _;
            // Ended with the grading's thread, even a worker's killed by its watchdog.
            super::child::own_group_ending_with_us(&mut cmd);
            let fd = c_memory.as_raw_fd();
            // SAFETY: between fork and exec only dup2 and fcntl run, which are
            // async-signal-safe; they touch descriptors, not memory.
            unsafe {
                cmd.pre_exec(move || {
                    // The copy on C_FD is the driver's; dup2 leaves it open across exec
                    // (the original is close-on-exec, which dup2 onto itself would keep).
                    if fd == C_FD {
                        if libc::fcntl(fd, libc::F_SETFD, 0) < 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                    } else if libc::dup2(fd, C_FD) < 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting {}", launch.program.display()))?;
        let answers = read_answers(child.stdout.take().expect("piped stdout"), child.id());
        let stderr = Some(Drain::start(
            child.stderr.take().expect("piped stderr"),
            child::KEEP,
        ));
        Ok(Session {
            stdin: child.stdin.take(),
            c_memory,
            child,
            answers,
            stderr,
            pid: None,
            confined,
            over: false,
            paused: None,
        })
    }

    /// The driver's process, found once: the child itself, or under bubblewrap the first
    /// process below it that is not bubblewrap's own.
    fn driver_pid(&mut self) -> Option<u32> {
        if self.pid.is_some() || !self.confined {
            return self.pid.or(Some(self.child.id()));
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            let mut pid = self.child.id();
            for _ in 0..4 {
                let Some(next) = first_child(pid) else { break };
                pid = next;
                if comm(pid).is_some_and(|c| c != "bwrap") {
                    self.pid = Some(pid);
                    return self.pid;
                }
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        None
    }

    /// The driver's process id as this process sees it (`None` where it cannot be found).
    pub fn process(&mut self) -> Option<u32> {
        self.driver_pid()
    }

    /// Asks for one call of the function on a fresh problem (`seed`), waits at most `limit`
    /// for its answer, and times it; `watch` also measures where its CPU time went.
    pub fn call(
        &mut self,
        p: &Problem,
        seed: u64,
        gen_ms: f64,
        limit: Duration,
        watch: bool,
    ) -> Called {
        if self.over {
            return Called::Crashed("the driver had already stopped".into());
        }
        if let Some(f) = self.paused.take() {
            f.thaw();
        }
        let s = p.shape;
        let call = Call {
            seed,
            m: s.m,
            n: s.n,
            k: s.k,
        };
        let pid = self.driver_pid();
        let cpu = |pid: Option<u32>| pid.and_then(super::cpu_watch::process_cpu);
        let cpu_before = cpu(pid);
        if let Err(e) = self.poison_c(&p.poison) {
            self.stop();
            return Called::Crashed(format!("its C could not be prepared: {e}"));
        }
        let asked = Instant::now();
        let deadline = asked + limit;
        if !self.send(&call.line()) {
            return self.ended();
        }
        match self.next_answer(deadline) {
            Ok(Answer::Ready) => {}
            Ok(other) => return self.unexpected(other),
            Err(called) => return called,
        }
        let cpu_ready = cpu(pid);
        let watcher = if watch { pid.map(Watch::start) } else { None };
        // The clock starts before `go` is written: a grader descheduled just after writing it
        // would otherwise start its clock after the product was done, and time nothing.
        let go = Instant::now();
        if !self.send("go\n") {
            return self.ended();
        }
        match self.next_answer(deadline) {
            Ok(Answer::Returned) => {}
            Ok(other) => return self.unexpected(other),
            Err(called) => return called,
        }
        let (len, frozen) = match self.answers.recv() {
            Ok(Answer::Computed(len, frozen)) => (len, frozen),
            Ok(other) => return self.unexpected(other),
            Err(_) => return self.ended(),
        };
        // The call ends when nothing of the driver's runs any more: late, never early.
        let frozen = match frozen {
            Ok(f) => f,
            Err(NotPaused { starved, why }) => {
                self.stop();
                return match starved {
                    true => Called::Starved(why),
                    false => Called::Crashed(why),
                };
            }
        };
        if len != 4 * s.m * s.n {
            self.stop();
            return Called::Garbled(format!("a C of {len} bytes for {s}"));
        }
        let arrived = frozen.at;
        let c = self.read_c(len);
        self.paused = Some(frozen);
        if let Ok(c) = &c {
            super::poison::remember(c);
        }
        let c = match c {
            Ok(c) => c,
            Err(e) => {
                self.stop();
                return Called::Crashed(format!("its C could not be read: {e}"));
            }
        };
        let prepared_ns = match (cpu_before, cpu_ready) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        let start = start_of(asked, go, prepared_ns, gen_ms);
        let threads = watcher.map(|w| w.window(start, arrived));
        Called::Done {
            c,
            ms: arrived.duration_since(start).as_secs_f64() * 1e3,
            threads,
        }
    }

    /// C as the shared memory holds it now: `len` bytes.
    fn read_c(&self, len: usize) -> std::io::Result<Vec<f32>> {
        let mut bytes = vec![0u8; len];
        // pread: the file's offset is shared with the driver, which could move it.
        #[cfg(unix)]
        std::os::unix::fs::FileExt::read_exact_at(&self.c_memory, &mut bytes, 0)?;
        #[cfg(not(unix))]
        {
            use std::io::{Seek as _, SeekFrom};
            let mut f = &self.c_memory;
            f.seek(SeekFrom::Start(0))?;
            f.read_exact(&mut bytes)?;
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// Writes what C holds before a call into the shared memory, while the driver waits for
    /// its next line.
    fn poison_c(&self, before: &super::poison::Poison) -> std::io::Result<()> {
        let bytes: Vec<u8> = (0..before.len())
            .flat_map(|i| before.at(i).to_le_bytes())
            .collect();
        #[cfg(unix)]
        std::os::unix::fs::FileExt::write_all_at(&self.c_memory, &bytes, 0)?;
        #[cfg(not(unix))]
        {
            use std::io::{Seek as _, SeekFrom};
            let mut f = &self.c_memory;
            f.seek(SeekFrom::Start(0))?;
            f.write_all(&bytes)?;
        }
        Ok(())
    }

    fn send(&mut self, line: &str) -> bool {
        let sent = self
            .stdin
            .as_mut()
            .map(|w| w.write_all(line.as_bytes()).and_then(|()| w.flush()));
        matches!(sent, Some(Ok(())))
    }

    /// The next answer before `deadline`, or how the call ended without one.
    fn next_answer(&mut self, deadline: Instant) -> Result<Answer, Called> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.answers.recv_timeout(left) {
            Ok(Answer::Panic(message, todo)) => {
                self.stop();
                Err(Called::Panicked { message, todo })
            }
            Ok(Answer::Closed) | Err(RecvTimeoutError::Disconnected) => Err(self.ended()),
            Ok(Answer::Garbled(line)) => {
                self.stop();
                Err(Called::Garbled(line))
            }
            Ok(a) => Ok(a),
            Err(RecvTimeoutError::Timeout) => {
                self.stop();
                Err(Called::TimedOut)
            }
        }
    }

    fn unexpected(&mut self, _answer: Answer) -> Called {
        self.stop();
        Called::Garbled("an answer out of order".into())
    }

    /// How the driver ended, once its answer channel closed.
    fn ended(&mut self) -> Called {
        self.over = true;
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return Called::Crashed(describe(status)),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => {
                    self.stop();
                    return Called::Crashed("stopped answering".into());
                }
            }
        }
    }

    fn stop(&mut self) {
        self.over = true;
        child::kill_group(&mut self.child);
    }

    /// Ends the driver (its stdin closed, then stopped if it lingers) and returns what the
    /// student's code printed, and how the driver exited where it did by itself.
    pub fn finish(mut self, grace: Duration) -> (Captured, Option<ExitStatus>) {
        if let Some(f) = self.paused.take() {
            f.thaw();
        }
        self.stdin = None;
        let deadline = Instant::now() + grace;
        let mut status = None;
        while Instant::now() < deadline {
            if let Ok(Some(s)) = self.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // Whatever it started ends with it.
        child::kill_group(&mut self.child);
        let printed = self.stderr.take().map(Drain::finish).unwrap_or_default();
        (printed, status)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        child::kill_group(&mut self.child);
    }
}

/// When a call started: at `go`, if the driver's CPU time while it made the inputs
/// (`prepared_ns`, read from outside) is what making them takes (four times the grader's own
/// `gen_ms`, and 5 ms, for a busy machine); else at the request (`asked`), since something
/// else ran before `go`: code that began the product early.
fn start_of(asked: Instant, go: Instant, prepared_ns: Option<u64>, gen_ms: f64) -> Instant {
    let allowed = (4.0 * gen_ms + 5.0) * 1e6;
    match prepared_ns {
        Some(ns) if (ns as f64) <= allowed => go,
        _ => asked,
    }
}

/// A fresh problem for a call, from a seed, and how long making its inputs took here (the
/// driver makes the same ones).
pub fn problem(shape: Shape, seed: u64) -> (Problem, f64) {
    let t = Instant::now();
    let p = Problem::random(shape, seed);
    (p, t.elapsed().as_secs_f64() * 1e3)
}

/// The arguments of a driver: mode, the function's index, rayon's threads.
pub fn driver_args(mode: Mode, function: usize, threads: usize) -> Vec<String> {
    vec![
        mode.word().to_string(),
        function.to_string(),
        threads.to_string(),
    ]
}

/// The memory a driver writes C into: an anonymous memory file of [`C_BYTES`] (its pages
/// exist only once written), sealed at that size so that the driver can neither shrink it
/// under the grader's reads nor grow it, and closed on exec except in the driver, which gets
/// it as [`C_FD`].
#[cfg(target_os = "linux")]
fn c_memory() -> std::io::Result<File> {
    use std::os::unix::io::FromRawFd as _;
    let name = c"lab-c";
    // SAFETY: memfd_create takes a NUL-terminated name and flags and returns a new
    // descriptor, owned from here on by the File alone.
    let file = unsafe {
        let fd = libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        File::from_raw_fd(fd)
    };
    file.set_len(C_BYTES as u64)?;
    use std::os::unix::io::AsRawFd as _;
    let seals = libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_SEAL;
    // SAFETY: fcntl on a descriptor this function owns.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

/// Without memory files: a file in the system's temporary folder, removed at once (only the
/// grader and the driver hold it). It cannot be sealed, but the grader reads it with pread,
/// so a driver that shrinks it makes the read fail, not the grader crash.
#[cfg(not(target_os = "linux"))]
fn c_memory() -> std::io::Result<File> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static MADE: AtomicU64 = AtomicU64::new(0);
    let path = std::env::temp_dir().join(format!(
        "lab-c-{}-{}",
        std::process::id(),
        MADE.fetch_add(1, Ordering::Relaxed)
    ));
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create_new(true)
        .open(&path)?;
    std::fs::remove_file(&path)?;
    file.set_len(C_BYTES as u64)?;
    Ok(file)
}

fn first_child(pid: u32) -> Option<u32> {
    std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

fn comm(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|s| s.trim().to_string())
}

fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt as _;
        if let Some(sig) = status.signal() {
            let name = match sig {
                libc::SIGSEGV => "SIGSEGV, a segmentation fault (often a stack overflow)",
                libc::SIGABRT => "SIGABRT, an abort (a double panic or an allocation failure)",
                libc::SIGKILL => "SIGKILL, killed (possibly out of memory)",
                libc::SIGILL => "SIGILL, an illegal instruction",
                _ => "a signal",
            };
            return format!("ended by signal {sig}: {name}");
        }
    }
    format!("exited with {status}")
}

pub use crate::harness::matrix::secret_seed;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_before_go_times_the_call_from_the_request() {
        let asked = Instant::now();
        let go = asked + Duration::from_millis(3);
        // 2 ms of CPU making 1 ms worth of inputs: the call starts at `go`.
        assert_eq!(start_of(asked, go, Some(2_000_000), 1.0), go);
        // 40 ms of CPU before `go`: the product began early.
        assert_eq!(start_of(asked, go, Some(40_000_000), 1.0), asked);
        // No reading of the driver's CPU time: the safe side.
        assert_eq!(start_of(asked, go, None, 1.0), asked);
    }
}
