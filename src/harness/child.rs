//! Running code that may hang, crash or print without end, in a child process: its output
//! captured (bounded, head and tail kept), its whole process group killed on a watchdog, and
//! a private event file as the only channel its parent believes.
//!
//! The event file is the sealed channel between a grader and its worker: whatever the code
//! under test prints goes to the child's stdout and stderr, which the parent only shows to the
//! student; verdicts travel in a file whose path the code under test is never told.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// How much of a stream is kept from its start and from its end, unless told otherwise.
pub const KEEP: usize = 4096;

/// What a child printed on one stream: its start and its end, and how much there was.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Captured {
    pub head: String,
    pub tail: String,
    /// Bytes printed in all; more than `head` and `tail` hold when the middle was dropped.
    pub total: u64,
}

impl Captured {
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The text, shortened to at most `lines` lines from each end, with a line saying how much
    /// was left out.
    pub fn shortened(&self, lines: usize) -> String {
        let whole = self.total as usize == self.head.len();
        let text = if whole {
            self.head.clone()
        } else {
            format!("{}\n…\n{}", self.head, self.tail)
        };
        let all: Vec<&str> = text.lines().collect();
        let mut out = if all.len() <= 2 * lines {
            all.join("\n")
        } else {
            format!(
                "{}\n… ({} more lines) …\n{}",
                all[..lines].join("\n"),
                all.len() - 2 * lines,
                all[all.len() - lines..].join("\n")
            )
        };
        if !whole {
            out.push_str(&format!("\n({} bytes in all)", self.total));
        }
        out
    }
}

/// A stream's head, its tail so far, and its length.
type Kept = Arc<Mutex<(Vec<u8>, Vec<u8>, u64)>>;

/// Reads a stream to its end in a thread, keeping its head and tail.
pub struct Drain {
    thread: JoinHandle<()>,
    data: Kept,
    keep: usize,
}

impl Drain {
    pub fn start(mut stream: impl Read + Send + 'static, keep: usize) -> Drain {
        let data = Arc::new(Mutex::new((Vec::new(), Vec::new(), 0u64)));
        let shared = Arc::clone(&data);
        let thread = std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let mut d = shared.lock().expect("capture lock");
                d.2 += n as u64;
                let room = keep.saturating_sub(d.0.len());
                let (to_head, rest) = buf[..n].split_at(room.min(n));
                d.0.extend_from_slice(to_head);
                d.1.extend_from_slice(rest);
                if d.1.len() > 2 * keep {
                    let cut = d.1.len() - keep;
                    d.1.drain(..cut);
                }
            }
        });
        Drain { thread, data, keep }
    }

    pub fn finish(self) -> Captured {
        let _ = self.thread.join();
        let d = self.data.lock().expect("capture lock");
        let tail_start = d.1.len().saturating_sub(self.keep);
        Captured {
            head: String::from_utf8_lossy(&d.0).into_owned(),
            tail: String::from_utf8_lossy(&d.1[tail_start..]).into_owned(),
            total: d.2,
        }
    }
}

/// How a supervised child ended.
#[derive(Debug)]
pub struct Ended {
    /// The exit status; `None` when the watchdog killed it.
    pub status: Option<ExitStatus>,
    pub stdout: Captured,
    pub stderr: Captured,
    pub elapsed: Duration,
}

impl Ended {
    pub fn killed(&self) -> bool {
        self.status.is_none()
    }
}

/// Set while a program that is leaving (or dropping a grading it no longer wants) asks every
/// supervised child to end: each is killed at its next tick, as its watchdog would kill it.
static STOPPING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Kills every child [`supervise`] runs, now and until `stop_children(false)`: a grading in
/// another thread then ends within a tick, its children with it (`lab watch` on quit).
pub fn stop_children(stop: bool) {
    STOPPING.store(stop, std::sync::atomic::Ordering::SeqCst);
}

/// What the watchdog decides on each tick.
pub enum Tick {
    Continue,
    /// Kill the child's whole process group now.
    Kill,
}

