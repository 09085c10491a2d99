//! The Gradescope autograder, run as Gradescope runs it: `run_autograder` in a root laid out
//! like `/autograder` (source, submission, results), once for each of three submissions (one
//! passing, one failing, one cheating on its speed). Every `results.json` must validate against
//! the JSON Schema of Gradescope's specification, score each lesson with the points file's
//! points, carry the student's report, and rank on the leaderboard only speeds it can trust.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn course() -> PathBuf {
    // The course: this package's folder is crates/NAME in it.
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .canonicalize()
        .unwrap()
}

/// A root like Gradescope's: `source` is the course (its folders linked, its points file the
/// test's own), `run_autograder` copied beside it as Gradescope's image build copies it.
fn root(name: &str, points: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("lab-gradescope-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let source = root.join("source");
    std::fs::create_dir_all(source.join("autograder")).unwrap();
    for entry in std::fs::read_dir(course()).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name != "autograder" && name != "target" {
            std::os::unix::fs::symlink(entry.path(), source.join(&name)).unwrap();
        }
    }
    std::fs::write(source.join("autograder/points.toml"), points).unwrap();
    std::fs::copy(
        course().join("autograder/gradescope/run_autograder"),
        root.join("run_autograder"),
    )
    .unwrap();
    root
}

/// Runs the autograder on a submission made of `files` (name in the submission, file to copy).
fn run(root: &Path, files: &[(&str, PathBuf)]) -> Value {
    let sub = root.join("submission");
    let _ = std::fs::remove_dir_all(&sub);
    let _ = std::fs::remove_dir_all(root.join("results"));
    std::fs::create_dir_all(&sub).unwrap();
    for (name, from) in files {
        std::fs::copy(from, sub.join(name)).unwrap();
    }
    let out = Command::new(root.join("run_autograder"))
        .env("AUTOGRADER_ROOT", root)
        .env("LAB_BIN", env!("CARGO_BIN_EXE_lab-teacher"))
        .output()
        .expect("run_autograder runs");
    let said = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{said}");
    let text = std::fs::read_to_string(root.join("results/results.json"))
        .unwrap_or_else(|e| panic!("no results.json ({e}):\n{said}"));
    let json: Value = serde_json::from_str(&text).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(course().join("autograder/gradescope/results.schema.json"))
            .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&json)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{text}");
    json
}

fn test<'a>(results: &'a Value, lesson: &str) -> &'a Value {
    results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["number"] == lesson)
        .unwrap_or_else(|| panic!("no test for lesson {lesson}: {results:#}"))
}

fn leaderboard(results: &Value, lesson: &str) -> Option<f64> {
    results["leaderboard"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str().unwrap().starts_with(lesson))
        .map(|e| e["value"].as_f64().unwrap())
}

#[test]
fn gradescope_results_for_a_passing_and_a_failing_submission() {
    let root = root(
        "pass-fail",
        "size = 128\n[points]\n\"04\" = 10\n\"05\" = 6\n[unchecked_cost]\nraces = 0.5\n",
    );
    let solutions = course().join("solutions");
    let honest = [
        ("04_naive_kernel.cl", solutions.join("04_naive_kernel.cl")),
        ("05_local_tiling.cl", solutions.join("05_local_tiling.cl")),
    ];
    let passing = run(&root, &honest);
    let t = test(&passing, "04");
    assert_eq!(t["max_score"], 10.0);
    let full = |t: &Value| {
        let unchecked = t["extra_data"]["unchecked"].as_array().unwrap();
        // A part not checked (races, on a machine without the simulator) costs its share,
        // and its word is in the test's name.
        if unchecked.iter().any(|w| w == "races") {
            assert!(t["name"].as_str().unwrap().contains("unchecked: "), "{t:#}");
            assert!(t["score"].as_f64().unwrap() < t["max_score"].as_f64().unwrap());
        } else {
            assert_eq!(t["score"], t["max_score"], "{t:#}");
            assert_eq!(t["status"], "passed");
        }
    };
    full(t);
    full(test(&passing, "05"));
    assert!(
        t["output"].as_str().unwrap().contains("04_naive_kernel"),
        "the student's report: {t:#}"
    );

    // The transposed kernel and the untouched starter: nothing, with the report saying why.
    let failing = run(
        &root,
        &[
            (
                "04_naive_kernel.cl",
                course().join("tests/wrong/04_naive_kernel/row_as_dim0_transposed.cl"),
            ),
            (
                "05_local_tiling.cl",
                course().join("kernels/05_local_tiling.cl"),
            ),
        ],
    );
    assert_eq!(failing["score"], 0.0, "{failing:#}");
    for lesson in ["04", "05"] {
        let t = test(&failing, lesson);
        assert_eq!(t["score"], 0.0);
        assert_eq!(t["status"], "failed");
        assert!(!t["output"].as_str().unwrap().is_empty());
    }
    assert!(test(&failing, "05")["output"]
        .as_str()
        .unwrap()
        .contains("NOT STARTED"));
    assert_eq!(failing["leaderboard"], Value::Array(vec![]), "{failing:#}");

    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_kernel_that_skips_work_when_c_holds_numbers_is_caught_and_never_ranked() {
    let root = root("cheat", "size = 128\n[points]\n\"04\" = 10\n");
    let honest = run(
        &root,
        &[(
            "04_naive_kernel.cl",
            course().join("solutions/04_naive_kernel.cl"),
        )],
    );
    assert!(
        leaderboard(&honest, "04").is_some(),
        "the honest kernel is on the leaderboard:\n{honest:#}"
    );
    // C holds numbers (random ones, or an earlier product) before many calls, checked ones
    // among them: the kernel is caught, and no speed of it is ranked.
    let cheating = run(
        &root,
        &[(
            "04_naive_kernel.cl",
            course().join("tests/wrong/04_naive_kernel/skip_when_c_holds_numbers.cl"),
        )],
    );
    assert!(
        leaderboard(&cheating, "04").is_none(),
        "the cheat is on the leaderboard:\n{cheating:#}"
    );
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_submission_that_cannot_be_graded_still_gets_a_results_file_that_says_why() {
    let root = std::env::temp_dir().join(format!("lab-gradescope-bad-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let results = root.join("results.json");
    let out = Command::new(env!("CARGO_BIN_EXE_lab-teacher"))
        .args(["autograde", "--submission"])
        .arg(root.join("nothing-here"))
        .arg("--results")
        .arg(&results)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&results).unwrap()).unwrap();
    assert_eq!(json["score"], 0.0);
    assert!(json["output"].as_str().unwrap().contains("is not a folder"));
    std::fs::remove_dir_all(root).unwrap();
}
