//! Helpers for the graders under `tests/`: grade a lesson's solution, or a file that is wrong
//! on purpose, and assert what the student would read.
//!
//! A test makes its grader with [`grader`], which names its package's program as the
//! grading worker (Cargo builds it for every integration test). Each test file includes this
//! module (`mod common;`) and uses a part of it, hence the `dead_code` allowance.
//!
//! The graders are proved on a suite of [`Case`]s: one table per lesson (`tests/cases/`),
//! each case a realistic mistake (or a correct kernel in another style) and what the grader
//! must say about it. The lesson's test file checks its table with [`Grader::assert_cases`];
//! `tests/suite.rs` grades every table and records the result.
//!
//! [`student`] grades the student's own files, one `your_kernel` test per lesson.

#![allow(dead_code)]

pub mod student;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use lab::cli::Edge;
use lab::grade::{self, FailKind, Options, Source, Verdict};
use lab::ladder;
use lab::lesson::Lesson;
use lab::report;

/// How many times a case whose check found too few cores free is graded again, alone.
const ALONE_TRIES: usize = 3;

/// A grader for tests: the environment's device and seed, the course's program as worker.
#[derive(Clone, Debug)]
pub struct Grader {
    pub opts: Options,
}

/// The program Cargo builds for the integration tests of the package that includes this
/// module: the course's `lab`, or the teacher's or the bench's program, each its own grading
/// worker.
pub const WORKER: &str = match (
    option_env!("CARGO_BIN_EXE_lab"),
    option_env!("CARGO_BIN_EXE_lab-teacher"),
    option_env!("CARGO_BIN_EXE_lab-bench"),
) {
    (Some(lab), _, _) => lab,
    (None, Some(teacher), _) => teacher,
    (None, None, Some(bench)) => bench,
    (None, None, None) => panic!("tests/common is included by a package with no grading worker"),
};

/// The grader of an integration test: its package's program ([`WORKER`]) is its worker.
pub fn grader() -> Grader {
    Grader::new(WORKER)
}

impl Grader {
    /// A grader whose worker is the program at `worker`.
    pub fn new(worker: &str) -> Grader {
        let edge = Edge::from_env().expect("LAB_* variables the tests can read");
        Grader {
            opts: edge.options(PathBuf::from(worker), None),
        }
    }

    /// The same grader with other options.
    pub fn with(mut self, change: impl FnOnce(&mut Options)) -> Grader {
        change(&mut self.opts);
        self
    }

    /// The same grader with a short watchdog, for code that is meant to hang.
    pub fn impatient(self, secs: u64) -> Grader {
        self.with(|o| o.step_timeout = Duration::from_secs(secs))
    }

    /// Grades a lesson's file in a folder.
    pub fn grade_folder(&self, key: &str, dir: PathBuf) -> Verdict {
        grade::grade(ladder::get(key), &Source::Folder(dir), &self.opts)
    }

    /// Grades one file as a lesson's.
    pub fn grade_file(&self, key: &str, file: PathBuf) -> Verdict {
        assert!(file.is_file(), "missing test file {}", file.display());
        grade::grade(ladder::get(key), &Source::File(file), &self.opts)
    }

    /// Grades the reference answer and panics with the full report unless it passes.
    pub fn solution_passes(&self, key: &str) -> Verdict {
        let lesson = ladder::get(key);
        let v = self.grade_folder(key, self.opts.course.solutions());
        assert!(
            v.passed(),
            "the reference answer of lesson {} fails its own grader:\n{}",
            lesson.key,
            report::verdict(&v)
        );
        assert!(!v.cases.is_empty(), "the grader checked no case");
        v
    }

    /// A wrong-on-purpose file: `tests/wrong/<lesson name>/<name>.cl` (or `.rs`).
    pub fn wrong(&self, key: &str, name: &str) -> PathBuf {
        self.test_file("wrong", key, name)
    }

