//! One of each: the course has one run-and-time loop (`harness::timing`), one place that
//! starts a grading worker (`grade::request::spawn`), one time budget (`timing::BUDGET_MS`),
//! and one place that resolves a lesson's defines and builds its kernel (`prepared`).
//! A second of any of them, written beside the first, fails here with the file that holds it.

use std::path::{Path, PathBuf};

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

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without its comments (a comment may name what it must not do).
fn code(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the one of each lives, and what gives a second away.
struct Rule {
    what: &'static str,
    /// Code that only an implementation of it has.
    sign: fn(&str) -> bool,
    /// The files allowed to hold it, relative to the root, with why.
    owners: &'static [&'static str],
}

const RULES: &[Rule] = &[
    Rule {
        what: "a run-and-time loop (a median of timed calls)",
        sign: |c| c.contains("median("),
        owners: &[
            "src/harness/exec.rs",   // where `median` is defined
            "src/harness/timing.rs", // the course's one timing protocol
            // The device's peak, measured by micro-benchmarks that multiply no matrices.
            "lessons/00_your_device/microbench.rs",
        ],
    },
    Rule {
        // Criterion (or any harness) may decide how many calls to make, never what a call
        // is: its samples are the protocol's checked calls on fresh inputs, or it is a second
        // loop timing the same inputs with nothing checked.
        what: "a benchmark loop whose samples are not the protocol's checked calls (criterion's `iter`, `iter_batched`, `iter_with_setup`, or `iter_custom` without `timing::CheckedCalls`)",
        sign: |c| {
            let c = c.replace(char::is_whitespace, "");
            [".iter(|", "iter_batched", "iter_with_setup", "iter_with_large_drop"]
                .iter()
                .any(|s| c.contains(s))
                || (c.contains("iter_custom(") && !c.contains("CheckedCalls::new("))
        },
        owners: &[],
    },
    Rule {
        what: "a time budget",
        sign: |c| {
            c.lines().any(|l| {
                let l = l.trim_start();
                (l.starts_with("const ") || l.starts_with("pub const ")) && l.contains("BUDGET")
            })
        },
        owners: &["src/harness/timing.rs"],
    },
    Rule {
        what: "a lesson's defines laid from their layers (the device's own, tuned by size)",
        sign: |c| c.contains(".defines)(") || c.contains(".sized"),
        // `prepared::defines`: the device's own, then the tuned set, then the overrides.
        owners: &["src/prepared.rs"],
    },
    Rule {
        what: "a kernel built from source (`program::build_source`, `build_file`)",
        sign: |c| c.contains("build_source(") || c.contains("build_file("),
        owners: &[
            "src/harness/program.rs", // where the build is defined
            "src/prepared.rs",        // a lesson's kernel, ready to run
            "src/harness/pad.rs",     // the host's padding copies, no lesson's kernel
            // The device's micro-benchmarks, which are no lesson's kernel.
            "lessons/00_your_device/microbench.rs",
            "lessons/00_your_device/matrix_unit.rs",
            "lessons/00_your_device/cache_rate.rs",
            // Lesson 09's peers with other signatures (B as a buffer, the Adreno blog's).
            "lessons/09_texture_zero_copy.rs",
        ],
    },
    Rule {
        what: "a verdict composed (the simulator's review, strictness)",
        sign: |c| c.contains("simulate::review(") || c.contains("strictly("),
        owners: &[
            "src/grade/worker.rs", // `finish`: the worker's, or the supervisor's where it died
            "src/grade/mod.rs",    // where `strictly` is defined
        ],
    },
    Rule {
        what: "a grading worker started (`lab worker`)",
        sign: |c| c.contains(".arg(\"worker\")"),
        owners: &["src/grade/request.rs"],
    },
    Rule {
        what: "a supervised child process (`child::supervise`)",
        sign: |c| c.contains("supervise("),
        owners: &[
            "src/harness/child.rs", // where it is defined, and run_with_limit
            "src/grade/request.rs", // the worker's spawner
        ],
    },
];

/// Every second implementation among `files` (path relative to the root, text).
fn seconds(files: &[(String, String)]) -> Vec<String> {
    let mut found = Vec::new();
    for rule in RULES {
        for (path, text) in files {
            if (rule.sign)(&code(text)) && !rule.owners.contains(&path.as_str()) {
                found.push(format!(
                    "{path} has {}, which only {} may hold: use the one there is",
                    rule.what,
                    rule.owners.join(" or ")
                ));
            }
        }
    }
    found
}

fn course_files() -> Vec<(String, String)> {
    let root = root();
    let mut paths = Vec::new();
    for dir in source_dirs(&root) {
        rust_files(&dir, &mut paths);
    }
    paths
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

#[test]
fn the_course_has_one_of_each() {
    let files = course_files();
    assert!(files.len() > 50, "the course's sources were not found");
    let found = seconds(&files);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn every_owner_still_holds_what_it_owns() {
    let files = course_files();
    for rule in RULES {
        for owner in rule.owners {
            let (_, text) = files
                .iter()
                .find(|(p, _)| p == owner)
                .unwrap_or_else(|| panic!("{owner} is gone: update the rule for {}", rule.what));
            assert!(
                (rule.sign)(&code(text)),
                "{owner} no longer has {}: the rule's sign has gone stale",
                rule.what
            );
        }
    }
}

#[test]
fn a_second_of_each_is_found() {
    let file = |p: &str, t: &str| (p.to_string(), t.to_string());
    let cases = [
        file(
            "lessons/12_new.rs",
            "fn t() { let ms = exec::median(&mut times); }",
        ),
        file("src/grade/cpu/mod.rs", "const BUDGET_MS: f64 = 2000.0;"),
        file(
            "src/grade/simulate.rs",
            "let mut cmd = Command::new(w); cmd.arg(\"worker\");",
        ),
        file(
            "crates/bench/src/tools/accuracy.rs",
            "let d = with_overrides((ocl.defines)(&ctx), &tuned);",
        ),
        file(
            "lessons/12_new.rs",
            "let p = program::build_source(gpu, &file, &text, &d, \"\")?;",
        ),
        file(
            "src/grade/simulate.rs",
            "let e = child::supervise(cmd, KEEP, || Tick::Continue)?;",
        ),
        // A verdict amended after the worker returned it.
        file(
            "src/grade/progress.rs",
            "let v = grade::strictly(worker::grade(l, s, o), o);",
        ),
        file(
            "src/scoreboard.rs",
            "simulate::review(lesson, ocl, source, opts, &mut v);",
        ),
        // Criterion timing its own loop on one fixed problem, in three spellings.
        file(
            "crates/bench/benches/ladder.rs",
            "g.bench_function(id, |b| b.iter(|| f(&p.a, &p.b, &mut out, n, n, n)));",
        ),
        file(
            "crates/bench/benches/other.rs",
            "b.iter_batched(|| p.clone(), |p| run(&p), BatchSize::SmallInput)",
        ),
        file(
            "crates/bench/benches/ladder.rs",
            "b.iter_custom(|iters| time_launches(&gpu, &rung, iters))",
        ),
    ];
    for (i, case) in cases.iter().enumerate() {
        let found = seconds(std::slice::from_ref(case));
        assert_eq!(found.len(), 1, "case {i}: {found:?}");
        assert!(found[0].starts_with(&case.0), "{found:?}");
    }
    // What a comment says is not code.
    assert!(seconds(&[file("src/run.rs", "// no median( here, no BUDGET const")]).is_empty());
}
