//! Every recorded file the book cites by its path (`research/…`, `results/…`, `scripts/…`) is
//! where the book says: moving a file without its citation fails here.

use std::path::{Path, PathBuf};

const CITED: [&str; 3] = ["research/", "results/", "scripts/"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The paths in code spans of `text` that start with one of [`CITED`].
fn citations(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|span| {
            let word = span.split_whitespace().next()?;
            CITED
                .iter()
                // `results/<device>.csv` is a pattern, not a citation.
                .any(|c| word.starts_with(c) && !word.contains('<'))
                .then(|| word.trim_end_matches([',', '.', ')']).to_string())
        })
        .collect()
}

/// Whether `cited` names a file or folder under `root`: exactly, or as the start of a name
/// (`research/perf-10/call11-h200-*`, `research/perf-10/call4`, `results/*.csv`).
fn found(root: &Path, cited: &str) -> bool {
    let stem = cited.split('*').next().unwrap_or(cited);
    let path = root.join(stem);
    if path.exists() {
        return true;
    }
    let (Some(dir), Some(prefix)) = (path.parent(), path.file_name()) else {
        return false;
    };
    let prefix = prefix.to_string_lossy();
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(prefix.as_ref()))
    })
}

#[test]
fn every_file_the_book_cites_exists() {
    let root = root();
    let mut missing = Vec::new();
    let mut seen = 0;
    for e in std::fs::read_dir(root.join("book/src")).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "md") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        for c in citations(&text) {
            seen += 1;
            if !found(&root, &c) {
                missing.push(format!("{}: `{c}`", p.display()));
            }
        }
    }
    assert!(
        seen > 0,
        "the book cites no recorded file: is the pattern right?"
    );
    assert!(
        missing.is_empty(),
        "cited but absent:\n{}",
        missing.join("\n")
    );
}

#[test]
fn a_moved_file_is_caught() {
    let root = root();
    let text = "see (`research/perf-10/call1-bench.csv`, `results/perf-10/call1-bench.csv`) and `research/perf-10/call11-h200-*`, `cargo run`";
    let c = citations(text);
    assert_eq!(c.len(), 3, "{c:?}");
    assert!(found(&root, &c[0]));
    assert!(!found(&root, &c[1]));
    assert!(found(&root, &c[2]));
}
