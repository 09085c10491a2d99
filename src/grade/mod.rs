//! Grading: run a lesson's code on seeded random problems, check every result against the
//! f64 reference, judge it, and say where and what is wrong. One pipeline for every kind of
//! lesson: run → check → judge → time, with one set of failure texts ([`judge`]).
//!
//! Each grading runs in a worker process ([`worker`]): the course's own program started
//! again as `lab worker`, so a kernel that hangs or crashes the OpenCL runtime becomes a
//! failure with a message, not a hung or crashed grader.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::harness::exec::RunOutput;
use crate::harness::matrix::{Comparison, Shape};
use crate::harness::paths::Course;
use crate::harness::program::{self, Define};
use crate::harness::timing::{Beside, Timing};
use crate::lesson::{Kind, Lesson, OclLesson};

pub mod cases;
mod counterfactual;
mod counts;
mod coverage;
pub mod cpu;
mod expand;
mod judge;
pub mod kinds;
mod looks;
pub mod ocl;
mod reported;
mod request;
mod self_contained;
pub mod shapes;
mod shift;
pub mod simulate;
mod trust;
mod window;
pub mod words;
pub mod worker;

/// How a verdict's note begins when a check could not judge because the machine gave it too
/// few free cores; the course's own tests grade such a case again, alone.
pub const TOO_FEW_CORES: &str = "not checked, too few cores free";

pub use judge::{judge, PRECISION_FROM_ELEMENTS};
pub use worker::grade;

/// Which code to grade.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// The lesson's file in this folder: a student's folder, `kernels/` or `solutions/`.
    Folder(PathBuf),
    /// One file (the graders' own wrong-on-purpose kernels).
    File(PathBuf),
}

impl Source {
    /// The file this source means for a lesson.
    pub fn path(&self, lesson: &Lesson) -> PathBuf {
        match self {
            Source::Folder(dir) => dir.join(lesson.file_name()),
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
    /// The code did not compile.
    Build,
    /// The kernel's name or argument list is not the lesson's.
    Signature,
    /// The launch or a runtime call failed.
    Runtime,
    /// C was not overwritten, in whole or in part: elements still hold what C held before the
    /// call (its poison: NaN, random numbers or an earlier product), or that plus the product.
    Unwritten,
    /// Elements of C are wrong.
    Wrong,
    /// Writes landed outside C.
    OutOfBounds,
    /// The kernel changed A or B.
    InputsChanged,
    /// The code did not finish in time.
    Hang,
    /// The worker died (a crash in the kernel, the runtime or the student's program).
    Crash,
    /// Right answer, but not by the lesson's technique.
    Technique,
    /// Two work-items touch one address with no barrier between them (the simulator).
    Race,
    /// A barrier that not every work-item of a group reaches (the simulator).
    Divergence,
    /// A read or write past the end of a buffer or array, or a misaligned vector access
    /// (the simulator).
    BadAccess,
    /// A value that was never initialised is used (the simulator).
    Uninitialized,
    /// Right as the device builds it, wrong built without optimisation (the device's second
    /// run): the result rests on something undefined, a value never initialised or
    /// work-items that race.
    Undefined,
    /// The device cannot run the lesson (e.g. no image support).
    Unsupported,
    /// The file brings in code from elsewhere (an included file, a library, another
    /// program) or, for a kernel, asks which compiler builds it: refused before it runs.
    NotSelfContained,
    /// The lesson cannot be graded as asked (e.g. a size it does not handle, bad defines).
    Setup,
    /// A timed call ran faster than the device can compute: no speed is recorded.
    TooFast,
    /// It passed what could be checked, a part could not be checked, and the grading was asked
    /// to count that as a failure ([`Options::strict`]).
    Unchecked,
}

/// A failed grading: the category and the message the student reads.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Failure {
    pub kind: FailKind,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

// A failure travels through code that returns `anyhow` errors (the timing protocol) and is
// taken back out whole, kind and all.
impl std::error::Error for Failure {}

impl Failure {
    pub fn new(kind: FailKind, message: impl Into<String>) -> Failure {
        Failure {
            kind,
            message: message.into(),
        }
    }
}

/// A part of a verdict that could not be checked, named by the one word a teacher filters on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    /// Races, reads out of bounds and barriers (the OpenCL simulator).
    Races,
    /// The lesson's technique, judged by what the code does.
    Technique,
    /// That CPU code shares its work among threads running at the same time.
    Threads,
    /// The student's CPU code ran outside the sandbox.
    Sandbox,
    /// The speed: the device's clock could not be trusted, or no timed call was checked.
    Speed,
}

impl Part {
    /// The word a table shows: `races`, `technique`, `threads`, `sandbox`, `speed`.
    pub fn word(self) -> &'static str {
        match self {
            Part::Races => "races",
            Part::Technique => "technique",
            Part::Threads => "threads",
            Part::Sandbox => "sandbox",
            Part::Speed => "speed",
        }
    }
}

