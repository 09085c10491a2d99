//! The ladder: one entry per lesson, saying what the student writes, how it is launched,
//! which sizes it must handle and which technique it must use.

use anyhow::{Context as _, Result};
use opencl3::kernel::Kernel;

use crate::device::{DeviceInfo, Gpu};
use crate::exec::{self, Launch, RunOutput, Timing};
use crate::matrix::{Problem, Shape};
use crate::program::{Arg, Define};

/// A CPU matrix product: `c = a · b`, all row-major; `c` arrives filled with NaN.
pub type MatmulFn = fn(&[f32], &[f32], &mut [f32], usize, usize, usize);

/// One function a CPU lesson asks for.
pub struct CpuPart {
    /// The function's name in the lesson's file.
    pub name: &'static str,
    pub student: MatmulFn,
    pub reference: MatmulFn,
}

/// A word the kernel's source must contain (comments aside), and the hint when it does not.
pub struct Technique {
    pub pattern: &'static str,
    /// How many times it must appear (e.g. two barriers per tile).
    pub min: usize,
    pub hint: &'static str,
}

/// Runs a kernel once on a problem, guarded (see [`exec::run_guarded`]).
pub type RunFn = fn(&Gpu, &Kernel, &Problem, &Launch, &[Define]) -> Result<RunOutput>;
/// Times a kernel within a budget in ms (see [`exec::time_buffers`]).
pub type TimeFn = fn(&Gpu, &Kernel, &Problem, &Launch, &[Define], f64) -> Result<Timing>;

/// Tuned defines for a device and problem size, if any are recorded.
pub type SizedFn = fn(&DeviceInfo, Shape) -> Option<Vec<Define>>;

/// How the host sets up, runs and times a lesson's kernel.
pub struct Host {
    pub run: RunFn,
    pub time: TimeFn,
    /// The lesson cannot run on a device without image support.
    pub needs_images: bool,
}

/// Plain buffers for A, B and C, copied to and from the device.
pub const BUFFERS: Host = Host {
    run: |gpu, kernel, p, l, _| exec::run_guarded(gpu, kernel, p, l),
    time: |gpu, kernel, p, l, _, budget| exec::time_buffers(gpu, kernel, p, l, budget),
    needs_images: false,
};

/// Another way to run a lesson's problem, measured beside the reference for the chapter
/// (row-as-dimension-0 in lesson 04, zero-padding in 08, the copy path in 09, CLBlast in 10).
pub struct Variant {
    /// Short name, used in results files: `row-as-dim0`, `copy`, `clblast`.
    pub name: &'static str,
    /// What it shows, one sentence.
    pub about: &'static str,
    /// Checks and times it at a size on a device; `Ok(None)` when it does not apply there.
    pub measure: fn(&Gpu, Shape) -> Result<Option<Timing>>,
}

/// An OpenCL lesson.
pub struct OclLesson {
    /// The kernel function's name.
    pub kernel: &'static str,
    pub args: &'static [Arg],
    /// The tuning defines for a device (each kernel file also has defaults of its own).
    pub defines: fn(&DeviceInfo) -> Vec<Define>,
    /// The NDRange for a size, or why the lesson's kernel does not handle that size.
    pub launch: fn(Shape, &[Define]) -> Result<Launch, String>,
    /// The sizes the grader checks (random, non-square, valid for the lesson).
    pub shapes: fn(&[Define]) -> Vec<Shape>,
    /// Extra compiler options.
    pub build_options: &'static str,
    pub uses: &'static [Technique],
    pub host: Host,
    /// Tuned defines for a problem size, if recorded: they replace `defines` when a lesson
    /// binary or the ladder measures at that size (grading keeps `defines`).
    pub sized: Option<SizedFn>,
    /// Other versions measured beside the reference by `cargo run --bin ladder`.
    pub variants: &'static [Variant],
}

/// What kind of work a lesson is.
pub enum Kind {
    /// Lesson 00: nothing to grade.
    Device,
    Cpu(&'static [CpuPart]),
    OpenCl(&'static OclLesson),
}

/// One rung of the ladder.
pub struct Lesson {
    pub number: u32,
    pub slug: &'static str,
    pub title: &'static str,
    /// Shown when the lesson is not started: where to begin.
    pub hint: &'static str,
    pub kind: Kind,
}

impl std::fmt::Debug for Lesson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Lesson({})", self.name())
    }
}

impl Lesson {
    /// `05_local_tiling`: the name shared by the lesson's binary, kernel, solution, test and chapter.
    pub fn name(&self) -> String {
        format!("{:02}_{}", self.number, self.slug)
    }

    /// The file the student edits: `05_local_tiling.cl` or `01_cpu_naive.rs`.
    pub fn file_name(&self) -> String {
        match self.kind {
            Kind::Cpu(_) => format!("{}.rs", self.name()),
            _ => format!("{}.cl", self.name()),
        }
    }

    pub fn id(&self) -> String {
        format!("{:02}", self.number)
    }

    pub fn ocl(&self) -> Option<&'static OclLesson> {
        match self.kind {
            Kind::OpenCl(o) => Some(o),
            _ => None,
        }
    }
}

