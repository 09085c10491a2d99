//! Grading: run a lesson's code on seeded random problems, judge every result, and say
//! where and what is wrong. Each grading runs in a separate worker process, so a kernel that
//! hangs or crashes the OpenCL runtime becomes a failure with a message, not a hung or
//! crashed test run.

use std::io::{BufRead, BufReader, Read};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::device::Gpu;
use crate::exec::{GuardReport, Launch, RunOutput, Timing};
use crate::lessons::{self, CpuPart, Kind, Lesson, OclLesson};
use crate::matrix::{self, Comparison, Problem, Shape};
use crate::paths;
use crate::program::{self, BuildFailed, Define, SignatureMismatch};

/// Which code to grade.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// The student's file for the lesson in this folder.
    Student(PathBuf),
    /// The reference answer in `solutions/`.
    Solution,
    /// One kernel file (the graders' own wrong-on-purpose kernels).
    File(PathBuf),
}

impl Source {
    /// The default student folder: `LAB_KERNELS` or `kernels/`.
    pub fn student() -> Source {
        Source::Student(paths::kernels_dir())
    }

    /// The file this source means for a lesson.
    pub fn path(&self, lesson: &Lesson) -> PathBuf {
        match self {
            Source::Student(dir) => dir.join(lesson.file_name()),
            Source::Solution => paths::solutions_dir().join(lesson.file_name()),
            Source::File(p) => p.clone(),
        }
    }
}

/// What went wrong, as a category a test can assert on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FailKind {
    /// The untouched starter: nothing written yet.
    NotStarted,
    /// The file is not there.
    Missing,
    /// The kernel did not compile.
    Build,
    /// The kernel's name or argument list is not the lesson's.
    Signature,
    /// The launch or a runtime call failed.
    Runtime,
    /// C was never written (still NaN), in whole or in part.
    Unwritten,
    /// Elements of C are wrong.
    Wrong,
    /// Writes landed outside C.
    OutOfBounds,
    /// The kernel changed A or B.
    InputsChanged,
    /// The kernel did not finish in time.
    Hang,
    /// The worker died (a crash in the kernel or the runtime).
    Crash,
    /// Right answer, but not by the lesson's technique.
    Technique,
    /// The device cannot run the lesson (e.g. no image support).
    Unsupported,
    /// The lesson cannot be graded as asked (e.g. a size it does not handle).
    Setup,
}

/// A failed grading: the category and the message the student reads.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailKind,
    pub message: String,
}

impl Failure {
    pub fn new(kind: FailKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }
}

/// One checked problem.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseReport {
    pub shape: Shape,
    pub max_rel_err: f64,
    pub ms: f64,
}

/// The result of grading one lesson.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    pub lesson: String,
    pub file: PathBuf,
    pub device: Option<String>,
    pub cases: Vec<CaseReport>,
    pub failure: Option<Failure>,
    /// The timing asked for with [`Options::time`], if the lesson passed.
    pub timing: Option<(Shape, Timing)>,
}

impl Verdict {
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }

    pub fn kind(&self) -> Option<FailKind> {
        self.failure.as_ref().map(|f| f.kind)
    }

    pub fn message(&self) -> &str {
        self.failure.as_ref().map_or("", |f| f.message.as_str())
    }

    fn fail(lesson: &Lesson, file: &Path, failure: Failure) -> Verdict {
        Verdict {
            lesson: lesson.name(),
            file: file.to_path_buf(),
            device: None,
            cases: Vec::new(),
            failure: Some(failure),
            timing: None,
        }
    }
}

/// How to grade.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Options {
    /// `--device` / `LAB_DEVICE` selector.
    pub device: Option<String>,
    /// Longest wait for any one step (build, one problem, timing) before the kernel is
    /// declared hung.
    pub step_timeout: Duration,
    /// Sizes to check instead of the lesson's own.
    pub shapes: Option<Vec<Shape>>,
    /// Also time the code at this size once it passes.
    pub time: Option<Shape>,
    /// `-D` overrides on top of the lesson's defines.
    pub defines: Vec<Define>,
    /// Base seed of the random problems.
    pub seed: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            device: crate::device::selector(None),
            step_timeout: Duration::from_secs(120),
            shapes: None,
            time: None,
            defines: Vec::new(),
            seed: std::env::var("LAB_SEED")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(2024),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Judging one result

