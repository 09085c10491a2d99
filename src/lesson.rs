//! What a lesson is, as data: its name, what the student writes, how it is launched, which
//! sizes it must handle and how its technique is judged. The ladder (`crate::ladder`)
//! declares one value of [`Lesson`] per rung; everything else reads them.

use anyhow::Result;

use crate::harness::device::{DeviceInfo, Gpu};
use crate::harness::exec::{self, Launch, RunOutput};
use crate::harness::matrix::{Problem, Shape};
use crate::harness::oclgrind::{banks::Banks, Counts};
use crate::harness::paths::Course;
use crate::harness::peak::Peak;
use crate::harness::program::{Arg, Define, Kernels, Signature};
use crate::harness::timing::Timing;

/// One rung of the ladder.
pub struct Lesson {
    /// `05`, or `03b` for a rung inserted without renumbering those after it.
    pub key: &'static str,
    pub slug: &'static str,
    pub title: &'static str,
    /// The technique the lesson teaches, one line.
    pub teaches: &'static str,
    /// Shown when the lesson is not started: where to begin.
    pub hint: &'static str,
    pub kind: Kind,
    /// How the arithmetic intensity of its code is counted, for the roofline (`None`: not
    /// counted).
    pub intensity: Option<Intensity>,
    /// Other libraries `lab-bench ladder` measures beside this lesson.
    pub peers: &'static [Peer],
    /// The top rung: the course's fastest kernel, the one `lab-bench tune` tunes unless asked
    /// for another. Exactly one lesson is.
    pub top: bool,
    /// What the lesson's program does besides the standard run (`None`: only that).
    pub program: Option<&'static Program>,
    /// The unit its code multiplies on: its "% of peak" is against that unit's ceiling.
    pub unit: Unit,
}

/// The arithmetic unit a lesson's code does its multiply-adds on. A share of peak is only
/// ever taken against the ceiling of the unit the code uses, never against another unit's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// The FP32 lanes (a fused multiply-add per lane): lesson 00's measured FP32 peak, or a
    /// CPU's FP32 ceiling.
    Fp32,
    /// The matrix units (NVIDIA's tensor cores) on TF32 inputs.
    MatrixTf32,
    /// The matrix units on INT8 inputs (lesson 12's products of residues): lesson 00 measures
    /// no INT8 rate, so its share of peak is "n/a".
    MatrixInt8,
}

impl Unit {
    /// The names the simulator counts this unit's model by (each call of one is the unit's
    /// work): names a student's kernel may not write, nor paste together, so that the count
    /// is the model's alone. The model's own helpers that make those calls are among them.
    pub fn counted_by(self) -> &'static [&'static str] {
        match self {
            Unit::Fp32 => &[],
            Unit::MatrixTf32 => &["convert_float_rtz", "mma_element"],
            Unit::MatrixInt8 => &["mad24"],
        }
    }

    /// This unit's ceiling for the lesson's FP32 work, GFLOP/s, on a device whose measured
    /// peaks are `peak`: the FP32 peak (a CPU's: its FP32 ceiling) for the FP32 lanes; for the
    /// matrix unit, its measured TF32 rate over the three products each multiply-add of the
    /// product takes (lesson 11's split), none where lesson 00 recorded no such rate.
    pub fn ceiling(self, peak: &Peak) -> Option<f64> {
        match self {
            Unit::Fp32 => Some(peak.gflops),
            Unit::MatrixTf32 => peak.matrix_tf32_gflops.map(|r| r / 3.0),
            Unit::MatrixInt8 => None,
        }
    }

    /// The unit, in a few words: "FP32 lanes", "matrix unit".
    pub fn words(self) -> &'static str {
        match self {
            Unit::Fp32 => "FP32 lanes",
            Unit::MatrixTf32 => "matrix unit",
            Unit::MatrixInt8 => "INT8 matrix unit",
        }
    }
}

/// How a lesson counts the FLOP its code does per byte of global memory it requests.
#[derive(Clone, Copy)]
pub struct Intensity {
    /// The rule, in a few words, for the table under the roofline.
    pub rule: &'static str,
    /// The intensity for a set of numeric defines (`None`: a define it needs is missing).
    pub of: fn(&Defines) -> Option<f64>,
    /// How the code walks the product, for counting what it moves from DRAM once a
    /// device's cache is known (`None`: a define it needs is missing).
    pub walk: fn(&Defines) -> Option<Walk>,
}