    /// A correct file in another style than the solution's:
    /// `tests/right/<lesson name>/<name>.cl` (or `.rs`).
    pub fn right(&self, key: &str, name: &str) -> PathBuf {
        self.test_file("right", key, name)
    }

    fn test_file(&self, folder: &str, key: &str, name: &str) -> PathBuf {
        let lesson = ladder::get(key);
        self.opts
            .course
            .tests()
            .join(folder)
            .join(lesson.name())
            .join(format!("{name}.{}", extension(lesson)))
    }

    /// Grades `tests/right/<lesson>/<name>` and asserts that it passes.
    pub fn accepts(&self, key: &str, name: &str) -> Verdict {
        let v = self.grade_file(key, self.right(key, name));
        assert!(
            v.passed(),
            "{name} is correct and must pass:\n{}",
            report::verdict(&v)
        );
        v
    }

    /// Grades `tests/wrong/<lesson>/<name>` and asserts that it fails with `kind` and a
    /// message containing every one of `words`.
    pub fn rejects(&self, key: &str, name: &str, kind: FailKind, words: &[&str]) -> Verdict {
        let file = self.wrong(key, name);
        self.rejects_file(key, name, file, kind, words)
    }

    /// Grades `file` and asserts that it fails with `kind` and every one of `words`.
    pub fn rejects_file(
        &self,
        key: &str,
        name: &str,
        file: PathBuf,
        kind: FailKind,
        words: &[&str],
    ) -> Verdict {
        let v = self.grade_file(key, file);
        let text = report::verdict(&v);
        assert_eq!(
            v.kind(),
            Some(kind),
            "{name}: expected a {kind:?} failure, got:\n{text}"
        );
        for w in words {
            assert!(
                v.message().contains(w),
                "{name}: the message should mention `{w}`:\n{text}"
            );
        }
        v
    }
}

/// A mutant of a lesson's reference answer: `solutions/<lesson file>` with each `(from, to)`
/// of `edits` replaced in turn, written to `<temp dir>/lab-mutants/<lesson name>/<name>.<ext>`
/// with a first line saying which edits made it. A wrong-on-purpose kernel written this way
/// follows the solution as it changes, and a change to the solution that the edits no longer
/// fit fails loudly.
///
/// Panics unless every `from` occurs exactly once in the text it is applied to.
pub fn mutant(opts: &Options, key: &str, name: &str, edits: &[(&str, &str)]) -> PathBuf {
    let lesson: &Lesson = ladder::get(key);
    let solution = opts.course.solutions().join(lesson.file_name());
    let mut text = std::fs::read_to_string(&solution)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", solution.display()));
    let mut made_by = Vec::new();
    for (i, (from, to)) in edits.iter().enumerate() {
        let found = text.matches(from).count();
        assert!(
            found == 1,
            "mutant {name} of {}: edit {} expects `{from}` exactly once, found it {found} time(s); \
             the solution changed, update the mutant",
            solution.display(),
            i + 1
        );
        text = text.replacen(from, to, 1);
        made_by.push(format!("`{}` -> `{}`", one_line(from), one_line(to)));
    }
    let dir = std::env::temp_dir().join("lab-mutants").join(lesson.name());
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    let ext = extension(lesson);
    let file = dir.join(format!("{name}.{ext}"));
    let header = format!(
        "// Mutant {name} of {}: {}\n",
        lesson.file_name(),
        made_by.join("; ")
    );
    let body = header + &text;
    // Test processes may write the same mutant at once: each writes its own file and
    // renames it into place, so a reader never sees half a file; and an unchanged mutant is
    // not rewritten, so a CPU mutant's build stays cached.
    if std::fs::read_to_string(&file).ok().as_deref() != Some(body.as_str()) {
        let part = dir.join(format!("{name}.{ext}.{}", std::process::id()));
        std::fs::write(&part, body)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", part.display()));
        std::fs::rename(&part, &file)
            .unwrap_or_else(|e| panic!("cannot move {} into place: {e}", file.display()));
    }
    file
}