/// Row and column of a row-major index into an M×N matrix, as text.
fn at(idx: usize, cols: usize) -> String {
    format!("row {}, column {}", idx / cols.max(1), idx % cols.max(1))
}

/// Turns one run's output into a failure, or none. `starter` marks a file that still has
/// its TODO markers, so that a result with nothing written reads as "not started".
pub fn judge(
    lesson: &Lesson,
    shape: Shape,
    out: &RunOutput,
    cmp: &Comparison,
    starter: bool,
) -> Option<Failure> {
    let Shape { m, n, k } = shape;
    if !out.guard.clean() {
        return Some(Failure::new(
            FailKind::OutOfBounds,
            out_of_bounds(shape, &out.guard),
        ));
    }
    if let Some(i) = out.a_changed {
        return Some(Failure::new(
            FailKind::InputsChanged,
            format!("{shape}: the kernel wrote into A (first change at {}). A and B are inputs: only read them.", at(i, k)),
        ));
    }
    if let Some(i) = out.b_changed {
        return Some(Failure::new(
            FailKind::InputsChanged,
            format!("{shape}: the kernel wrote into B (first change at {}). A and B are inputs: only read them.", at(i, n)),
        ));
    }
    if cmp.checked > 0 && cmp.unwritten == cmp.checked {
        if starter {
            return Some(Failure::new(
                FailKind::NotStarted,
                format!(
                    "the kernel ran but wrote no element of C yet.\nHint: {}",
                    lesson.hint
                ),
            ));
        }
        return Some(Failure::new(
            FailKind::Unwritten,
            format!("{shape}: the kernel never wrote C: every element is still NaN, as the grader left it. Is the store to C missing, or guarded by a condition that is never true? Or does the code add into C without clearing it first (NaN plus anything is NaN)?"),
        ));
    }
    if let Some((r, c)) = cmp.first_unwritten {
        return Some(Failure::new(
            FailKind::Unwritten,
            format!(
                "{shape}: element (row {r}, column {c}) was never written (still NaN); {} of {} elements were not written. {}",
                cmp.unwritten,
                cmp.checked,
                coverage_hint(shape, r, c)
            ),
        ));
    }
    if let Some(bad) = &cmp.first_wrong {
        return Some(Failure::new(
            FailKind::Wrong,
            format!(
                "{shape}: C is wrong at row {}, column {}: expected {:.6}, got {:.6} (allowed error {:.2e}).\n{} of {} elements are wrong; max relative error {:.2e}.",
                bad.row, bad.col, bad.expected, bad.got, bad.allowed, cmp.wrong, cmp.checked, cmp.max_rel_err
            ),
        ));
    }
    let _ = m;
    None
}

fn coverage_hint(shape: Shape, r: usize, c: usize) -> String {
    if r + 1 == shape.m || c + 1 == shape.n || r > 0 || c > 0 {
        "Does the launch cover every row and column, including a last partial tile?".into()
    } else {
        String::new()
    }
}

fn out_of_bounds(shape: Shape, g: &GuardReport) -> String {
    let Shape { m, n, .. } = shape;
    let d = g.nearest_after.unwrap_or(0);
    let idx = m * n + d;
    format!(
        "{shape}: the kernel wrote outside C: {} element(s) after the end of C; the nearest is {d} past the end, where row {}, column {} would be. Check that every store to C is inside 0 ≤ row < M and 0 ≤ column < N, and that the row stride is N.",
        g.after,
        idx / n.max(1),
        idx % n.max(1)
    )
}