/// How a lesson's code walks the product, as far as DRAM traffic goes: which blocks of A,
/// B and C it takes in which order. The roofline counts DRAM bytes from it and the size of
/// a device's last-level cache, which is why the walk is declared here and the counting is
/// not: the cache belongs to the device, the walk to the code.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Walk {
    /// Row by row of C (i-j-k, i-k-j): a row of A and of C at a time, all of B per row.
    Rows,
    /// One work-item per element of C in work-groups of a few rows: the rows of C the
    /// device works on at once share what they read of B.
    RowsInFlight,
    /// BM×BN blocks of C, K streamed, the blocks taken along a block row (work-group id 0
    /// along N, as in every kernel of the course).
    Blocks { bm: f64, bn: f64 },
    /// BK×BN blocks of B, each swept by every row of C (loops p0, j0, i).
    KBlocked { bk: f64, bn: f64 },
    /// Packed KC×NC panels of B and MC×KC blocks of A (loops jc, pc, ic).
    Packed { kc: f64, nc: f64 },
}

/// Numeric defines by name, as a results file records them.
pub type Defines = std::collections::BTreeMap<String, f64>;

/// A positive define, read from recorded defines.
pub fn positive(d: &Defines, name: &str) -> Option<f64> {
    d.get(name).copied().filter(|v| *v > 0.0)
}

/// FLOP per byte of a tile of TSM×TSN results that loads a TSM-long column of A and a
/// TSN-long row of B (4 bytes each) per step along K: 2·TSM·TSN / (4·(TSM + TSN)).
pub fn register_tile(tsm: f64, tsn: f64) -> f64 {
    2.0 * tsm * tsn / (4.0 * (tsm + tsn))
}

/// The intensity rule of the register-tiled lessons: TSM×TSN tiles.
pub const REGISTER_TILE: Intensity = Intensity {
    rule: "TSM×TSN tiles: 2·TSM·TSN / (4·(TSM+TSN))",
    of: |d| Some(register_tile(positive(d, "TSM")?, positive(d, "TSN")?)),
    walk: |d| {
        Some(Walk::Blocks {
            bm: positive(d, "TSM")?,
            bn: positive(d, "TSN")?,
        })
    },
};

/// Another library measured beside a lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// CLBlast's SGEMM on the same OpenCL device, where it is installed.
    Clblast,
    /// The `matrixmultiply` crate on the host CPU.
    Matrixmultiply,
    /// The BLAS libraries on the host CPU: OpenBLAS (where installed) and the `gemm` crate.
    CpuBlas,
}

/// What a lesson's program does besides its standard run (check, time, compare).
pub struct Program {
    /// The program's one-line description (`--help`).
    pub about: &'static str,
    /// Adds the program's own flags (clap's `Args::augment_args`).
    pub flags: fn(clap::Command) -> clap::Command,
    /// Whether the standard run and its shared flags come first (lesson 00 has none).
    pub standard: bool,
    /// The rest of the program, given its flags and what the standard run did.
    pub then: fn(&clap::ArgMatches, &Session) -> Result<()>,
}

/// What a lesson program's extras get: the course, the device chosen, the code that ran and
/// what the standard run measured.
pub struct Session<'a> {
    pub course: &'a Course,
    /// The device selector in force (`--device`, else `LAB_DEVICE`).
    pub device: Option<String>,
    /// The file the standard run used (the student's, or the reference with --solution).
    pub file: std::path::PathBuf,
    /// The size and defines the standard run measured (`None` without one).
    pub measured: Option<(Shape, Vec<Define>)>,
    /// The `-D` overrides given on the command line.
    pub overrides: &'a [Define],
    /// The longest one step may take.
    pub timeout: std::time::Duration,
}

/// What a CPU lesson's variants are measured with.
pub struct CpuRun<'a> {
    pub course: &'a Course,
    pub file: &'a std::path::Path,
    pub shape: Shape,
    pub timeout: std::time::Duration,
}

/// Other versions of a CPU lesson's code measured beside it for the chapter (lesson 03's
/// thread scaling): each row a variant name, its threads and its timing.
pub type CpuVariants = fn(&Lesson, &CpuRun) -> Result<Vec<(String, usize, Timing)>>;

/// What kind of work a lesson is.
pub enum Kind {
    /// Lesson 00: nothing to grade.
    Device,
    Cpu(&'static CpuLesson),
    OpenCl(&'static OclLesson),
}

impl std::fmt::Debug for Lesson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lesson({})", self.name())
    }
}

