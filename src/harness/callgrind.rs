//! How CPU code walks memory, measured by valgrind's callgrind with a simulated cache, and
//! judged against two reference kernels measured the same way.
//!
//! One process per kernel: the student's driver ([`super::cpu_driver`]) makes the problem,
//! then switches callgrind's instrumentation on with a client request, calls the kernel
//! once, and switches it off, so that only the call is counted (in every thread; a
//! `--toggle-collect` on a function would count the calling thread only):
//!
//! ```text
//! valgrind --tool=callgrind --cache-sim=yes \
//!     --I1=32768,8,64 --D1=32768,8,64 --LL=1048576,16,64 \
//!     --instr-atstart=no --callgrind-out-file=OUT  DRIVER callgrind FUNCTION THREADS
//! ```
//!
//! The cache geometry is given, never taken from the host, so the counts are the same on
//! every machine that runs the same binary (to a few hundredths of a per cent).

use std::fmt;

use super::matrix::Shape;

/// Event totals of one callgrind run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    pub events: Vec<String>,
    pub values: Vec<u64>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ParseError {
    /// No `events:` line: not a callgrind output file.
    NoEvents,
    /// No `totals:` or `summary:` line.
    NoTotals,
    /// A total that is not a number.
    BadNumber(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::NoEvents => write!(f, "not a callgrind output file (no `events:` line)"),
            ParseError::NoTotals => {
                write!(f, "callgrind output has no `totals:` or `summary:` line")
            }
            ParseError::BadNumber(s) => write!(
                f,
                "callgrind output has a total that is not a number: {s:?}"
            ),
        }
    }
}

impl Counts {
    /// The total of one event (`Ir`, `Dr`, `D1mr`, ...); 0 when the run did not count it.
    pub fn get(&self, event: &str) -> u64 {
        self.events
            .iter()
            .position(|e| e == event)
            .and_then(|i| self.values.get(i))
            .copied()
            .unwrap_or(0)
    }
}