/// `cl` or `rs`: the extension of the lesson's file.
fn extension(lesson: &Lesson) -> String {
    lesson
        .file_name()
        .rsplit('.')
        .next()
        .unwrap_or("cl")
        .to_string()
}

/// An edit's text on one line, for a mutant's first-line comment.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------
// The suite: cases as data (lab::grade::cases), each lesson's declared beside it

// Not every test program uses every name.
#[allow(unused_imports)]
pub use lab::grade::cases::{Case, Class, Code, Expect};

/// What the grader must say about `case`, in a few words: `reject: data race`, `accept`.
pub fn expected(case: &Case) -> String {
    match case.expect {
        Expect::Reject(kind, _) => format!("reject: {}", report::kind_word(kind)),
        Expect::RejectAny(kinds, _) => format!(
            "reject: {}",
            kinds
                .iter()
                .map(|&k| report::kind_word(k))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
        Expect::Accept => "accept".into(),
        Expect::Gap(_) => "reject (known gap)".into(),
    }
}

/// What the grader said about a case, and whether it is what the case expects.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub case: Case,
    pub verdict: Verdict,
    pub seconds: f64,
    /// Why the verdict is not what the case expects; `None` when it is.
    pub mismatch: Option<String>,
}

impl Outcome {
    pub fn agreed(&self) -> bool {
        self.mismatch.is_none()
    }

    /// The verdict in a few words: `passed`, or the failure's kind.
    pub fn got(&self) -> String {
        self.verdict
            .kind()
            .map_or_else(|| "passed".into(), report::kind_word)
    }
}

impl Grader {
    /// The file a case grades, written first if it is a mutant.
    pub fn case_file(&self, case: &Case) -> PathBuf {
        match case.code {
            Code::File(name) if case.is_wrong() => self.wrong(case.lesson, name),
            Code::File(name) => self.right(case.lesson, name),
            Code::Mutant(edits) => mutant(&self.opts, case.lesson, case.name, edits),
            Code::Solution(key) => self
                .opts
                .course
                .solutions()
                .join(ladder::get(key).file_name()),
        }
    }

    /// Grades a case and compares the verdict with what the case expects.
    pub fn outcome(&self, case: &Case) -> Outcome {
        let started = Instant::now();
        let file = self.case_file(case);
        let grader = match case.watchdog {
            Some(secs) => self.clone().impatient(secs),
            None => self.clone(),
        };
        let grader = match (case.timed, case.timed_at) {
            (Some(size), _) if case.scored => grader.with(|o| {
                o.time = Some(lab::harness::matrix::Shape::square(size));
                o.beside = true;
            }),
            (Some(size), Some([m, n, k])) => grader.with(|o| {
                o.time = Some(lab::harness::matrix::Shape::square(size));
                o.timed_shape = Some(lab::harness::matrix::Shape::new(m, n, k));
            }),
            // Exactly that size: a case's cheat is written for the shape it expects timed (a
            // drawn shape would make a shape-detecting cheat do honest work, and the case
            // would prove nothing).
            (Some(size), None) => grader.with(|o| {
                o.time = Some(lab::harness::matrix::Shape::square(size));
                o.time_exactly = true;
            }),
            (None, _) => grader,
        };
        let grader = match case.strict {
            true => grader.with(|o| o.strict = true),
            false => grader,
        };
        let verdict = if file.is_file() {
            grader.grade_file(case.lesson, file)
        } else {
            let lesson = ladder::get(case.lesson);
            Verdict::failed(
                lesson,
                &file,
                grade::Failure::new(
                    FailKind::Missing,
                    format!("the case's file {} does not exist", file.display()),
                ),
            )
        };
        let mismatch = mismatch(case, &verdict);
        Outcome {
            case: *case,
            verdict,
            seconds: started.elapsed().as_secs_f64(),
            mismatch,
        }
    }