/// Whether the lesson's technique appears in the source (comments removed).
pub fn technique(lesson: &Lesson, source: &str) -> Option<Failure> {
    let ocl = lesson.ocl()?;
    let code = strip_comments(source);
    for t in ocl.uses {
        let count = code.matches(t.pattern).count();
        if count < t.min {
            let found = match count {
                0 => format!(
                    "the kernel never uses `{}`",
                    t.pattern.trim_end_matches('(')
                ),
                n => format!(
                    "the kernel uses `{}` {n} time(s), the lesson needs {}",
                    t.pattern.trim_end_matches('('),
                    t.min
                ),
            };
            return Some(Failure::new(
                FailKind::Technique,
                format!(
                    "lesson {} is about {}: {found}.\nHint: {}",
                    lesson.id(),
                    lesson.title.to_lowercase(),
                    t.hint
                ),
            ));
        }
    }
    None
}

/// Removes `//` and `/* */` comments from C source.
pub fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'/' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && i + 1 < b.len() && b[i + 1] == b'*' {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Whether a file still carries the starter's TODO markers.
pub fn is_starter(source: &str) -> bool {
    source.contains("TODO")
}

// ---------------------------------------------------------------------------------------
// Grading in this process (the worker's side)

/// Progress a worker reports, so the parent knows what was running when time ran out.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Event {
    Step(String),
    Done(Box<Verdict>),
}

/// Grades in this process, calling `progress` before each step. No protection against
/// hangs: use [`grade`], which runs this in a worker process.
pub fn grade_here(
    lesson: &Lesson,
    source: &Source,
    opts: &Options,
    progress: &mut dyn FnMut(String),
) -> Verdict {
    let file = source.path(lesson);
    match lesson.kind {
        Kind::Device => Verdict::fail(
            lesson,
            &file,
            Failure::new(FailKind::Setup, "lesson 00 has nothing to grade"),
        ),
        Kind::Cpu(parts) => grade_cpu(lesson, parts, source, &file, opts, progress),
        Kind::OpenCl(ocl) => match grade_ocl(lesson, ocl, source, &file, opts, progress) {
            Ok(v) => v,
            Err(e) => Verdict::fail(lesson, &file, classify(e)),
        },
    }
}

/// Sorts an error from the harness into a failure category.
pub fn classify(e: anyhow::Error) -> Failure {
    if let Some(b) = e.downcast_ref::<BuildFailed>() {
        return Failure::new(FailKind::Build, b.to_string());
    }
    if let Some(s) = e.downcast_ref::<SignatureMismatch>() {
        return Failure::new(FailKind::Signature, s.to_string());
    }
    Failure::new(FailKind::Runtime, format!("{e:#}"))
}

fn problem_seed(opts: &Options, case: usize) -> u64 {
    opts.seed.wrapping_mul(1_000_003).wrapping_add(case as u64)
}

