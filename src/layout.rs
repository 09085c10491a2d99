//! The course's layout, checked against the ladder: every lesson has its declaration, starter,
//! solution, grader test (with its grader's cases) and chapter, under one name, and no
//! file in those folders belongs to no lesson. Some files are written from the ladder and
//! compared byte for byte: Cargo.toml's `[[bin]]` entries, the lessons' programs, the test
//! program that gathers every lesson's student test (tests/00-your-kernels.rs), the graders'
//! suite's list of every lesson's cases (tests/suite/lessons.rs) and the book's list of
//! chapters (book/src/SUMMARY.md); `cargo run -- layout --write` writes them.
//! `cargo test` runs the check on the repository (tests/layout.rs).

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};

use crate::lesson::Lesson;

/// The folder of the lessons' programs, one small file each, written from the ladder.
pub const PROGRAMS: &str = "src/programs";

/// The command that writes the generated files.
pub const WRITE: &str = "cargo run -- layout --write";

const BINS_START: &str = "# The lessons' programs, one per lesson (src/programs/): written from the ladder\n# (src/ladder.rs) by `cargo run -- layout --write`.\n";
const BINS_END: &str = "# End of the lessons' programs.\n";
const LADDER_HEADING: &str = "# The ladder\n\n";

/// A generated file's text, or why it cannot be made.
type Made = std::result::Result<String, String>;

/// The files written from the ladder, each with what it should hold: (path under the root,
/// what it holds, its text).
fn generated(root: &Path, ladder: &[&Lesson]) -> Vec<(String, &'static str, Made)> {
    let now = |path: &str| std::fs::read_to_string(root.join(path)).unwrap_or_default();
    let mut files = vec![
        (
            "Cargo.toml".to_string(),
            "its [[bin]] entries of the lessons' programs",
            cargo_toml(&now("Cargo.toml"), ladder),
        ),
        (
            YOUR_KERNELS.to_string(),
            "every lesson's test of the student's own file",
            Ok(your_kernels(ladder)),
        ),
        (
            SUITE_LESSONS.to_string(),
            "the graders' suite's list of every graded lesson's cases",
            Ok(suite_lessons(ladder)),
        ),
        (
            "book/src/SUMMARY.md".to_string(),
            "its list of the lessons' chapters",
            summary(&now("book/src/SUMMARY.md"), root, ladder),
        ),
    ];
    for l in ladder {
        files.push((program_path(l), "the lesson's program", Ok(program(l))));
    }
    files
}

/// Where a lesson's program is: `src/programs/05_local_tiling.rs`.
pub fn program_path(lesson: &Lesson) -> String {
    format!("{PROGRAMS}/{}.rs", lesson.name())
}

/// A lesson's program: the front end's body for that lesson ([`crate::program`]).
pub fn program(lesson: &Lesson) -> String {
    format!(
        "// Lesson {}'s program: written from the ladder (src/ladder.rs) by `{WRITE}`.\n\nfn main() -> std::process::ExitCode {{\n    lab::program::main(\"{}\")\n}}\n",
        lesson.key,
        lesson.name()
    )
}

/// Cargo.toml with its block of lesson programs written from `ladder`.
pub fn cargo_toml(now: &str, ladder: &[&Lesson]) -> Made {
    let (Some(start), Some(end)) = (now.find(BINS_START), now.find(BINS_END)) else {
        return Err(format!(
            "Cargo.toml has no block of the lessons' programs: it starts with the lines\n{BINS_START}and ends with the line\n{BINS_END}"
        ));
    };
    let mut block = String::from(BINS_START);
    for l in ladder {
        let _ = write!(
            block,
            "\n[[bin]]\nname = \"{}\"\npath = \"{}\"\ntest = false\n",
            l.name(),
            program_path(l)
        );
    }
    block.push('\n');
    Ok(format!("{}{block}{}", &now[..start], &now[end..]))
}

/// The test program that grades every lesson's file in the student's folder: its name sorts
/// before every other test program's, so that a plain `cargo test -- --ignored` (which stops
/// at the first test program that fails) grades them all.
pub const YOUR_KERNELS: &str = "tests/00-your-kernels.rs";

/// [`YOUR_KERNELS`]: one ignored test per graded lesson, `lesson_05`, each what that lesson's
/// own `your_kernel` test does.
pub fn your_kernels(ladder: &[&Lesson]) -> String {
    let mut s = format!(
        "//! Every lesson's file in your folder, graded as `cargo lab` grades it: `cargo test -- --ignored`\n//! runs this program first and grades every lesson here (cargo stops at the first test program\n//! that fails, so a lesson's own test file would show only the first lesson that does not pass).\n//! One lesson: `cargo test --test 05_local_tiling -- --ignored`. Written from the ladder\n//! (src/ladder.rs) by `{WRITE}`.\n\nmod common;\n\nuse common::student::{{your_kernel, NotPassed}};\n"
    );
    for l in ladder.iter().filter(|l| l.graded()) {
        let _ = write!(
            s,
            "\n#[test]\n#[ignore]\nfn lesson_{}() -> Result<(), NotPassed> {{\n    your_kernel(\"{}\")\n}}\n",
            l.key, l.key
        );
    }
    s
}

