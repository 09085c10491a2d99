//! A class at once: every student's folder in a folder, graded exactly as `--kernels` grades
//! one; one table (student × lesson), a speed ranking among the passing kernels of each
//! lesson, and a gradebook file.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use comfy_table::{presets, ContentArrangement, Table};
use serde::{Deserialize, Serialize};

use crate::grade::{self, Options, Source, Verdict};
use crate::harness::matrix::Shape;
use crate::harness::record;
use crate::ladder::ALL;
use crate::lesson::Lesson;
use crate::report;
use crate::scoreboard::{selected, status};

/// One student's verdicts, in ladder order.
pub struct Student {
    pub name: String,
    pub folder: PathBuf,
    pub verdicts: Vec<Verdict>,
}

/// The student folders in `dir`: its subfolders, by name.
pub fn folders(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            let name = entry.file_name().to_string_lossy().to_string();
            if !name.starts_with('.') {
                out.push((name, entry.path()));
            }
        }
    }
    out.sort();
    anyhow::ensure!(
        !out.is_empty(),
        "{} holds no student folders: put each student's kernels in a folder of its own inside it",
        dir.display()
    );
    Ok(out)
}

/// The lessons a class is graded on.
pub fn lessons(only: &[&'static Lesson]) -> Vec<&'static Lesson> {
    ALL.iter()
        .copied()
        .filter(|l| l.graded() && selected(l, only))
        .collect()
}

/// Grades every student folder in `dir`.
pub fn grade_class(
    dir: &Path,
    opts: &Options,
    only: &[&'static Lesson],
    mut progress: impl FnMut(&str, &Lesson),
) -> Result<Vec<Student>> {
    let mut students = Vec::new();
    for (name, folder) in folders(dir)? {
        let mut verdicts = Vec::new();
        for lesson in lessons(only) {
            progress(&name, lesson);
            verdicts.push(grade::grade(lesson, &Source::Folder(folder.clone()), opts));
        }
        students.push(Student {
            name,
            folder,
            verdicts,
        });
    }
    Ok(students)
}

/// One cell of the gradebook.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GradeRow {
    pub student: String,
    pub lesson: String,
    /// `pass` or `fail`.
    pub result: String,
    /// The failure's kind (`wrong result`, `not started`, ...); empty when passed.
    pub kind: String,
    /// Speed at the class's timing size, when passed.
    pub gflops: Option<f64>,
    /// Rank among the passing kernels of this lesson (1 = fastest).
    pub rank: Option<usize>,
    /// The first line of the failure's message.
    pub why: String,
    /// The parts that could not be checked (`races technique`), empty when all were.
    #[serde(default)]
    pub unchecked: String,
}

fn gflops_of(v: &Verdict) -> Option<f64> {
    v.timing
        .as_ref()
        .filter(|_| v.passed())
        .map(|(s, t)| t.gflops(*s))
}

/// The gradebook: one row per student and lesson, with each lesson's speed ranks.
pub fn gradebook(students: &[Student]) -> Vec<GradeRow> {
    let mut rows = Vec::new();
    for s in students {
        for v in &s.verdicts {
            let lesson = v.lesson.clone();
            let speed = gflops_of(v);
            // Rank: how many passing kernels of this lesson are faster, plus one.
            let rank = speed.map(|g| {
                1 + students
                    .iter()
                    .filter_map(|o| o.verdicts.iter().find(|x| x.lesson == lesson))
                    .filter_map(gflops_of)
                    .filter(|&o| o > g)
                    .count()
            });
            rows.push(GradeRow {
                student: s.name.clone(),
                lesson,
                result: if v.passed() { "pass" } else { "fail" }.into(),
                kind: v.kind().map(report::kind_word).unwrap_or_default(),
                gflops: speed.map(|g| (g * 10.0).round() / 10.0),
                rank,
                why: v
                    .failure
                    .as_ref()
                    .map(|f| f.message.lines().next().unwrap_or("").to_string())
                    .unwrap_or_default(),
                unchecked: v
                    .unchecked_parts()
                    .iter()
                    .map(|p| p.word())
                    .collect::<Vec<_>>()
                    .join(" "),
            });
        }
    }
    rows
}

/// Writes the gradebook as CSV (replacing the file).
pub fn write_gradebook(path: &Path, rows: &[GradeRow]) -> Result<()> {
    if path.exists() {
        std::fs::remove_file(path).with_context(|| format!("replacing {}", path.display()))?;
    }
    record::append(path, rows)
}

/// The class table and each lesson's ranking.
pub fn render(students: &[Student], shape: Shape) -> String {
    let Some(first) = students.first() else {
        return "no students\n".into();
    };
    let mut table = Table::new();
    table
        .load_style(presets::ASCII_BORDERS_ONLY_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled);
    let mut header = vec!["student".to_string()];
    header.extend(
        first
            .verdicts
            .iter()
            .map(|v| lesson_key(&v.lesson).to_string()),
    );
    header.push("passed".into());
    table.set_header(header);
    for s in students {
        let mut row = vec![s.name.clone()];
        row.extend(s.verdicts.iter().map(|v| cell(v, shape)));
        row.push(format!(
            "{}/{}",
            s.verdicts.iter().filter(|v| v.passed()).count(),
            s.verdicts.len()
        ));
        table.add_row(row);
    }
    let mut out = format!("Class grades; speeds in GFLOP/s at {shape}\n\n{table}\n");
    let book = gradebook(students);
    for v in &first.verdicts {
        let mut ranked: Vec<&GradeRow> = book
            .iter()
            .filter(|r| r.lesson == v.lesson && r.rank.is_some())
            .collect();
        if ranked.is_empty() {
            continue;
        }
        ranked.sort_by_key(|r| r.rank);
        let list: Vec<String> = ranked
            .iter()
            .map(|r| {
                format!(
                    "{}. {} ({})",
                    r.rank.unwrap_or(0),
                    r.student,
                    report::gflops(r.gflops.unwrap_or(0.0))
                )
            })
            .collect();
        out.push_str(&format!("\nfastest in {}: {}", v.lesson, list.join(", ")));
    }
    out.push('\n');
    out
}

/// A lesson's key from its name: `03b` from `03b_cpu_packed`.
pub fn lesson_key(name: &str) -> &str {
    name.split('_').next().unwrap_or(name)
}

fn cell(v: &Verdict, shape: Shape) -> String {
    match v.kind() {
        None => {
            let speed = gflops_of(v).map_or("pass".into(), report::gflops);
            match v.unchecked_words() {
                w if w.is_empty() => speed,
                w => format!("{speed} ({w})"),
            }
        }
        Some(_) => status(v, shape),
    }
}
