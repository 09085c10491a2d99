//! `lab`, the course's program: the scoreboard (`cargo run --release`), the grader
//! (`cargo lab`), a class's grades, the measuring tools, and its own grading worker.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};
use lab::cli::{self, Edge};
use lab::grade::{self, Source};
use lab::harness::{device, matrix::Shape, paths, peak};
use lab::lesson::Lesson;
use lab::{class, ladder, report, scoreboard, tools};

/// Grades every lesson in your kernels folder and prints a scoreboard beside the reference
/// answers' speeds. Subcommands grade lesson by lesson, grade a class, and measure.
#[derive(Parser)]
#[command(name = "lab", version)]
struct Args {
    #[command(subcommand)]
    command: Option<Cmd>,
    #[command(flatten)]
    board: Board,
}

/// What the scoreboard and the grader share.
#[derive(clap::Args, Clone)]
struct Board {
    /// Folder of kernels to grade instead of kernels/.
    #[arg(long, value_name = "DIR", global = true)]
    kernels: Option<PathBuf>,
    /// Device: index or part of its name (also: LAB_DEVICE; default: the first GPU).
    #[arg(long, global = true)]
    device: Option<String>,
    /// Only this lesson (repeatable), e.g. --lesson 5.
    #[arg(long = "lesson", value_name = "N")]
    lessons: Vec<String>,
    /// Size (M = N = K) at which speeds are measured.
    #[arg(long)]
    size: Option<usize>,
    /// List the OpenCL devices and exit.
    #[arg(long)]
    list_devices: bool,
    /// Count a part that could not be checked (races, technique, threads, sandbox, speed) as
    /// a failure (also: LAB_STRICT=1).
    #[arg(long, global = true)]
    strict: bool,
}

#[derive(Subcommand)]
enum Cmd {
    /// Grade your kernels lesson by lesson, with the full report (`cargo lab`, `cargo lab 05`).
    Grade {
        /// Lessons to grade (default: all), e.g. `05` or `5`.
        lessons: Vec<String>,
    },
    /// Grade a class: every student folder inside DIR, as --kernels grades one.
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
    },
    /// Measure every rung, its variants and the peers on one device (results/<device>.csv).
    Ladder(tools::ladder::Args),
    /// Autotune lesson 10 for a device (results/tuned.csv).
    Tune(tools::tune::Args),
    /// Regenerate the book's tables and charts from results/.
    Results,
    /// Write the compiler's build log and program binary (PTX on NVIDIA) of GPU rungs.
    Evidence(tools::evidence::Args),
    /// List the OpenCL devices.
    Devices,
    /// Grade one request in this process (started by the grader; not for people).
    #[command(hide = true)]
    Worker { request: PathBuf, events: PathBuf },
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(Cmd::Worker { request, events }) = &args.command {
        return match grade::worker::serve(request, events, ladder::find) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::FAILURE
            }
        };
    }
    let edge = match Edge::from_env() {
        Ok(e) => Edge {
            strict: e.strict || args.board.strict,
            ..e
        },
        Err(e) => return cli::finish(Err(e)),
    };
    match args.command {
        None => cli::finish(scoreboard(&args.board, &edge)),
        Some(Cmd::Grade { lessons }) => match grade_lessons(&args.board, &lessons, &edge) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => cli::finish(Err(e)),
        },
        Some(Cmd::Class {
            dir,
            out,
            lessons,
            size,
        }) => cli::finish(grade_class(&args.board, &dir, out, &lessons, size, &edge)),
        Some(Cmd::Ladder(a)) => cli::finish(tools::ladder::run(&a, &edge)),
        Some(Cmd::Tune(a)) => cli::finish(tools::tune::run(&a, &edge)),
        Some(Cmd::Results) => cli::finish(tools::results::run(&edge.course)),
        Some(Cmd::Evidence(a)) => cli::finish(tools::evidence::run(&a, &edge)),
        Some(Cmd::Devices) => cli::finish(device::list_table().map(|t| print!("{t}"))),
        Some(Cmd::Worker { .. }) => unreachable!("handled above"),
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