/// Reads the event totals from the text of a callgrind output file. `totals:` (written at
/// the end) wins over `summary:` (in the header); values missing at the end of the line
/// are zero, as in callgrind's cost lines.
pub fn parse_totals(text: &str) -> Result<Counts, ParseError> {
    let mut events = None;
    let mut totals = None;
    let mut summary = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("events:") {
            events = Some(
                rest.split_ascii_whitespace()
                    .map(str::to_owned)
                    .collect::<Vec<_>>(),
            );
        } else if let Some(rest) = line.strip_prefix("totals:") {
            totals = Some(rest.to_owned());
        } else if let Some(rest) = line.strip_prefix("summary:") {
            summary = Some(rest.to_owned());
        }
    }
    let events = events.ok_or(ParseError::NoEvents)?;
    let line = totals.or(summary).ok_or(ParseError::NoTotals)?;
    let mut values = line
        .split_ascii_whitespace()
        .map(|v| {
            v.parse::<u64>()
                .map_err(|_| ParseError::BadNumber(v.to_owned()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    values.resize(events.len(), 0);
    Ok(Counts { events, values })
}

/// Per multiply-add figures of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PerFma {
    /// Instructions.
    pub ir: f64,
    /// Data reads + writes (one per load/store instruction, whatever its width).
    pub refs: f64,
    /// Data writes.
    pub writes: f64,
    /// First-level data cache misses (reads + writes).
    pub d1_miss: f64,
    /// Last-level cache misses on data (reads + writes).
    pub ll_miss: f64,
}

pub fn per_fma(c: &Counts, m: usize, n: usize, k: usize) -> PerFma {
    let f = (m * n * k) as f64;
    let g = |e: &str| c.get(e) as f64 / f;
    PerFma {
        ir: g("Ir"),
        refs: g("Dr") + g("Dw"),
        writes: g("Dw"),
        d1_miss: g("D1mr") + g("D1mw"),
        ll_miss: g("DLmr") + g("DLmw"),
    }
}

/// One behavioural comparison: where the student's figure lies between a reference that
/// uses the technique (`good`) and one that does not (`bad`), lower being better.
#[derive(Clone, Debug, PartialEq)]
pub enum Judgement {
    /// At or below the threshold, the geometric midpoint of the two references.
    Uses { value: f64, threshold: f64 },
    /// Above it.
    DoesNot { value: f64, threshold: f64 },
    /// The references are too close on this build to tell anything apart; nothing judged.
    CannotTell { good: f64, bad: f64 },
}

impl Judgement {
    pub fn passed(&self) -> bool {
        matches!(self, Judgement::Uses { .. })
    }
}

/// `value` judged between `good` and `bad` (both measured like `value`, lower is better).
/// The references must be at least `min_gap` times apart, else nothing is judged. The
/// threshold is their geometric midpoint, so a kernel passes only when it is nearer (by
/// ratio) to the reference that uses the technique.
pub fn judge(value: f64, good: f64, bad: f64, min_gap: f64) -> Judgement {
    if !(good > 0.0 && bad >= good * min_gap) {
        return Judgement::CannotTell { good, bad };
    }
    let threshold = (good * bad).sqrt();
    if value <= threshold {
        Judgement::Uses { value, threshold }
    } else {
        Judgement::DoesNot { value, threshold }
    }
}

/// Loop order (lesson 02, `matmul_ikj`): first-level data-cache misses per multiply-add at
/// [`LOOP_ORDER_SHAPE`], between the course's i-k-j (good) and i-j-k (bad) measured the
/// same way. Rows and the shared dimension are long enough (768, 800 cache lines: more than
/// the 512 lines of the simulated D1) that walking down any column misses at every step.
pub const LOOP_ORDER_SHAPE: Shape = Shape::new(768, 40, 800);

/// Cache blocking (lesson 02, `matmul_blocked`): last-level misses per multiply-add at
/// [`BLOCKING_SHAPE`], between the course's blocked (good) and plain i-k-j (bad) kernels.
/// B is 4 MB, four times the simulated 1 MiB LL, so without blocking every row of A
/// streams all of B from memory.
pub const BLOCKING_SHAPE: Shape = Shape::new(32, 1040, 1000);

/// The references must differ at least this much, or the build cannot tell them apart.
pub const MIN_GAP: f64 = 4.0;

pub fn loop_order(student: &Counts, ikj: &Counts, ijk: &Counts, s: Shape) -> Judgement {
    let d1 = |c| per_fma(c, s.m, s.n, s.k).d1_miss;
    judge(d1(student), d1(ikj), d1(ijk), MIN_GAP)
}

pub fn blocking(student: &Counts, blocked: &Counts, ikj: &Counts, s: Shape) -> Judgement {
    let ll = |c| per_fma(c, s.m, s.n, s.k).ll_miss;
    judge(ll(student), ll(blocked), ll(ikj), MIN_GAP)
}

/// What valgrind's stderr says when the run could not be measured, as a sentence for the
/// student; None when nothing is wrong.
pub fn run_problem(stderr: &str, exit_ok: bool) -> Option<String> {
    if stderr.contains("unhandled instruction bytes") {
        return Some(
            "valgrind cannot run an instruction in your code (AVX-512 or newer): the cache \
             check needs code built for x86-64-v3 or older; remove target-feature or \
             std::arch uses beyond AVX2 from this lesson"
                .into(),
        );
    }
    if !exit_ok {
        return Some("your code failed under valgrind; see its output".into());
    }
    None
}

/// Whether this machine can run the check, and if not the verdict's sentence.
pub fn unavailable(os: &str, valgrind_version: Option<&str>) -> Option<String> {
    if os != "linux" {
        return Some(format!(
            "not checked: the loop-order and blocking checks simulate the cache with valgrind, \
             which runs on Linux only (this is {os}); your result is checked, the technique is not"
        ));
    }
    match valgrind_version.and_then(|v| v.trim().strip_prefix("valgrind-")) {
        None => Some(
            "not checked: valgrind is not installed (Debian/Ubuntu: apt install valgrind); \
             your result is checked, the technique is not"
                .into(),
        ),
        Some(v) => {
            let mut it = v.split('.').map(|x| x.parse::<u32>().unwrap_or(0));
            let (maj, min) = (it.next().unwrap_or(0), it.next().unwrap_or(0));
            if (maj, min) < (3, 15) {
                Some(format!(
                    "not checked: valgrind {v} is too old (3.15 or newer needed)"
                ))
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 4242
cmd:  ./target/release/ref_ikj call 32 1024 1024
part: 1

desc: I1 cache: 32768 B, 64 B, 8-way associative
desc: D1 cache: 32768 B, 64 B, 8-way associative
desc: LL cache: 1048576 B, 64 B, 16-way associative

desc: Timerange: Basic block 0 - 123456
desc: Trigger: Program termination

positions: line
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
summary: 100 40 20 3 8 2 1 4 1


totals: 1000 400 200 3 80 20 1 40 10
fl=(1) ???
fn=(1) gemm_lab_measured_call
0 1000 400 200 3 80 20 1 40 10
";

    #[test]
    fn totals_win_over_summary() {
        let c = parse_totals(SAMPLE).unwrap();
        assert_eq!(c.get("Ir"), 1000);
        assert_eq!(c.get("D1mr"), 80);
        assert_eq!(c.get("DLmw"), 10);
        assert_eq!(c.get("Bc"), 0);
    }

    #[test]
    fn summary_when_no_totals() {
        let text = SAMPLE.replace("totals:", "x:");
        assert_eq!(parse_totals(&text).unwrap().get("Ir"), 100);
    }

    #[test]
    fn short_totals_line_pads_with_zero() {
        let c = parse_totals("events: Ir Dr Dw\ntotals: 5\n").unwrap();
        assert_eq!((c.get("Ir"), c.get("Dr"), c.get("Dw")), (5, 0, 0));
    }

    #[test]
    fn errors() {
        assert_eq!(parse_totals("totals: 1"), Err(ParseError::NoEvents));
        assert_eq!(parse_totals("events: Ir\n"), Err(ParseError::NoTotals));
        assert_eq!(
            parse_totals("events: Ir\ntotals: x\n"),
            Err(ParseError::BadNumber("x".into()))
        );
    }

    #[test]
    fn per_fma_figures() {
        let c = parse_totals(SAMPLE).unwrap();
        let f = per_fma(&c, 10, 10, 1);
        assert_eq!(f.ir, 10.0);
        assert_eq!(f.refs, 6.0);
        assert_eq!(f.d1_miss, 1.0);
        assert_eq!(f.ll_miss, 0.5);
    }

    fn counts(d1: u64, ll: u64) -> Counts {
        Counts {
            events: "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw"
                .split(' ')
                .map(String::from)
                .collect(),
            values: vec![0, 0, 0, 0, d1, 0, 0, ll, 0],
        }
    }

    #[test]
    fn lesson_02_verdicts() {
        let s = Shape::new(10, 10, 10); // 1000 multiply-adds
        let (ikj, ijk) = (counts(64, 60), counts(1064, 60));
        assert!(loop_order(&counts(90, 60), &ikj, &ijk, s).passed());
        assert!(!loop_order(&counts(1000, 60), &ikj, &ijk, s).passed());
        let blocked = counts(64, 2);
        assert!(blocking(&counts(70, 3), &blocked, &ikj, s).passed());
        assert!(!blocking(&counts(64, 60), &blocked, &ikj, s).passed());
        // A build where blocking makes no difference judges nothing.
        assert!(matches!(
            blocking(&counts(64, 60), &counts(64, 50), &ikj, s),
            Judgement::CannotTell { .. }
        ));
    }

    #[test]
    fn availability_sentences() {
        assert!(unavailable("macos", None).unwrap().contains("Linux only"));
        assert!(unavailable("linux", None)
            .unwrap()
            .contains("not installed"));
        assert!(unavailable("linux", Some("valgrind-3.13.0\n"))
            .unwrap()
            .contains("too old"));
        assert_eq!(unavailable("linux", Some("valgrind-3.19.0\n")), None);
        assert!(
            run_problem("vex amd64->IR: unhandled instruction bytes: 0x62", false)
                .unwrap()
                .contains("AVX-512")
        );
        assert_eq!(run_problem("", true), None);
    }

    #[test]
    fn judged_at_the_geometric_midpoint() {
        // good 0.0625, bad 1.0: threshold 0.25
        assert_eq!(
            judge(0.25, 0.0625, 1.0, 4.0),
            Judgement::Uses {
                value: 0.25,
                threshold: 0.25
            }
        );
        assert!(!judge(0.26, 0.0625, 1.0, 4.0).passed());
        assert!(judge(0.01, 0.0625, 1.0, 4.0).passed());
        assert!(matches!(
            judge(0.01, 0.5, 1.0, 4.0),
            Judgement::CannotTell { .. }
        ));
        assert!(matches!(
            judge(0.01, 0.0, 1.0, 4.0),
            Judgement::CannotTell { .. }
        ));
    }
}