/// A part that was not checked, and why, in a sentence.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unchecked {
    pub part: Part,
    pub why: String,
}

/// What a check found besides a failure: lines the student reads, and the parts it could not
/// check.
#[derive(Clone, Debug, Default)]
pub struct Notes {
    pub said: Vec<String>,
    pub unchecked: Vec<Unchecked>,
}

impl Notes {
    /// A line for the report.
    pub fn say(&mut self, line: String) {
        self.said.push(line);
    }

    /// A part that was not checked: a line for the report, and the part's word for tables.
    pub fn not_checked(&mut self, part: Part, line: String) {
        self.unchecked.push(Unchecked {
            part,
            why: line.clone(),
        });
        self.said.push(line);
    }
}

/// One checked problem.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaseReport {
    pub shape: Shape,
    /// The defines of a set other than the device's own (`TSM=32 TSN=64 ...`), or empty.
    #[serde(default)]
    pub with: String,
    pub max_rel_err: f64,
    pub ms: f64,
    /// Elements compared with the reference.
    #[serde(default)]
    pub checked: usize,
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
    /// The reference answer timed beside the code on the same problems, interleaved call by
    /// call ([`Options::beside`]); none where it was not asked for or could not be timed (a
    /// note says why).
    #[serde(default)]
    pub beside: Option<Beside>,
    /// What the student's code printed, shortened; empty when it printed nothing.
    pub printed: String,
    /// What was not checked, or how: one line each.
    pub notes: Vec<String>,
    /// The parts that could not be checked; their lines are among `notes` too.
    #[serde(default)]
    pub unchecked: Vec<Unchecked>,
}

impl Verdict {
    pub fn new(lesson: &Lesson, file: &Path) -> Verdict {
        Verdict::named(lesson.name(), file)
    }

    /// An empty verdict for the lesson of that name.
    pub fn named(lesson: String, file: &Path) -> Verdict {
        Verdict {
            lesson,
            file: file.to_path_buf(),
            device: None,
            cases: Vec::new(),
            failure: None,
            timing: None,
            beside: None,
            printed: String::new(),
            notes: Vec::new(),
            unchecked: Vec::new(),
        }
    }

    pub fn failed(lesson: &Lesson, file: &Path, failure: Failure) -> Verdict {
        Verdict {
            failure: Some(failure),
            ..Verdict::new(lesson, file)
        }
    }

    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }

    pub fn kind(&self) -> Option<FailKind> {
        self.failure.as_ref().map(|f| f.kind)
    }

    pub fn message(&self) -> &str {
        self.failure.as_ref().map_or("", |f| f.message.as_str())
    }

    /// Adds what a check found.
    pub fn absorb(&mut self, notes: Notes) {
        self.notes.extend(notes.said);
        self.unchecked.extend(notes.unchecked);
    }

    /// Notes why the reference could not be timed beside the code: a note, never the code's
    /// failure (the code is then timed alone and takes no rank).
    pub fn not_beside(&mut self, why: impl std::fmt::Display) {
        self.notes
            .push(format!("the reference could not be timed beside it: {why}"));
    }

    /// Records a part that was not checked, with its line.
    pub fn not_checked(&mut self, part: Part, line: String) {
        let mut n = Notes::default();
        n.not_checked(part, line);
        self.absorb(n);
    }

    /// The parts not checked, each once, in a fixed order.
    pub fn unchecked_parts(&self) -> Vec<Part> {
        let mut parts: Vec<Part> = self.unchecked.iter().map(|u| u.part).collect();
        parts.sort();
        parts.dedup();
        parts
    }

    /// `unchecked: races, technique`, or empty when everything was checked.
    pub fn unchecked_words(&self) -> String {
        let parts = self.unchecked_parts();
        if parts.is_empty() {
            String::new()
        } else {
            let words: Vec<&str> = parts.iter().map(|p| p.word()).collect();
            format!("{UNCHECKED}: {}", words.join(", "))
        }
    }
}

/// Under [`Options::strict`], a verdict that passed with parts not checked fails, saying which.
pub fn strictly(mut v: Verdict, opts: &Options) -> Verdict {
    if opts.strict && v.passed() && !v.unchecked.is_empty() {
        let why: Vec<String> = v
            .unchecked
            .iter()
            .map(|u| format!("- {}: {}", u.part.word(), u.why))
            .collect();
        v.failure = Some(Failure::new(
            FailKind::Unchecked,
            format!(
                "the code passed every check that could run, but these parts could not be checked, and this grading counts that as a failure (strict mode):\n{}",
                why.join("\n")
            ),
        ));
    }
    v
}