impl Lesson {
    /// `05_local_tiling`: the name shared by the lesson's binary, starter, solution, test and
    /// chapter.
    pub fn name(&self) -> String {
        format!("{}_{}", self.key, self.slug)
    }

    /// The file the student edits: `05_local_tiling.cl` or `01_cpu_naive.rs`. Lesson 00 has
    /// no starter, but its micro-kernels sit in `solutions/00_your_device.cl`.
    pub fn file_name(&self) -> String {
        match self.kind {
            Kind::Cpu(_) => format!("{}.rs", self.name()),
            _ => format!("{}.cl", self.name()),
        }
    }

    /// Whether the student has a file to write for this lesson.
    pub fn graded(&self) -> bool {
        !matches!(self.kind, Kind::Device)
    }

    pub fn ocl(&self) -> Option<&'static OclLesson> {
        match self.kind {
            Kind::OpenCl(o) => Some(o),
            _ => None,
        }
    }

    pub fn cpu(&self) -> Option<&'static CpuLesson> {
        match self.kind {
            Kind::Cpu(c) => Some(c),
            _ => None,
        }
    }
}

/// A CPU lesson: Rust functions with the signature
/// `fn(a: &[f32], b: &[f32], c: &mut [f32], m: usize, n: usize, k: usize)`, `c` filled with
/// NaN on entry.
pub struct CpuLesson {
    /// The functions the student's file must define, in the order they are graded; the last
    /// is the lesson's final form, the one that is timed.
    pub functions: &'static [&'static str],
    /// How the lesson's technique is judged by what each function does.
    pub checks: &'static [(&'static str, &'static CpuCheck)],
    /// What the checks cannot see, said in every verdict (empty if nothing).
    pub not_checked: &'static str,
    /// The lesson's code runs on one thread (01, 02): its ceiling is the CPU's peak on one
    /// core, and its measurements record one thread.
    pub serial: bool,
    /// Other versions measured beside the reference by `lab-bench ladder` (`None`: none).
    pub variants: Option<CpuVariants>,
}

/// Which simulated cache's misses a check counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// The first-level data cache: does the innermost loop walk along rows?
    L1,
    /// The last level: is a block of B reused while it is in cache?
    Last,
}

/// One of the course's own functions: (lesson, function), built from solutions/.
pub type CourseFn = (&'static Lesson, &'static str);

/// A behavioural check of a CPU function.
pub enum CpuCheck {
    /// Cache misses per multiply-add under valgrind's simulated caches, judged between two
    /// of the course's own functions measured the same way: `good` uses the technique, `bad`
    /// does not; the function passes when it is nearer (by ratio) to `good`.
    Caches {
        level: Level,
        shape: Shape,
        caches: crate::harness::cpu_crate::Caches,
        /// (lesson, function) of the references, built from solutions/.
        good: (&'static Lesson, &'static str),
        bad: (&'static Lesson, &'static str),
        /// The technique, in a few words: "loop order", "cache blocking".
        what: &'static str,
        /// What to do when the check fails.
        hint: &'static str,
        /// Where the technique makes a difference of many times in speed: the shape about
        /// which the simulator's verdict is confirmed on ordinary calls, timed beside `good`
        /// and `bad` (`crate::grade` `confirm`); `None`: not confirmed.
        confirm: Option<Shape>,
    },
    /// The work is shared among threads: in the best of `tries` calls on a pool of `pool`
    /// threads, the busiest thread did at most `max_share` of the call's CPU time.
    Threads {
        shape: Shape,
        pool: usize,
        tries: usize,
        max_share: f64,
        /// The course's functions (lesson, function) with threads and on one thread, about
        /// which the check is confirmed on ordinary calls at the timed size (`crate::grade`
        /// `confirm`); `None`: not confirmed.
        confirm: Option<(CourseFn, CourseFn)>,
    },
}

/// What a lesson's host code gets to decide its defines: the device, and the course's files
/// (recorded tuning results).
pub struct Ctx<'a> {
    pub info: &'a DeviceInfo,
    pub course: &'a Course,
}

/// Runs a lesson's kernel once on a problem, guarded (see [`exec::run_guarded`]), or, for a
/// lesson of several kernels, all of them in turn for one multiplication
/// ([`exec::run_steps`]). `Kernels` dereferences to the lesson's own kernel.
pub type RunFn = fn(&Gpu, &Kernels, &Problem, &Launch, &[Define]) -> Result<RunOutput>;