/// Reads a numeric define (`TS`, `WPT`, ...), which every lesson's `defines` provides.
pub fn define(defines: &[Define], name: &str) -> usize {
    defines
        .iter()
        .rev()
        .find(|d| d.name == name)
        .and_then(|d| d.value.parse().ok())
        .unwrap_or_else(|| panic!("the lesson's define {name} is missing or not a number"))
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

/// Runs a variant's kernel once guarded and judged as a student's would be, then times it
/// with the lesson's host code: a variant that computes the wrong thing is an error, not a
/// number in the book.
pub fn checked_time(
    gpu: &Gpu,
    lesson: &Lesson,
    kernel: &Kernel,
    shape: Shape,
    launch: &Launch,
    defines: &[Define],
) -> Result<Option<Timing>> {
    let host = &lesson.ocl().context("not an OpenCL lesson")?.host;
    let p = Problem::random(shape, 7);
    let out = (host.run)(gpu, kernel, &p, launch, defines)?;
    let cmp = crate::runner::check(&p, &out.c);
    if let Some(f) = crate::grade::judge(lesson, shape, &out, &cmp, false) {
        anyhow::bail!("wrong: {}", f.message);
    }
    Ok(Some((host.time)(gpu, kernel, &p, launch, defines, 2000.0)?))
}

/// Builds a lesson's reference answer with the given defines, checks it at `shape` and
/// times it (see [`checked_time`]). `Ok(None)` when the lesson's launch refuses the size.
pub fn measure_solution(
    gpu: &Gpu,
    lesson: &Lesson,
    defines: &[Define],
    shape: Shape,
) -> Result<Option<Timing>> {
    let ocl = lesson.ocl().context("not an OpenCL lesson")?;
    let Ok(launch) = (ocl.launch)(shape, defines) else {
        return Ok(None);
    };
    let file = crate::paths::solutions_dir().join(lesson.file_name());
    let program = crate::program::build_file(gpu, &file, defines, ocl.build_options)?;
    let kernel = crate::program::kernel(&program, &file, ocl.kernel, ocl.args)?;
    checked_time(gpu, lesson, &kernel, shape, &launch, defines).with_context(|| {
        format!(
            "{} with {}",
            crate::paths::display(&file),
            crate::program::options(defines, "")
        )
    })
}

impl OclLesson {
    /// Whether the device can run this lesson at all (lesson 09 needs images); the error
    /// says why not.
    pub fn supports(&self, info: &DeviceInfo) -> Result<()> {
        if self.host.needs_images {
            crate::texture::check_device(info, None)?;
        }
        Ok(())
    }
}

/// The standard argument list: M, N, K, then A, B and C in global memory.
pub const STANDARD_ARGS: &[Arg] = &[
    Arg::Int("M"),
    Arg::Int("N"),
    Arg::Int("K"),
    Arg::GlobalIn("A"),
    Arg::GlobalIn("B"),
    Arg::GlobalOut("C"),
];

/// Refuses a size unless each dimension is a multiple of the given tile.
pub fn require_multiple(
    s: Shape,
    tm: usize,
    tn: usize,
    tk: usize,
    why: &str,
) -> Result<(), String> {
    if s.m == 0 || s.n == 0 || s.k == 0 {
        return Err(format!("{s}: every dimension must be at least 1"));
    }
    if s.multiple_of(tm, tn, tk) {
        Ok(())
    } else {
        Err(format!(
            "{s} is not supported by this lesson's kernel: M must be a multiple of {tm}, N of {tn} and K of {tk} ({why}). Lesson 08 removes this limit."
        ))
    }
}

/// `n` rounded up to a multiple of `m`.
pub fn round_up(n: usize, m: usize) -> usize {
    n.div_ceil(m) * m
}

mod l00_your_device;
mod l01_cpu_naive;
mod l02_cpu_loop_order;
pub mod l03_cpu_parallel;
mod l04_naive_kernel;
mod l05_local_tiling;
mod l06_register_tiling;
mod l07_vectorization;
mod l08_padding;
mod l09_texture_zero_copy;
mod l10_tuned;

/// Every lesson, in ladder order.
pub static ALL: [&Lesson; 11] = [
    &l00_your_device::LESSON,
    &l01_cpu_naive::LESSON,
    &l02_cpu_loop_order::LESSON,
    &l03_cpu_parallel::LESSON,
    &l04_naive_kernel::LESSON,
    &l05_local_tiling::LESSON,
    &l06_register_tiling::LESSON,
    &l07_vectorization::LESSON,
    &l08_padding::LESSON,
    &l09_texture_zero_copy::LESSON,
    &l10_tuned::LESSON,
];

/// A lesson by number (`5`), id (`"05"`) or name (`"05_local_tiling"`).
pub fn find(key: &str) -> Option<&'static Lesson> {
    let key = key.trim();
    ALL.iter()
        .copied()
        .find(|l| l.name() == key || l.id() == key || key.parse::<u32>().ok() == Some(l.number))
}

/// The lesson by number; panics on a number not in the ladder (a bug in the course).
pub fn get(number: u32) -> &'static Lesson {
    ALL.iter()
        .copied()
        .find(|l| l.number == number)
        .unwrap_or_else(|| panic!("no lesson {number}"))
}
