//! What a lesson binary does: run the student's code (or the reference) once at a size,
//! check it against the CPU reference, time it, and compare with the previous rung.

use std::time::Duration;

use anyhow::{bail, Context as _, Result};

use crate::cli::Common;
use crate::device::{self, DeviceInfo, Gpu};
use crate::exec::Timing;
use crate::grade::{self, judge, FailKind, Failure, Source};
use crate::lessons::{self, Kind, Lesson};
use crate::matrix::{self, Problem, Shape};
use crate::paths;
use crate::peak;
use crate::program::{self, Define};
use crate::record;
use crate::report;

/// One measured run of a lesson's code.
#[derive(Clone, Debug)]
pub struct Measurement {
    pub lesson: &'static Lesson,
    /// "your kernel" or "reference".
    pub variant: String,
    pub file: std::path::PathBuf,
    pub device: String,
    pub driver: String,
    pub shape: Shape,
    pub defines: Vec<Define>,
    /// Elements checked against the f64 reference, and the max relative error.
    pub checked: usize,
    pub max_rel_err: f64,
    pub timing: Timing,
    /// The device's measured peak, GFLOP/s, if lesson 00 recorded one.
    pub peak_gflops: Option<f64>,
    /// The previous rung's reference at the same size, if it was run.
    pub previous: Option<(u32, Timing)>,
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

/// Default problem size: small enough for a CPU, large enough to fill a GPU.
pub fn default_size(lesson: &Lesson, info: Option<&DeviceInfo>) -> usize {
    match (&lesson.kind, info) {
        (Kind::Cpu(_), _) => 512,
        (_, Some(i)) if i.is_gpu() => 2048,
        _ => 512,
    }
}

/// Ends the process with a message if the run takes longer than `limit`: a kernel that
/// never finishes must not leave the student staring at a silent terminal.
pub fn watchdog(limit: Duration, what: String) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!(
            "error: {what} did not finish within {:.0} s (set LAB_TIMEOUT=SECONDS to wait longer). Look for a loop that never ends or a barrier that only some work-items reach.",
            limit.as_secs_f64()
        );
        std::process::exit(3);
    });
}

/// The watchdog's limit: `LAB_TIMEOUT` seconds, else 300.
pub fn time_limit() -> Duration {
    Duration::from_secs(
        std::env::var("LAB_TIMEOUT")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(300),
    )
}

/// Runs and measures one lesson's code at `shape`.
pub fn measure(
    lesson: &'static Lesson,
    source: &Source,
    device_sel: Option<&str>,
    shape: Shape,
    overrides: &[Define],
) -> Result<Measurement> {
    let file = source.path(lesson);
    let variant = if *source == Source::Solution {
        "reference"
    } else {
        "your kernel"
    }
    .to_string();
    match lesson.kind {
        Kind::Device => bail!("lesson 00 has no kernel to run"),
        Kind::Cpu(parts) => {
            let part = parts.last().expect("a CPU lesson has a part");
            let f = match source {
                Source::Solution => part.reference,
                _ => {
                    let built = paths::compiled_cpu_kernels_dir();
                    if let Source::Student(dir) = source {
                        if !paths::same_dir(dir, &built) {
                            bail!("CPU lessons are compiled in from {}; rebuild with LAB_KERNELS={} to run that folder", built.display(), dir.display());
                        }
                    }
                    part.student
                }
            };
            let p = Problem::random(shape, 7);
            let (c, first_ms) = grade::run_cpu(f, &p).map_err(|msg| {
                if msg.contains("not yet implemented") {
                    anyhow::Error::new(LessonFailed(Failure::new(
                        FailKind::NotStarted,
                        format!(
                            "`{}` still says `todo!()`.\nHint: {}",
                            part.name, lesson.hint
                        ),
                    )))
                } else {
                    anyhow::anyhow!("`{}` panicked: {msg}", part.name)
                }
            })?;
            let cmp = check(&p, &c);
            let out = crate::exec::RunOutput {
                c,
                guard: Default::default(),
                a_changed: None,
                b_changed: None,
                kernel_ms: first_ms,
            };
            if let Some(f) = judge(lesson, shape, &out, &cmp, false) {
                return Err(LessonFailed(f).into());
            }
            let reps = crate::exec::reps_for(first_ms, 2000.0).min(10);
            let mut times: Vec<f64> = (0..reps)
                .filter_map(|_| grade::run_cpu(f, &p).ok().map(|r| r.1))
                .collect();
            let best = times.iter().cloned().fold(f64::INFINITY, f64::min);
            let ms = crate::exec::median(&mut times);
            Ok(Measurement {
                lesson,
                variant,
                file,
                device: cpu_name(),
                driver: String::new(),
                shape,
                defines: Vec::new(),
                checked: cmp.checked,
                max_rel_err: cmp.max_rel_err,
                timing: Timing {
                    device_ms: ms,
                    best_ms: best,
                    host_ms: ms,
                    reps,
                },
                peak_gflops: peak::cpu().map(|p| p.gflops),
                previous: None,
                previous_note: None,
            })
        }
        Kind::OpenCl(ocl) => {
            let gpu = Gpu::open(device_sel)?;
            ocl.supports(&gpu.info)?;
            let mut defines = (ocl.defines)(&gpu.info);
            if let Some(tuned) = ocl.sized.and_then(|f| f(&gpu.info, shape)) {
                defines = lessons::with_overrides(defines, &tuned);
            }
            let defines = lessons::with_overrides(defines, overrides);
            let launch = (ocl.launch)(shape, &defines).map_err(|why| anyhow::anyhow!(why))?;
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading {}", paths::display(&file)))?;
            let starter = matches!(source, Source::Student(_)) && grade::is_starter(&text);
            let program = program::build_source(&gpu, &file, &text, &defines, ocl.build_options)?;
            let kernel = program::kernel(&program, &file, ocl.kernel, ocl.args)?;
            let p = Problem::random(shape, 7);
            let out = (ocl.host.run)(&gpu, &kernel, &p, &launch, &defines)?;
            let cmp = check(&p, &out.c);
            if let Some(f) = judge(lesson, shape, &out, &cmp, starter) {
                return Err(LessonFailed(f).into());
            }
            let timing = (ocl.host.time)(&gpu, &kernel, &p, &launch, &defines, 2000.0)?;
            Ok(Measurement {
                lesson,
                variant,
                file,
                device: gpu.info.name.clone(),
                driver: gpu.info.driver.clone(),
                shape,
                defines,
                checked: cmp.checked,
                max_rel_err: cmp.max_rel_err,
                timing,
                peak_gflops: peak::lookup(&gpu.info).map(|p| p.gflops),
                previous: None,
                previous_note: None,
            })
        }
    }
}

