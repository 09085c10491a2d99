//! The book's generated tables and charts are what `lab-bench results` makes of `results/`, byte
//! for byte, and no generated page shows a share of peak above 100 %. Both checks read files
//! only (no device, well under a second), so a plain `cargo test` runs them, and `.ci/run`
//! runs `lab-bench results --check` as well.

use std::path::{Path, PathBuf};

use lab::harness::paths::Course;
use lab_bench::tools::results;

fn root() -> PathBuf {
    // The course: this package's folder is crates/NAME in it.
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .canonicalize()
        .unwrap()
}

#[test]
fn the_generated_pages_and_charts_are_what_results_gives() {
    let differ = results::differences(&Course::new(root())).unwrap();
    assert!(
        differ.is_empty(),
        "{} generated file(s) of the book differ from what results/ gives; run \
         `cargo run --release -p lab-bench -- results` and commit them:\n{}",
        differ.len(),
        differ.join("\n")
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

#[test]
fn the_check_names_every_file_edited_by_hand_missing_or_left_over() {
    let tmp = lab::harness::child::Scratch::new("generated-check").unwrap();
    let copy = tmp.dir.clone();
    copy_dir(&root().join("results"), &copy.join("results"));
    for d in ["generated", "figures"] {
        copy_dir(
            &root().join("book/src").join(d),
            &copy.join("book/src").join(d),
        );
    }
    let course = Course::new(&copy);
    assert_eq!(results::differences(&course).unwrap(), Vec::<String>::new());

    // A number edited by hand in a page, a chart touched, a page deleted, a chart of a
    // device whose file is gone.
    let page = copy.join("book/src/generated/10_tuned.md");
    let text = std::fs::read_to_string(&page).unwrap();
    let edited = text.replacen("| 1024³ |", "| 1024³ | 1 |", 1);
    assert_ne!(text, edited);
    std::fs::write(&page, edited).unwrap();
    let chart = copy.join("book/src/figures/ladder-nvidia-h100-80gb-hbm3.svg");
    let svg = std::fs::read_to_string(&chart).unwrap();
    std::fs::write(&chart, svg.replacen("GFLOP/s", "TFLOP/s", 1)).unwrap();
    std::fs::remove_file(copy.join("book/src/generated/peak.md")).unwrap();
    std::fs::write(copy.join("book/src/figures/roofline-gone.svg"), "<svg/>").unwrap();

    let differ = results::differences(&course).unwrap();
    assert_eq!(
        differ,
        vec![
            "book/src/generated/peak.md: missing, would be written",
            "book/src/generated/10_tuned.md: would change",
            "book/src/figures/ladder-nvidia-h100-80gb-hbm3.svg: would change",
            "book/src/figures/roofline-gone.svg: no longer generated, would be removed",
        ],
    );
    let err = results::check(&course).unwrap_err().to_string();
    assert!(
        err.contains("4 generated file(s)") && err.contains("book/src/generated/10_tuned.md"),
        "{err}"
    );

    // Regenerating puts every file back, and removes the left-over chart.
    results::run(&course).unwrap();
    assert_eq!(results::differences(&course).unwrap(), Vec::<String>::new());
    assert!(!copy.join("book/src/figures/roofline-gone.svg").exists());
    results::check(&course).unwrap();
}

/// The numbers followed by a per cent sign in `text` (`97.4 %`, `97.4\u{a0}%`).
fn percentages(text: &str) -> Vec<f64> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i].is_ascii_digit() && (i == 0 || !chars[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            let mut j = i;
            while j < chars.len() && (chars[j] == ' ' || chars[j] == '\u{a0}') {
                j += 1;
            }
            if j < chars.len() && chars[j] == '%' {
                if let Ok(x) = number.parse() {
                    out.push(x);
                }
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Every share of peak above 100 % in a generated page: the cells of each table column
/// whose header speaks of peak (`% of peak`, `of peak`, `GFLOP/s (% of peak)`), one line each.
fn shares_above_100(name: &str, page: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut columns: Vec<usize> = Vec::new();
    for (n, line) in page.lines().enumerate() {
        if !line.starts_with('|') {
            columns.clear();
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if columns.is_empty() {
            columns = (0..cells.len())
                .filter(|&i| cells[i].contains("of peak"))
                .collect();
            // A table without such a column: skip its rows.
            if columns.is_empty() {
                columns.push(usize::MAX);
            }
            continue;
        }
        for &c in columns.iter().filter(|&&c| c < cells.len()) {
            for x in percentages(cells[c]).into_iter().filter(|&x| x > 100.0) {
                out.push(format!("{name}:{}: {x} % of peak in `{line}`", n + 1));
            }
        }
    }
    out
}

#[test]
fn no_generated_page_or_chart_shows_a_share_of_peak_above_100_per_cent() {
    let mut found = Vec::new();
    let generated = root().join("book/src/generated");
    let mut pages = 0;
    for e in std::fs::read_dir(&generated).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "md") {
            pages += 1;
            let name = format!("book/src/generated/{}", path.file_name().unwrap().display());
            found.extend(shares_above_100(
                &name,
                &std::fs::read_to_string(&path).unwrap(),
            ));
        }
    }
    assert!(pages > 10, "only {pages} generated pages");
    // The % of peak charts: every value on them is a share.
    for e in std::fs::read_dir(root().join("book/src/figures")).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("of-peak-") && name.ends_with(".svg") {
            let svg = std::fs::read_to_string(&path).unwrap();
            for line in svg.lines().filter(|l| !l.starts_with('<')) {
                for x in percentages(line).into_iter().filter(|&x| x > 100.0) {
                    found.push(format!("book/src/figures/{name}: {x} % in `{line}`"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "a share of peak above 100 % is against the wrong ceiling (see CONTRIBUTING's \
         rule: the ceiling of the unit the kernel uses, or n/a):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_share_check_reads_the_columns_of_peak_only() {
    let page = "Text 120 % of nothing.\n\n\
                | size | % of peak | lesson 10 / CLBlast |\n|---|--:|--:|\n\
                | 1024³ | 99.0\u{a0}% | 181.6\u{a0}% |\n| 4096³ | 103.0\u{a0}% | 90.0\u{a0}% |\n\n\
                | rung | GFLOP/s (% of peak) | caches served |\n|---|--:|--:|\n\
                | 11 | 68296 (106.5 %) | 126.3 % |\n| 10 | 47125 (71.1 %) | — |\n";
    let found = shares_above_100("p.md", page);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].starts_with("p.md:6: 103 %"), "{found:?}");
    assert!(found[1].starts_with("p.md:10: 106.5 %"), "{found:?}");
    assert_eq!(
        percentages("a 1.5x and 7.0\u{a0}% and 12 %"),
        vec![7.0, 12.0]
    );
}
