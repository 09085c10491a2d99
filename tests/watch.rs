//! `lab watch` as a student meets it: in a real terminal (a pseudo-terminal opened by
//! util-linux's `script`), on a copy of the starters, on the machine's OpenCL device. An edit
//! that fixes the starter turns the lesson green within one grading, `h` shows the chapter's
//! hints one layer at a time, and a second `lab watch` remembers the pass from the progress
//! file and starts at the next lesson.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lab::harness::child::Scratch;
use lab::harness::paths::{self, Course};
use lab::watch::hints;

/// The longest any one step may take before the test fails with what the terminal showed: a
/// grading of the reference in a debug build on a busy 2-core machine takes about 15 s.
const STEP: Duration = Duration::from_secs(120);

/// `lab watch ARGS` in a pseudo-terminal: keys go in through `script`'s stdin, and what the
/// terminal shows is collected as it comes.
struct Session {
    child: Child,
    keys: ChildStdin,
    screen: Arc<Mutex<String>>,
    /// How far the test has read.
    read: usize,
}

impl Session {
    fn start(args: &str, progress: &Path) -> Session {
        let lab = env!("CARGO_BIN_EXE_lab");
        let mut child = Command::new("script")
            // -q: no "Script started" lines; -e: its exit status is the command's.
            .args([
                "-q",
                "-e",
                "-c",
                &format!("'{lab}' watch {args}"),
                "/dev/null",
            ])
            .env("LAB_PROGRESS", progress)
            .env_remove("LAB_KERNELS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting util-linux's `script`");
        let keys = child.stdin.take().unwrap();
        let mut out = child.stdout.take().unwrap();
        let screen = Arc::new(Mutex::new(String::new()));
        let shared = Arc::clone(&screen);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = out.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buf[..n]).replace('\r', "");
                shared.lock().unwrap().push_str(&text);
            }
        });
        Session {
            child,
            keys,
            screen,
            read: 0,
        }
    }

    fn screen(&self) -> String {
        self.screen.lock().unwrap().clone()
    }

    /// Waits until `text` shows after what was read so far, and reads up to its end; the
    /// line it is on is returned. Fails, with the screen, when it does not show within
    /// [`STEP`].
    fn expect(&mut self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if let Some(i) = screen[self.read..].find(text) {
                let at = self.read + i;
                self.read = at + text.len();
                let line_start = screen[..at].rfind('\n').map_or(0, |j| j + 1);
                let line_end = screen[at..].find('\n').map_or(screen.len(), |j| at + j);
                return screen[line_start..line_end].to_string();
            }
            if start.elapsed() > STEP {
                let _ = self.child.kill();
                panic!(
                    "`lab watch` did not show {text:?} within {STEP:?}; the terminal showed:\n{screen}"
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn press(&mut self, key: &str) {
        self.keys.write_all(key.as_bytes()).unwrap();
        self.keys.flush().unwrap();
    }

    /// Waits for the program to end and checks that it ended well.
    fn ends(mut self) {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(
                    status.success(),
                    "`lab watch` ended with {status}:\n{}",
                    self.screen()
                );
                return;
            }
            if start.elapsed() > STEP {
                let _ = self.child.kill();
                panic!("`lab watch` did not quit:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A failed test leaves no program behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Fails, saying why, where this machine cannot run the test: it needs `script` and an
/// OpenCL device, and passes on none of them silently.
fn requirements() {
    assert!(
        paths::on_path("script").is_some(),
        "this test drives `lab watch` in a pseudo-terminal through util-linux's `script`, which is not on PATH (Debian: apt-get install bsdutils)"
    );
    let edge = lab::cli::Edge::from_env().expect("LAB_* variables the tests can read");
    if let Err(e) = lab::harness::device::pick(edge.device.as_deref()) {
        panic!("this test grades an OpenCL lesson and needs an OpenCL device (scripts/setup.sh installs PoCL): {e:#}");
    }
}

/// A student's folder: a copy of the starters.
fn starters(into: &Path) -> PathBuf {
    let course = Course::from_env();
    let dir = into.join("kernels");
    std::fs::create_dir_all(&dir).unwrap();
    for f in std::fs::read_dir(course.kernels()).unwrap() {
        let f = f.unwrap().path();
        if f.is_file() {
            std::fs::copy(&f, dir.join(f.file_name().unwrap())).unwrap();
        }
    }
    dir
}

#[test]
fn a_fix_turns_green_hints_come_in_layers_and_progress_survives_a_restart() {
    requirements();
    let started = Instant::now();
    let tmp = Scratch::new("watch").unwrap();
    let dir = starters(&tmp.dir);
    let progress = tmp.dir.join("progress.json");
    let args = format!("--kernels '{}' --size 64", dir.display());
    let book = Course::from_env().book();
    let hints = hints::of_lesson(&book, "04_naive_kernel").unwrap();

    // (1) The starter, graded as it is: not started.
    let mut s = Session::start(&format!("04 {args}"), &progress);
    s.expect("━━ lesson 04 ");
    s.expect("NOT STARTED");
    s.expect("✗ lesson 04: not started");

    // (2) `h`, then `h` again: the chapter's first layer, then its second.
    s.press("h");
    s.expect(&format!("── Hint 1 of {}, lesson 04", hints.len()));
    s.expect(hints[0].text.lines().next().unwrap());
    s.press("h");
    s.expect(&format!("── Hint 2 of {}, lesson 04", hints.len()));
    s.expect(hints[1].text.lines().next().unwrap());

    // (3) The fix saved over the starter: one grading, and the lesson passes, with its speed
    // beside the reference's; the watch moves on.
    let fix = Course::from_env().solutions().join("04_naive_kernel.cl");
    let saved = s.read;
    std::fs::copy(fix, dir.join("04_naive_kernel.cl")).unwrap();
    let line = s.expect("✓ lesson 04 passes");
    assert!(line.contains("GFLOP/s, the reference "), "{line}");
    let since = s.screen()[saved..s.read].to_string();
    assert_eq!(since.matches("changed: grading").count(), 1, "{since}");
    assert!(since.contains("PASSED") && !since.contains("✗"), "{since}");
    s.expect("━━ lesson 05 ");

    // (4) Quit, while lesson 05 may still be grading.
    s.press("q");
    s.expect("quitting");
    s.ends();

    // (5) A new watch with the same progress file: lesson 04 is remembered, and it starts at
    // lesson 05.
    let mut s = Session::start(&args, &progress);
    let line = s.expect("passed before: ");
    assert!(line.contains("04 (passed on 20"), "{line}");
    s.expect("━━ lesson 05 ");
    s.press("q");
    s.expect("quitting");
    s.ends();

    let text = std::fs::read_to_string(&progress).unwrap();
    assert!(text.contains("\"04_naive_kernel\""), "{text}");
    eprintln!(
        "the watch test took {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

#[test]
fn without_a_terminal_keys_are_read_as_lines() {
    requirements();
    let tmp = Scratch::new("watch-lines").unwrap();
    let dir = starters(&tmp.dir);
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["watch", "04", "--size", "64", "--kernels"])
        .arg(&dir)
        .env("LAB_PROGRESS", tmp.dir.join("progress.json"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            // Typed lines, and the end of input after them.
            c.stdin.take().unwrap().write_all(b"h\n\nq\n")?;
            c.wait_with_output()
        })
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("── Hint 1 of") && text.contains("quitting"),
        "{text}"
    );
}

#[test]
fn a_lesson_that_is_not_there_is_named() {
    let out = Command::new(env!("CARGO_BIN_EXE_lab"))
        .args(["watch", "42"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("there is no lesson 42 to watch"), "{err}");
}