/// Tuned defines for a device and problem size, if any are recorded.
pub type SizedFn = fn(&Ctx, Shape) -> Option<Vec<Define>>;

/// How the host sets up and runs a lesson's kernel. Every timing repeats `run` on fresh
/// inputs, checking each call ([`crate::harness::timing::time_checked`]).
pub struct Host {
    /// One guarded run: fresh buffers, C poisoned, the launch timed on the device and the
    /// wall clock, C read back.
    pub run: RunFn,
    /// One run with buffers of exactly the matrices' sizes, for the simulator: it reports
    /// an access past the end of an allocation, which the guard zone of `run` would hide.
    pub exact: RunFn,
    /// The lesson cannot run on a device without image support.
    pub needs_images: bool,
    /// Source the host puts before the kernel's own, chosen for the device (lesson 11's
    /// matrix unit); `None` for a kernel that stands alone.
    pub prelude: Option<PreludeFn>,
    /// The prelude of the sanitizer's run at its drawn shape, where `prelude` orders the
    /// work-items more than the device does: lesson 11's model of the matrix unit waits for
    /// the whole work-group at every call, where the tensor cores wait for one warp, so under
    /// it no warp can overwrite a tile another warp still reads, and such a race never shows.
    /// Its numbers need not be the product: that run is read for races, accesses outside
    /// memory and uninitialised values, never for C. `None`: `prelude`.
    pub unordered: Option<PreludeFn>,
    /// A judgement of accuracy beyond the per-element allowance (lesson 11: at least FP32's).
    pub accuracy: Option<AccuracyFn>,
    /// The further kernels of the lesson's file that `run` and `exact` enqueue for one
    /// multiplication besides [`OclLesson::kernel`] (lesson 12's conversions, products and
    /// reconstruction), by name and arguments. Each is created and its signature checked when
    /// the program is built, so that a file lacking one fails there, naming it; the prepared
    /// program holds them by name ([`Kernels::get`]). Empty: the lesson's kernel alone.
    pub kernels: &'static [Signature],
    /// For a lesson of several kernels, whose work-groups differ from one kernel to the next:
    /// the problem its technique is counted at with the device's own defines, every work-group
    /// of every kernel run (the simulator draws one near it, no larger, for each grading).
    /// `None`: the looks follow the lesson's one kernel's tiles ([`crate::grade`]'s looks).
    pub own_look: Option<OwnLookFn>,
    /// What of a knob set the compiler sees; the rest is the host's alone, read by `run` from
    /// the set (lesson 11's count of parts of K: the kernel is told only that K is split, so
    /// one build serves every count, and every count is still run). `None`: every define.
    pub compiled: Option<CompiledFn>,
    /// Where the lesson's unit is a model in OpenCL C (the device has no such unit) and its
    /// products cannot be scaled in every run ([`Prelude::products_scaled`]; lesson 12, whose
    /// integers a scale would wrap): the same prelude with every product of the unit changed
    /// (lesson 12's doubled), every other line alike, for one more build. A kernel whose
    /// products go through the unit gives another C built with it; one that computes C
    /// elsewhere and calls the unit for show (on zeros, or dropping what it returns) gives the
    /// same C. `None` (from the function): the unit is the device's own.
    pub counterfactual: Option<CounterfactualFn>,
}

/// Source put before a lesson's kernel on a device, and the line every report shows about it.
pub struct Prelude {
    pub source: String,
    pub note: String,
    /// Why a speed measured on this device says nothing of the lesson's technique (a unit the
    /// device lacks, modelled in plain code): the verdict marks its speed unchecked, so that
    /// it is shown but never ranked. `None`: the speed is the technique's.
    pub speed_unchecked: Option<String>,
    /// The modelled unit multiplies every product by [`crate::harness::unit_scale::factor`]
    /// (its source begins with [`crate::harness::unit_scale::define`]) and the lesson's run
    /// divides C by it: a C made of the unit's products comes out right, one made elsewhere
    /// does not, in every run alike.
    pub products_scaled: bool,
}

