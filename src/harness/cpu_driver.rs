//! The `main` of a student's CPU crate. The grader builds the student's lesson file into a
//! small crate of its own (rayon its only dependency) together with a copy of this file, and
//! starts it once per grading step, confined: `driver serve|callgrind FUNCTION THREADS`.
//!
//! The driver is a server with no say in the verdict. For each line `call SEED M N K` on its
//! stdin it makes A and B from the seed (C already holds what the grader put there before the
//! call: [`super::poison`]), answers `ready`, waits for
//! `go`, calls the student's function, and answers `done BYTES` (or `panic MESSAGE`,
//! `todo MESSAGE` for `todo!()`). C lives in memory the grader made and handed over as
//! descriptor [`C_FD`], so that the grader reads it where the student's code wrote it, after
//! pausing every thread of this process, instead of waiting for 16 MiB to crawl through a
//! pipe inside the timed call. Answers go to the stdout the driver was started with; the
//! student's own printing is moved to stderr, which the grader only shows. Everything else
//! (every time, every thread's CPU time, whether C is right) is measured by the grader from
//! outside this process ([`super::cpu_session`], [`super::cpu_watch`]): code running here can
//! delay or garble the answers, never make them say something the grader believes without
//! checking.

use std::io::{BufRead, Write};

/// The descriptor on which the driver finds the memory C is written into: a file of
/// [`C_BYTES`] bytes, made by the grader, which reads C from it.
pub const C_FD: i32 = 3;

/// The size of that memory: a 8192×8192 C, far past any graded size. A call whose C does
/// not fit is a bad line.
pub const C_BYTES: usize = 1 << 28;

/// The signature of every CPU lesson's functions.
pub type Matmul = fn(&[f32], &[f32], &mut [f32], usize, usize, usize);

/// How the driver runs each call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Plain calls, timed and watched from outside.
    Serve,
    /// Calls under valgrind's callgrind, its instrumentation switched on around each.
    Callgrind,
}

impl Mode {
    pub fn word(self) -> &'static str {
        match self {
            Mode::Serve => "serve",
            Mode::Callgrind => "callgrind",
        }
    }

    pub fn parse(word: &str) -> Option<Mode> {
        match word {
            "serve" => Some(Mode::Serve),
            "callgrind" => Some(Mode::Callgrind),
            _ => None,
        }
    }
}

/// One call asked of the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    pub seed: u64,
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

impl Call {
    pub fn line(&self) -> String {
        format!("call {} {} {} {}\n", self.seed, self.m, self.n, self.k)
    }

    pub fn parse(line: &str) -> Option<Call> {
        let mut w = line.split_whitespace();
        if w.next()? != "call" {
            return None;
        }
        let mut next = || w.next()?.parse::<u64>().ok();
        let c = Call {
            seed: next()?,
            m: next()? as usize,
            n: next()? as usize,
            k: next()? as usize,
        };
        // No product the grader asks for comes near this: a bad line, not a problem.
        (c.m.saturating_mul(c.k) < 1 << 28
            && c.k.saturating_mul(c.n) < 1 << 28
            && c.m.saturating_mul(c.n).saturating_mul(4) <= C_BYTES)
            .then_some(c)
    }
}

/// SplitMix64, the course's generator ([`super::matrix::Rng`]), repeated here because this
/// file may use only std and rayon; a test holds the two to the same matrices.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `len` values in [-1, 1) from `seed`: [`super::matrix::random`]'s matrices.
pub fn random(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..len)
        .map(|_| {
            let unit = (splitmix(&mut s) >> 40) as f32 / (1u64 << 24) as f32;
            2.0 * unit - 1.0
        })
        .collect()
}

/// A and B of a call: [`super::matrix::Problem::random`]'s.
pub fn inputs(call: &Call) -> (Vec<f32>, Vec<f32>) {
    (
        random(call.m * call.k, call.seed.wrapping_mul(2).wrapping_add(1)),
        random(call.k * call.n, call.seed.wrapping_mul(2).wrapping_add(2)),
    )
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

/// The one call a cache simulator measures.
#[inline(never)]
pub fn lab_measured_call(f: Matmul, a: &[f32], b: &[f32], c: &mut [f32], call: &Call) {
    let f = std::hint::black_box(f);
    f(a, b, c, call.m, call.n, call.k);
}

/// The answer channel: the stdout the driver was started with, kept on a descriptor of its
/// own, while descriptor 1 (the student's `println!`) is pointed at stderr.
#[cfg(unix)]
fn answers() -> Option<std::fs::File> {
    use std::os::unix::io::FromRawFd as _;
    extern "C" {
        fn dup(fd: i32) -> i32;
        fn dup2(from: i32, to: i32) -> i32;
    }
    // SAFETY: dup and dup2 take and return descriptor numbers; no memory is shared. The
    // duplicate is owned by the File alone.
    unsafe {
        let fd = dup(1);
        if fd < 0 || dup2(2, 1) < 0 {
            return None;
        }
        Some(std::fs::File::from_raw_fd(fd))
    }
}

#[cfg(not(unix))]
fn answers() -> Option<std::fs::File> {
    None
}

/// The grader's memory for C ([`C_FD`]), mapped shared: what is written here is what the
/// grader reads.
#[cfg(unix)]
fn c_memory() -> Option<&'static mut [f32]> {
    extern "C" {
        fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
    }
    // The same numbers on every Linux and BSD the course runs on.
    const PROT_READ_WRITE: i32 = 0x1 | 0x2;
    const MAP_SHARED: i32 = 0x01;
    // SAFETY: a fresh mapping of the whole file, which the grader sealed at that size (it
    // cannot shrink under us); it is never unmapped, so the slice lives as long as the
    // process, and only this function hands it out.
    unsafe {
        let p = mmap(
            std::ptr::null_mut(),
            C_BYTES,
            PROT_READ_WRITE,
            MAP_SHARED,
            C_FD,
            0,
        );
        if p.is_null() || p as isize == -1 {
            return None;
        }
        Some(std::slice::from_raw_parts_mut(p.cast::<f32>(), C_BYTES / 4))
    }
}