/// The word that marks a verdict with parts not checked, in every table.
pub const UNCHECKED: &str = "unchecked";

/// How to grade. Built at the edge of a program (flags, environment) and passed down.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Options {
    /// The course's files: solutions, recorded tunings, the cache of student crates.
    pub course: Course,
    /// The course's program, started again as `lab worker` for each grading.
    pub worker: PathBuf,
    /// `--device` / `LAB_DEVICE` selector.
    pub device: Option<String>,
    /// Longest wait for any one step (build, one problem, timing) before the code is
    /// declared hung.
    pub step_timeout: Duration,
    /// Sizes to check instead of the lesson's own.
    pub shapes: Option<Vec<Shape>>,
    /// Also time the code at this size once it passes.
    pub time: Option<Shape>,
    /// Time at exactly `time` (a lesson program asked for a size) rather than at a shape drawn
    /// near it for this grading ([`crate::harness::timing::drawn_shape`]).
    #[serde(default)]
    pub time_exactly: bool,
    /// Time at exactly this shape, drawn once by whoever compares two gradings (the student's
    /// and the reference's), so that both multiply the same problem
    /// ([`Options::drawing_the_timed_shape`]).
    #[serde(default)]
    pub timed_shape: Option<Shape>,
    /// Time the course's reference answer beside the code once it passes, on the same
    /// problems, interleaved call by call ([`crate::harness::timing::time_beside`]): the one
    /// way a speed is compared with the reference's.
    #[serde(default)]
    pub beside: bool,
    /// `-D` overrides on top of the lesson's defines.
    pub defines: Vec<Define>,
    /// Base seed of the random problems.
    pub seed: u64,
    /// Also run OpenCL kernels under the simulator (races, reads out of bounds, technique).
    pub simulate: bool,
    /// Judge a lesson's technique on the device (a CPU lesson's threads and caches, lesson
    /// 11's unit with each other kind of device's defines, lesson 12's changed); a lesson
    /// program that only runs and times the code turns it off.
    #[serde(default = "yes")]
    pub technique: bool,
    /// Count a verdict with a part not checked as failed (`--strict`, `LAB_STRICT=1`).
    #[serde(default)]
    pub strict: bool,
    /// Build OpenCL kernels as this OpenCL C version, e.g. `1.2` (`--cl-std`, `LAB_CL_STD`);
    /// none: the device compiler's default.
    #[serde(default)]
    pub cl_std: Option<String>,
}

fn yes() -> bool {
    true
}

/// The default base seed of the random problems.
pub const SEED: u64 = 2024;

impl Options {
    pub fn new(course: Course, worker: PathBuf) -> Options {
        Options {
            course,
            worker,
            device: None,
            step_timeout: Duration::from_secs(120),
            shapes: None,
            time: None,
            time_exactly: false,
            timed_shape: None,
            beside: false,
            defines: Vec::new(),
            seed: SEED,
            simulate: true,
            technique: true,
            strict: false,
            cl_std: None,
        }
    }

    /// The size this grading was asked for: the timed size, else the scoreboard's on this kind
    /// of device ([`shapes::default_asked`]). Every grading checks it exactly
    /// ([`shapes::around_asked`]).
    pub fn asked(&self, gpu: bool) -> Shape {
        self.time.unwrap_or(shapes::default_asked(gpu))
    }

    /// These options with the timed shape drawn now ([`crate::harness::timing::drawn_shape`]),
    /// for gradings to be compared with each other: each grading given them times the same
    /// shape, which no code can tell in advance.
    pub fn drawing_the_timed_shape(&self) -> Options {
        let mut o = self.clone();
        if let (Some(asked), false, None) = (o.time, o.time_exactly, o.timed_shape) {
            o.timed_shape = Some(crate::harness::timing::drawn_shape(asked));
        }
        o
    }

    /// These options with the reference timed beside the code wherever the code is timed
    /// ([`Options::beside`]).
    pub fn beside(&self) -> Options {
        Options {
            beside: self.time.is_some(),
            ..self.clone()
        }
    }