impl Prelude {
    /// This prelude as the sanitizer's drawn run takes it ([`Host::unordered`]): where it is
    /// its switches followed by the text of the unit's file `unit` (named `file`), the same
    /// line for line with the model's call, from `call` to the line `end`, replaced by `with`
    /// ([`crate::harness::unordered::line_for_line`]). Unchanged where the unit is the
    /// device's instruction (`MMA_PTX 1`), which orders what the device does, or where the
    /// text does not fit that plan (a test of each lesson keeps them in step).
    pub fn unordered(self, unit: &str, file: &str, call: &str, end: &str, with: &str) -> Prelude {
        let built = (self.source.strip_suffix(unit)).and_then(|head| {
            crate::harness::unordered::line_for_line(head, unit, file, call, end, with)
        });
        match built {
            Some(source) if !self.source.contains("#define MMA_PTX 1") => {
                Prelude { source, ..self }
            }
            _ => self,
        }
    }
}

/// The prelude for a device.
pub type PreludeFn = fn(&Gpu) -> Prelude;

/// `prelude`'s source for the device, if any, under a file name of its own (what the
/// simulator reports of the prelude's lines is not about the kernel's lines of those
/// numbers), then the kernel's own text, numbered from its line 1 as the simulator's
/// `input.cl`.
fn with_prelude(prelude: Option<PreludeFn>, gpu: &Gpu, text: &str) -> String {
    placed(prelude.map(|p| p(gpu).source), gpu, text)
}

/// [`with_prelude`] with the prelude's source given.
fn placed(prelude: Option<String>, gpu: &Gpu, text: &str) -> String {
    // The work-group ids every build's kernel sees (the simulator's first group is one drawn).
    let groups = crate::harness::groups::block(gpu);
    match prelude {
        Some(source) => {
            format!("{groups}#line 1 \"{PRELUDE_FILE}\"\n{source}\n#line 1 \"input.cl\"\n{text}")
        }
        None => format!("{groups}#line 1 \"input.cl\"\n{text}"),
    }
}

/// The file name the lines of a lesson's prelude carry.
pub const PRELUDE_FILE: &str = "prelude.cl";

/// Judges the accuracy of a run's result `out.c` of problem `p`: `Some(message)` when it is
/// not good enough (or `out.found` names what made it wrong). `failed` says whether the result
/// already failed the per-element allowance (the message then explains it better than the
/// generic one, or `None` keeps the generic one).
/// The problem a lesson of several kernels is counted at with a device's own defines
/// ([`Host::own_look`]).
pub type OwnLookFn = fn(&[Define]) -> Result<Shape, String>;

/// What of a knob set the compiler sees ([`Host::compiled`]).
pub type CompiledFn = fn(&[Define]) -> Vec<Define>;

/// The prelude with the unit's products changed, on a device whose unit is modelled
/// ([`Host::counterfactual`]).
pub type CounterfactualFn = fn(&Gpu) -> Option<Counterfactual>;

/// A model of the unit whose products are changed ([`Host::counterfactual`]).
pub struct Counterfactual {
    /// The prelude's source with the changed model.
    pub source: String,
    /// How its products differ, as the verdict says it: "doubled".
    pub products: &'static str,
    /// The lesson's hint where C does not change with them.
    pub hint: &'static str,
}

pub type AccuracyFn = fn(&crate::harness::matrix::Problem, &RunOutput, bool) -> Option<String>;

/// Plain buffers for A, B and C, copied to and from the device.
pub const BUFFERS: Host = Host {
    run: |gpu, kernel, p, l, _| exec::run_guarded(gpu, kernel, p, l),
    exact: |gpu, kernel, p, l, _| exec::run_exact(gpu, kernel, p, l),
    needs_images: false,
    prelude: None,
    unordered: None,
    accuracy: None,
    kernels: &[],
    own_look: None,
    compiled: None,
    counterfactual: None,
};

/// One run of a kernel under the simulator: a size and the defines it is built with (small
/// and asymmetric, so that the simulator is quick and a swapped dimension shows).
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    pub shape: Shape,
    pub defines: &'static [(&'static str, &'static str)],
}

impl Probe {
    pub fn defines(&self) -> Vec<Define> {
        defines(self.defines)
    }
}

/// `(name, value)` pairs as defines.
pub fn defines(pairs: &[(&str, &str)]) -> Vec<Define> {
    pairs.iter().map(|(n, v)| Define::new(n, v)).collect()
}

/// What one probe of a kernel did, as the simulator counted it.
pub struct Measured<'a> {
    pub counts: &'a Counts,
    /// Bytes of local memory the kernel declares (CL_KERNEL_LOCAL_MEM_SIZE).
    pub local_bytes: u64,
    /// The passes its local accesses take in a GPU's banks, where the behaviour asks for
    /// them and they could be counted (where they could not, the verdict says so).
    pub banks: Option<&'a Banks>,
    /// The kernel's source, for the lines a judge names.
    pub source: &'a str,
}

