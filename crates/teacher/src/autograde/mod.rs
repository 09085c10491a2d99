//! Grading for the engines classes already use: Gradescope (a `results.json` per submission)
//! and GitHub Classroom (a workflow with one step per lesson). Both read the teacher's one
//! file of points ([`Config`], `autograder/points.toml`) and grade with [`class::grade_student`],
//! the path `lab-teacher class` grades with.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use serde::Deserialize;

use crate::class::{self, Student};
use lab::grade::{Part, Verdict};
use lab::ladder;
use lab::lesson::Lesson;

pub mod classroom;
pub mod gradescope;

/// Where the course keeps the teacher's file of points, from its root.
pub const CONFIG: &str = "autograder/points.toml";

/// The teacher's settings, shared by the Gradescope autograder and the Classroom workflow.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Points per lesson, by key (`"05"`); lessons left out are not graded.
    pub points: BTreeMap<String, f64>,
    /// The share of a lesson's points (0 to 1) that each part not checked costs; parts left
    /// out cost nothing. Costs add up, to at most the lesson's points.
    #[serde(default)]
    pub unchecked_cost: BTreeMap<Part, f64>,
    /// Who sees each lesson's result on Gradescope: `visible`, `hidden`, `after_due_date` or
    /// `after_published`.
    #[serde(default = "visible")]
    pub visibility: String,
    /// Size (M = N = K) at which passing kernels are timed; default: the scoreboard's.
    #[serde(default)]
    pub size: Option<usize>,
    /// Put speeds on the leaderboard even when the speed or the sandbox could not be checked.
    #[serde(default)]
    pub rank_unchecked: bool,
    /// The longest one lesson may take in a Classroom step, minutes.
    #[serde(default = "ten")]
    pub classroom_minutes: u32,
    /// Lessons left out on purpose, by key, each with the reason: with `points`, the course's
    /// own file names every graded lesson ([`Config::unnamed`]).
    #[serde(default)]
    pub left_out: BTreeMap<String, String>,
}

fn visible() -> String {
    "visible".into()
}

fn ten() -> u32 {
    10
}

/// Gradescope's visibility words.
pub const VISIBILITIES: [&str; 4] = ["visible", "hidden", "after_due_date", "after_published"];

impl Config {
    /// Reads and checks the file: an unknown lesson, a negative point or a cost outside 0..1
    /// is an error naming it.
    pub fn read(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the points file {}", path.display()))?;
        let c: Config =
            toml::from_str(&text).with_context(|| format!("reading {}", path.display()))?;
        c.check()
            .with_context(|| format!("in {}", path.display()))?;
        Ok(c)
    }

    fn check(&self) -> Result<()> {
        if self.points.is_empty() {
            bail!(
                "[points] names no lesson: give each lesson to grade its points, e.g. \"05\" = 10"
            );
        }
        for (key, &p) in &self.points {
            let Some(l) = ladder::find(key) else {
                bail!(
                    "[points] names lesson {key}, which does not exist: the lessons are {}",
                    ladder::keys()
                );
            };
            if !l.graded() {
                bail!("[points] names lesson {key}, which has nothing to grade");
            }
            if !(p.is_finite() && p >= 0.0) {
                bail!("[points] gives lesson {key} {p} points: use a number of 0 or more");
            }
        }
        for (key, why) in &self.left_out {
            if ladder::find(key).is_none() {
                bail!(
                    "[left_out] names lesson {key}, which does not exist: the lessons are {}",
                    ladder::keys()
                );
            }
            if self.points.contains_key(key) {
                bail!("lesson {key} is both in [points] and in [left_out]: keep one");
            }
            if why.trim().is_empty() {
                bail!("[left_out] gives no reason for lesson {key}: say why it is not graded");
            }
        }
        for (part, &c) in &self.unchecked_cost {
            if !(0.0..=1.0).contains(&c) {
                bail!(
                    "[unchecked_cost] {} = {c}: use a share of the lesson's points from 0 to 1",
                    part.word()
                );
            }
        }
        if !VISIBILITIES.contains(&self.visibility.as_str()) {
            bail!(
                "visibility = \"{}\": use one of {}",
                self.visibility,
                VISIBILITIES.join(", ")
            );
        }
        if self.classroom_minutes == 0 || self.classroom_minutes > 360 {
            bail!(
                "classroom_minutes = {}: use 1 to 360",
                self.classroom_minutes
            );
        }
        Ok(())
    }

