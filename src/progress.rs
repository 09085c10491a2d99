//! The student's progress: which lessons passed, when, how fast and on which device, for each
//! folder of kernels graded on this machine. `lab watch` and `cargo lab` write it after every
//! grading ([`record`], the one writer); the scoreboard and `lab watch` read it ([`read`]).
//!
//! It lives in the repository's ignored `target/` folder (`target/lab-progress.json`), so it
//! is the student's own and never committed. It is JSON rather than TOML because the course's
//! `toml` is built without its writer. A file that cannot be read, is corrupt or was written
//! by another version of the course is ignored with a warning and started afresh: progress is
//! a convenience, never a reason for grading to fail.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::grade::{FailKind, Verdict};
use crate::harness::paths;

/// The file's layout version: a file of another version is ignored, with a warning.
pub const VERSION: u32 = 1;

/// The file's name in the course's `target/` folder.
pub const FILE_NAME: &str = "lab-progress.json";

/// The whole file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub version: u32,
    /// One entry per lesson and folder of kernels, in the order they were first graded.
    pub lessons: Vec<Entry>,
}

/// One lesson in one folder of kernels.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// The lesson's name, `04_naive_kernel`.
    pub lesson: String,
    /// The folder of kernels it was graded in, absolute.
    pub kernels: PathBuf,
    /// Whether its latest grading passed.
    pub passed: bool,
    /// When it was last graded, UTC (`2026-11-28T07:12:03Z`).
    pub when: String,
    /// The speed of the latest grading, when it passed and was timed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gflops: Option<f64>,
    /// The device of the latest grading (none for CPU lessons).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
    /// When it first passed, UTC; kept when a later grading fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_on: Option<String>,
    /// The best speed recorded while it passed, and on which device; kept when a later
    /// grading fails or is slower.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_gflops: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_device: Option<String>,
}

impl Entry {
    /// `passed on 2026-11-28, best 12.3 GFLOP/s`, or empty for a lesson that never passed.
    pub fn words(&self) -> String {
        let Some(on) = &self.passed_on else {
            return String::new();
        };
        let day = on.get(..10).unwrap_or(on);
        match self.best_gflops {
            Some(g) => format!("passed on {day}, best {} GFLOP/s", crate::report::gflops(g)),
            None => format!("passed on {day}"),
        }
    }
}

/// Where the progress file is for a course: `target/lab-progress.json` under its root.
pub fn default_file(course_root: &Path) -> PathBuf {
    course_root.join("target").join(FILE_NAME)
}

impl Progress {
    /// The entries of one folder of kernels.
    pub fn of_folder<'a>(&'a self, kernels: &'a Path) -> impl Iterator<Item = &'a Entry> + 'a {
        self.lessons
            .iter()
            .filter(move |e| paths::same(&e.kernels, kernels))
    }

    /// The entry of a lesson (by name, `04_naive_kernel`) in a folder of kernels.
    pub fn entry(&self, kernels: &Path, lesson: &str) -> Option<&Entry> {
        self.lessons
            .iter()
            .find(|e| e.lesson == lesson && paths::same(&e.kernels, kernels))
    }

    /// Whether a lesson's latest grading in a folder passed.
    pub fn passed(&self, kernels: &Path, lesson: &str) -> bool {
        self.entry(kernels, lesson).is_some_and(|e| e.passed)
    }

    /// Adds a grading: the lesson's entry for this folder is updated, or made.
    pub fn add(&mut self, kernels: &Path, v: &Verdict, when: &str) {
        let gflops = v.timing.as_ref().map(|(shape, t)| t.gflops(*shape));
        let i = match self
            .lessons
            .iter()
            .position(|e| e.lesson == v.lesson && paths::same(&e.kernels, kernels))
        {
            Some(i) => i,
            None => {
                self.lessons.push(Entry {
                    lesson: v.lesson.clone(),
                    kernels: kernels.to_path_buf(),
                    passed: false,
                    when: String::new(),
                    gflops: None,
                    device: None,
                    passed_on: None,
                    best_gflops: None,
                    best_device: None,
                });
                self.lessons.len() - 1
            }
        };
        let e = &mut self.lessons[i];
        e.passed = v.passed();
        e.when = when.to_string();
        e.gflops = gflops.filter(|_| v.passed());
        e.device = v.device.clone();
        if v.passed() {
            e.passed_on.get_or_insert_with(|| when.to_string());
            if let Some(g) = e.gflops {
                if e.best_gflops.is_none_or(|b| g > b) {
                    e.best_gflops = Some(g);
                    e.best_device = v.device.clone();
                }
            }
        }
    }
}

/// Reads the progress file. A missing file is no progress; one that cannot be read or
/// understood is no progress too, with a warning the caller shows (`Some(warning)`).
pub fn read(file: &Path) -> (Progress, Option<String>) {
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (fresh(), None),
        Err(e) => {
            return (
                fresh(),
                Some(format!(
                    "warning: cannot read your progress file {} ({e}); it is ignored",
                    file.display()
                )),
            )
        }
    };
    match parse(&text) {
        Ok(p) => (p, None),
        Err(why) => (
            fresh(),
            Some(format!(
                "warning: your progress file {} {why}; it is ignored, and the next grading starts it afresh",
                file.display()
            )),
        ),
    }
}

fn fresh() -> Progress {
    Progress {
        version: VERSION,
        lessons: Vec::new(),
    }
}