/// How a lesson's technique shows in what the kernel does: the simulator's counts of one
/// run at one of `probes`, judged by `judge`.
pub struct Behaviour {
    /// The define sets the simulator may run the kernel with, each at a shape of whole tiles
    /// of its own (so that a count per multiply-add means what the judge says). Each grading
    /// draws one of them from a seed no code can see, for the technique's counts and for the
    /// sanitizer's run at a drawn shape, and draws that shape near the set's own: a kernel
    /// that shows its technique only when built with one set, recognised by a define's value,
    /// shows the technique it has at the others. So there are at least two, small enough for
    /// the simulator, and among them, where they are small enough, the defines the device's
    /// timed runs use (or their work-item's block): a kernel that shows its technique only at
    /// these sets shows it where it is timed.
    pub probes: &'static [Probe],
    /// `Ok`: what was measured, in a line the student reads; `Err`: why this is not the
    /// lesson's technique, with the numbers and a hint.
    pub judge: fn(&Measured, &Probe) -> Result<String, String>,
    /// Count how many passes the kernel's local accesses take in a GPU's 32 banks
    /// (`Measured::banks`): for a technique that shows in which banks the accesses meet
    /// (lesson 08's padding).
    pub banks: bool,
    /// What the counts cannot show, said in every verdict (empty if nothing).
    pub not_checked: &'static str,
    /// The K a work-group's loop steps by with these defines (its tile's K): a look at another
    /// kind of device's defines runs a K that is a multiple of it, so that no k-step is padded
    /// with zeros and a count per multiply-add means what the judge says.
    pub k_step: fn(&[Define]) -> Result<usize, String>,
}

/// What the sanitizer runs: the probes (every question asked of each: races, reads and writes
/// out of bounds, barriers, uninitialised values), and what it runs in place of a memory
/// object the simulator cannot follow.
pub struct Sanitize {
    pub probes: &'static [Probe],
    pub stand_in: Option<&'static StandIn>,
}

/// The kernel as the sanitizer runs it where the simulator cannot follow one of its memory
/// objects (lesson 09's image: Oclgrind 21.10 counts every value read from an image as never
/// initialised, and lets a read outside the image pass): the same text, the object replaced
/// by a buffer the course's own functions read. Only the sanitizer's runs use it; the device,
/// the timings and the technique's counts run the kernel as written.
pub struct StandIn {
    /// The kernel's text as the sanitizer builds it: the stand-in's source first, then the
    /// file's text with the object's type words replaced, line for line and column for
    /// column, so that every report points at the file's own line.
    pub source: fn(&str) -> String,
    /// The kernel's arguments in that text.
    pub args: &'static [Arg],
    /// One run with buffers of exactly the objects' sizes, C not initialised.
    pub exact: RunFn,
    /// The file name the stand-in's own lines carry in the simulator's reports (its source
    /// begins with a `#line 1 "…"` of this name).
    pub file: &'static str,
    /// What a read or write the simulator reports in those lines means for the kernel, and
    /// what to do about it: the report's own line is the course's, not the student's.
    pub outside: &'static str,
}

/// Another way to run a lesson's problem, measured beside the reference for the chapter
/// (row-as-dimension-0 in lesson 04, zero-padding in 08, the copy path in 09, ...).
pub struct Variant {
    /// Short name, used in results files: `row-as-dim0`, `copy`.
    pub name: &'static str,
    /// What it shows, one sentence.
    pub about: &'static str,
    /// Checks and times it at a size on a device; `Ok(None)` when it does not apply there.
    pub measure: fn(&Gpu, &Course, Shape) -> Result<Option<Timing>>,
    /// Its C for a problem, where a tool compares its accuracy (`lab-bench accuracy`);
    /// `Ok(None)` when it does not apply on the device. `None`: only timed.
    pub product: Option<ProductFn>,
}

/// A variant's C for a problem on a device: `Ok(None)` where it does not apply there.
pub type ProductFn = fn(&Gpu, &Course, &Problem) -> Result<Option<Vec<f32>>>;