    /// The options an OpenCL lesson's kernel is built with in this grading: the lesson's own,
    /// then the OpenCL C version asked for. Every build of a graded kernel, on the device and
    /// in the simulator, takes them from here.
    pub fn build_options(&self, ocl: &OclLesson) -> String {
        let std = self.cl_std.as_deref().map(program::cl_std_option);
        [Some(ocl.build_options.to_string()), std]
            .into_iter()
            .flatten()
            .filter(|o| !o.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The seed of the `case`-th problem.
    fn problem_seed(&self, case: usize) -> u64 {
        self.seed.wrapping_mul(1_000_003).wrapping_add(case as u64)
    }
}

/// Progress a grading reports, so that the parent knows what was running when time ran out.
pub type Progress<'a> = &'a mut dyn FnMut(String);

/// Grades in this process, calling `progress` before each step. No protection against hangs
/// or crashes: [`grade`] runs this in a worker process.
pub fn grade_here(lesson: &Lesson, source: &Source, opts: &Options, progress: Progress) -> Verdict {
    let file = source.path(lesson);
    if !file.is_file() {
        return Verdict::failed(
            lesson,
            &file,
            Failure::new(
                FailKind::Missing,
                format!("{} does not exist", crate::harness::paths::display(&file)),
            ),
        );
    }
    match lesson.kind {
        Kind::Device => Verdict::failed(
            lesson,
            &file,
            Failure::new(FailKind::Setup, "lesson 00 has nothing to grade"),
        ),
        Kind::Cpu(cpu) => cpu::grade(lesson, cpu, &file, opts, progress),
        Kind::OpenCl(ocl) => ocl::grade(lesson, ocl, &file, opts, progress),
    }
}

/// Whether a file still carries the starter's TODO markers.
pub fn is_starter(source: &str) -> bool {
    source.contains("TODO")
}

/// Checks one run's output and judges it: the failure a student reads, or the comparison.
/// The same for every lesson, variant and tool that runs a product.
pub fn verify(
    p: &crate::harness::matrix::Problem,
    out: &RunOutput,
    starter: Option<&str>,
) -> Result<Comparison, Failure> {
    let cmp = crate::harness::matrix::check(p, &out.c);
    match judge(p.shape, out, &cmp, starter) {
        Some(f) => Err(f),
        None => Ok(cmp),
    }
}

/// A wrong C that the run traced to the technique's absence ([`RunOutput::technique`]; lesson
/// 11: the product itself, where the modelled unit scales every product) is a missing
/// technique, its reason after `at`; any other verdict stands.
pub(super) fn traced<T>(
    verified: Result<T, Failure>,
    out: &RunOutput,
    at: &str,
) -> Result<T, Failure> {
    match (verified, &out.technique) {
        (Err(f), Some(why)) if f.kind == FailKind::Wrong => {
            Err(Failure::new(FailKind::Technique, format!("{at}{why}")))
        }
        (v, _) => v,
    }
}

/// [`verify`] with every element of C compared, however large the product (the asked size's
/// check).
pub fn verify_whole(
    p: &crate::harness::matrix::Problem,
    out: &RunOutput,
    starter: Option<&str>,
) -> Result<Comparison, Failure> {
    use crate::harness::matrix;
    let cmp = matrix::compare(p.shape, &out.c, &matrix::reference(p), &p.poison);
    match judge(p.shape, out, &cmp, starter) {
        Some(f) => Err(f),
        None => Ok(cmp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::paths::Course;

    fn passed_with(parts: &[Part]) -> Verdict {
        let mut v = Verdict {
            lesson: "05_local_tiling".into(),
            file: PathBuf::from("kernels/05_local_tiling.cl"),
            device: None,
            cases: Vec::new(),
            failure: None,
            timing: None,
            beside: None,
            printed: String::new(),
            notes: Vec::new(),
            unchecked: Vec::new(),
        };
        for p in parts {
            v.not_checked(*p, format!("not checked: {}", p.word()));
        }
        v
    }

    #[test]
    fn unchecked_parts_are_named_once_each_in_a_fixed_order() {
        let v = passed_with(&[Part::Technique, Part::Races, Part::Technique]);
        assert_eq!(v.unchecked_parts(), vec![Part::Races, Part::Technique]);
        assert_eq!(v.unchecked_words(), "unchecked: races, technique");
        assert_eq!(v.notes.len(), 3, "each part's line is in the report too");
        assert_eq!(passed_with(&[]).unchecked_words(), "");
    }

    #[test]
    fn strict_grading_fails_what_could_not_be_checked() {
        let course = Course::new(".");
        let mut opts = Options::new(course, PathBuf::from("lab"));
        let lenient = strictly(passed_with(&[Part::Sandbox]), &opts);
        assert!(lenient.passed());
        opts.strict = true;
        let strict = strictly(passed_with(&[Part::Sandbox]), &opts);
        assert_eq!(strict.kind(), Some(FailKind::Unchecked));
        assert!(strict.message().contains("sandbox"), "{}", strict.message());
        assert!(strictly(passed_with(&[]), &opts).passed());
    }
}