    /// `o`, or, if it is not what its case expects because a check found too few cores free to
    /// judge, the case graded again, up to [`ALONE_TRIES`] times. Still unjudged then, it is
    /// inconclusive: not the decoy's pass, nor the reference's failure. A case whose simulator
    /// ran out of time beside the others is graded again alone too (the simulator runs on one
    /// core, and cases graded side by side share them), but stays a mismatch if it never
    /// finishes: a kernel that keeps the simulator from finishing is no pass.
    fn judged(&self, mut o: Outcome) -> Outcome {
        let unjudged = |o: &Outcome| o.verdict.unchecked_parts().contains(&grade::Part::Threads);
        let slow = |o: &Outcome| {
            (o.verdict.unchecked.iter()).any(|u| u.why.contains("it did not finish within"))
        };
        for _ in 0..ALONE_TRIES {
            if o.mismatch.is_none() || !(unjudged(&o) || slow(&o)) {
                return o;
            }
            o = self.outcome(&o.case);
        }
        if o.mismatch.is_some() && unjudged(&o) && o.verdict.passed() {
            o.mismatch = None;
        }
        o
    }

    /// Grades a case: its verdict if it is what the case expects, else a readable error with
    /// the whole verdict.
    pub fn check(&self, case: &Case) -> Result<Verdict, String> {
        let o = self.judged(self.outcome(case));
        match o.mismatch {
            None => Ok(o.verdict),
            Some(why) => Err(why),
        }
    }

    /// Grades every case, a few at a time, in the order given. `LAB_CASE=word` keeps only
    /// the cases whose name contains `word`.
    pub fn outcomes(&self, cases: &[Case]) -> Vec<Outcome> {
        let only = std::env::var("LAB_CASE").ok();
        let todo: Vec<(usize, &Case)> = cases
            .iter()
            .filter(|c| only.as_deref().is_none_or(|w| c.name.contains(w)))
            .enumerate()
            .collect();
        let jobs = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4);
        let next = Mutex::new(todo.into_iter());
        let done = Mutex::new(Vec::new());
        std::thread::scope(|s| {
            for _ in 0..jobs {
                s.spawn(|| loop {
                    let Some((i, case)) = next.lock().unwrap_or_else(|e| e.into_inner()).next()
                    else {
                        break;
                    };
                    let o = self.outcome(case);
                    done.lock().unwrap_or_else(|e| e.into_inner()).push((i, o));
                });
            }
        });
        let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
        done.sort_by_key(|(i, _)| *i);
        // Graded a few at a time, the cases keep the machine busy: a case that a check could not
        // judge for want of free cores is graded again, alone.
        let done: Vec<(usize, Outcome)> =
            done.into_iter().map(|(i, o)| (i, self.judged(o))).collect();
        done.into_iter().map(|(_, o)| o).collect()
    }

    /// Grades every case and panics with every mismatch at once, each with its verdict.
    /// `LAB_SHOW=1` prints every verdict.
    pub fn assert_cases(&self, cases: &[Case]) {
        let outcomes = self.outcomes(cases);
        if std::env::var_os("LAB_SHOW").is_some() {
            for o in &outcomes {
                println!(
                    "case {} {} ({}), expected {}, got {} in {:.1} s:\n{}\n",
                    o.case.lesson,
                    o.case.name,
                    o.case.class.name(),
                    expected(&o.case),
                    o.got(),
                    o.seconds,
                    indent(&report::verdict(&o.verdict))
                );
            }
        }
        assert!(
            !outcomes.is_empty(),
            "no case to check (is LAB_CASE set to a name no case has?)"
        );
        let bad: Vec<String> = outcomes.iter().filter_map(|o| o.mismatch.clone()).collect();
        assert!(
            bad.is_empty(),
            "{} of {} cases are not graded as they expect:\n\n{}",
            bad.len(),
            outcomes.len(),
            bad.join("\n\n")
        );
    }
}

