//! A lesson's program: every lesson's binary (`src/programs/NN_name.rs`, written from the
//! ladder) calls this with its lesson's name. The standard run (check, time, compare
//! with the previous rung) and the shared flags, then what the lesson's declaration adds
//! ([`crate::lesson::Program`]): lessons name no front end, the front end reads them.

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args as _, FromArgMatches as _};

use crate::cli::{self, Common, Edge};
use crate::ladder;
use crate::lesson::{Lesson, Session};
use crate::run;

/// The `main` of the program named `name` (a lesson's name, as Cargo built it).
pub fn main(name: &str) -> ExitCode {
    // A lesson program is also its own grading worker, as `lab` is.
    if let Some(served) = cli::serve_if_worker() {
        return served;
    }
    let Some(lesson) = ladder::find(name) else {
        eprintln!(
            "error: this program is named {name}, which is no lesson of the ladder: the lessons are {}",
            ladder::keys()
        );
        return ExitCode::FAILURE;
    };
    let extra = lesson.program;
    let standard = starts_with_run(lesson);
    let about = match extra {
        Some(p) => p.about.to_string(),
        None => format!(
            "Lesson {}: runs your code (or --solution), checks it against the f64 reference, times it and compares it with the previous rung",
            lesson.key
        ),
    };
    let mut command = clap::Command::new(lesson.name());
    if standard {
        command = Common::augment_args(command);
    }
    if let Some(p) = extra {
        command = (p.flags)(command);
    }
    // After the flags: a set of flags brings its own description, which this one replaces.
    let matches = command.about(about).get_matches();
    let common = if standard {
        Common::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    } else {
        Common::default()
    };
    cli::finish(Edge::from_env().and_then(|edge| body(lesson, &matches, &common, &edge)))
}

fn body(
    lesson: &'static Lesson,
    matches: &clap::ArgMatches,
    common: &Common,
    edge: &Edge,
) -> Result<()> {
    let measured = if starts_with_run(lesson) {
        match run::run_lesson(lesson, common, edge)? {
            Some(m) => Some((m.shape, m.defines)),
            // The flags asked for something else (`--list-devices`).
            None => return Ok(()),
        }
    } else {
        None
    };
    let Some(program) = lesson.program else {
        return Ok(());
    };
    let source = run::source(common, edge);
    let session = Session {
        course: &edge.course,
        device: edge.device(common.device.as_deref()),
        file: source.path(lesson),
        measured,
        overrides: &common.defines,
        timeout: edge.timeout,
    };
    (program.then)(matches, &session)
}

/// Whether the lesson's program starts with the standard run.
fn starts_with_run(lesson: &Lesson) -> bool {
    lesson.program.is_none_or(|p| p.standard)
}