fn grade_ocl(
    lesson: &Lesson,
    ocl: &OclLesson,
    source: &Source,
    file: &Path,
    opts: &Options,
    progress: &mut dyn FnMut(String),
) -> Result<Verdict> {
    if !file.is_file() {
        return Ok(Verdict::fail(
            lesson,
            file,
            Failure::new(
                FailKind::Missing,
                format!("{} does not exist", paths::display(file)),
            ),
        ));
    }
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("reading {}", paths::display(file)))?;
    let starter = matches!(source, Source::Student(_)) && is_starter(&text);
    let gpu = Gpu::open(opts.device.as_deref())?;
    let mut verdict = Verdict::fail(lesson, file, Failure::new(FailKind::Setup, ""));
    verdict.failure = None;
    verdict.device = Some(gpu.info.name.clone());
    if let Err(why) = ocl.supports(&gpu.info) {
        verdict.failure = Some(Failure::new(FailKind::Unsupported, format!("{why:#}")));
        return Ok(verdict);
    }
    let defines = lessons::with_overrides((ocl.defines)(&gpu.info), &opts.defines);
    progress(format!("building {}", paths::display(file)));
    let program = program::build_source(&gpu, file, &text, &defines, ocl.build_options)?;
    let kernel = program::kernel(&program, file, ocl.kernel, ocl.args)?;
    let shapes = opts
        .shapes
        .clone()
        .unwrap_or_else(|| (ocl.shapes)(&defines));
    // A missing technique (a barrier, say) often explains a wrong result: report it first,
    // unless the file is simply not started.
    let missing_technique = technique(lesson, &text);
    for (case, &shape) in shapes.iter().enumerate() {
        let launch: Launch = match (ocl.launch)(shape, &defines) {
            Ok(l) => l,
            Err(why) => {
                verdict.failure = Some(Failure::new(FailKind::Setup, why));
                return Ok(verdict);
            }
        };
        progress(format!(
            "running {shape} (global {:?}, local {:?})",
            launch.global, launch.local
        ));
        let p = Problem::random(shape, problem_seed(opts, case));
        let out = (ocl.host.run)(&gpu, &kernel, &p, &launch, &defines)?;
        let reference = matrix::reference(&p);
        let cmp = matrix::compare(shape, &out.c, &reference);
        if let Some(f) = judge(lesson, shape, &out, &cmp, starter) {
            verdict.failure = match (f.kind, &missing_technique) {
                (FailKind::NotStarted, _) | (_, None) => Some(f),
                (_, Some(t)) => Some(Failure::new(
                    t.kind,
                    format!("{}\n(It also fails: {})", t.message, f.message),
                )),
            };
            return Ok(verdict);
        }
        verdict.cases.push(CaseReport {
            shape,
            max_rel_err: cmp.max_rel_err,
            ms: out.kernel_ms,
        });
    }
    if let Some(f) = missing_technique {
        verdict.failure = Some(f);
        return Ok(verdict);
    }
    if let Some(asked) = opts.time {
        // Lessons limited to whole tiles are timed at the nearest size they accept.
        let (shape, launch) = timing_launch(ocl, asked, &defines)?;
        progress(format!("timing {shape}"));
        let p = Problem::random(shape, problem_seed(opts, 999));
        let t = (ocl.host.time)(&gpu, &kernel, &p, &launch, &defines, 1000.0)?;
        verdict.timing = Some((shape, t));
    }
    Ok(verdict)
}

/// The launch for timing at `asked`, or at the first larger size made of whole tiles.
fn timing_launch(ocl: &OclLesson, asked: Shape, defines: &[Define]) -> Result<(Shape, Launch)> {
    let mut why = String::new();
    for step in [1, 64, 128, 256, 512] {
        let s = Shape::new(
            lessons::round_up(asked.m, step),
            lessons::round_up(asked.n, step),
            lessons::round_up(asked.k, step),
        );
        match (ocl.launch)(s, defines) {
            Ok(l) => return Ok((s, l)),
            Err(e) if why.is_empty() => why = e,
            Err(_) => {}
        }
    }
    Err(anyhow::anyhow!(why))
}

/// The sizes the CPU lessons are checked at.
pub const CPU_SHAPES: [Shape; 4] = [
    Shape::new(1, 1, 1),
    Shape::new(7, 13, 5),
    Shape::new(64, 48, 80),
    Shape::new(131, 97, 150),
];

/// Runs a CPU function on a problem; a panic becomes its message.
pub fn run_cpu(f: lessons::MatmulFn, p: &Problem) -> Result<(Vec<f32>, f64), String> {
    let Shape { m, n, k } = p.shape;
    let mut c = vec![f32::NAN; m * n];
    let t = Instant::now();
    let prev = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let r = panic::catch_unwind(AssertUnwindSafe(|| f(&p.a, &p.b, &mut c, m, n, k)));
    panic::set_hook(prev);
    let ms = t.elapsed().as_secs_f64() * 1e3;
    match r {
        Ok(()) => Ok((c, ms)),
        Err(e) => Err(e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "a panic".into())),
    }
}

