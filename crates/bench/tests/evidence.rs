//! `lab-bench evidence` accounts for the student's kernels, not the course's answers: it builds the
//! files of `--kernels DIR` with the defines a grading uses, and what it writes changes where
//! the student's kernel differs from the reference and only there.

use std::path::{Path, PathBuf};
use std::process::Command;

use lab::cli::Edge;
use lab::harness::device::Gpu;
use lab::harness::program;
use lab::ladder;
use lab::lesson::Ctx;

fn root() -> PathBuf {
    // The course: this package's folder is crates/NAME in it.
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .canonicalize()
        .unwrap()
}

/// A folder of the test's own, removed when the test is done with it (passed or not).
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("lab-evidence-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// `lab-bench evidence` with these arguments: its standard output, or its failure's text.
fn evidence(args: &[&str]) -> Result<String, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_lab-bench"))
        .arg("evidence")
        .args(args)
        .env_remove("LAB_KERNELS")
        .output()
        .expect("running lab-bench evidence");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    if out.status.success() {
        Ok(text(&out.stdout))
    } else {
        Err(format!("{}{}", text(&out.stdout), text(&out.stderr)))
    }
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file))
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.join(file).display()))
}

fn line<'a>(text: &'a str, starts: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(starts))
        .unwrap_or_else(|| panic!("no line starting `{starts}` in:\n{text}"))
}

/// The `-D` options a grading of `key` builds with on the device the tool uses.
fn grading_options(key: &str) -> String {
    let edge = Edge::from_env().unwrap();
    let gpu = Gpu::open(edge.device(None).as_deref()).unwrap();
    let ocl = ladder::get(key).ocl().unwrap();
    let ctx = Ctx {
        info: &gpu.info,
        course: &edge.course,
    };
    let defines = lab::prepared::defines(ocl, &ctx, None, &[]).unwrap();
    program::options(&ocl.compiled(&defines), ocl.build_options)
}

#[test]
fn it_builds_the_students_kernels_with_the_gradings_defines() {
    // Lesson 06 as shipped (its local tiles declared and never used), lesson 07 answered.
    let kernels = scratch("kernels");
    let file = |key: &str| ladder::get(key).file_name();
    std::fs::copy(
        root().join("kernels").join(file("06")),
        kernels.join(file("06")),
    )
    .unwrap();
    std::fs::copy(
        root().join("solutions").join(file("07")),
        kernels.join(file("07")),
    )
    .unwrap();
    let mine = scratch("mine");
    let theirs = scratch("reference");
    let said = evidence(&[
        "--kernels",
        kernels.to_str().unwrap(),
        "--lessons",
        "6,7",
        "--out",
        mine.to_str().unwrap(),
    ])
    .unwrap();
    evidence(&[
        "--solution",
        "--lessons",
        "6,7",
        "--out",
        theirs.to_str().unwrap(),
    ])
    .unwrap();

    let students_06 = kernels.join(file("06")).display().to_string();
    assert!(said.contains(&file("06")), "{said}");
    let log = read(&mine, "06_register_tiling.build.log");
    let header = log.lines().next().unwrap();
    assert!(
        header.starts_with(&format!("# {students_06} (still the starter")),
        "{header}"
    );
    assert!(header.contains(&grading_options("06")), "{header}");
    let log07 = read(&theirs, "07_vectorization.build.log");
    let header07 = log07.lines().next().unwrap();
    assert!(
        header07.contains(&format!("solutions/{} on ", file("07"))),
        "{header07}"
    );

    // The starter uses none of its tiles, so the compiler keeps none; the answer keeps two.
    let local = |dir: &Path, name: &str| {
        line(
            &read(dir, &format!("{name}.kernel.txt")),
            "local memory per work-group",
        )
        .to_string()
    };
    assert_ne!(
        local(&mine, "06_register_tiling"),
        local(&theirs, "06_register_tiling")
    );
    assert_eq!(
        local(&mine, "07_vectorization"),
        local(&theirs, "07_vectorization")
    );
    // The same source with the same defines is the same program; a different one is not.
    let binary = |dir: &Path, name: &str| {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_stem().is_some_and(|s| s == name)
                    && p.extension().is_some_and(|e| e == "ptx" || e == "bin")
            })
            .map(|p| std::fs::read(p).unwrap())
            .unwrap_or_else(|| panic!("no program binary of {name} in {}", dir.display()))
    };
    assert_eq!(
        binary(&mine, "07_vectorization"),
        binary(&theirs, "07_vectorization")
    );
    assert_ne!(
        binary(&mine, "06_register_tiling"),
        binary(&theirs, "06_register_tiling")
    );
}

#[test]
fn a_kernel_that_does_not_build_is_named_and_a_cpu_lesson_refused() {
    let kernels = scratch("broken");
    let file = ladder::get("05").file_name();
    let text = std::fs::read_to_string(root().join("solutions").join(&file)).unwrap();
    std::fs::write(
        kernels.join(&file),
        text.replacen("barrier(", "barrier_typo(", 1),
    )
    .unwrap();
    let out = scratch("broken-out");
    let why = evidence(&[
        "--kernels",
        kernels.to_str().unwrap(),
        "--lessons",
        "5",
        "--out",
        out.to_str().unwrap(),
    ])
    .unwrap_err();
    assert!(why.contains(&file) && why.contains("broken"), "{why}");

    let why = evidence(&["--lessons", "3", "--out", out.to_str().unwrap()]).unwrap_err();
    assert!(why.contains("lesson 03 runs on the CPU"), "{why}");
    let missing = scratch("empty");
    let why = evidence(&[
        "--kernels",
        missing.to_str().unwrap(),
        "--lessons",
        "4",
        "--out",
        out.to_str().unwrap(),
    ])
    .unwrap_err();
    assert!(why.contains("reading the kernel file"), "{why}");
}
