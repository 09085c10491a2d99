//! The GitHub Classroom workflow of a student repository made from the course: one step per
//! lesson with its points, written from the points file so that the two never disagree.
//! Classroom's steps are all or nothing: a lesson's step passes (and earns its points) when
//! the lesson scores its full points under the points file.

use std::fmt::Write as _;

use crate::autograde::{Config, CONFIG};

/// Where a student repository keeps the workflow.
pub const WORKFLOW: &str = ".github/workflows/classroom.yml";

/// The course's set-up script, which every way of grading installs through.
pub const SETUP: &str = "scripts/setup.sh";

fn step_id(key: &str) -> String {
    format!("lesson{key}")
}

fn number(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}

/// The workflow's text.
pub fn workflow(config: &Config) -> String {
    let mut y = String::new();
    let _ = write!(
        y,
        "\
# GitHub Classroom autograding: one step per lesson, each worth its points in {CONFIG}.
# Written by `cargo run --release -p lab-teacher -- classroom > {WORKFLOW}`:
# edit the points file and write this one again, never by hand.
name: Autograding Tests
on: [push, workflow_dispatch, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v5
      - name: OpenCL on the CPU (PoCL) and the graders' tools
        run: bash {SETUP}
      - name: Build the course's grader
        run: cargo build --release --locked -p lab-teacher
"
    );
    let lessons = config.lessons();
    for (lesson, points) in &lessons {
        let _ = write!(
            y,
            "      - name: {name}
        id: {id}
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: {name}
          setup-command: ''
          command: target/release/lab-teacher autograde --submission . --lesson {key} --full-marks --results results-{key}.json
          timeout: {minutes}
          max-score: {points}
",
            name = lesson.name(),
            id = step_id(lesson.key),
            key = lesson.key,
            minutes = config.classroom_minutes,
            points = number(*points),
        );
    }
    let _ = write!(
        y,
        "      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
"
    );
    for (lesson, _) in &lessons {
        let id = step_id(lesson.key);
        let _ = writeln!(
            y,
            "          {}_RESULTS: \"${{{{steps.{id}.outputs.result}}}}\"",
            id.to_uppercase()
        );
    }
    let runners: Vec<String> = lessons.iter().map(|(l, _)| step_id(l.key)).collect();
    let _ = write!(
        y,
        "        with:
          runners: {}
",
        runners.join(",")
    );
    y
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_committed_workflow_is_the_one_the_points_file_writes() {
        // The course: this package is crates/teacher in it.
        let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let config = Config::read(&root.join(CONFIG)).unwrap();
        let committed = std::fs::read_to_string(root.join(WORKFLOW)).unwrap();
        assert!(root.join(SETUP).is_file(), "the workflow runs {SETUP}");
        assert!(
            committed == workflow(&config),
            "{WORKFLOW} differs from what {CONFIG} writes: run `cargo run --release -p lab-teacher -- classroom > {WORKFLOW}`"
        );
    }

    #[test]
    fn one_step_per_lesson_with_its_points() {
        let config: Config =
            toml::from_str("classroom_minutes = 7\n[points]\n\"04\" = 3\n\"03b\" = 2.5\n").unwrap();
        let y = workflow(&config);
        assert!(y.contains("id: lesson03b"), "{y}");
        assert!(y.contains("--lesson 04 --full-marks"), "{y}");
        assert!(
            y.contains("max-score: 3\n") && y.contains("max-score: 2.5\n"),
            "{y}"
        );
        assert!(y.contains("timeout: 7\n"), "{y}");
        assert!(y.contains(&format!("run: bash {SETUP}\n")), "{y}");
        assert!(y.contains("LESSON03B_RESULTS: \"${{steps.lesson03b.outputs.result}}\""));
        assert!(y.contains("runners: lesson03b,lesson04\n"), "{y}");
    }
}
