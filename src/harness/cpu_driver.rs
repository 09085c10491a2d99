//! The `main` of a student's CPU crate. The grader builds the student's lesson file into a
//! small crate of its own (rayon its only dependency) together with a copy of this file, and
//! runs it once per problem: `driver REQUEST RESPONSE`. This file is also compiled into the
//! course, so it is linted and tested like the rest; it may use only std and rayon.
//!
//! The request holds one problem (A and B) and how to run it; the response holds C, the time
//! of every repetition, and where the CPU time went. Whatever the student's code prints goes
//! to stdout and stderr, which the grader only shows; the verdict is computed by the grader
//! from C.

use std::io::{Read, Write};
use std::time::Instant;

/// The signature of every CPU lesson's functions.
pub type Matmul = fn(&[f32], &[f32], &mut [f32], usize, usize, usize);

/// First line of a request and of a response.
pub const MAGIC: &str = "lab-cpu 1";

/// How to run the problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Job {
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
            "{MAGIC}\n{} {} {} {} {} {}\n",
            self.function, self.m, self.n, self.k, self.reps, self.threads
        )
    }

    pub fn parse(line: &str) -> Option<Job> {
        let v: Vec<usize> = line
            .split_whitespace()
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        match v[..] {
            [function, m, n, k, reps, threads] => Some(Job {
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

/// CPU time each thread of the process spent in one call, in ns (Linux only).
pub fn thread_times() -> Option<Vec<(u64, u64)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc/self/task").ok()? {
        let entry = entry.ok()?;
        let tid: u64 = entry.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(entry.path().join("schedstat")).ok()?;
        let ns: u64 = stat.split_whitespace().next()?.parse().ok()?;
        out.push((tid, ns));
    }
    Some(out)
}

/// Per-thread CPU time between two snapshots, largest first, threads that did nothing left
/// out.
pub fn thread_work(before: &[(u64, u64)], after: &[(u64, u64)]) -> Vec<u64> {
    let mut work: Vec<u64> = after
        .iter()
        .map(|&(tid, ns)| {
            let was = before.iter().find(|b| b.0 == tid).map_or(0, |b| b.1);
            ns.saturating_sub(was)
        })
        .filter(|&ns| ns > 0)
        .collect();
    work.sort_unstable_by(|a, b| b.cmp(a));
    work
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
    // A panic is the student's failure to report, not ours: keep its message quietly.
    let message = std::sync::Arc::new(std::sync::Mutex::new(None::<String>));
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
        if let Ok(mut m) = slot.lock() {
            m.get_or_insert(format!("{text}{place}"));
        }
    }));

    let mut c = vec![f32::NAN; job.m * job.n];
    let mut times = Vec::with_capacity(job.reps + 1);
    let mut work = Vec::new();
    let mut status = String::from("ok");
    for rep in 0..=job.reps {
        if rep > 0 {
            c.fill(f32::NAN);
        }
        let before = thread_times();
        let t = Instant::now();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            lab_measured_call(f, &a, &b, &mut c, &job)
        }));
        times.push(t.elapsed().as_nanos());
        if rep == 0 {
            if let (Some(b), Some(a)) = (before, thread_times()) {
                work = thread_work(&b, &a);
            }
        }
        if r.is_err() {
            let m = message.lock().ok().and_then(|m| m.clone());
            status = format!(
                "panic `{name}` panicked: {}",
                m.unwrap_or_default().replace('\n', " ")
            );
            break;
        }
    }
    let mut out = format!("{MAGIC}\nstatus {status}\ntimes");
    for t in &times {
        out.push_str(&format!(" {t}"));
    }
    out.push_str("\nwork");
    for w in &work {
        out.push_str(&format!(" {w}"));
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
    fn job_headers_round_trip() {
        let j = Job {
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
    fn thread_work_is_the_difference_largest_first() {
        let before = [(1, 100), (2, 50)];
        let after = [(1, 150), (2, 250), (3, 10)];
        assert_eq!(thread_work(&before, &after), vec![200, 50, 10]);
    }
}
