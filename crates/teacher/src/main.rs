//! `lab-teacher`, the teacher's program: a class's grades (`lab-teacher class`), one
//! submission graded for Gradescope or Classroom (`lab-teacher autograde`), the Classroom
//! workflow (`lab-teacher classroom`), and its own grading worker, as every program of the
//! course is.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};
use lab::cli::{self, Edge};
use lab::grade;
use lab::harness::{device, matrix::Shape, paths};
use lab::lesson::Lesson;
use lab::{ladder, report, scoreboard};
use lab_teacher::{autograde, class};

/// Grades a class, or one submission for Gradescope or GitHub Classroom.
#[derive(Parser)]
#[command(name = "lab-teacher", version)]
struct Args {
    #[command(subcommand)]
    command: Cmd,
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long, global = true)]
    device: Option<String>,
    /// Count a part that could not be checked (races, technique, threads, sandbox, speed) as
    /// a failure (also: LAB_STRICT=1).
    #[arg(long, global = true)]
    strict: bool,
    /// Build OpenCL kernels as this OpenCL C version, e.g. --cl-std 1.2 (also: LAB_CL_STD;
    /// default: the device compiler's own).
    #[arg(long, global = true, value_name = "VERSION", value_parser = lab::harness::program::parse_cl_std)]
    cl_std: Option<String>,
}

/// `lab-teacher autograde`.
#[derive(clap::Args)]
struct AutogradeArgs {
    /// The submission: a folder of kernels, or a copy of the student's repository.
    #[arg(long, value_name = "DIR")]
    submission: PathBuf,
    /// Where to write results.json.
    #[arg(long, value_name = "FILE")]
    results: PathBuf,
    /// The points file (default: autograder/points.toml in the course).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Only these lessons, e.g. --lesson 5 (a Classroom step grades one).
    #[arg(long = "lesson", value_name = "N")]
    lessons: Vec<String>,
    /// Exit with failure unless every lesson graded scored its full points (Classroom's
    /// steps are pass or fail).
    #[arg(long)]
    full_marks: bool,
}

#[derive(Subcommand)]
enum Cmd {
    /// Grade a class: every student folder inside DIR, as `lab --kernels` grades one.
    Class {
        /// A folder holding one folder of kernels per student.
        dir: PathBuf,
        /// Where to write the gradebook (default: DIR/gradebook.csv).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Only these lessons, e.g. --lesson 4 --lesson 5.
        #[arg(long = "lesson", value_name = "N")]
        lessons: Vec<String>,
        /// Size (M = N = K) at which passing kernels are timed and ranked.
        #[arg(long)]
        size: Option<usize>,
        /// Also rank kernels whose speed or sandbox could not be checked.
        #[arg(long)]
        rank_unchecked: bool,
    },
    /// Grade one submission for Gradescope or GitHub Classroom: writes Gradescope's
    /// results.json, with the points of the points file.
    Autograde(AutogradeArgs),
    /// Print the GitHub Classroom workflow the points file describes.
    Classroom {
        /// The points file (default: autograder/points.toml in the course).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Grade one request in this process (started by the grader; not for people).
    #[command(hide = true)]
    Worker { request: PathBuf, events: PathBuf },
}

fn main() -> ExitCode {
    // The grader starts the program that asks for a grading again as its worker: this one,
    // when a class or a submission is graded.
    if let Some(served) = cli::serve_if_worker() {
        return served;
    }
    let args = Args::parse();
    let edge = match Edge::from_env() {
        Ok(e) => Edge {
            strict: e.strict || args.strict,
            cl_std: args.cl_std.clone().or(e.cl_std),
            ..e
        },
        Err(e) => return cli::finish(Err(e)),
    };
    let device = args.device.as_deref();
    match args.command {
        Cmd::Class {
            dir,
            out,
            lessons,
            size,
            rank_unchecked,
        } => cli::finish(grade_class(
            device,
            &dir,
            out,
            &lessons,
            size,
            rank_unchecked,
            &edge,
        )),
        Cmd::Autograde(a) => match autograde_one(device, &a, &edge) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => cli::finish(Err(e)),
        },
        Cmd::Classroom { config } => cli::finish(
            points_file(config, &edge).map(|c| print!("{}", autograde::classroom::workflow(&c))),
        ),
        Cmd::Worker { .. } => cli::finish(Err(anyhow::anyhow!(
            "`lab-teacher worker` takes a request file and an event file, and is started by the grader"
        ))),
    }
}

