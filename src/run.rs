//! What a lesson program does: run the student's code (or the reference) once at a size,
//! check it against the f64 reference, time it, compare it with the previous rung, print a
//! report and, if asked, record it.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};

use crate::cli::{check_shape, Common, Edge};
use crate::grade::{self, FailKind, Failure, Source};
use crate::harness::device::{self, DeviceInfo};
use crate::harness::matrix::Shape;
use crate::harness::paths;
use crate::harness::peak;
use crate::harness::program::{self, Define};
use crate::harness::record::{self, LadderRow};
use crate::harness::timing::Timing;
use crate::ladder;
use crate::lesson::{Ctx, Kind, Lesson};
use crate::prepared;
use crate::report::{gflops, ms};

/// One measured run of a lesson's code.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub lesson: &'static Lesson,
    /// "your code" or "reference".
    pub variant: String,
    pub file: PathBuf,
    pub device: String,
    pub driver: String,
    /// CPU code: the threads it ran with (rayon's default); 0 for OpenCL.
    pub threads: usize,
    pub shape: Shape,
    pub defines: Vec<Define>,
    /// Elements checked against the f64 reference, and the max relative error.
    pub checked: usize,
    pub max_rel_err: f64,
    pub timing: Timing,
    /// The measured peak of exactly this device (and thread count), if recorded.
    pub peak: Option<crate::harness::peak::Peak>,
    /// The previous rung's reference at the same size, if it was run.
    pub previous: Option<(&'static str, Timing)>,
    pub previous_note: Option<String>,
}

pub use crate::report::LessonFailed;

/// Which code a lesson program runs: `--solution`, `--kernels DIR`, `LAB_KERNELS`, else
/// `kernels/`.
pub fn source(common: &Common, edge: &Edge) -> Source {
    if common.solution {
        Source::Folder(edge.course.solutions())
    } else if let Some(dir) = &common.kernels {
        Source::Folder(paths::absolute(dir))
    } else {
        Source::Folder(
            edge.kernels
                .clone()
                .unwrap_or_else(|| edge.course.kernels()),
        )
    }
}

/// Default problem size: small enough for a CPU, large enough to fill a GPU.
pub fn default_size(lesson: &Lesson, info: Option<&DeviceInfo>) -> usize {
    match (&lesson.kind, info) {
        (Kind::Cpu(_), _) => 512,
        (_, Some(i)) if i.is_gpu() => 2048,
        _ => 512,
    }
}

/// The host CPU's model name, e.g. "Intel(R) Xeon(R) Processor @ 2.80GHz".
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string())
}

/// Threads rayon uses by default on this machine.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn failed(f: Failure) -> anyhow::Error {
    LessonFailed(f).into()
}

/// Runs and measures one lesson's code at `shape`, through the grading pipeline: the code runs
/// in a worker process (this program started again), is checked at `shape` and timed there
/// with the course's one protocol. Only the technique checks and the simulator are left out.
pub fn measure(
    lesson: &'static Lesson,
    source: &Source,
    edge: &Edge,
    device_sel: Option<&str>,
    shape: Shape,
    overrides: &[Define],
) -> Result<Measurement> {
    let file = source.path(lesson);
    let variant = if paths::same(file.parent().unwrap_or(&file), &edge.course.solutions()) {
        "reference"
    } else {
        "your code"
    }
    .to_string();
    if !file.is_file() {
        return Err(failed(Failure::new(
            FailKind::Missing,
            format!("{} does not exist", paths::display(&file)),
        )));
    }
    let mut opts = grade::Options {
        shapes: Some(vec![shape]),
        time: Some(shape),
        time_exactly: true,
        simulate: false,
        technique: false,
        ..edge.options(edge.worker_program()?, device_sel)
    };
    let (device, driver, threads, defines, peak) = match lesson.kind {
        Kind::Device => bail!("lesson 00 has no code to run"),
        Kind::Cpu(c) => {
            // Serial lessons use one thread whatever the pool holds.
            let threads = if c.serial { 1 } else { default_threads() };
            let model = cpu_model();
            let peak = peak::for_cpu(&edge.course.results(), &model, threads);
            (
                format!("{model} ({threads} threads)"),
                String::new(),
                threads,
                Vec::new(),
                peak,
            )
        }
        Kind::OpenCl(ocl) => {
            // The device's facts only: no student code runs in this process.
            let (_, info) = device::pick(device_sel)?;
            ocl.supports(&info)?;
            let ctx = Ctx {
                info: &info,
                course: &edge.course,
            };
            let defines = prepared::defines(ocl, &ctx, Some(shape), overrides)
                .map_err(|why| failed(Failure::new(FailKind::Setup, why)))?;
            // A full set of defines: the grading builds with exactly these, and only these.
            opts.defines = defines.clone();
            let peak = peak::lookup(&edge.course.results(), &info);
            (info.name.clone(), info.driver.clone(), 0, defines, peak)
        }
    };
    let v = grade::grade(lesson, source, &opts);
    if let Some(f) = v.failure {
        return Err(failed(match f.kind {
            FailKind::NotStarted => Failure::new(
                FailKind::NotStarted,
                format!(
                    "{}\nHint: {}",
                    f.message.lines().next().unwrap_or(""),
                    lesson.hint
                ),
            ),
            _ => f,
        }));
    }
    let (shape, timing) = v
        .timing
        .context("the grading worker returned no timing for a passing run")?;
    let case = v
        .cases
        .last()
        .context("the grading worker checked no problem")?;
    Ok(Measurement {
        lesson,
        variant,
        file,
        device,
        driver,
        threads,
        shape,
        defines,
        checked: case.checked,
        max_rel_err: case.max_rel_err,
        timing,
        peak,
        previous: None,
        previous_note: None,
    })
}

