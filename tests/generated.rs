//! The book's generated tables and charts are what `lab results` makes of `results/`, byte
//! for byte. The check reads files only (no device, well under a second), so a plain
//! `cargo test` runs it, and `.ci/run` runs `lab results --check` as well.

use std::path::{Path, PathBuf};

use lab::harness::paths::Course;
use lab::tools::results;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_generated_pages_and_charts_are_what_results_gives() {
    let differ = results::differences(&Course::new(root())).unwrap();
    assert!(
        differ.is_empty(),
        "{} generated file(s) of the book differ from what results/ gives; run \
         `cargo run --release -- results` and commit them:\n{}",
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