/// Why `v` is not what `case` expects, with the whole verdict; `None` when it is.
pub fn mismatch(case: &Case, v: &Verdict) -> Option<String> {
    let text = report::verdict(v);
    let head = format!(
        "case {} {} ({}), expected {}",
        case.lesson,
        case.name,
        case.class.name(),
        expected(case)
    );
    let mut why = Vec::new();
    let (kinds, words): (&[FailKind], &[&str]) = match &case.expect {
        Expect::Reject(kind, words) => (std::slice::from_ref(kind), words),
        Expect::RejectAny(kinds, words) => (kinds, words),
        _ => (&[], &[]),
    };
    match case.expect {
        Expect::Reject(..) | Expect::RejectAny(..) => {
            if !v.kind().is_some_and(|k| kinds.contains(&k)) {
                why.push(format!(
                    "got {}",
                    v.kind().map_or_else(|| "a pass".into(), report::kind_word)
                ));
            } else {
                for w in words {
                    if !v.message().contains(w) {
                        why.push(format!("the message does not mention `{w}`"));
                    }
                }
            }
        }
        Expect::Accept => {
            if !v.passed() {
                why.push("the correct code failed".into());
            }
        }
        Expect::Gap(_) => {
            if !v.passed() {
                why.push(format!(
                    "this known gap is closed: the grader now rejects it ({}); make the case a rejection",
                    report::kind_word(v.kind().unwrap_or(FailKind::Wrong))
                ));
            }
        }
    }
    for w in case.printed {
        if !v.printed.contains(w) {
            why.push(format!("what the code printed does not contain `{w}`"));
        }
    }
    if !case.printed.is_empty() && !text.contains("your code printed") {
        why.push("the report does not show what the code printed".into());
    }
    if why.is_empty() {
        None
    } else {
        Some(format!("{head}: {}.\n{}", why.join("; "), indent(&text)))
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A matrix unit's unordered prelude (`Host::unordered`) against its ordered one on the
/// grader's device: where the unit is the instruction, the same; elsewhere no barrier and no
/// exchange through local memory, line for line the unit's file `unit` (but for the model's
/// call, the last line starting with `call`, and one line back to the kernel's file), the same
/// note, and a kernel calling it (`kernel`) builds.
pub fn unordered_unit_waits_for_nobody(
    g: &Grader,
    ordered: lab::lesson::PreludeFn,
    unordered: lab::lesson::PreludeFn,
    unit: &str,
    call: &str,
    kernel: &str,
) {
    let gpu = lab::harness::device::Gpu::open(g.opts.device.as_deref()).expect("an OpenCL device");
    let (ordered, unordered) = (ordered(&gpu), unordered(&gpu));
    if ordered.source.contains("#define MMA_PTX 1") {
        assert_eq!(unordered.source, ordered.source);
        return;
    }
    assert!(ordered.source.contains("barrier(CLK_LOCAL_MEM_FENCE)"));
    assert!(
        !unordered.source.contains("barrier(") && !unordered.source.contains("scratch +"),
        "the unordered model still waits or exchanges:\n{}",
        unordered.source
    );
    assert_eq!(unordered.note, ordered.note);
    let unit: Vec<&str> = unit.lines().collect();
    let lines: Vec<&str> = unordered.source.lines().collect();
    assert_eq!(
        lines.len(),
        unit.len() + 1,
        "one line more: back to the kernel's file"
    );
    let model = unit.iter().rposition(|l| l.starts_with(call)).unwrap();
    let end = model
        + unit[model..]
            .iter()
            .position(|l| l.starts_with("// ANCHOR_END"))
            .unwrap();
    let head = ordered.source.lines().count() - unit.len() + 1;
    let same = |i: &usize| unit[*i] == lines[*i];
    let differ: Vec<usize> = (head..model)
        .chain(end..unit.len())
        .filter(|i| !same(i))
        .collect();
    assert!(differ.is_empty(), "lines moved: {differ:?}");
    let source = format!("{}\n{kernel}\n", unordered.source);
    let path = std::path::Path::new("unit.cl");
    lab::harness::program::build_source(&gpu, path, &source, &[], "").unwrap();
}