/// The graders' suite's list of every graded lesson's cases, read by tests/suite.rs.
pub const SUITE_LESSONS: &str = "tests/suite/lessons.rs";

/// [`SUITE_LESSONS`]: each graded lesson's grader test as a module (the suite is built without
/// the test harness, so only the lesson's `pub mod cases` and the items around it come in, not
/// its tests), and `TABLES`, every graded lesson's key and cases in ladder order.
pub fn suite_lessons(ladder: &[&Lesson]) -> String {
    let graded: Vec<&&Lesson> = ladder.iter().filter(|l| l.graded()).collect();
    let mut s = format!(
        "//! Every graded lesson's cases, each from its grader test's `pub mod cases`, for the graders'\n//! suite (tests/suite.rs). Written from the ladder (src/ladder.rs) by\n//! `{WRITE}`.\n\nuse lab::grade::cases::Case;\n"
    );
    for l in &graded {
        let _ = write!(
            s,
            "\n#[path = \"../{}.rs\"]\n#[allow(unused, clippy::all)]\nmod l{};\n",
            l.name(),
            l.name()
        );
    }
    s.push_str("\n/// Every graded lesson's key and cases, in ladder order.\npub static TABLES: &[(&str, &[Case])] = &[\n");
    for l in &graded {
        let _ = writeln!(s, "    (\"{}\", l{}::cases::CASES),", l.key, l.name());
    }
    s.push_str("];\n");
    s
}

/// SUMMARY.md with its ladder section listing every lesson's chapter, titled by the chapter's
/// own first heading.
pub fn summary(now: &str, root: &Path, ladder: &[&Lesson]) -> Made {
    let Some(start) = now.find(LADDER_HEADING).map(|i| i + LADDER_HEADING.len()) else {
        return Err(format!(
            "book/src/SUMMARY.md has no section headed {:?}",
            LADDER_HEADING.trim()
        ));
    };
    let end = now[start..]
        .find("\n# ")
        .map_or(now.len(), |i| start + i + 1);
    let mut list = String::new();
    for l in ladder {
        let chapter = format!("{}.md", l.name());
        let heading = std::fs::read_to_string(root.join("book/src").join(&chapter))
            .ok()
            .and_then(|t| {
                t.lines()
                    .next()
                    .and_then(|h| h.strip_prefix("# "))
                    .map(str::to_string)
            })
            .unwrap_or_else(|| format!("{} · {}", l.key, l.title));
        let _ = writeln!(list, "- [{heading}]({chapter})");
    }
    list.push('\n');
    Ok(format!("{}{list}{}", &now[..start], &now[end..]))
}

/// Writes the files made from the ladder where they differ, and removes lesson programs
/// of no lesson; returns the files written or removed.
pub fn write(root: &Path, ladder: &[&Lesson]) -> Result<Vec<String>> {
    let mut written = Vec::new();
    for (file, _, made) in generated(root, ladder) {
        let path = root.join(&file);
        let want = made.map_err(anyhow::Error::msg)?;
        if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            std::fs::write(&path, want).with_context(|| format!("writing {}", path.display()))?;
            written.push(file);
        }
    }
    for f in names(&root.join(PROGRAMS)) {
        if !ladder.iter().any(|l| format!("{}.rs", l.name()) == f) {
            let path = root.join(PROGRAMS).join(&f);
            std::fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
            written.push(format!("{PROGRAMS}/{f} (removed)"));
        }
    }
    Ok(written)
}

/// The names of the files directly in `dir` (none if it does not exist).
fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a file name is lesson-shaped: two digits (and maybe a letter), an underscore.
fn lesson_shaped(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 3 && b[0].is_ascii_digit() && b[1].is_ascii_digit() && name.contains('_')
}

