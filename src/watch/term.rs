//! The keyboard for `lab watch`: single key presses when stdin is a terminal (its line
//! buffering and echo turned off, and put back on every way out), whole lines otherwise (a
//! pipe, a file, an editor's task runner), and Ctrl-C or a termination signal as a request to
//! quit that the watch loop sees, so that it ends its grading and restores the terminal
//! itself.

use std::io::Read as _;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;

/// What the keyboard says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Key {
    Char(char),
    /// stdin has ended: no more keys will come.
    End,
}

/// Set by the signal handler; read by the watch loop.
static QUIT: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C (or SIGTERM, SIGHUP) asked to quit.
pub fn quit_asked() -> bool {
    QUIT.load(Ordering::SeqCst)
}

extern "C" fn on_signal(_: libc::c_int) {
    // Only an atomic store: the one kind of work a signal handler may safely do.
    QUIT.store(true, Ordering::SeqCst);
}

/// Makes Ctrl-C, SIGTERM and SIGHUP set [`quit_asked`] instead of ending the process at once,
/// which would leave the terminal without echo and a grading worker running.
pub fn catch_quit_signals() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe {
            libc::signal(sig, on_signal as *const () as libc::sighandler_t);
        }
    }
}

/// The terminal in key-at-a-time mode while this lives; its settings as they were when
/// dropped.
pub struct Raw {
    saved: libc::termios,
}

impl Raw {
    /// Turns off line buffering and echo on stdin when it is a terminal; `None` when it is
    /// not one (or refuses), and keys are then read as lines. Ctrl-C still sends SIGINT
    /// (ISIG stays on), which [`catch_quit_signals`] turns into a request to quit.
    pub fn enter() -> Option<Raw> {
        // SAFETY: isatty, tcgetattr and tcsetattr read or write only the termios value given
        // to them, which lives on this stack frame.
        unsafe {
            if libc::isatty(libc::STDIN_FILENO) != 1 {
                return None;
            }
            let mut saved: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(libc::STDIN_FILENO, &mut saved) != 0 {
                return None;
            }
            let mut raw = saved;
            raw.c_lflag &= !(libc::ICANON | libc::ECHO);
            raw.c_cc[libc::VMIN] = 1;
            raw.c_cc[libc::VTIME] = 0;
            if libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &raw) != 0 {
                return None;
            }
            Some(Raw { saved })
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: writes back the settings read in `enter`, from this value.
        unsafe {
            libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &self.saved);
        }
    }
}

/// Reads keys from stdin in a thread of its own, each sent to `keys`: every byte when the
/// terminal is in key-at-a-time mode (`raw`), else the first character of each line that has
/// one. Sends [`Key::End`] when stdin ends.
pub fn read_keys(raw: bool, keys: Sender<Key>) {
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut line = String::new();
        let mut byte = [0u8; 1];
        loop {
            let key = if raw {
                match stdin.read(&mut byte) {
                    Ok(0) | Err(_) => Key::End,
                    Ok(_) => Key::Char(char::from(byte[0])),
                }
            } else {
                line.clear();
                match std::io::BufRead::read_line(&mut stdin, &mut line) {
                    Ok(0) | Err(_) => Key::End,
                    Ok(_) => match line.trim().chars().next() {
                        Some(c) => Key::Char(c),
                        None => continue,
                    },
                }
            };
            let end = key == Key::End;
            if keys.send(key).is_err() || end {
                return;
            }
        }
    });
}