/// An OpenCL lesson.
pub struct OclLesson {
    /// The kernel function's name.
    pub kernel: &'static str,
    pub args: &'static [Arg],
    /// The tuning defines for a device (each kernel file also has defaults of its own).
    pub defines: fn(&Ctx) -> Vec<Define>,
    /// Why a set of defines is not legal for the kernel, one sentence per broken rule.
    pub check_defines: fn(&[Define]) -> Result<(), String>,
    /// The NDRange for a size, or why the lesson's kernel does not handle that size. Called
    /// with defines that passed `check_defines`.
    pub launch: fn(Shape, &[Define]) -> Result<Launch, String>,
    /// The sizes the grader checks (random, non-square, valid for the lesson).
    pub shapes: fn(&[Define]) -> Result<Vec<Shape>, String>,
    /// Other legal define sets the grader checks after the device's own: asymmetric tiles
    /// (TSM ≠ TSN, WPTM ≠ WPTN), so that a kernel that swaps two directions cannot pass.
    pub define_sets: &'static [&'static [(&'static str, &'static str)]],
    /// Extra compiler options.
    pub build_options: &'static str,
    /// Runs under the simulator that find races, reads out of bounds, divergent barriers.
    pub sanitize: Sanitize,
    /// How the technique is judged by what the kernel does; `None`: nothing to judge beyond
    /// the result.
    pub behaviour: Option<Behaviour>,
    pub host: Host,
    /// Tuned defines for a problem size, if recorded: they replace `defines` when a lesson
    /// binary or the ladder measures at that size (grading keeps `defines`).
    pub sized: Option<SizedFn>,
    /// Every combination of knobs the lesson's tuner may choose on a device (`None`: no tuner).
    /// Each grading checks every one of them at the lesson's small shapes, so that a kernel
    /// wrong on any path the tuner may take fails, every time.
    pub knobs: Option<KnobsFn>,
    /// Other versions measured beside the reference by `lab-bench ladder`.
    pub variants: &'static [Variant],
    /// The kernel handles any size, so `lab-bench ladder` also measures it just below a power of
    /// two.
    pub any_size: bool,
}

impl OclLesson {
    /// Whether the device can run this lesson at all (lesson 09 needs images); the error
    /// says why not.
    pub fn supports(&self, info: &DeviceInfo) -> Result<()> {
        if self.host.needs_images && !info.image_support {
            anyhow::bail!(
                "{} has no image support, and this lesson reads B as an image (image2d_t). Choose another device with --device; `--list-devices` shows them.",
                info.name
            );
        }
        Ok(())
    }

    /// The source built for the device: the prelude, if any, then the kernel's own text,
    /// numbered from its line 1 so that the compiler's and the simulator's lines are the
    /// file's own. Only [`crate::prepared`] puts it together.
    pub(crate) fn source(&self, gpu: &Gpu, text: &str) -> String {
        with_prelude(self.host.prelude, gpu, text)
    }

    /// The source the sanitizer's drawn run builds: as [`OclLesson::source`], with the
    /// host's unordered prelude where it has one ([`Host::unordered`]).
    pub(crate) fn unordered_source(&self, gpu: &Gpu, text: &str) -> String {
        with_prelude(self.host.unordered.or(self.host.prelude), gpu, text)
    }

    /// The kernel's text after the prelude whose unit's products are changed
    /// ([`Host::counterfactual`]), where this device's unit is modelled, and that model.
    pub(crate) fn counterfactual(&self, gpu: &Gpu, text: &str) -> Option<(String, Counterfactual)> {
        let changed = (self.host.counterfactual?)(gpu)?;
        Some((placed(Some(changed.source.clone()), gpu, text), changed))
    }

    /// Whether the sanitizer's drawn run takes another prelude than the lesson's own: the
    /// host has an unordered one, and the kernel runs as written (not through a stand-in).
    pub(crate) fn draws_unordered(&self) -> bool {
        self.host.unordered.is_some() && self.sanitize.stand_in.is_none()
    }

    /// The prelude on this device, if there is one.
    pub fn prelude(&self, gpu: &Gpu) -> Option<Prelude> {
        self.host.prelude.map(|p| p(gpu))
    }

    /// The defines the compiler sees for a knob set ([`Host::compiled`]): two sets that give
    /// the same are one build.
    pub fn compiled(&self, defines: &[Define]) -> Vec<Define> {
        match self.host.compiled {
            Some(f) => f(defines),
            None => defines.to_vec(),
        }
    }

    /// The lesson's own kernel, by name and arguments.
    pub fn signature(&self) -> Signature {
        Signature {
            name: self.kernel,
            args: self.args,
        }
    }