/// Has the child `cmd` starts lead a process group of its own, so that [`kill_group`] ends it
/// and everything it starts, and (Linux) end by SIGKILL when the thread that starts it ends.
/// A process in a group of its own outlives whoever started it: a worker stopped by its
/// parent's watchdog ends by SIGKILL and runs no destructor, and code under valgrind that
/// never finishes went on spinning a core for good, orphaned, after its grading was over.
/// Every child the course starts is started on the thread that waits for it or ends it.
pub fn own_group_ending_with_us(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        cmd.process_group(0);
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt as _;
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: between fork and exec only prctl and getppid run, both async-signal-safe;
        // they touch no memory.
        unsafe {
            cmd.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The thread may have ended before the signal was asked for.
                if libc::getppid() != parent {
                    return Err(std::io::Error::other("its parent had already ended"));
                }
                Ok(())
            });
        }
    }
}

/// Starts `cmd` in a process group of its own, ending with this thread
/// ([`own_group_ending_with_us`]), stdin closed, stdout and stderr captured (`keep` bytes
/// from each end of each), and calls `tick` every 50 ms until it exits; `Tick::Kill` kills the
/// group (the child and anything it started). Returns how it ended.
pub fn supervise(mut cmd: Command, keep: usize, mut tick: impl FnMut() -> Tick) -> Result<Ended> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    own_group_ending_with_us(&mut cmd);
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("starting {:?}", cmd.get_program()))?;
    let out = Drain::start(child.stdout.take().expect("piped stdout"), keep);
    let err = Drain::start(child.stderr.take().expect("piped stderr"), keep);
    let ended = ended_signal(&child);
    let status = loop {
        if let Some(s) = child.try_wait().context("waiting for a child process")? {
            break Some(s);
        }
        let stopping = STOPPING.load(std::sync::atomic::Ordering::SeqCst);
        if stopping || matches!(tick(), Tick::Kill) {
            kill_group(&mut child);
            break None;
        }
        // Woken as soon as the child ends, not at the next tick: a grading starts a dozen
        // children one after another, and a sleep would lose half a tick on each.
        if let Err(RecvTimeoutError::Disconnected) = ended.recv_timeout(TICK) {
            std::thread::sleep(TICK);
        }
    };
    // Grandchildren that outlive the child would hold the pipes open: end them too.
    #[cfg(unix)]
    if status.is_some() {
        kill_group(&mut child);
    }
    Ok(Ended {
        status,
        stdout: out.finish(),
        stderr: err.finish(),
        elapsed: started.elapsed(),
    })
}

/// How often [`supervise`] asks its watchdog.
const TICK: Duration = Duration::from_millis(50);

/// A message once `child` has ended, from a thread blocked until then; the child is left for
/// `try_wait` to reap (`WNOWAIT`). Where the wait is not available, the channel closes at once
/// and the caller sleeps its ticks.
fn ended_signal(child: &Child) -> Receiver<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    #[cfg(unix)]
    {
        let pid = child.id() as libc::id_t;
        std::thread::spawn(move || loop {
            // SAFETY: waitid(2) writes only `info`, which lives on this thread's stack.
            let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
            let r =
                unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
            if r == 0 {
                let _ = tx.send(());
            }
            // Interrupted: wait again. Any other error (the child already reaped): the
            // channel closes and the caller falls back to its ticks.
            if r != 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        });
    }
    #[cfg(not(unix))]
    let _ = (child, tx);
    rx
}

/// Runs `cmd` supervised with a fixed time limit, keeping `keep` bytes of each end of its
/// output.
pub fn run_with_limit(cmd: Command, limit: Duration, keep: usize) -> Result<Ended> {
    let start = Instant::now();
    supervise(cmd, keep, || {
        if start.elapsed() > limit {
            Tick::Kill
        } else {
            Tick::Continue
        }
    })
}

/// Kills a child started with [`supervise`] or in a process group of its own, and everything
/// it started, and reaps it.
pub fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        // SAFETY: kill(2) with a negative pid signals the process group the child leads
        // (it was started with process_group(0)); it touches no memory of ours.
        unsafe {
            libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The writing end of an event file: one JSON value per line, flushed as written.
pub struct EventWriter {
    file: File,
}

impl EventWriter {
    pub fn create(path: &Path) -> Result<EventWriter> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("opening the event file {}", path.display()))?;
        Ok(EventWriter { file })
    }

    pub fn send<T: Serialize>(&mut self, event: &T) -> Result<()> {
        let mut line = serde_json::to_vec(event).context("encoding an event")?;
        line.push(b'\n');
        self.file.write_all(&line).context("writing an event")?;
        self.file.flush().context("writing an event")
    }
}