/// The folder to grade: --kernels DIR, else the course's kernels/.
fn folder(board: &Board, edge: &Edge) -> Result<PathBuf> {
    let dir = match &board.kernels {
        Some(d) => paths::absolute(d),
        None => edge.course.kernels(),
    };
    anyhow::ensure!(dir.is_dir(), "{} is not a folder of kernels", dir.display());
    Ok(dir)
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

fn scoreboard(board: &Board, edge: &Edge) -> Result<()> {
    if board.list_devices {
        print!("{}", device::list_table()?);
        return Ok(());
    }
    let only = pick(&board.lessons)?;
    let opts = edge.options(cli::this_program()?, board.device.as_deref());
    // Fails here, once and clearly, when there is no OpenCL at all.
    let (_, info) = device::pick(opts.device.as_deref())?;
    let dir = folder(board, edge)?;
    let shape = timing_shape(board.size, &info)?;
    let opts = grade::Options {
        time: Some(shape),
        ..opts
    };
    let rows = scoreboard::collect(&dir, &opts, &only, |l| {
        eprintln!("grading lesson {} ...", l.key);
    });
    print!(
        "{}",
        scoreboard::render(
            &rows,
            &info.describe(),
            &paths::display(&dir),
            shape,
            peak::lookup(&edge.course.results(), &info).as_ref()
        )
    );
    Ok(())
}

/// `cargo lab`: every lesson's full verdict, then a one-line summary. True when every
/// lesson graded passed.
fn grade_lessons(board: &Board, keys: &[String], edge: &Edge) -> Result<bool> {
    let mut only = pick(keys)?;
    only.extend(pick(&board.lessons)?);
    let dir = folder(board, edge)?;
    let opts = edge.options(cli::this_program()?, board.device.as_deref());
    let lessons: Vec<&Lesson> = ladder::ALL
        .iter()
        .copied()
        .filter(|l| l.graded() && scoreboard::selected(l, &only))
        .collect();
    let mut passed = 0;
    let mut next = None;
    for lesson in &lessons {
        eprintln!("grading lesson {} ...", lesson.key);
        let v = grade::grade(lesson, &Source::Folder(dir.clone()), &opts);
        println!("{}", report::verdict(&v));
        if v.passed() {
            passed += 1;
        } else if next.is_none() {
            next = Some((lesson.key, report::kind_word(v.kind().expect("failed"))));
        }
    }
    match next {
        None => println!(
            "{passed} of {} lessons pass in {}.",
            lessons.len(),
            paths::display(&dir)
        ),
        Some((key, why)) => println!(
            "{passed} of {} lessons pass in {}; next: lesson {key} ({why}).",
            lessons.len(),
            paths::display(&dir)
        ),
    }
    Ok(passed == lessons.len())
}

fn grade_class(
    board: &Board,
    dir: &std::path::Path,
    out: Option<PathBuf>,
    keys: &[String],
    size: Option<usize>,
    edge: &Edge,
) -> Result<()> {
    let only = pick(keys)?;
    let opts = edge.options(cli::this_program()?, board.device.as_deref());
    let (_, info) = device::pick(opts.device.as_deref())?;
    let shape = timing_shape(size, &info)?;
    let opts = grade::Options {
        time: Some(shape),
        ..opts
    };
    let students = class::grade_class(dir, &opts, &only, |student, lesson| {
        eprintln!("grading {student}, lesson {} ...", lesson.key);
    })?;
    print!("{}", class::render(&students, shape));
    let out = out.unwrap_or_else(|| dir.join("gradebook.csv"));
    class::write_gradebook(&out, &class::gradebook(&students))?;
    println!("gradebook: {}", out.display());
    Ok(())
}
