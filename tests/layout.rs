//! The course's shape, checked: every lesson has its five files under one name and nothing
//! belongs to no lesson (the declaration check, proven on trees built to break it), and the
//! library's layers import only downwards.

use std::path::{Path, PathBuf};

use lab::harness::paths::Course;
use lab::ladder::ALL;
use lab::layout;

fn root() -> PathBuf {
    Course::from_env().root().to_path_buf()
}

#[test]
fn the_repository_matches_the_ladder() {
    let problems = layout::check(&root(), ALL);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// A copy of the parts of the repository the check reads.
fn copy_tree(to: &Path) {
    let from = root();
    std::fs::create_dir_all(to).unwrap();
    std::fs::copy(from.join("Cargo.toml"), to.join("Cargo.toml")).unwrap();
    for dir in ["lessons", "kernels", "solutions", "tests", "book/src"] {
        std::fs::create_dir_all(to.join(dir)).unwrap();
        for e in std::fs::read_dir(from.join(dir)).unwrap() {
            let e = e.unwrap();
            let target = to.join(dir).join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                std::fs::create_dir_all(target).unwrap();
            } else {
                std::fs::copy(e.path(), target).unwrap();
            }
        }
    }
}

fn temp(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("lab-layout-{name}-{}", std::process::id()))
}

#[test]
fn a_missing_file_is_caught() {
    let t = temp("missing");
    copy_tree(&t);
    assert!(layout::check(&t, ALL).is_empty());
    std::fs::remove_file(t.join("kernels/05_local_tiling.cl")).unwrap();
    std::fs::remove_file(t.join("tests/03_cpu_parallel.rs")).unwrap();
    std::fs::remove_file(t.join("book/src/07_vectorization.md")).unwrap();
    let problems = layout::check(&t, ALL).join("\n");
    assert!(
        problems.contains("kernels/05_local_tiling.cl is missing"),
        "{problems}"
    );
    assert!(
        problems.contains("tests/03_cpu_parallel.rs is missing"),
        "{problems}"
    );
    assert!(
        problems.contains("book/src/07_vectorization.md is missing"),
        "{problems}"
    );
    std::fs::remove_dir_all(t).unwrap();
}

#[test]
fn a_file_of_no_lesson_is_caught() {
    let t = temp("extra");
    copy_tree(&t);
    std::fs::write(t.join("kernels/11_warp_tiling.cl"), "").unwrap();
    std::fs::write(t.join("solutions/05_local_tilling.cl"), "").unwrap();
    std::fs::write(t.join("tests/12_extra.rs"), "").unwrap();
    std::fs::write(t.join("lessons/13_more.rs"), "").unwrap();
    let problems = layout::check(&t, ALL).join("\n");
    for f in [
        "kernels/11_warp_tiling.cl",
        "solutions/05_local_tilling.cl",
        "tests/12_extra.rs",
        "lessons/13_more.rs",
    ] {
        assert!(problems.contains(f), "{f} not reported:\n{problems}");
    }
    std::fs::remove_dir_all(t).unwrap();
}

#[test]
fn a_program_without_its_cargo_entry_is_caught() {
    let t = temp("cargo");
    copy_tree(&t);
    let toml = std::fs::read_to_string(t.join("Cargo.toml")).unwrap();
    let cut = toml.replace(
        "[[bin]]\nname = \"06_register_tiling\"\npath = \"lessons/06_register_tiling.rs\"\n",
        "",
    );
    assert_ne!(toml, cut, "the entry to cut was not found");
    std::fs::write(t.join("Cargo.toml"), cut).unwrap();
    let problems = layout::check(&t, ALL).join("\n");
    assert!(
        problems.contains("no [[bin]] named 06_register_tiling"),
        "{problems}"
    );
    std::fs::remove_dir_all(t).unwrap();
}

/// What a source file's code (comments aside) names from the crate: `crate::x` and
/// `lab::x`.
fn imports(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let text = code.as_str();
    let mut out = Vec::new();
    for prefix in ["crate::", "lab::"] {
        for (i, _) in text.match_indices(prefix) {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &text[i + prefix.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

/// Every .rs file under `dir`, in subfolders too.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(rust_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_layers_import_only_downwards() {
    let src = root().join("src");
    // Each layer, and the modules it must not reach (those above it).
    let above_harness = [
        "lesson",
        "grade",
        "report",
        "measure",
        "peers",
        "ladder",
        "cli",
        "run",
        "scoreboard",
        "class",
        "layout",
        "tools",
        "testing",
    ];
    let mut problems = Vec::new();
    let mut check = |file: &Path, forbidden: &[&str]| {
        let text = std::fs::read_to_string(file).unwrap();
        for m in imports(&text) {
            if forbidden.contains(&m.as_str()) {
                problems.push(format!("{} imports {m}", file.display()));
            }
        }
    };
    for f in rust_files(&src.join("harness")) {
        check(&f, &above_harness);
    }
    check(&src.join("lesson.rs"), &above_harness[1..]);
    let above_grade = [
        "ladder",
        "cli",
        "run",
        "scoreboard",
        "class",
        "layout",
        "tools",
        "testing",
    ];
    for f in rust_files(&src.join("grade")) {
        check(&f, &above_grade);
    }
    for f in ["report.rs", "measure.rs", "peers.rs"] {
        check(&src.join(f), &above_grade);
    }
    for f in rust_files(&src.join("report")) {
        check(&f, &above_grade);
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn the_import_check_sees_an_import() {
    assert_eq!(imports("use crate::ladder::ALL;"), ["ladder"]);
    assert_eq!(imports("lab::grade::verify(x)"), ["grade"]);
    assert!(imports("cpu_crate::run(x) // crate::ladder").is_empty());
}
