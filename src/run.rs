//! What a lesson program does: run the student's code (or the reference) once at a size,
//! check it against the f64 reference, time it, compare it with the previous rung, print a
//! report and, if asked, record it.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::mpsc;

use anyhow::{bail, Context as _, Result};

use crate::cli::{check_shape, Common, Edge};
use crate::grade::{self, cpu, verify, FailKind, Failure, Source};
use crate::harness::device::{self, DeviceInfo, Gpu};
use crate::harness::exec::Timing;
use crate::harness::matrix::{Problem, Shape};
use crate::harness::paths;
use crate::harness::peak;
use crate::harness::program::{self, Define};
use crate::harness::record::{self, LadderRow};
use crate::ladder;
use crate::lesson::{with_overrides, Ctx, Kind, Lesson};
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
    pub peak_gflops: Option<f64>,
    /// The previous rung's reference at the same size, if it was run.
    pub previous: Option<(&'static str, Timing)>,
    pub previous_note: Option<String>,
}

/// A failure of the code under test (as opposed to a problem with the set-up).
#[derive(Debug)]
pub struct LessonFailed(pub Failure);

impl std::fmt::Display for LessonFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0.message)
    }
}

impl std::error::Error for LessonFailed {}

/// Which code a lesson program runs: `--solution`, `--kernels DIR`, else `kernels/`.
pub fn source(common: &Common, edge: &Edge) -> Source {
    if common.solution {
        Source::Folder(edge.course.solutions())
    } else if let Some(dir) = &common.kernels {
        Source::Folder(paths::absolute(dir))
    } else {
        Source::Folder(edge.course.kernels())
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

/// Runs and measures one lesson's code at `shape`.
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
    match lesson.kind {
        Kind::Device => bail!("lesson 00 has no code to run"),
        Kind::Cpu(c) => {
            let built = match cpu::builder(&edge.course).build(&file, c.functions) {
                Ok(b) => b,
                Err(e) => {
                    return Err(
                        match e.downcast_ref::<crate::harness::cpu_crate::RustBuildFailed>() {
                            Some(b) => failed(Failure::new(FailKind::Build, b.to_string())),
                            None => e,
                        },
                    )
                }
            };
            let function = c.functions.last().expect("a CPU lesson has a function");
            let p = Problem::random(shape, 7);
            let (timing, cmp) = match cpu::time(&built, function, &p, 0, edge.timeout) {
                Ok(x) => x,
                Err(f) if f.kind == FailKind::NotStarted => {
                    return Err(failed(Failure::new(
                        FailKind::NotStarted,
                        format!(
                            "{}\nHint: {}",
                            f.message.lines().next().unwrap_or(""),
                            lesson.hint
                        ),
                    )))
                }
                Err(f) => return Err(failed(f)),
            };
            // Serial lessons use one thread whatever the pool holds.
            let threads = if c.serial { 1 } else { default_threads() };
            let model = cpu_model();
            Ok(Measurement {
                lesson,
                variant,
                file,
                device: format!("{model} ({threads} threads)"),
                driver: String::new(),
                threads,
                shape,
                defines: Vec::new(),
                checked: cmp.checked,
                max_rel_err: cmp.max_rel_err,
                timing,
                peak_gflops: peak::for_cpu(&edge.course.results(), &model, threads)
                    .map(|p| p.gflops),
                previous: None,
                previous_note: None,
            })
        }
        Kind::OpenCl(ocl) => {
            let gpu = Gpu::open(device_sel)?;
            ocl.supports(&gpu.info)?;
            let ctx = Ctx {
                info: &gpu.info,
                course: &edge.course,
            };
            let mut defines = (ocl.defines)(&ctx);
            if let Some(tuned) = ocl.sized.and_then(|f| f(&ctx, shape)) {
                defines = with_overrides(defines, &tuned);
            }
            let defines = with_overrides(defines, overrides);
            (ocl.check_defines)(&defines)
                .map_err(|why| failed(Failure::new(FailKind::Setup, why)))?;
            let launch = (ocl.launch)(shape, &defines).map_err(|why| anyhow::anyhow!(why))?;
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", paths::display(&file)))?;
            if text.trim().is_empty() {
                return Err(failed(Failure::new(
                    FailKind::Build,
                    format!(
                        "{} is empty: the lesson expects a kernel",
                        paths::display(&file)
                    ),
                )));
            }
            let starter = grade::is_starter(&text).then_some(lesson.hint);
            let built = ocl.source(&gpu, &text);
            if let Some(note) = ocl.prelude_note(&gpu) {
                println!("{note}");
            }
            let program = program::build_source(&gpu, &file, &built, &defines, ocl.build_options)
                .map_err(|e| failed(grade::ocl::classify(e)))?;
            let kernel = program::kernel(&program, &file, ocl.kernel, ocl.args)
                .map_err(|e| failed(grade::ocl::classify(e)))?;
            let p = Problem::random(shape, 7);
            let out = (ocl.host.run)(&gpu, &kernel, &p, &launch, &defines)?;
            let cmp = verify(&p, &out, starter).map_err(failed)?;
            let timing = grade::ocl::time(&gpu, ocl, &kernel, shape, &launch, &defines, None)
                .map_err(|e| failed(grade::ocl::classify(e)))?;
            Ok(Measurement {
                lesson,
                variant,
                file,
                device: gpu.info.name.clone(),
                driver: gpu.info.driver.clone(),
                threads: 0,
                shape,
                defines,
                checked: cmp.checked,
                max_rel_err: cmp.max_rel_err,
                timing,
                peak_gflops: peak::lookup(&edge.course.results(), &gpu.info).map(|p| p.gflops),
                previous: None,
                previous_note: None,
            })
        }
    }
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

/// The body of lessons 01–10's programs: run, print, record. The measurement runs on a
/// thread of its own and is abandoned after `LAB_TIMEOUT` seconds, so that a kernel that
/// never finishes ends the program with a message instead of a silent terminal.
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
    let (tx, rx) = mpsc::channel();
    let (a, e, s) = (args.clone(), edge.clone(), sel.clone());
    std::thread::spawn(move || {
        let mut m = measure(lesson, &source, &e, s.as_deref(), shape, &a.defines);
        if let Ok(m) = &mut m {
            if !a.no_compare {
                let (prev, note) = previous_rung(lesson, &e, s.as_deref(), shape);
                m.previous = prev;
                m.previous_note = note;
            }
        }
        let _ = tx.send(m);
    });
    let m = match rx.recv_timeout(edge.timeout) {
        Ok(m) => m?,
        Err(_) => bail!(
            "lesson {} at {shape} did not finish within {:.0} s (set LAB_TIMEOUT=SECONDS to wait longer). Look for a loop that never ends or a barrier that only some work-items reach.",
            lesson.key,
            edge.timeout.as_secs_f64()
        ),
    };
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
    row.defines = m
        .defines
        .iter()
        .map(|d| format!("{}={}", d.name, d.value))
        .collect::<Vec<_>>()
        .join(" ");
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
    let _ = writeln!(s, "  size         {shape}");
    if !m.defines.is_empty() {
        let d: Vec<String> = m
            .defines
            .iter()
            .map(|d| format!("{}={}", d.name, d.value))
            .collect();
        let _ = writeln!(s, "  defines      {}", d.join(" "));
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
        let _ = writeln!(
            s,
            "  time         {} on the device ({spread}); {} end to end with transfers",
            ms(t.device_ms),
            ms(t.host_ms)
        );
        let _ = writeln!(
            s,
            "  speed        {} GFLOP/s on the device, {} GFLOP/s end to end",
            gflops(t.gflops(shape)),
            gflops(t.host_gflops(shape))
        );
    }
    match m.peak_gflops {
        Some(p) => {
            let _ = writeln!(
                s,
                "  of peak      {:.1} % of this device's measured FP32 peak ({} GFLOP/s, lesson 00)",
                100.0 * t.gflops(shape) / p,
                gflops(p)
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
