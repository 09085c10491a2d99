//! `lab`, the course's program: the scoreboard (`cargo run --release`), the grader
//! (`cargo lab`), a class's grades, the measuring tools, and its own grading worker.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use clap::{Parser, Subcommand};
use lab::cli::{self, Edge};
use lab::grade;
use lab::harness::{device, matrix::Shape, paths, peak};
use lab::lesson::Lesson;
use lab::{autograde, class, ladder, report, scoreboard, tools};

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
/// answers' speeds. Subcommands grade lesson by lesson, grade a class, and measure.
#[derive(Parser)]
#[command(name = "lab", version)]
struct Args {
    #[command(subcommand)]
    command: Option<Cmd>,
    #[command(flatten)]
    board: Board,
}

/// `lab autograde`.
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
    /// Measure every rung, its variants and the peers on one device (results/<device>.csv).
    Ladder(tools::ladder::Args),
    /// Check the course's files against the ladder; --write writes those made from it.
    Layout {
        /// Write what follows from the ladder: the lessons' programs and their [[bin]] entries,
        /// tests/00-your-kernels.rs and SUMMARY.md's ladder.
        #[arg(long)]
        write: bool,
    },
    /// Autotune the top rung for a device (results/tuned.csv).
    Tune(tools::tune::Args),
    /// Regenerate the book's tables and charts from results/.
    Results {
        /// Write nothing; fail, naming each file, if regenerating would change any.
        #[arg(long)]
        check: bool,
    },
    /// Write the compiler's build log and program binary (PTX on NVIDIA) of your GPU kernels.
    Evidence(tools::evidence::Args),
    /// Run the GPU rungs' references on public inputs of a seed and give their error against
    /// float64, C written for a comparison with cuBLAS on the same matrices.
    Accuracy(tools::accuracy::Args),
    /// List the OpenCL devices.
    Devices,
    /// Grade one request in this process (started by the grader; not for people).
    #[command(hide = true)]
    Worker { request: PathBuf, events: PathBuf },
}

fn main() -> ExitCode {
    if let Some(served) = cli::serve_if_worker() {
        return served;
    }
    let args = Args::parse();
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
        Some(Cmd::Class {
            dir,
            out,
            lessons,
            size,
            rank_unchecked,
        }) => cli::finish(grade_class(
            &args.board,
            &dir,
            out,
            &lessons,
            size,
            rank_unchecked,
            &edge,
        )),
        Some(Cmd::Autograde(a)) => match autograde_one(&args.board, &a, &edge) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => cli::finish(Err(e)),
        },
        Some(Cmd::Classroom { config }) => cli::finish(
            points_file(config, &edge).map(|c| print!("{}", autograde::classroom::workflow(&c))),
        ),
        Some(Cmd::Layout { write }) => cli::finish(layout(write, &edge)),
        Some(Cmd::Ladder(a)) => cli::finish(tools::ladder::run(&a, &edge)),
        Some(Cmd::Tune(a)) => {
            cli::finish(tools::tune::run(&a, args.board.kernels.as_deref(), &edge))
        }
        Some(Cmd::Results { check: false }) => cli::finish(tools::results::run(&edge.course)),
        Some(Cmd::Results { check: true }) => cli::finish(tools::results::check(&edge.course)),
        Some(Cmd::Evidence(a)) => {
            // NVIDIA's driver answers a program it has compiled before from its cache, and
            // then prints no ptxas lines (registers, spills), which are the evidence. Set
            // here, before the first OpenCL call and while no other thread runs.
            if std::env::var_os("CUDA_CACHE_DISABLE").is_none() {
                std::env::set_var("CUDA_CACHE_DISABLE", "1");
            }
            cli::finish(tools::evidence::run(
                &a,
                args.board.kernels.as_deref(),
                &edge,
            ))
        }
        Some(Cmd::Accuracy(a)) => cli::finish(tools::accuracy::run(&a, &edge)),
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

fn grade_class(
    board: &Board,
    dir: &std::path::Path,
    out: Option<PathBuf>,
    keys: &[String],
    size: Option<usize>,
    rank_unchecked: bool,
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

/// `lab autograde`: results.json for one submission. True unless --full-marks was asked and a
/// lesson scored less than its points. A submission that cannot be graded at all still gets a
/// results.json that says why, so that Gradescope shows the student a sentence.
fn autograde_one(board: &Board, a: &AutogradeArgs, edge: &Edge) -> Result<bool> {
    let written = autograde_results(board, a, edge);
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

fn autograde_results(board: &Board, a: &AutogradeArgs, edge: &Edge) -> Result<bool> {
    let config = points_file(a.config.clone(), edge)?;
    let only = pick(&a.lessons)?;
    let opts = edge.options(cli::this_program()?, board.device.as_deref());
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