/// The host CPU's model and the threads rayon uses, e.g. "Intel(R) Xeon(R) Platinum (16 threads)".
pub fn cpu_name() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    format!("{model} ({} threads)", rayon::current_num_threads())
}

/// Checks a result: every element for small products, a sample (edges and random points)
/// for large ones.
pub fn check(p: &Problem, c: &[f32]) -> matrix::Comparison {
    if p.shape.flops() <= 2.0 * 512.0 * 512.0 * 512.0 {
        matrix::compare(p.shape, c, &matrix::reference(p))
    } else {
        let pts = matrix::sample_points(p.shape, 4096, 11);
        matrix::compare_sampled(p, c, &pts)
    }
}

/// Measures the previous rung's reference at the same size, where that is reasonable.
fn previous_rung(
    lesson: &Lesson,
    device_sel: Option<&str>,
    shape: Shape,
) -> (Option<(u32, Timing)>, Option<String>) {
    if lesson.number <= 1 {
        return (None, None);
    }
    let prev = lessons::get(lesson.number - 1);
    if matches!(prev.kind, Kind::Cpu(_)) && shape.flops() > 2.0 * 1024f64.powi(3) {
        return (None, Some(format!("lesson {} on the CPU would take too long at this size; compare with --size 1024 or less", prev.id())));
    }
    match measure(prev, &Source::Solution, device_sel, shape, &[]) {
        Ok(m) => (Some((prev.number, m.timing)), None),
        Err(e) => (
            None,
            Some(format!("lesson {} not compared: {e:#}", prev.id())),
        ),
    }
}

/// The main of lessons 01–10: parse nothing (the binary did), run, print, record.
pub fn run(lesson: &'static Lesson, args: &Common) -> Result<Measurement> {
    args.apply_kernels_dir();
    let sel = device::selector(args.device.as_deref());
    if args.list_devices {
        print!("{}", device::list_table()?);
        std::process::exit(0);
    }
    let info = match lesson.kind {
        Kind::Cpu(_) => None,
        _ => Some(device::pick(sel.as_deref())?.1),
    };
    let shape = args.shape(default_size(lesson, info.as_ref()))?;
    let source = if args.solution {
        Source::Solution
    } else {
        Source::student()
    };
    watchdog(time_limit(), format!("lesson {} at {shape}", lesson.id()));
    let mut m = measure(lesson, &source, sel.as_deref(), shape, &args.defines)?;
    if !args.no_compare {
        let (prev, note) = previous_rung(lesson, sel.as_deref(), shape);
        m.previous = prev;
        m.previous_note = note;
    }
    print!("{}", report::measurement(&m));
    if let Some(path) = &args.record {
        record::append(path, record::LADDER_HEADER, &[row(&m)])?;
        println!("recorded in {}", path.display());
    }
    Ok(m)
}

/// A measurement as a row of a ladder CSV file.
pub fn row(m: &Measurement) -> Vec<String> {
    vec![
        record::today(),
        m.device.clone(),
        m.driver.clone(),
        m.lesson.name(),
        m.variant.clone(),
        m.shape.m.to_string(),
        m.shape.n.to_string(),
        m.shape.k.to_string(),
        format!("{:.4}", m.timing.device_ms),
        format!("{:.4}", m.timing.host_ms),
        format!("{:.1}", m.timing.gflops(m.shape)),
        format!("{:.1}", m.timing.host_gflops(m.shape)),
        format!("{:.2e}", m.max_rel_err),
    ]
}

/// Runs a lesson binary's body and turns errors into a message and an exit code.
pub fn exit_code(result: Result<()>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            if let Some(LessonFailed(f)) = e.downcast_ref::<LessonFailed>() {
                eprintln!("{}", report::failure_text(f));
            } else {
                eprintln!("error: {e:#}");
            }
            std::process::ExitCode::FAILURE
        }
    }
}