/// Measures the previous rung's reference at the same size, where that is reasonable.
fn previous_rung(
    lesson: &Lesson,
    edge: &Edge,
    device_sel: Option<&str>,
    shape: Shape,
) -> (Option<(&'static str, Timing)>, Option<String>) {
    let Some(prev) = ladder::previous(lesson).filter(|p| p.graded()) else {
        return (None, None);
    };
    if matches!(prev.kind, Kind::Cpu(_)) && shape.flops() > 2.0 * 1024f64.powi(3) {
        return (None, Some(format!("lesson {} on the CPU would take too long at this size; compare with --size 1024 or less", prev.key)));
    }
    let solutions = Source::Folder(edge.course.solutions());
    match measure(prev, &solutions, edge, device_sel, shape, &[]) {
        Ok(m) => (Some((prev.key, m.timing)), None),
        Err(e) => (
            None,
            Some(format!("lesson {} not compared: {e:#}", prev.key)),
        ),
    }
}

/// The body of lessons 01–10's programs: run (in a worker process), print, record.
/// `None` when the flags asked for something else (`--list-devices`).
pub fn run_lesson(
    lesson: &'static Lesson,
    args: &Common,
    edge: &Edge,
) -> Result<Option<Measurement>> {
    let sel = edge.device(args.device.as_deref());
    if args.list_devices {
        print!("{}", device::list_table()?);
        return Ok(None);
    }
    let info = match lesson.kind {
        Kind::Cpu(_) => None,
        _ => Some(device::pick(sel.as_deref())?.1),
    };
    let shape = args.shape(default_size(lesson, info.as_ref()))?;
    check_shape(shape)?;
    let source = source(args, edge);
    // The code runs in a worker process with a watchdog on every step (LAB_TIMEOUT): a kernel
    // that never finishes ends the program with a message.
    let mut m = measure(lesson, &source, edge, sel.as_deref(), shape, &args.defines)?;
    if !args.no_compare {
        let (prev, note) = previous_rung(lesson, edge, sel.as_deref(), shape);
        m.previous = prev;
        m.previous_note = note;
    }
    print!("{}", report(&m));
    if let Some(path) = &args.record {
        record::append(path, &[row(&m, &record::run_id())])?;
        println!("recorded in {}", path.display());
    }
    Ok(Some(m))
}

/// A measurement as a row of a ladder CSV file.
pub fn row(m: &Measurement, run: &str) -> LadderRow {
    let mut row = timing_row(
        run,
        &m.device,
        &m.driver,
        m.threads,
        &m.lesson.name(),
        &m.variant,
        m.shape,
        &m.timing,
        Some(m.max_rel_err),
    );
    row.defines = program::line(&m.defines);
    row
}

/// A timing as a row of a ladder CSV file.
#[allow(clippy::too_many_arguments)]
pub fn timing_row(
    run: &str,
    device: &str,
    driver: &str,
    threads: usize,
    lesson: &str,
    variant: &str,
    shape: Shape,
    t: &Timing,
    max_rel_err: Option<f64>,
) -> LadderRow {
    let round = |x: f64, digits: i32| (x * 10f64.powi(digits)).round() / 10f64.powi(digits);
    LadderRow {
        date: record::today(),
        run: run.to_string(),
        device: device.to_string(),
        driver: driver.to_string(),
        threads,
        lesson: lesson.to_string(),
        variant: variant.to_string(),
        defines: String::new(),
        m: shape.m,
        n: shape.n,
        k: shape.k,
        device_ms: round(t.device_ms, 4),
        best_ms: round(t.best_ms, 4),
        worst_ms: round(t.worst_ms, 4),
        reps: t.reps,
        host_ms: round(t.host_ms, 4),
        gflops: round(t.gflops(shape), 1),
        host_gflops: round(t.host_gflops(shape), 1),
        // Three digits are all an error bound needs.
        max_rel_err: max_rel_err.and_then(|e| format!("{e:.2e}").parse().ok()),
    }
}

/// The report a lesson program prints.
pub fn report(m: &Measurement) -> String {
    let mut s = String::new();
    let shape = m.shape;
    let t = &m.timing;
    let _ = writeln!(
        s,
        "Lesson {} · {} — {} ({})",
        m.lesson.key,
        m.lesson.title,
        m.variant,
        paths::display(&m.file)
    );
    let device = if m.driver.is_empty() {
        m.device.clone()
    } else {
        format!("{} (driver {})", m.device, m.driver)
    };
    let _ = writeln!(s, "  device       {device}");
    if matches!(m.lesson.kind, Kind::Cpu(_)) {
        let (isa, bits) = crate::harness::cpu_crate::simd();
        let _ = writeln!(
            s,
            "  built for    this CPU: {isa}, {bits}-bit vectors (-Ctarget-cpu=native)"
        );
    }
    let _ = writeln!(s, "  size         {shape}");
    if !m.defines.is_empty() {
        let _ = writeln!(s, "  defines      {}", program::line(&m.defines));
    }
    let _ = writeln!(
        s,
        "  check        passed: {} elements against the f64 reference, max relative error {:.1e}",
        m.checked, m.max_rel_err
    );
    let spread = format!(
        "median of {}, best {}, worst {}",
        t.reps,
        ms(t.best_ms),
        ms(t.worst_ms)
    );
    // CPU code has no driver and no transfers: one time says it all.
    if m.driver.is_empty() {
        let _ = writeln!(s, "  time         {} ({spread})", ms(t.device_ms));
        let _ = writeln!(s, "  speed        {} GFLOP/s", gflops(t.gflops(shape)));
    } else {
        // A driver whose clock was not believed is timed from enqueue to completion: the
        // report says which clock it read, as the scoreboard's "(wall clock)" does.
        let on = match t.clock {
            crate::harness::timing::Clock::Device => "on the device",
            crate::harness::timing::Clock::Wall => {
                "on the wall clock (the device's clock was not believed)"
            }
        };
        let _ = writeln!(
            s,
            "  time         {} {on} ({spread}); {} end to end with transfers",
            ms(t.device_ms),
            ms(t.host_ms)
        );
        let _ = writeln!(
            s,
            "  speed        {} GFLOP/s {}, {} GFLOP/s end to end",
            gflops(t.gflops(shape)),
            if t.clock == crate::harness::timing::Clock::Wall {
                "on the wall clock"
            } else {
                "on the device"
            },
            gflops(t.host_gflops(shape))
        );
    }
    // Against the ceiling of the unit the lesson multiplies on, never another unit's.
    let unit = m.lesson.unit;
    match m.peak.as_ref().map(|p| unit.ceiling(p)) {
        Some(Some(p)) => {
            let _ = writeln!(
                s,
                "  of peak      {:.1} % of {} ({} GFLOP/s, lesson 00)",
                100.0 * t.gflops(shape) / p,
                match unit {
                    crate::lesson::Unit::Fp32 => "this device's measured FP32 peak",
                    crate::lesson::Unit::MatrixTf32 =>
                        "the matrix unit's measured TF32 rate over the three products of the split",
                    crate::lesson::Unit::MatrixInt8 => "the matrix unit's measured INT8 rate",
                },
                gflops(p)
            );
        }
        Some(None) => {
            let _ = writeln!(
                s,
                "  of peak      n/a ({}; {})",
                unit.words(),
                match unit {
                    // Lesson 00 measures FP32 and the TF32 unit, not the INT8 one.
                    crate::lesson::Unit::MatrixInt8 => "the course does not measure its rate",
                    _ => "its rate is not recorded for this device: lesson 00 measures it where the device has one",
                }
            );
        }
        None if m.driver.is_empty() => {
            let _ = writeln!(
                s,
                "  of peak      unknown: no peak is recorded for this CPU with {} threads",
                m.threads
            );
        }
        None => {
            let _ = writeln!(
                s,
                "  of peak      unknown: run lesson 00 on this device to measure its peak"
            );
        }
    }
    if let Some((key, prev)) = &m.previous {
        let _ = writeln!(
            s,
            "  vs lesson {key}  {:.2}× the speed of lesson {key}'s reference ({} GFLOP/s)",
            prev.device_ms / t.device_ms,
            gflops(prev.gflops(shape))
        );
    }
    if let Some(note) = &m.previous_note {
        let _ = writeln!(s, "  vs previous  {note}");
    }
    s
}