    /// The graded lessons of the ladder that the file neither gives points nor leaves out
    /// with a reason: a lesson added to the course and forgotten here.
    pub fn unnamed(&self) -> Vec<&'static str> {
        ladder::ALL
            .iter()
            .filter(|l| l.graded())
            .filter(|l| {
                let named = |k: &String| ladder::find(k).is_some_and(|x| x.key == l.key);
                !self.points.keys().any(named) && !self.left_out.keys().any(named)
            })
            .map(|l| l.key)
            .collect()
    }

    /// The lessons to grade, in ladder order, with their points.
    pub fn lessons(&self) -> Vec<(&'static Lesson, f64)> {
        let mut out: Vec<(&'static Lesson, f64)> = self
            .points
            .iter()
            .filter_map(|(k, &p)| Some((ladder::find(k)?, p)))
            .collect();
        let order = |l: &Lesson| ladder::ALL.iter().position(|x| x.key == l.key);
        out.sort_by_key(|(l, _)| order(l));
        out
    }

    /// The points of lesson `lesson` (by name), 0 when it is not in the file.
    pub fn points_of(&self, lesson: &str) -> f64 {
        self.lessons()
            .into_iter()
            .find(|(l, _)| l.name() == lesson)
            .map_or(0.0, |(_, p)| p)
    }

    /// A verdict's score: nothing when it failed; its points less the cost of each part not
    /// checked when it passed.
    pub fn score(&self, v: &Verdict) -> Score {
        let max = self.points_of(&v.lesson);
        if !v.passed() {
            return Score {
                score: 0.0,
                max,
                costs: Vec::new(),
            };
        }
        let costs: Vec<(Part, f64)> = v
            .unchecked_parts()
            .into_iter()
            .filter_map(|p| {
                let c = self.unchecked_cost.get(&p).copied().unwrap_or(0.0);
                (c > 0.0).then_some((p, c * max))
            })
            .collect();
        let lost: f64 = costs.iter().map(|(_, c)| c).sum();
        Score {
            score: round2((max - lost).max(0.0)),
            max,
            costs,
        }
    }
}

/// One lesson's points.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    pub score: f64,
    pub max: f64,
    /// What each part not checked cost, in points.
    pub costs: Vec<(Part, f64)>,
}

impl Score {
    pub fn full(&self) -> bool {
        self.score >= self.max
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The kernels in a submission: its `kernels/` folder when it has one (a copy of the student's
/// repository), else the submission itself (the files uploaded alone).
pub fn kernels_of(submission: &Path) -> PathBuf {
    let inner = submission.join("kernels");
    if inner.is_dir() {
        inner
    } else {
        submission.to_path_buf()
    }
}

/// Grades one submission on the config's lessons (or those of `only`), as `lab-teacher class` grades
/// one student.
pub fn grade(
    submission: &Path,
    config: &Config,
    only: &[&'static Lesson],
    opts: &lab::grade::Options,
    progress: impl FnMut(&Lesson),
) -> Result<Student> {
    anyhow::ensure!(
        submission.is_dir(),
        "{} is not a folder: the submission must be a folder of kernels (or a copy of the student's repository)",
        submission.display()
    );
    let lessons: Vec<&'static Lesson> = config
        .lessons()
        .into_iter()
        .map(|(l, _)| l)
        .filter(|l| lab::scoreboard::selected(l, only))
        .collect();
    if lessons.is_empty() {
        bail!("none of the lessons asked for has points in the points file");
    }
    Ok(class::grade_student(
        "submission",
        &kernels_of(submission),
        &lessons,
        opts,
        progress,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(text: &str) -> Result<Config> {
        let c: Config = toml::from_str(text)?;
        c.check()?;
        Ok(c)
    }

    #[test]
    fn the_courses_points_file_reads() {
        // The course: this package is crates/teacher in it.
        let course = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let c = Config::read(&course.join(CONFIG)).unwrap();
        assert!(!c.lessons().is_empty());
        // Every lesson of the ladder has points or is left out with a reason.
        assert!(
            c.unnamed().is_empty(),
            "{CONFIG} names neither points nor a reason to leave out lesson(s) {:?}",
            c.unnamed()
        );
        let partial =
            config("[points]\n\"05\" = 1\n[left_out]\n\"04\" = \"not this term\"\n").unwrap();
        assert!(partial.unnamed().contains(&"11") && !partial.unnamed().contains(&"04"));
        let e = config("[points]\n\"05\" = 1\n[left_out]\n\"05\" = \"x\"\n").unwrap_err();
        assert!(
            format!("{e:#}").contains("both in [points] and in [left_out]"),
            "{e:#}"
        );
    }

    #[test]
    fn bad_points_files_are_refused_with_the_reason() {
        let e = config("[points]\n\"99\" = 1\n").unwrap_err().to_string();
        assert!(e.contains("lesson 99, which does not exist"), "{e}");
        let e = config("[points]\n\"00\" = 1\n").unwrap_err().to_string();
        assert!(e.contains("nothing to grade"), "{e}");
        let e = config("[points]\n\"04\" = 1\n[unchecked_cost]\nraces = 2\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("races = 2"), "{e}");
        let e = config("[points]\n\"04\" = 1\nvisibility = \"everyone\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("visibility"), "{e}");
        assert!(config("[points]\n\"04\" = 1\n[unchecked_cost]\nspeeed = 1\n").is_err());
    }

    #[test]
    fn an_unchecked_part_costs_its_share() {
        let c = config(
            "[points]\n\"05\" = 10\n\"04\" = 4\n[unchecked_cost]\nraces = 0.5\ntechnique = 0.25\n",
        )
        .unwrap();
        assert_eq!(c.lessons()[0].0.key, "04", "ladder order");
        let l = ladder::find("5").unwrap();
        let mut v = Verdict::new(l, Path::new("x.cl"));
        assert_eq!(c.score(&v).score, 10.0);
        v.not_checked(Part::Races, "no simulator".into());
        v.not_checked(Part::Sandbox, "no sandbox".into());
        let s = c.score(&v);
        assert_eq!(s.score, 5.0);
        assert_eq!(s.costs, vec![(Part::Races, 5.0)]);
        v.not_checked(Part::Technique, "no simulator".into());
        assert_eq!(c.score(&v).score, 2.5);
        v.failure = Some(lab::grade::Failure::new(
            lab::grade::FailKind::Wrong,
            "wrong",
        ));
        assert_eq!(c.score(&v).score, 0.0);
    }
}
