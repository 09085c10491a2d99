//! The course's layout, checked against the ladder: every lesson has its program, starter,
//! solution, grader test and chapter, under one name, and no file in those folders belongs to
//! no lesson. `cargo test` runs this on the repository (tests/layout.rs).

use std::collections::BTreeSet;
use std::path::Path;

use crate::lesson::Lesson;

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
        let program = format!("lessons/{name}.rs");
        if !lessons.contains(&format!("{name}.rs")) {
            problems.push(format!(
                "lesson {}: its program {program} is missing",
                l.key
            ));
        }
        match bins.iter().find(|(n, _)| *n == name) {
            None => problems.push(format!(
                "lesson {}: Cargo.toml has no [[bin]] named {name} (path = \"{program}\")",
                l.key
            )),
            Some((_, path)) if *path != program => problems.push(format!(
                "lesson {}: Cargo.toml's [[bin]] {name} points at {path}, not {program}",
                l.key
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
        if path.starts_with("lessons/") && !ladder.iter().any(|l| l.name() == *name) {
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