/// Every way the tree at `root` disagrees with `ladder`, one sentence each.
pub fn check(root: &Path, ladder: &[&Lesson]) -> Vec<String> {
    let mut problems = Vec::new();
    for (file, what, made) in generated(root, ladder) {
        let now = std::fs::read_to_string(root.join(&file)).ok();
        match made {
            Ok(want) if now.as_deref() == Some(want.as_str()) => {}
            Ok(_) if now.is_none() => {
                problems.push(format!("{file} ({what}) is missing: run `{WRITE}`"))
            }
            Ok(_) => problems.push(format!(
                "{file} does not match the ladder ({what}): run `{WRITE}`"
            )),
            Err(why) => problems.push(why),
        }
    }
    for f in names(&root.join(PROGRAMS)) {
        if !ladder.iter().any(|l| format!("{}.rs", l.name()) == f) {
            problems.push(format!(
                "{PROGRAMS}/{f} is the program of no lesson of the ladder: run `{WRITE}`"
            ));
        }
    }
    let kernels = names(&root.join("kernels"));
    let solutions = names(&root.join("solutions"));
    let lessons = names(&root.join("lessons"));
    let tests = names(&root.join("tests"));
    let chapters = names(&root.join("book/src"));
    let summary = std::fs::read_to_string(root.join("book/src/SUMMARY.md")).unwrap_or_default();
    let bins = cargo_bins(root, &mut problems);

    for l in ladder {
        let name = l.name();
        let file = l.file_name();
        let declaration = format!("lessons/{name}.rs");
        if !lessons.contains(&format!("{name}.rs")) {
            problems.push(format!(
                "lesson {}: its declaration {declaration} is missing",
                l.key
            ));
        }
        match bins.iter().find(|(n, _)| *n == name) {
            None => problems.push(format!(
                "lesson {}: Cargo.toml has no [[bin]] named {name} (run `{WRITE}`)",
                l.key
            )),
            Some((_, path)) if *path != program_path(l) => problems.push(format!(
                "lesson {}: Cargo.toml's [[bin]] {name} points at {path}, not {} (run `{WRITE}`)",
                l.key,
                program_path(l)
            )),
            Some(_) => {}
        }
        if !solutions.contains(&file) {
            problems.push(format!("lesson {}: solutions/{file} is missing", l.key));
        }
        if l.graded() && !kernels.contains(&file) {
            problems.push(format!(
                "lesson {}: the starter kernels/{file} is missing",
                l.key
            ));
        }
        if !tests.contains(&format!("{name}.rs")) {
            problems.push(format!(
                "lesson {}: its grader tests/{name}.rs is missing",
                l.key
            ));
        } else if l.graded() {
            let grader = std::fs::read_to_string(root.join(format!("tests/{name}.rs")));
            // Inline, or in a file of its own beside the grader (`#[path]`).
            let grader = grader.unwrap_or_default();
            if !grader.contains("\npub mod cases {") && !grader.contains("\npub mod cases;") {
                problems.push(format!(
                    "lesson {}: its grader tests/{name}.rs declares no `pub mod cases`",
                    l.key
                ));
            }
        }
        let chapter = format!("{name}.md");
        if !chapters.contains(&chapter) {
            problems.push(format!(
                "lesson {}: its chapter book/src/{chapter} is missing",
                l.key
            ));
        } else if !summary.contains(&format!("({chapter})")) {
            problems.push(format!(
                "lesson {}: book/src/SUMMARY.md does not list {chapter}",
                l.key
            ));
        }
    }

    let owner = |file: &str| -> bool {
        ladder.iter().any(|l| {
            let name = l.name();
            file == l.file_name() || file == format!("{name}.rs") || file == name
        })
    };
    for (dir, files) in [
        ("kernels", &kernels),
        ("solutions", &solutions),
        ("lessons", &lessons),
    ] {
        for f in files.iter().filter(|f| !owner(f)) {
            problems.push(format!("{dir}/{f} belongs to no lesson of the ladder"));
        }
    }
    for f in kernels.iter() {
        if let Some(l) = ladder.iter().find(|l| l.file_name() == *f) {
            if !l.graded() {
                problems.push(format!(
                    "kernels/{f}: lesson {} has nothing for the student to edit",
                    l.key
                ));
            }
        }
    }
    for f in tests
        .iter()
        .filter(|f| lesson_shaped(f) && f.ends_with(".rs"))
    {
        if !ladder.iter().any(|l| format!("{}.rs", l.name()) == *f) {
            problems.push(format!(
                "tests/{f} looks like a lesson's grader but belongs to no lesson"
            ));
        }
    }
    for f in chapters.iter().filter(|f| lesson_shaped(f)) {
        if !ladder.iter().any(|l| format!("{}.md", l.name()) == *f) {
            problems.push(format!(
                "book/src/{f} looks like a lesson's chapter but belongs to no lesson"
            ));
        }
    }
    for (name, path) in &bins {
        if path.starts_with(PROGRAMS) && !ladder.iter().any(|l| l.name() == *name) {
            problems.push(format!(
                "Cargo.toml's [[bin]] {name} ({path}) belongs to no lesson of the ladder"
            ));
        }
    }
    problems
}

/// The `[[bin]]` entries of the Cargo.toml at `root`: (name, path).
fn cargo_bins(root: &Path, problems: &mut Vec<String>) -> Vec<(String, String)> {
    let text = match std::fs::read_to_string(root.join("Cargo.toml")) {
        Ok(t) => t,
        Err(e) => {
            problems.push(format!("Cargo.toml cannot be read: {e}"));
            return Vec::new();
        }
    };
    let doc: toml::Table = match text.parse() {
        Ok(d) => d,
        Err(e) => {
            problems.push(format!("Cargo.toml does not parse: {e}"));
            return Vec::new();
        }
    };
    doc.get("bin")
        .and_then(|b| b.as_array())
        .map(|bins| {
            bins.iter()
                .filter_map(|b| {
                    Some((
                        b.get("name")?.as_str()?.to_string(),
                        b.get("path")?.as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}
