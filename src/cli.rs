//! The edge of every program: the flags lesson programs share, the environment variables
//! the course reads (each once, here, checked), and turning a result into an exit code.
//! Nothing below this module reads the environment or ends the process.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{bail, Context as _, Result};
use clap::Args;

use crate::grade::{self, Options, Source, Verdict};
use crate::harness::matrix::Shape;
use crate::harness::paths::{self, Course};
use crate::harness::program::Define;
use crate::lesson::Lesson;

/// The configuration every program reads from its environment.
#[derive(Clone, Debug)]
pub struct Edge {
    /// `LAB_ROOT`, else the course this program was built from.
    pub course: Course,
    /// `LAB_DEVICE`: the default device selector.
    pub device: Option<String>,
    /// `LAB_SEED`: the base seed of the graders' random problems.
    pub seed: u64,
    /// `LAB_TIMEOUT` seconds: the longest one step (a build, a run) may take.
    pub timeout: Duration,
    /// `CLBLAST_LIBRARY`: where CLBlast is, if not on the library path.
    pub clblast: Option<String>,
    /// `LAB_STRICT=1`: a part that could not be checked fails the lesson.
    pub strict: bool,
    /// `LAB_KERNELS`: the student's folder of kernels, when not the course's kernels/ (what
    /// `--kernels DIR` says on a command line, for runners that pass no flags: `cargo test`).
    pub kernels: Option<PathBuf>,
    /// `LAB_CL_STD`: build OpenCL kernels as this OpenCL C version (`1.2`), what `--cl-std`
    /// says on a command line.
    pub cl_std: Option<String>,
    /// The program that serves gradings as a worker: this program (every program of the course
    /// is its own worker), unless a caller that is none of them (a test) names one.
    pub worker: Option<PathBuf>,
    /// `LAB_PROGRESS`: the progress file, when not the course's `target/lab-progress.json`.
    pub progress: Option<PathBuf>,
}

/// Reads an environment variable that must be a whole number when set.
fn number(name: &str) -> Result<Option<u64>> {
    match std::env::var(name) {
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => v.trim().parse().map(Some).map_err(|_| {
            anyhow::anyhow!("{name}={v} is not a whole number (for example {name}=2024); unset it for the default")
        }),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(e) => bail!("{name}: {e}"),
    }
}

fn text(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|s| !s.trim().is_empty())
}

impl Edge {
    /// Reads and checks the environment: an invalid value is an error naming the variable.
    pub fn from_env() -> Result<Edge> {
        let timeout = number("LAB_TIMEOUT")?.unwrap_or(300);
        if timeout == 0 {
            bail!("LAB_TIMEOUT=0: the time limit must be at least 1 second");
        }
        Ok(Edge {
            course: Course::from_env(),
            device: text("LAB_DEVICE"),
            seed: number("LAB_SEED")?.unwrap_or(grade::SEED),
            timeout: Duration::from_secs(timeout),
            clblast: text("CLBLAST_LIBRARY"),
            worker: None,
            strict: match number("LAB_STRICT")? {
                None | Some(0) => false,
                Some(1) => true,
                Some(n) => bail!("LAB_STRICT={n}: use 1 to fail what could not be checked, or 0"),
            },
            kernels: text("LAB_KERNELS").map(|d| paths::absolute(Path::new(&d))),
            progress: text("LAB_PROGRESS").map(|f| paths::absolute(Path::new(&f))),
            cl_std: text("LAB_CL_STD")
                .map(|v| crate::harness::program::parse_cl_std(&v))
                .transpose()
                .map_err(|why| anyhow::anyhow!("LAB_CL_STD: {why}"))?,
        })
    }