#[cfg(not(unix))]
fn c_memory() -> Option<&'static mut [f32]> {
    None
}

/// Serves calls until stdin ends. Returns the process's exit code: 0 when stdin ended, 2 for
/// a bad start or a bad line, 3 after a panic of the student's code (answered first).
pub fn main(functions: &[(&str, Matmul)]) -> i32 {
    let args: Vec<String> = std::env::args().collect();
    let parsed = (
        args.get(1).and_then(|w| Mode::parse(w)),
        args.get(2).and_then(|w| w.parse::<usize>().ok()),
        args.get(3).and_then(|w| w.parse::<usize>().ok()),
    );
    let (Some(mode), Some(index), Some(threads)) = parsed else {
        eprintln!(
            "usage: driver serve|callgrind FUNCTION THREADS (started by the course's grader)"
        );
        return 2;
    };
    let Some(&(name, f)) = functions.get(index) else {
        return 2;
    };
    let Some(mut out) = answers() else {
        return 2;
    };
    let Some(memory) = c_memory() else {
        eprintln!("driver: no memory for C on descriptor {C_FD} (started by the course's grader)");
        return 2;
    };
    if threads > 0 {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
    }
    // Every worker of the pool exists before the first call.
    rayon::broadcast(|_| ());
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
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    while let Some(line) = lines.next() {
        let Ok(line) = line else { return 2 };
        let Some(call) = Call::parse(&line) else {
            return 2;
        };
        let (a, b) = inputs(&call);
        let c = &mut memory[..call.m * call.n];
        // The grader wrote C's poison; touch every page of it, leaving it as it is, so that
        // no page is first mapped inside the timed call.
        for i in (0..c.len()).step_by(1024) {
            // SAFETY: `i` is inside `c`; a volatile read and write of the same value.
            unsafe {
                let p = c.as_mut_ptr().add(i);
                std::ptr::write_volatile(p, std::ptr::read_volatile(p));
            }
        }
        if out
            .write_all(b"ready\n")
            .and_then(|()| out.flush())
            .is_err()
        {
            return 2;
        }
        // The grader's clock starts when it says `go`.
        match lines.next() {
            Some(Ok(go)) if go == "go" => {}
            _ => return 2,
        }
        if mode == Mode::Callgrind {
            valgrind::request(valgrind::START_INSTRUMENTATION);
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lab_measured_call(f, &a, &b, c, &call)
        }));
        if mode == Mode::Callgrind {
            valgrind::request(valgrind::STOP_INSTRUMENTATION);
        }
        if r.is_err() {
            let (todo, m) = message
                .lock()
                .ok()
                .and_then(|m| m.clone())
                .unwrap_or_default();
            let text = format!(
                "{} `{name}` panicked: {}\n",
                if todo { "todo" } else { "panic" },
                m.replace('\n', " ")
            );
            let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
            return 3;
        }
        let answer = format!("done {}\n", 4 * call.m * call.n);
        if out
            .write_all(answer.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return 2;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::matrix::{Problem, Shape};

    #[test]
    fn the_driver_makes_the_graders_matrices() {
        let call = Call {
            seed: 0xDEAD_BEEF,
            m: 3,
            n: 5,
            k: 7,
        };
        let (a, b) = inputs(&call);
        let p = Problem::random(Shape::new(3, 5, 7), call.seed);
        assert_eq!((a, b), (p.a, p.b));
    }

    #[test]
    fn call_lines_round_trip_and_refuse_nonsense() {
        let c = Call {
            seed: u64::MAX,
            m: 1,
            n: 2,
            k: 3,
        };
        assert_eq!(Call::parse(c.line().trim_end()), Some(c));
        assert_eq!(Call::parse("call 1 2 3"), None);
        assert_eq!(Call::parse("call 1 100000 100000 100000"), None);
        assert_eq!(Call::parse("done 4"), None);
    }
}