/// Checks one CPU function against the reference at the given sizes.
pub fn check_cpu_fn(
    lesson: &Lesson,
    name: &str,
    f: lessons::MatmulFn,
    shapes: &[Shape],
    seed: u64,
) -> (Vec<CaseReport>, Option<Failure>) {
    let mut cases = Vec::new();
    for (case, &shape) in shapes.iter().enumerate() {
        let p = Problem::random(
            shape,
            seed.wrapping_mul(1_000_003).wrapping_add(case as u64),
        );
        let (c, ms) = match run_cpu(f, &p) {
            Ok(x) => x,
            Err(msg) if msg.contains("not yet implemented") || msg.contains("not implemented") => {
                return (
                    cases,
                    Some(Failure::new(
                        FailKind::NotStarted,
                        format!("`{name}` still says `todo!()`.\nHint: {}", lesson.hint),
                    )),
                );
            }
            Err(msg) if msg.starts_with("LAB_MISSING_FILE") => {
                let path = msg.trim_start_matches("LAB_MISSING_FILE").trim();
                return (
                    cases,
                    Some(Failure::new(
                        FailKind::Missing,
                        format!("{path} does not exist"),
                    )),
                );
            }
            Err(msg) => {
                return (
                    cases,
                    Some(Failure::new(
                        FailKind::Crash,
                        format!("{shape}: `{name}` panicked: {msg}"),
                    )),
                );
            }
        };
        let reference = matrix::reference(&p);
        let cmp = matrix::compare(shape, &c, &reference);
        let out = RunOutput {
            c,
            guard: GuardReport::default(),
            a_changed: None,
            b_changed: None,
            kernel_ms: ms,
        };
        if let Some(mut f) = judge(lesson, shape, &out, &cmp, false) {
            f.message = format!("`{name}`: {}", f.message);
            return (cases, Some(f));
        }
        cases.push(CaseReport {
            shape,
            max_rel_err: cmp.max_rel_err,
            ms,
        });
    }
    (cases, None)
}

fn grade_cpu(
    lesson: &Lesson,
    parts: &[CpuPart],
    source: &Source,
    file: &Path,
    opts: &Options,
    progress: &mut dyn FnMut(String),
) -> Verdict {
    let mut verdict = Verdict::fail(lesson, file, Failure::new(FailKind::Setup, ""));
    verdict.failure = None;
    let student = match source {
        Source::Solution => false,
        Source::Student(dir) => {
            let built = paths::compiled_cpu_kernels_dir();
            if !paths::same_dir(dir, &built) {
                verdict.failure = Some(Failure::new(
                    FailKind::Setup,
                    format!(
                        "CPU lessons are Rust code compiled into the grader, which was built from {}. To grade {}, rebuild with LAB_KERNELS={} (for example `LAB_KERNELS={} cargo lab`).",
                        built.display(), dir.display(), dir.display(), dir.display()
                    ),
                ));
                return verdict;
            }
            true
        }
        Source::File(_) => {
            verdict.failure = Some(Failure::new(
                FailKind::Setup,
                "CPU lessons are graded from a folder, not a single file",
            ));
            return verdict;
        }
    };
    let shapes = opts.shapes.clone().unwrap_or_else(|| CPU_SHAPES.to_vec());
    for part in parts {
        progress(format!("checking {}", part.name));
        let f = if student {
            part.student
        } else {
            part.reference
        };
        let (cases, failure) = check_cpu_fn(lesson, part.name, f, &shapes, opts.seed);
        verdict.cases.extend(cases);
        if failure.is_some() {
            verdict.failure = failure;
            return verdict;
        }
    }
    if let Some(shape) = opts.time {
        // The last part is the lesson's final form (blocked, parallel).
        let part = parts.last().expect("a CPU lesson has at least one part");
        let f = if student {
            part.student
        } else {
            part.reference
        };
        progress(format!("timing {} at {shape}", part.name));
        let p = Problem::random(shape, problem_seed(opts, 999));
        let mut times = Vec::new();
        for _ in 0..3 {
            if let Ok((_, ms)) = run_cpu(f, &p) {
                times.push(ms);
            }
        }
        let ms = crate::exec::median(&mut times);
        verdict.timing = Some((
            shape,
            Timing {
                device_ms: ms,
                best_ms: ms,
                host_ms: ms,
                reps: 3,
            },
        ));
    }
    verdict
}

