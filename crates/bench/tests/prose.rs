//! Speeds written by hand in the book's chapters stay true to what the course recorded. A
//! speed (`68.3 TFLOP/s`, `179 GFLOP/s`) in a chapter's prose must either be a value some file
//! of `results/` holds, rounded to the digits the text shows, or sit in a paragraph that names
//! where it comes from (a `research/` or `results/` path, a chapter, a link). So a figure that
//! a re-run replaced in `results/` and that nobody updated in the prose fails here, naming its
//! chapter and line. Generated pages (`book/src/generated/`) are `lab-bench results`'s and are
//! checked byte for byte by `tests/generated.rs`.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .canonicalize()
        .unwrap()
}

/// Every number in every CSV file under `dir`, as written.
fn recorded_numbers(dir: &Path, out: &mut Vec<f64>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            recorded_numbers(&path, out);
        } else if path.extension().is_some_and(|x| x == "csv") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.extend(
                text.split([',', '\n', ' ', '"'])
                    .filter_map(|t| t.trim().parse::<f64>().ok())
                    .filter(|x| x.is_finite()),
            );
        }
    }
}

/// A speed in prose: its value in GFLOP/s, half a unit of its last shown digit (in GFLOP/s),
/// and the text as written.
#[derive(Debug)]
struct Speed {
    gflops: f64,
    half_step: f64,
    text: String,
}

/// The speeds a paragraph states: a number (digits, thin or plain spaces between groups,
/// a decimal point) right before `TFLOP/s` or `GFLOP/s`.
fn speeds(paragraph: &str) -> Vec<Speed> {
    let mut out = Vec::new();
    for unit in ["TFLOP/s", "GFLOP/s"] {
        let scale = if unit == "TFLOP/s" { 1000.0 } else { 1.0 };
        let mut from = 0;
        while let Some(at) = paragraph[from..].find(unit) {
            let end = from + at;
            from = end + unit.len();
            let before = paragraph[..end].trim_end_matches(' ');
            let start = before
                .char_indices()
                .rev()
                .take_while(|(_, c)| c.is_ascii_digit() || matches!(c, '.' | ' ' | '\u{202f}'))
                .last()
                .map_or(before.len(), |(i, _)| i);
            let number = before[start..].trim().replace([' ', '\u{202f}'], "");
            // A range's upper end ("60–65 TFLOP/s") is the number before the unit.
            let number = number.trim_start_matches('.');
            let Ok(value) = number.parse::<f64>() else {
                continue;
            };
            let decimals = number.split_once('.').map_or(0, |(_, d)| d.len());
            out.push(Speed {
                gflops: value * scale,
                half_step: 0.5 * 10f64.powi(-(decimals as i32)) * scale,
                text: format!("{number} {unit}"),
            });
        }
    }
    out
}

/// Whether a paragraph says where its figures come from.
fn names_its_source(paragraph: &str) -> bool {
    [
        "research/",
        "results/",
        "](http",
        "chapter ",
        "Chapter ",
        "datasheet",
    ]
    .iter()
    .any(|m| paragraph.contains(m))
}

/// The speeds of a chapter that match no recorded value and whose paragraph names no source:
/// `line: text`.
fn unsourced(chapter: &str, recorded: &[f64]) -> Vec<String> {
    let mut out = Vec::new();
    let mut line = 1;
    for paragraph in chapter.split("\n\n") {
        if !names_its_source(paragraph) {
            for s in speeds(paragraph) {
                let found = recorded
                    .iter()
                    .any(|v| (v - s.gflops).abs() <= s.half_step * 1.0001);
                if !found {
                    out.push(format!("line {line}: {}", s.text));
                }
            }
        }
        line += paragraph.matches('\n').count() + 2;
    }
    out
}

#[test]
fn every_speed_in_the_chapters_is_recorded_or_names_its_source() {
    let root = root();
    let mut recorded = Vec::new();
    recorded_numbers(&root.join("results"), &mut recorded);
    assert!(!recorded.is_empty(), "results/ holds no numbers");
    let mut bad = Vec::new();
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(root.join("book/src"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    chapters.sort();
    for path in chapters {
        let text = std::fs::read_to_string(&path).unwrap();
        for b in unsourced(&text, &recorded) {
            bad.push(format!(
                "{}: {b}",
                path.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "speeds in the book that no file of results/ holds and whose paragraph names no source \
         (update them from results/, or name the research/ folder they come from):\n{}",
        bad.join("\n")
    );
}

#[test]
fn a_stale_speed_is_caught_and_a_recorded_or_sourced_one_is_not() {
    let recorded = [68291.2, 179.0, 50.6];
    // Rounded from a recorded value, in either unit.
    assert!(unsourced("It reaches 68.3 TFLOP/s at 4096.", &recorded).is_empty());
    assert!(unsourced("one core's ceiling, 179 GFLOP/s.", &recorded).is_empty());
    // A number the re-run replaced: caught, with its line.
    assert_eq!(
        unsourced("Intro.\n\nIt reaches 64.6 TFLOP/s at 4096.", &recorded),
        vec!["line 3: 64.6 TFLOP/s".to_string()]
    );
    // Shown with more digits than the record rounds to: caught.
    assert!(!unsourced("It reaches 68.32 TFLOP/s.", &recorded).is_empty());
    // Grouped digits, and a paragraph that names its source.
    assert!(unsourced("It reaches 68 291 GFLOP/s.", &[68291.0]).is_empty());
    assert!(unsourced("It ran at 38.1 TFLOP/s (research/perf-10/).", &recorded).is_empty());
}
