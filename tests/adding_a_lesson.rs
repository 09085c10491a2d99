//! Adding a lesson takes its files and one line of the ladder: a copy of the course gets a
//! thirteenth rung, a twin of lesson 01 under a new key, by exactly these edits
//!
//! - `lessons/13_cpu_twin.rs` (its declaration), `kernels/13_cpu_twin.rs` (the starter),
//!   `solutions/13_cpu_twin.rs`, `tests/13_cpu_twin.rs` (its grader, with its grader's
//!   cases), `book/src/13_cpu_twin.md`;
//! - one line in `src/ladder.rs`;
//!
//! and the command the layout check names (`lab layout --write`). The copy is then built,
//! its scoreboard grades the new lesson, its program runs, the graders' suite counts it; and
//! with any one of its files missing, the layout check fails naming that file.
//!
//! The copy is built in `target/course-copy`, kept between runs, whose first build reuses
//! the dependencies already built in `target/debug`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use lab::harness::paths::Course;

const NAME: &str = "13_cpu_twin";
const TWIN: &str = "01_cpu_naive";

fn root() -> PathBuf {
    Course::from_env().root().to_path_buf()
}

/// The build folder of this repository (`target/`).
fn target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/tmp has a parent")
        .to_path_buf()
}

/// The copy's sources, removed when the test ends, passed or not (its `target/` stays).
struct Temp(PathBuf);

impl Drop for Temp {
    fn drop(&mut self) {
        fresh_sources(&self.0);
    }
}

/// Removes everything in `dir` but its `target/`.
fn fresh_sources(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name() == "target" {
            continue;
        }
        let p = e.path();
        let _ = if p.is_dir() {
            std::fs::remove_dir_all(&p)
        } else {
            std::fs::remove_file(&p)
        };
    }
}