/// The reading end of an event file: returns the complete lines written since the last call.
pub struct EventReader {
    path: PathBuf,
    offset: u64,
    partial: Vec<u8>,
}

impl EventReader {
    pub fn new(path: &Path) -> EventReader {
        EventReader {
            path: path.to_path_buf(),
            offset: 0,
            partial: Vec::new(),
        }
    }

    /// The new events; lines that do not parse are skipped (the file is private, so a bad
    /// line is a bug, not an attack, and must not stop the grading).
    pub fn poll<T: DeserializeOwned>(&mut self) -> Vec<T> {
        let Ok(mut f) = File::open(&self.path) else {
            return Vec::new();
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return Vec::new();
        }
        let mut fresh = Vec::new();
        if f.read_to_end(&mut fresh).is_err() {
            return Vec::new();
        }
        self.offset += fresh.len() as u64;
        self.partial.extend_from_slice(&fresh);
        let mut out = Vec::new();
        while let Some(pos) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=pos).collect();
            if let Ok(ev) = serde_json::from_slice(&line) {
                out.push(ev);
            }
        }
        out
    }
}

/// A private folder for one child's files (created 0700 on Unix), removed when dropped.
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub fn new(what: &str) -> Result<Scratch> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!(
            "lab-{what}-{}-{}-{nanos}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let mut b = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt as _;
            b.mode(0o700);
        }
        b.recursive(true)
            .create(&dir)
            .with_context(|| format!("creating {}", dir.display()))?;
        Ok(Scratch { dir })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn output_is_captured_head_and_tail() {
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "i=0; while [ $i -lt 5000 ]; do echo line $i; i=$((i+1)); done; echo bye >&2",
        ]);
        let e = run_with_limit(cmd, Duration::from_secs(20), KEEP).unwrap();
        assert!(e.status.unwrap().success());
        assert!(e.stdout.head.starts_with("line 0\n"));
        assert!(e.stdout.tail.ends_with("line 4999\n"));
        assert!(e.stdout.total > 40_000);
        assert_eq!(e.stderr.head, "bye\n");
        let short = e.stdout.shortened(2);
        assert!(
            short.contains("line 0")
                && short.contains("line 4999")
                && short.contains("bytes in all")
        );
    }

    #[test]
    fn a_hanging_group_is_killed() {
        let mut cmd = Command::new("sh");
        // The grandchild would outlive a plain kill of the shell.
        cmd.args(["-c", "sleep 100 & sleep 100"]);
        let e = run_with_limit(cmd, Duration::from_millis(300), KEEP).unwrap();
        assert!(e.killed());
        assert!(e.elapsed < Duration::from_secs(10));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_child_ends_with_the_thread_that_started_it() {
        // Started on a thread that then ends without waiting for it, as a worker killed by
        // its watchdog leaves the driver it started.
        let pid = std::thread::spawn(|| {
            let mut cmd = Command::new("sleep");
            cmd.arg("60");
            own_group_ending_with_us(&mut cmd);
            cmd.spawn().expect("sleep starts").id() as libc::pid_t
        })
        .join()
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut status = 0;
        // SAFETY: waitpid writes only `status`; the child is this process's own.
        while unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == 0 {
            if Instant::now() > deadline {
                // SAFETY: kill(2) signals the child; it touches no memory.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                panic!("the child outlived the thread that started it by 10 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL,
            "{status:#x}"
        );
    }

    #[test]
    fn events_arrive_line_by_line() {
        let s = Scratch::new("test-events").unwrap();
        let path = s.dir.join("events");
        let mut w = EventWriter::create(&path).unwrap();
        let mut r = EventReader::new(&path);
        assert!(r.poll::<u32>().is_empty());
        w.send(&1u32).unwrap();
        w.send(&2u32).unwrap();
        assert_eq!(r.poll::<u32>(), vec![1, 2]);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"3")
            .unwrap();
        assert!(r.poll::<u32>().is_empty(), "half a line is not an event");
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"\n")
            .unwrap();
        assert_eq!(r.poll::<u32>(), vec![3]);
    }
}