    /// The C declarations of every kernel the lesson's file must define, its own first, one per
    /// line: what a message about a missing or empty file shows.
    pub fn declarations(&self) -> String {
        std::iter::once(self.signature())
            .chain(self.host.kernels.iter().copied())
            .map(|s| crate::harness::program::signature(s.name, s.args))
            .collect::<Vec<_>>()
            .join("\n  ")
    }
}

/// Every combination of a tuner's knobs on a device, each as a set of defines.
pub type KnobsFn = fn(&DeviceInfo) -> Vec<Vec<Define>>;

/// The standard argument list: M, N, K, then A, B and C in global memory.
pub const STANDARD_ARGS: &[Arg] = &[
    Arg::Int("M"),
    Arg::Int("N"),
    Arg::Int("K"),
    Arg::GlobalIn("A"),
    Arg::GlobalIn("B"),
    Arg::GlobalOut("C"),
];

/// Reads a numeric define (`TS`, `WPT`, ...): a whole number of at least 1, or a sentence
/// saying which rule it breaks.
pub fn define(defines: &[Define], name: &str) -> Result<usize, String> {
    let d = defines
        .iter()
        .rev()
        .find(|d| d.name == name)
        .ok_or_else(|| format!("the define {name} is missing"))?;
    let v: usize = d.value.trim().parse().map_err(|_| {
        format!(
            "-D {name}={}: {name} must be a whole number, such as 8 or 16",
            d.value
        )
    })?;
    if v == 0 {
        return Err(format!("-D {name}=0: {name} must be at least 1"));
    }
    Ok(v)
}

/// Applies `-D NAME=VALUE` overrides to a lesson's defaults.
pub fn with_overrides(mut defines: Vec<Define>, overrides: &[Define]) -> Vec<Define> {
    for o in overrides {
        match defines.iter_mut().find(|d| d.name == o.name) {
            Some(d) => d.value = o.value.clone(),
            None => defines.push(o.clone()),
        }
    }
    defines
}

/// Checks that `a` is a multiple of `b`, with a sentence naming both defines when not.
pub fn require_divides(d: &[Define], a: &str, b: &str, why: &str) -> Result<(), String> {
    let (x, y) = (define(d, a)?, define(d, b)?);
    if x.is_multiple_of(y) {
        Ok(())
    } else {
        Err(format!("{a} = {x} must be a multiple of {b} = {y} ({why})"))
    }
}

/// Refuses a size unless each dimension is a multiple of the given tile.
pub fn require_multiple(
    s: Shape,
    tm: usize,
    tn: usize,
    tk: usize,
    why: &str,
) -> Result<(), String> {
    require_nonempty(s)?;
    if s.multiple_of(tm, tn, tk) {
        Ok(())
    } else {
        Err(format!(
            "{s} is not supported by this lesson's kernel: M must be a multiple of {tm}, N of {tn} and K of {tk} ({why}). Lesson 08 removes this limit."
        ))
    }
}

/// Refuses an empty problem.
pub fn require_nonempty(s: Shape) -> Result<(), String> {
    if s.m == 0 || s.n == 0 || s.k == 0 {
        Err(format!("{s}: every dimension must be at least 1"))
    } else {
        Ok(())
    }
}

/// `n` rounded up to a multiple of `m`.
pub fn round_up(n: usize, m: usize) -> usize {
    n.div_ceil(m) * m
}

/// A count per multiply-add of the probe's product (M·N·K of them).
pub fn per_mad(count: u64, probe: &Probe) -> f64 {
    let s = probe.shape;
    count as f64 / (s.m * s.n * s.k).max(1) as f64
}

/// A probe's define as a number (the probes' defines are the course's own, and legal).
pub fn probe_define(probe: &Probe, name: &str) -> f64 {
    probe
        .defines
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, v)| v.parse::<f64>().ok())
        .unwrap_or(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defines_are_validated_with_a_sentence() {
        let d = vec![Define::new("TS", "abc"), Define::new("WPT", 0)];
        assert!(define(&d, "TS").unwrap_err().contains("whole number"));
        assert!(define(&d, "WPT").unwrap_err().contains("at least 1"));
        assert!(define(&d, "X").unwrap_err().contains("missing"));
        let d = with_overrides(vec![Define::new("TS", 16)], &[Define::new("TS", 8)]);
        assert_eq!(define(&d, "TS"), Ok(8));
        let d = vec![Define::new("TSK", 16), Define::new("WIDTH", 3)];
        assert!(require_divides(&d, "TSK", "WIDTH", "whole vectors")
            .unwrap_err()
            .contains("TSK = 16 must be a multiple of WIDTH = 3"));
    }
}