    /// The student's folder of kernels: the `--kernels` flag, else `LAB_KERNELS`, else the
    /// course's kernels/. An error when it is not a folder.
    pub fn kernels(&self, flag: Option<&Path>) -> Result<PathBuf> {
        let dir = flag
            .map(paths::absolute)
            .or_else(|| self.kernels.clone())
            .unwrap_or_else(|| self.course.kernels());
        if !dir.is_dir() {
            let from = match (flag, &self.kernels) {
                (Some(_), _) => " (--kernels)",
                (None, Some(_)) => " (LAB_KERNELS)",
                (None, None) => "",
            };
            bail!("{}{from} is not a folder of kernels", dir.display());
        }
        Ok(dir)
    }

    /// The progress file: `LAB_PROGRESS`, else `target/lab-progress.json` in the course.
    pub fn progress_file(&self) -> PathBuf {
        self.progress
            .clone()
            .unwrap_or_else(|| crate::progress::default_file(self.course.root()))
    }

    /// Records a grading of the folder `dir` in the progress file; a problem with the file is
    /// a warning on stderr, never a failure of the grading.
    pub fn record_progress(&self, dir: &Path, v: &Verdict) {
        match crate::progress::record(&self.progress_file(), dir, v) {
            Ok(None) => {}
            Ok(Some(warning)) => eprintln!("{warning}"),
            Err(e) => eprintln!("warning: your progress was not recorded: {e:#}"),
        }
    }

    /// The device selector in force: the `--device` flag, else `LAB_DEVICE`.
    pub fn device(&self, flag: Option<&str>) -> Option<String> {
        flag.map(str::to_string)
            .filter(|s| !s.trim().is_empty())
            .or_else(|| self.device.clone())
    }

    /// Grading options for this environment, with `worker` as the grading worker.
    pub fn options(&self, worker: PathBuf, device_flag: Option<&str>) -> Options {
        Options {
            device: self.device(device_flag),
            seed: self.seed,
            step_timeout: self.timeout.min(Duration::from_secs(120)),
            strict: self.strict,
            cl_std: self.cl_std.clone(),
            ..Options::new(self.course.clone(), worker)
        }
    }
}

/// `cargo lab`'s grading of one lesson: its file in the student's folder `dir`, graded with
/// `opts`, and the report the student reads. `cargo lab` and the student tests of `cargo test
/// -- --ignored` both grade through here.
pub fn grade_lesson(lesson: &Lesson, dir: &Path, opts: &Options) -> (Verdict, String) {
    let v = grade::grade(lesson, &Source::Folder(dir.to_path_buf()), opts);
    let text = crate::report::verdict(&v);
    (v, text)
}

/// This program's own path: the grading worker is the program itself, started again.
pub fn this_program() -> Result<PathBuf> {
    std::env::current_exe().context("finding this program's own path")
}

impl Edge {
    /// The grading worker: [`Edge::worker`], else this program.
    pub fn worker_program(&self) -> Result<PathBuf> {
        match &self.worker {
            Some(w) => Ok(w.clone()),
            None => this_program(),
        }
    }
}

/// Flags shared by every lesson program.
#[derive(Args, Debug, Clone, Default)]
pub struct Common {
    /// Run the reference answer in solutions/ instead of your code.
    #[arg(long)]
    pub solution: bool,
    /// Folder of kernels to run instead of kernels/.
    #[arg(long, value_name = "DIR")]
    pub kernels: Option<PathBuf>,
    /// Square problem: M = N = K = SIZE.
    #[arg(long, short = 's')]
    pub size: Option<usize>,
    /// Rows of A and C (overrides --size).
    #[arg(short = 'm')]
    pub m: Option<usize>,
    /// Columns of B and C (overrides --size).
    #[arg(short = 'n')]
    pub n: Option<usize>,
    /// Columns of A, rows of B (overrides --size).
    #[arg(short = 'k')]
    pub k: Option<usize>,
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long)]
    pub device: Option<String>,
    /// List the OpenCL devices and exit.
    #[arg(long)]
    pub list_devices: bool,
    /// Override a tuning define of the kernel, e.g. -D TS=32 (repeatable).
    #[arg(short = 'D', long = "define", value_name = "NAME=VALUE", value_parser = parse_define)]
    pub defines: Vec<Define>,
    /// Skip running the previous rung for the speed-up line.
    #[arg(long)]
    pub no_compare: bool,
    /// Append the measurement to this CSV file (see results/).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
}