// ---------------------------------------------------------------------------------------
// Grading in a worker process (the parent's side)

/// Marks the lines of the worker's output that belong to the protocol.
pub const EVENT_PREFIX: &str = "LAB-EVENT ";

/// The worker binary: `LAB_WORKER`, else `lab-worker` beside this program or one folder up
/// (tests and benches run from `target/*/deps`).
pub fn worker_path() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("LAB_WORKER") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().context("finding this program's path")?;
    let name = format!("lab-worker{}", std::env::consts::EXE_SUFFIX);
    let mut dir = exe.parent();
    for _ in 0..2 {
        if let Some(d) = dir {
            let candidate = d.join(&name);
            if candidate.is_file() {
                return Ok(candidate);
            }
            dir = d.parent();
        }
    }
    anyhow::bail!(
        "the grading worker `{name}` was not found next to {}: build it with `cargo build --release` (cargo test and cargo run build it for you)",
        exe.display()
    )
}

/// Grades a lesson in a worker process, with a watchdog on every step.
pub fn grade(lesson: &Lesson, source: &Source, opts: &Options) -> Verdict {
    let file = source.path(lesson);
    match grade_in_worker(lesson, source, opts) {
        Ok(v) => v,
        Err(f) => Verdict::fail(lesson, &file, f),
    }
}

fn grade_in_worker(lesson: &Lesson, source: &Source, opts: &Options) -> Result<Verdict, Failure> {
    let worker = worker_path().map_err(|e| Failure::new(FailKind::Setup, format!("{e:#}")))?;
    let request = serde_json::to_string(&(lesson.name(), source, opts))
        .expect("a grading request serializes");
    let mut child = Command::new(&worker)
        .arg(request)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Failure::new(
                FailKind::Setup,
                format!("starting the grading worker {}: {e}", worker.display()),
            )
        })?;
    let stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Some(json) = line.strip_prefix(EVENT_PREFIX) {
                if let Ok(ev) = serde_json::from_str::<Event>(json) {
                    if tx.send(ev).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let mut step = String::from("starting");
    let started = Instant::now();
    let result = loop {
        match rx.recv_timeout(opts.step_timeout) {
            Ok(Event::Step(s)) => step = s,
            Ok(Event::Done(v)) => break Ok(*v),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                let _ = child.wait();
                break Err(Failure::new(
                    FailKind::Hang,
                    format!(
                        "the kernel did not finish: stopped after {:.0} s while {step}. Look for a loop that never ends or a barrier that only some work-items of a group reach.",
                        opts.step_timeout.as_secs_f64()
                    ),
                ));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                let status = child.wait().ok();
                let err = err_reader.join().unwrap_or_default();
                let tail: Vec<&str> = err
                    .lines()
                    .rev()
                    .take(20)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                break Err(Failure::new(
                    FailKind::Crash,
                    format!(
                        "the grading worker died while {step} ({}) after {:.1} s. This usually means the kernel wrote far outside its buffers and crashed the OpenCL runtime.{}",
                        status.map_or("no status".into(), |s| s.to_string()),
                        started.elapsed().as_secs_f64(),
                        if tail.is_empty() { String::new() } else { format!("\nIts last words:\n  {}", tail.join("\n  ")) }
                    ),
                ));
            }
        }
    };
    let _ = child.wait();
    let _ = reader.join();
    result
}

/// The worker's main: grades the request given as its one argument and prints events.
pub fn worker_main(request: &str) -> Result<()> {
    let (name, source, opts): (String, Source, Options) =
        serde_json::from_str(request).context("reading the grading request")?;
    let lesson = lessons::find(&name).with_context(|| format!("no lesson named {name}"))?;
    let emit = |ev: &Event| {
        println!(
            "{EVENT_PREFIX}{}",
            serde_json::to_string(ev).expect("an event serializes")
        );
    };
    let verdict = grade_here(lesson, &source, &opts, &mut |s| emit(&Event::Step(s)));
    emit(&Event::Done(Box::new(verdict)));
    Ok(())
}