/// The file's text as progress, or why not (a phrase: "is not valid JSON (...)").
fn parse(text: &str) -> Result<Progress, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("is not valid JSON ({e})"))?;
    let version = value.get("version").and_then(|v| v.as_u64());
    if version != Some(u64::from(VERSION)) {
        let found = version.map_or("no version".to_string(), |v| format!("version {v}"));
        return Err(format!(
            "was written by another version of the course ({found}; this one reads version {VERSION})"
        ));
    }
    serde_json::from_value(value).map_err(|e| format!("is not a progress file ({e})"))
}

/// Records one grading of the student's folder `kernels` in the progress file `file`: the one
/// writer, used by `lab watch` and `cargo lab`. A grading that says nothing of the student's
/// code (the device cannot run the lesson, the grading could not be set up) is not recorded.
/// Returns the warning about an unreadable file it replaced, if any. The file is replaced
/// whole (written beside it, then renamed), so a reader never sees half of it.
pub fn record(file: &Path, kernels: &Path, v: &Verdict) -> Result<Option<String>> {
    if matches!(v.kind(), Some(FailKind::Setup | FailKind::Unsupported)) {
        return Ok(None);
    }
    let (mut progress, warning) = read(file);
    let kernels = paths::absolute(kernels);
    let when = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string();
    progress.add(&kernels, v, &when);
    write(file, &progress)?;
    Ok(warning)
}

fn write(file: &Path, progress: &Progress) -> Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(progress).context("encoding the progress file")?;
    // A name of this process's own, so that two programs recording at once do not write into
    // one temporary file; the last rename wins, whole.
    let tmp = file.with_extension(format!("json.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text + "\n").with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, file).with_context(|| format!("replacing {}", file.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::Failure;
    use crate::harness::child::Scratch;
    use crate::harness::matrix::Shape;
    use crate::harness::timing::{Clock, Timing};

    fn verdict(passed: bool, device_ms: Option<f64>) -> Verdict {
        Verdict {
            lesson: "04_naive_kernel".into(),
            file: PathBuf::from("k/04_naive_kernel.cl"),
            device: Some("pthread".into()),
            cases: Vec::new(),
            failure: (!passed).then(|| Failure::new(FailKind::Wrong, "wrong")),
            timing: device_ms.map(|ms| {
                (
                    Shape::square(100),
                    Timing {
                        device_ms: ms,
                        host_ms: ms,
                        clock: Clock::Device,
                        ..Timing::default()
                    },
                )
            }),
            beside: None,
            printed: String::new(),
            notes: Vec::new(),
            unchecked: Vec::new(),
        }
    }

    #[test]
    fn a_pass_is_remembered_through_a_later_failure() {
        let tmp = Scratch::new("progress").unwrap();
        let file = tmp.dir.join("target").join(FILE_NAME);
        let k = tmp.dir.join("kernels");
        assert_eq!(record(&file, &k, &verdict(false, None)).unwrap(), None);
        let (p, w) = read(&file);
        assert!(w.is_none() && !p.passed(&k, "04_naive_kernel"));
        // 2·100³ FLOP in 1 ms: 2 GFLOP/s; then a slower pass, then a failure.
        record(&file, &k, &verdict(true, Some(1.0))).unwrap();
        record(&file, &k, &verdict(true, Some(2.0))).unwrap();
        let (p, _) = read(&file);
        let e = p.entry(&k, "04_naive_kernel").unwrap();
        assert!(e.passed);
        assert!((e.best_gflops.unwrap() - 2.0).abs() < 1e-6);
        assert!((e.gflops.unwrap() - 1.0).abs() < 1e-6);
        let first = e.passed_on.clone().unwrap();
        record(&file, &k, &verdict(false, None)).unwrap();
        let (p, _) = read(&file);
        let e = p.entry(&k, "04_naive_kernel").unwrap();
        assert!(!e.passed && e.gflops.is_none());
        assert_eq!(e.passed_on.as_deref(), Some(first.as_str()));
        assert!(e.words().starts_with("passed on 20"), "{}", e.words());
        assert!(e.words().ends_with("best 2.00 GFLOP/s"), "{}", e.words());
        // Another folder has progress of its own.
        assert!(p.entry(&tmp.dir.join("other"), "04_naive_kernel").is_none());
        assert_eq!(p.lessons.len(), 1);
    }

    #[test]
    fn a_corrupt_or_old_file_is_ignored_with_a_warning() {
        let tmp = Scratch::new("progress").unwrap();
        let file = tmp.dir.join(FILE_NAME);
        let k = tmp.dir.join("kernels");
        for (text, says) in [
            ("{ not json", "is not valid JSON"),
            ("{\"version\": 0, \"lessons\": []}", "another version"),
            ("[1, 2]", "another version"),
            (
                "{\"version\": 1, \"lessons\": [{\"lesson\": 4}]}",
                "is not a progress file",
            ),
        ] {
            std::fs::write(&file, text).unwrap();
            let (p, w) = read(&file);
            assert!(p.lessons.is_empty());
            let w = w.unwrap_or_default();
            assert!(w.contains(says) && w.contains(FILE_NAME), "{text}: {w}");
            // Recording over it starts afresh and says so once.
            let w = record(&file, &k, &verdict(true, None)).unwrap();
            assert!(w.is_some_and(|w| w.contains(says)));
            let (p, w) = read(&file);
            assert!(w.is_none() && p.passed(&k, "04_naive_kernel"));
        }
        // A grading that says nothing of the code is not recorded.
        let mut v = verdict(false, None);
        v.failure = Some(Failure::new(FailKind::Setup, "no device"));
        let before = std::fs::read_to_string(&file).unwrap();
        record(&file, &k, &v).unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    }
}
