//! No source file of the course is over 1,000 lines: a larger one holds several tenants and
//! is split along its own dividers. The tests' own files and the research beside the course
//! are not held to this.

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 1000;

/// The source files (`.rs`, `.cl`) under `dir` with more than [`MAX_LINES`] lines, each as
/// `path: N lines`.
fn too_long(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(too_long(&p));
        } else if p.extension().is_some_and(|x| x == "rs" || x == "cl") {
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            let n = text.lines().count();
            if n > MAX_LINES {
                out.push(format!("{}: {n} lines", p.display()));
            }
        }
    }
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace's source folders: the course's (`src/`, `lessons/`) and, for each package
/// under `crates/`, its `src/` and `benches/`.
fn source_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![root.join("src"), root.join("lessons")];
    let mut crates: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    crates.sort();
    for c in crates {
        dirs.push(c.join("src"));
        dirs.push(c.join("benches"));
    }
    dirs
}

#[test]
fn no_source_file_is_over_a_thousand_lines() {
    let mut problems = Vec::new();
    for dir in source_dirs(&root()) {
        problems.extend(too_long(&dir));
    }
    assert!(
        problems.is_empty(),
        "split these along their own dividers (at most {MAX_LINES} lines a file):\n{}",
        problems.join("\n")
    );
}

#[test]
fn a_long_file_in_a_subfolder_is_found() {
    let dir = std::env::temp_dir().join(format!("lab-sizes-{}", std::process::id()));
    let sub = dir.join("a/b");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("long.rs"), "x\n".repeat(MAX_LINES + 1)).unwrap();
    std::fs::write(sub.join("fits.rs"), "x\n".repeat(MAX_LINES)).unwrap();
    std::fs::write(sub.join("notes.txt"), "x\n".repeat(MAX_LINES + 1)).unwrap();
    let found = too_long(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].ends_with("long.rs: 1001 lines"), "{found:?}");
}