/// The lessons named on the command line, or an error naming the valid ones.
fn pick(keys: &[String]) -> Result<Vec<&'static Lesson>> {
    keys.iter()
        .map(|k| {
            ladder::find(k).with_context(|| {
                format!("there is no lesson {k}: the lessons are {}", ladder::keys())
            })
        })
        .collect()
}

fn timing_shape(size: Option<usize>, info: &device::DeviceInfo) -> Result<Shape> {
    match size {
        Some(s) => {
            let shape = Shape::square(s);
            cli::check_shape(shape)?;
            Ok(shape)
        }
        None => Ok(scoreboard::timing_shape(Some(info))),
    }
}

fn grade_class(
    device: Option<&str>,
    dir: &std::path::Path,
    out: Option<PathBuf>,
    keys: &[String],
    size: Option<usize>,
    rank_unchecked: bool,
    edge: &Edge,
) -> Result<()> {
    let only = pick(keys)?;
    let opts = edge.options(cli::this_program()?, device);
    let (_, info) = device::pick(opts.device.as_deref())?;
    let shape = timing_shape(size, &info)?;
    let opts = grade::Options {
        time: Some(shape),
        ..opts
    };
    let dir = paths::absolute(dir);
    let out = out.unwrap_or_else(|| dir.join("gradebook.csv"));
    let run = class::Run {
        dir: &dir,
        opts: &opts,
        only: &only,
        out: &out,
        rank_unchecked,
    };
    let students = class::grade_class(&run, |line| eprintln!("{line}"))?;
    print!("{}", class::render(&students, shape, rank_unchecked));
    println!("gradebook: {}", out.display());
    Ok(())
}

/// The points file: --config, else the course's own.
fn points_file(flag: Option<PathBuf>, edge: &Edge) -> Result<autograde::Config> {
    autograde::Config::read(&flag.unwrap_or_else(|| edge.course.root().join(autograde::CONFIG)))
}

/// `lab-teacher autograde`: results.json for one submission. True unless --full-marks was
/// asked and a lesson scored less than its points. A submission that cannot be graded at all
/// still gets a results.json that says why, so that Gradescope shows the student a sentence.
fn autograde_one(device: Option<&str>, a: &AutogradeArgs, edge: &Edge) -> Result<bool> {
    let written = autograde_results(device, a, edge);
    match written {
        Ok(full) => Ok(full || !a.full_marks),
        Err(e) => {
            let text = serde_json::json!({
                "score": 0.0,
                "output": format!("The autograder could not grade this submission: {e:#}"),
                "tests": [],
            });
            if let Some(dir) = a.results.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            let _ = std::fs::write(&a.results, text.to_string());
            Err(e)
        }
    }
}

fn autograde_results(device: Option<&str>, a: &AutogradeArgs, edge: &Edge) -> Result<bool> {
    let config = points_file(a.config.clone(), edge)?;
    let only = pick(&a.lessons)?;
    let opts = edge.options(cli::this_program()?, device);
    let (_, info) = device::pick(opts.device.as_deref())?;
    let shape = timing_shape(config.size, &info)?;
    let opts = grade::Options {
        time: Some(shape),
        ..opts
    };
    let student = autograde::grade(&a.submission, &config, &only, &opts, |l| {
        eprintln!("grading lesson {} ...", l.key);
    })?;
    for v in &student.verdicts {
        println!("{}", report::verdict(v));
    }
    let results = autograde::gradescope::results(&student, &config, &info.describe());
    if let Some(dir) = a.results.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(&results).context("encoding results.json")?;
    std::fs::write(&a.results, text).with_context(|| format!("writing {}", a.results.display()))?;
    println!(
        "{} of {} points; results: {}",
        results.score,
        results.tests.iter().map(|t| t.max_score).sum::<f64>(),
        a.results.display()
    );
    Ok(results.tests.iter().all(|t| t.score >= t.max_score))
}