/// Copies `from` into `to`, skipping build outputs and the book's installed tools.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if ["target", ".git", "node_modules", "book/book"]
            .iter()
            .any(|s| name == *s)
        {
            continue;
        }
        let (src, dst) = (e.path(), to.join(&name));
        if e.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else if e.file_type().unwrap().is_file() {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

/// The course's sources: what a fresh clone has (no `target/`, no `.git`).
fn copy_course(to: &Path) {
    let from = root();
    std::fs::create_dir_all(to).unwrap();
    for f in ["Cargo.toml", "Cargo.lock"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
    for d in [
        ".cargo",
        "src",
        "lessons",
        "kernels",
        "solutions",
        "tests",
        "crates",
        "results",
    ] {
        copy_dir(&from.join(d), &to.join(d));
    }
    std::fs::create_dir_all(to.join("book")).unwrap();
    copy_dir(&from.join("book/src"), &to.join("book/src"));
}

/// A first build of the copy in `into` reuses this repository's built dependencies: their
/// files are linked, not copied (each is named by its own hash, so nothing is shared that
/// either build rewrites).
fn seed(into: &Path) {
    let debug = into.join("debug");
    if debug.exists() {
        return;
    }
    for sub in ["deps", "build", ".fingerprint"] {
        link_tree(&target().join("debug").join(sub), &debug.join(sub));
    }
}

fn link_tree(from: &Path, to: &Path) {
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    std::fs::create_dir_all(to).unwrap();
    for e in entries.flatten() {
        let (src, dst) = (e.path(), to.join(e.file_name()));
        if e.file_type().unwrap().is_dir() {
            link_tree(&src, &dst);
        } else if std::fs::hard_link(&src, &dst).is_err() {
            let _ = std::fs::copy(&src, &dst);
        }
    }
}

/// Reads a file of the copy, swaps the twin's name and key for the new lesson's, and writes
/// it under the new name.
fn twin(copy: &Path, from: &str, to: &str, edits: &[(&str, &str)]) {
    let mut text = std::fs::read_to_string(copy.join(from)).unwrap();
    for (a, b) in edits {
        assert!(text.contains(a), "{from} has no {a:?}");
        text = text.replace(a, b);
    }
    std::fs::write(copy.join(to), text.replace(TWIN, NAME)).unwrap();
}

/// The new lesson's files, each as its path in the copy.
fn add_lesson(copy: &Path) -> Vec<String> {
    let files = vec![
        format!("lessons/{NAME}.rs"),
        format!("kernels/{NAME}.rs"),
        format!("solutions/{NAME}.rs"),
        format!("tests/{NAME}.rs"),
        format!("book/src/{NAME}.md"),
    ];
    twin(
        copy,
        &format!("lessons/{TWIN}.rs"),
        &files[0],
        &[
            ("key: \"01\"", "key: \"13\""),
            ("slug: \"cpu_naive\"", "slug: \"cpu_twin\""),
            ("title: \"CPU naive\"", "title: \"CPU twin\""),
        ],
    );
    twin(copy, &format!("kernels/{TWIN}.rs"), &files[1], &[]);
    twin(copy, &format!("solutions/{TWIN}.rs"), &files[2], &[]);
    // The grader test ends with the lesson's cases; the twin's name its wrong files, so the
    // new lesson's table has one case of its own, an edit of the reference.
    let grader = std::fs::read_to_string(copy.join(format!("tests/{TWIN}.rs"))).unwrap();
    let start = grader.find("pub const CASES").unwrap();
    let own = format!(
        "{}pub const CASES: &[Case] = &[Case::rejects(\n    L,\n    \"adds_to_c\",\n    Uninitialised,\n    Mutant(&[(\"c[i * n + j] = sum;\", \"c[i * n + j] += sum;\")]),\n    FailKind::Unwritten,\n    &[\"NaN\"],\n)];\n}}\n",
        &grader[..start]
    );
    std::fs::write(copy.join(&files[3]), own).unwrap();
    twin(copy, &files[3], &files[3], &[("\"01\"", "\"13\"")]);
    std::fs::write(
        copy.join(&files[4]),
        "# 13 · CPU twin\n\nLesson 01 again, under a new key.\n",
    )
    .unwrap();
    // The one line of the ladder.
    let ladder = copy.join("src/ladder.rs");
    let text = std::fs::read_to_string(&ladder).unwrap();
    let last = "    l12_integers_for_floats \"../lessons/12_integers_for_floats.rs\",\n";
    assert!(
        text.contains(last),
        "src/ladder.rs has no line for lesson 11"
    );
    let text = text.replace(
        last,
        &format!("{last}    l{NAME} \"../lessons/{NAME}.rs\",\n"),
    );
    std::fs::write(&ladder, text).unwrap();
    files
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    out
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn a_lesson_is_its_files_and_one_line_of_the_ladder() {
    // The copy keeps its place (and its own target/lab-student) between runs, so that
    // builds are incremental; its sources are copied afresh each time.
    let build = target().join("course-copy");
    let copy = build.join("course");
    fresh_sources(&copy);
    let _clean = Temp(copy.clone());
    copy_course(&copy);
    let files = add_lesson(&copy);

    // Without its line in the ladder, the files belong to no lesson (this build's ladder is
    // the course's without the new line).
    let problems = lab::layout::check(&copy, lab::ladder::ALL).join("\n");
    for f in &files {
        assert!(
            problems.contains(f.as_str()),
            "{f} not reported:\n{problems}"
        );
    }

    seed(&build);
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let cargo = |args: &[&str]| {
        let out = run(Command::new(&cargo)
            .args(args)
            .current_dir(&copy)
            .env("CARGO_TARGET_DIR", &build)
            .env_remove("LAB_ROOT"));
        assert!(out.status.success(), "cargo {args:?}:\n{}", text(&out));
    };
    cargo(&["build", "--quiet", "--bin", "lab"]);
    let lab = build.join("debug/lab");
    let lab = |args: &[&str]| {
        run(Command::new(&lab)
            .args(args)
            .current_dir(&copy)
            .env("LAB_ROOT", &copy))
    };

    // Before the generated files are written, the check names the command that writes them.
    let out = lab(&["layout"]);
    assert!(!out.status.success());
    for piece in [
        "Cargo.toml does not match the ladder",
        "lesson 13: Cargo.toml has no [[bin]] named 13_cpu_twin",
        "tests/00-your-kernels.rs does not match the ladder",
        "tests/suite/lessons.rs does not match the ladder",
        "book/src/SUMMARY.md does not match the ladder",
        "src/programs/13_cpu_twin.rs (the lesson's program) is missing",
        "run `cargo run -- layout --write`",
    ] {
        assert!(text(&out).contains(piece), "{piece}:\n{}", text(&out));
    }
    let out = lab(&["layout", "--write"]);
    assert!(out.status.success(), "{}", text(&out));

    // The scoreboard grades it; its program runs; the suite counts it.
    let out = lab(&["--kernels", "solutions", "--lesson", "13", "--size", "48"]);
    let board = text(&out);
    assert!(out.status.success(), "{board}");
    let row = board
        .lines()
        .find(|l| l.contains("13 CPU twin"))
        .unwrap_or_else(|| panic!("no row for lesson 13:\n{board}"));
    assert!(row.contains("done") && row.contains("GFLOP/s"), "{board}");
    cargo(&["build", "--quiet", "--bin", NAME]);
    let out = run(Command::new(build.join("debug").join(NAME))
        .args(["--solution", "--size", "32", "--no-compare"])
        .env("LAB_ROOT", &copy));
    assert!(
        out.status.success() && text(&out).contains("check        passed"),
        "{}",
        text(&out)
    );
    let out = run(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args([
                "test",
                "--quiet",
                "--test",
                "suite",
                "--",
                "--nocapture",
                "every_graded_lesson_has_its_table",
                "tables_are_well_formed",
            ])
            .current_dir(&copy)
            .env("CARGO_TARGET_DIR", &build)
            .env("LAB_ROOT", &copy),
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(
            "the suite counts 14 lessons: 01, 02, 03, 03b, 04, 05, 06, 07, 08, 09, 10, 11, 12, 13"
        ),
        "{}",
        text(&out)
    );

    // With all its pieces the copy's layout is whole; with any one missing, the check names
    // it.
    let out = lab(&["layout"]);
    assert!(out.status.success(), "{}", text(&out));
    let mut pieces = files.clone();
    pieces.push(format!("src/programs/{NAME}.rs"));
    for f in &pieces {
        let path = copy.join(f);
        let kept = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        let out = lab(&["layout"]);
        std::fs::write(&path, kept).unwrap();
        assert!(!out.status.success(), "{f} removed, yet the layout passes");
        let said = text(&out);
        assert!(
            said.lines()
                .any(|l| l.contains(f.as_str()) && l.contains("missing")),
            "{f} removed, but the check does not name it:\n{said}"
        );
    }
}
