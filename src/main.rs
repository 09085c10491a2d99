//! `lab`, the course's program: the scoreboard (`cargo run --release`), the grader
//! (`cargo lab`), the layout check, and its own grading worker. A class's grades are the
//! teacher's program's (`lab-teacher`), the measuring tools the bench's (`lab-bench`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};
use lab::cli::{self, Edge};
use lab::grade;
use lab::harness::{device, matrix::Shape, paths, peak};
use lab::lesson::Lesson;
use lab::{ladder, report, scoreboard};

/// `lab layout`: the course's files against the ladder.
fn layout(write: bool, edge: &Edge) -> Result<()> {
    let root = edge.course.root();
    if write {
        for f in lab::layout::write(root, ladder::ALL)? {
            println!("wrote {f}");
        }
    }
    let problems = lab::layout::check(root, ladder::ALL);
    anyhow::ensure!(problems.is_empty(), "{}", problems.join("\n"));
    println!(
        "the course's files match the ladder ({} lessons)",
        ladder::ALL.len()
    );
    Ok(())
}

/// Grades every lesson in your kernels folder and prints a scoreboard beside the reference
/// answers' speeds. Subcommands grade lesson by lesson and check the course's files.
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
    /// Append the OpenCL lessons' verdicts to results/compat.csv, for the book's table of
    /// what passes on which OpenCL implementation (with --kernels solutions only).
    #[arg(long)]
    record_compat: bool,
    /// List the OpenCL devices and exit.
    #[arg(long)]
    list_devices: bool,
    /// Count a part that could not be checked (races, technique, threads, sandbox, speed) as
    /// a failure (also: LAB_STRICT=1).
    #[arg(long, global = true)]
    strict: bool,
    /// Build OpenCL kernels as this OpenCL C version, e.g. --cl-std 1.2 (also: LAB_CL_STD;
    /// default: the device compiler's own).
    #[arg(long, global = true, value_name = "VERSION", value_parser = lab::harness::program::parse_cl_std)]
    cl_std: Option<String>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Grade your kernels lesson by lesson, with the full report (`cargo lab`, `cargo lab 05`).
    Grade {
        /// Lessons to grade (default: all), e.g. `05` or `5`.
        lessons: Vec<String>,
        /// Watch instead: `lab watch`, from the lesson given (`cargo lab --watch 05`).
        #[arg(long)]
        watch: bool,
    },
    /// Grade the lesson you are editing on every save, with its hints a key press away.
    Watch(lab::watch::Args),
    /// Check the course's files against the ladder; --write writes those made from it.
    Layout {
        /// Write what follows from the ladder: the lessons' programs and their [[bin]] entries,
        /// tests/00-your-kernels.rs, tests/suite/lessons.rs and SUMMARY.md's ladder.
        #[arg(long)]
        write: bool,
    },
    /// List the OpenCL devices.
    Devices,
    /// Grade one request in this process (started by the grader; not for people).
    #[command(hide = true)]
    Worker { request: PathBuf, events: PathBuf },
}

/// The commands of the course's other programs, each with whose it is and its package.
const ELSEWHERE: &[(&str, &str, &str)] = &[
    ("ladder", "the bench's", "lab-bench"),
    ("tune", "the bench's", "lab-bench"),
    ("results", "the bench's", "lab-bench"),
    ("evidence", "the bench's", "lab-bench"),
    ("accuracy", "the bench's", "lab-bench"),
    ("class", "the teacher's", "lab-teacher"),
    ("autograde", "the teacher's", "lab-teacher"),
    ("classroom", "the teacher's", "lab-teacher"),
];

/// For a command that is another program's, says which and how to run it there, and fails
/// (exit code 2, as for any other unknown command).
fn moved(e: &clap::Error) -> Option<ExitCode> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::InvalidSubcommand {
        return None;
    }
    let Some(ContextValue::String(name)) = e.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let (_, whose, package) = ELSEWHERE.iter().find(|(n, _, _)| n == name)?;
    let given: Vec<String> = std::env::args().skip_while(|a| a != name).collect();
    eprintln!(
        "error: `{name}` is {whose}: cargo run --release -p {package} -- {}",
        given.join(" ")
    );
    Some(ExitCode::from(2))
}

fn main() -> ExitCode {
    if let Some(served) = cli::serve_if_worker() {
        return served;
    }
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) => return moved(&e).unwrap_or_else(|| e.exit()),
    };
    let edge = match Edge::from_env() {
        Ok(e) => Edge {
            strict: e.strict || args.board.strict,
            cl_std: args.board.cl_std.clone().or(e.cl_std),
            ..e
        },
        Err(e) => return cli::finish(Err(e)),
    };
    match args.command {
        None => cli::finish(scoreboard(&args.board, &edge)),
        Some(Cmd::Grade {
            lessons,
            watch: true,
        }) => cli::finish(lab::watch::Args::from_grade(&lessons).and_then(|a| {
            let b = &args.board;
            lab::watch::run(&a, b.kernels.as_deref(), b.device.as_deref(), &edge)
        })),
        Some(Cmd::Watch(a)) => {
            let b = &args.board;
            cli::finish(lab::watch::run(
                &a,
                b.kernels.as_deref(),
                b.device.as_deref(),
                &edge,
            ))
        }
        Some(Cmd::Grade {
            lessons,
            watch: false,
        }) => match grade_lessons(&args.board, &lessons, &edge) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => cli::finish(Err(e)),
        },
        Some(Cmd::Layout { write }) => cli::finish(layout(write, &edge)),
        Some(Cmd::Devices) => cli::finish(device::list_table().map(|t| print!("{t}"))),
        Some(Cmd::Worker { .. }) => cli::finish(Err(anyhow::anyhow!(
            "`lab worker` takes a request file and an event file, and is started by the grader"
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

/// The folder to grade: --kernels DIR, else LAB_KERNELS, else the course's kernels/.
fn folder(board: &Board, edge: &Edge) -> Result<PathBuf> {
    edge.kernels(board.kernels.as_deref())
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
    let (progress, warning) = lab::progress::read(&edge.progress_file());
    if let Some(w) = warning {
        eprintln!("{w}");
    }
    print!(
        "{}",
        scoreboard::render_with_progress(
            &rows,
            &info.describe(),
            &paths::display(&dir),
            shape,
            peak::lookup(&edge.course.results(), &info).as_ref(),
            &progress.of_folder(&dir).cloned().collect::<Vec<_>>(),
        )
    );
    if board.record_compat {
        let results = edge.course.results();
        let rows = lab::compat::rows(&rows, &info, opts.cl_std.as_deref());
        lab::compat::save(&results, &dir, &edge.course.solutions(), &rows)?;
        println!(
            "Recorded {} verdicts in {}.",
            rows.len(),
            paths::display(&lab::compat::file(&results))
        );
    }
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
        let (v, text) = cli::grade_lesson(lesson, &dir, &opts);
        edge.record_progress(&dir, &v);
        println!("{text}");
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
