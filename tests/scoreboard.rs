//! The layout of the scoreboard and of a lesson's report, as snapshots with the numbers
//! (and the device's name) filtered out.

mod common;

use lab::grade::{Options, Source};
use lab::harness::matrix::Shape;
use lab::harness::paths::Course;
use lab::ladder;
use lab::{run, scoreboard};

fn g() -> common::Grader {
    common::grader()
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"device: .*; speeds", "device: [device]; speeds");
    s.add_filter(r"(?m)^(  device\s+).*", "$1[device]");
    // Absolute paths differ between checkouts.
    let root = Course::from_env().root().display().to_string();
    let escaped: String = root
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '/' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect();
    s.add_filter(&escaped, "[root]");
    // A lesson limited to whole tiles is timed at a shape drawn per grading, named in the row
    // where it lies further from the asked size than the drawn ones: by chance, and square or
    // not, so the name is left out.
    s.add_filter(r" at \d+(×\d+×\d+)? +\|", " |");
    // Signs too: a wrong element's values are drawn with the grading's inputs.
    s.add_filter(r"-?\d+(\.\d+)?(e-?\d+)?", "#");
    // Whether a kernel ties with the reference timed beside it is the machine's to say, and so
    // is the table's width that follows from it.
    s.add_filter(r"; yours #× call for call(, a tie)?", "; yours [ratio]");
    s.add_filter(r"(?m) +\|$", " |");
    s.add_filter(r"(?m)^\+[-=]+\+$", "+[border]+");
    s
}

#[test]
fn scoreboard_layout_for_a_teachers_folder() {
    // A folder with lesson 04 done, lesson 05 wrong (one barrier missing) and nothing else.
    let g = g();
    let dir = g.opts.course.tests().join("fixtures/student_folder");
    let opts = Options {
        time: Some(Shape::square(64)),
        ..g.opts
    };
    let only: Vec<_> = ["00", "01", "04", "05", "06"].map(ladder::get).to_vec();
    let rows = scoreboard::collect(&dir, &opts, &only, |_| {});
    let text = scoreboard::render(
        &rows,
        "any device",
        "tests/fixtures/student_folder",
        Shape::square(64),
        None,
    );
    settings().bind(|| insta::assert_snapshot!(text));
}

#[test]
fn lesson_report_layout() {
    let edge = lab::cli::Edge {
        worker: Some(env!("CARGO_BIN_EXE_lab").into()),
        ..lab::cli::Edge::from_env().unwrap()
    };
    let m = run::measure(
        ladder::get("04"),
        &Source::Folder(edge.course.solutions()),
        &edge,
        edge.device.as_deref(),
        Shape::new(64, 48, 80),
        &[],
    )
    .unwrap();
    let mut text = run::report(&m);
    // The peak line depends on whether this machine's peak is recorded.
    text = text
        .lines()
        .filter(|l| !l.contains("of peak"))
        .collect::<Vec<_>>()
        .join("\n");
    settings().bind(|| insta::assert_snapshot!(text));
}

/// A command of the teacher's or the bench's program, typed to `lab`, fails saying whose it
/// is and how to run it there; and that program has it.
#[test]
fn another_programs_command_says_where_it_is() {
    for (name, package) in [
        ("ladder", "lab-bench"),
        ("tune", "lab-bench"),
        ("results", "lab-bench"),
        ("evidence", "lab-bench"),
        ("accuracy", "lab-bench"),
        ("class", "lab-teacher"),
        ("autograde", "lab-teacher"),
        ("classroom", "lab-teacher"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_lab"))
            .args([name, "--check"])
            .output()
            .expect("running lab");
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "lab {name}: {said}");
        let how = format!("cargo run --release -p {package} -- {name} --check");
        assert!(
            said.contains(&how),
            "lab {name} does not say {how:?}:\n{said}"
        );
        let dir = package.trim_start_matches("lab-");
        let main = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(format!("crates/{dir}/src/main.rs")),
        )
        .unwrap();
        let variant = format!("{}{}", name[..1].to_uppercase(), &name[1..]);
        assert!(
            main.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with(&variant) && l[variant.len()..].starts_with([' ', '(', ',', '{'])
            }),
            "{package} has no command {name}"
        );
    }
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lab"))
        .arg("no-such-command")
        .output()
        .expect("running lab");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unrecognized subcommand"));
}
