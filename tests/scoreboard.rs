//! The layout of the scoreboard and of a lesson's report, as snapshots with the numbers
//! (and the device's name) filtered out.

use lab::grade::{Options, Source};
use lab::lessons;
use lab::matrix::Shape;
use lab::{paths, runner, scoreboard};

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.add_filter(r"device: .*; speeds", "device: [device]; speeds");
    s.add_filter(r"(?m)^(  device\s+).*", "$1[device]");
    // Absolute paths differ between checkouts.
    let root = paths::root().display().to_string();
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
    s.add_filter(r"\d+(\.\d+)?(e-?\d+)?", "#");
    s
}

#[test]
fn scoreboard_layout_for_a_teachers_folder() {
    // A folder with lesson 04 done, lesson 05 wrong (one barrier missing) and nothing else.
    let dir = paths::root().join("tests/fixtures/student_folder");
    let opts = Options {
        time: Some(Shape::square(64)),
        ..Options::default()
    };
    let rows = scoreboard::collect(&dir, &opts, &[0, 1, 4, 5, 6], |_| {});
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
    let m = runner::measure(
        lessons::get(4),
        &Source::Solution,
        None,
        Shape::new(64, 48, 80),
        &[],
    )
    .unwrap();
    let mut text = lab::report::measurement(&m);
    // The peak line depends on whether this machine's peak is recorded.
    text = text
        .lines()
        .filter(|l| !l.contains("of peak"))
        .collect::<Vec<_>>()
        .join("\n");
    settings().bind(|| insta::assert_snapshot!(text));
}