pub use crate::harness::program::parse_define;

/// The largest dimension the course accepts: a 32768² f32 matrix is already 4 GiB.
pub const MAX_DIM: usize = 32_768;

impl Common {
    /// The problem size: --size, then -m/-n/-k, else `default` (square).
    pub fn shape(&self, default: usize) -> Result<Shape> {
        let base = self.size.unwrap_or(default);
        let shape = Shape::new(
            self.m.unwrap_or(base),
            self.n.unwrap_or(base),
            self.k.unwrap_or(base),
        );
        check_shape(shape)?;
        Ok(shape)
    }
}

/// Refuses a size no run can take: a zero dimension, one past [`MAX_DIM`], or matrices that
/// do not fit this machine's memory (with the reference and the device's copies).
pub fn check_shape(shape: Shape) -> Result<()> {
    for (name, v) in [("M", shape.m), ("N", shape.n), ("K", shape.k)] {
        if v == 0 {
            bail!("{name} must be at least 1");
        }
        if v > MAX_DIM {
            bail!("{name} = {v} is larger than this course handles ({MAX_DIM})");
        }
    }
    // A, B and C in f32, twice (host and device copies), and C's reference in f64.
    let floats = shape.m * shape.k + shape.k * shape.n + shape.m * shape.n;
    let need = (floats * 4 * 2 + shape.m * shape.n * 16) as u64;
    if let Some(free) = available_memory() {
        if need > free {
            bail!(
                "{shape} needs about {:.1} GiB of memory (A, B and C, their copies and the reference), but this machine has {:.1} GiB available. Choose a smaller size.",
                need as f64 / (1u64 << 30) as f64,
                free as f64 / (1u64 << 30) as f64
            );
        }
    }
    Ok(())
}

/// Memory available to new allocations, from /proc/meminfo (Linux); `None` elsewhere.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A program's result as its exit code, with the error printed first.
pub fn finish(result: Result<()>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            match e.downcast_ref::<crate::report::LessonFailed>() {
                Some(f) => eprintln!("{}", crate::report::failure_text(&f.0)),
                None => eprintln!("error: {e:#}"),
            }
            ExitCode::FAILURE
        }
    }
}

/// Serves a grading request when this program was started as a grading worker
/// (`PROGRAM worker REQUEST EVENTS`): `lab` and every lesson program grade in a copy of
/// themselves, so that a lesson program needs no other program built beside it.
pub fn serve_if_worker() -> Option<ExitCode> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.len() != 4 || args[1] != "worker" {
        return None;
    }
    let served = grade::worker::serve(
        std::path::Path::new(&args[2]),
        std::path::Path::new(&args[3]),
        crate::ladder::find,
    );
    Some(match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defines_parse_and_reject() {
        assert_eq!(parse_define("TS=32").unwrap(), Define::new("TS", 32));
        assert!(parse_define("TS").unwrap_err().contains("NAME=VALUE"));
        assert!(parse_define("T S=3").is_err());
        assert!(parse_define("TS=")
            .unwrap_err()
            .contains("not a valid value"));
        assert!(parse_define("TS=1 -DX=2").is_err());
    }

    #[test]
    fn shapes_from_flags() {
        let c = Common {
            size: Some(64),
            n: Some(32),
            ..Default::default()
        };
        assert_eq!(c.shape(8).unwrap(), Shape::new(64, 32, 64));
        let bad = Common {
            m: Some(0),
            ..Default::default()
        };
        assert!(bad.shape(8).unwrap_err().to_string().contains("at least 1"));
        let huge = Common {
            size: Some(1 << 20),
            ..Default::default()
        };
        assert!(huge.shape(8).is_err());
    }
}
