//! A class at once: every student's folder in a folder, graded exactly as `--kernels` grades
//! one; one table (student × lesson), a speed ranking among the passing kernels of each
//! lesson, and a gradebook file. A class run keeps a journal of each finished student, so a
//! run stopped halfway goes on where it stopped ([`journal`]).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context as _, Result};
use comfy_table::{presets, ContentArrangement, Table};
use serde::{Deserialize, Serialize};

use lab::grade::{self, Options, Part, Source, Verdict};
use lab::harness::matrix::Shape;
use lab::harness::record;
use lab::ladder::ALL;
use lab::lesson::Lesson;
use lab::report;
use lab::scoreboard::{selected, status};

pub mod journal;

/// One student's verdicts, in ladder order; each verdict that passed with a timing carries the
/// reference timed beside it ([`Verdict::beside`]).
#[derive(Clone, Debug)]
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

/// Grades one student's folder on `lessons`, each lesson with the reference timed beside it on
/// the same problems, interleaved call by call ([`Options::beside`]), so that a machine busier
/// for one student than for the next, or busier during one call than the next, does not
/// reorder the class. The one grading path of `class` and of the autograders.
pub fn grade_student(
    name: &str,
    folder: &Path,
    lessons: &[&'static Lesson],
    opts: &Options,
    mut progress: impl FnMut(&Lesson),
) -> Student {
    let opts = Options {
        beside: opts.time.is_some(),
        ..opts.clone()
    };
    let mut verdicts = Vec::new();
    for &lesson in lessons {
        progress(lesson);
        let source = Source::Folder(folder.to_path_buf());
        let mut v = grade::grade(lesson, &source, &opts);
        // Graded again, after a pause, where the machine was too busy to judge how the work
        // was shared: a file's grade should not depend on what else ran at that moment. The
        // last verdict is kept; a retry that is busy too keeps saying so.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        for _ in 0..BUSY_RETRIES {
            // On one core no pause frees a second: the verdict says so as it is.
            if cores < 2 || !threads_unjudged_for_load(&v) {
                break;
            }
            std::thread::sleep(BUSY_PAUSE);
            v = grade::grade(lesson, &source, &opts);
        }
        verdicts.push(v);
    }
    Student {
        name: name.to_string(),
        folder: folder.to_path_buf(),
        verdicts,
    }
}

/// How many times a lesson is graded again when its threads could not be judged for want of
/// a free core, and the pause before each time.
const BUSY_RETRIES: usize = 2;
const BUSY_PAUSE: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether a verdict left the sharing of work among threads unjudged because the machine had
/// no core to spare (not because it cannot measure threads at all, which a retry won't change).
fn threads_unjudged_for_load(v: &Verdict) -> bool {
    v.unchecked
        .iter()
        .any(|u| u.part == Part::Threads && u.why.contains(grade::TOO_FEW_CORES))
}

/// How a class run ranks, and where it writes.
pub struct Run<'a> {
    pub dir: &'a Path,
    pub opts: &'a Options,
    pub only: &'a [&'static Lesson],
    /// The gradebook, rewritten after each student.
    pub out: &'a Path,
    /// Rank verdicts whose speed or sandbox could not be checked too.
    pub rank_unchecked: bool,
}

/// Grades every student folder in `dir` not already in the journal with the same content,
/// writing each finished student to the journal and the gradebook as it goes. `say` gets one
/// line per event (progress, time left).
pub fn grade_class(run: &Run, mut say: impl FnMut(&str)) -> Result<Vec<Student>> {
    let lessons = lessons(run.only);
    let folders = folders(run.dir)?;
    let journal = journal::Journal::open(run.dir)?;
    let mut students = Vec::new();
    let mut todo = Vec::new();
    for (name, folder) in folders {
        let key = journal::key(&folder, run.opts, &lessons)?;
        match journal.load(&name, &key) {
            Some(s) => students.push(Some(s)),
            None => {
                todo.push((students.len(), name, folder, key));
                students.push(None);
            }
        }
    }
    let done_before = students.len() - todo.len();
    if done_before > 0 {
        say(&format!(
            "{done_before} of {} students already graded (journal {}); grading the other {}",
            students.len(),
            journal.dir().display(),
            todo.len()
        ));
    }
    let total = todo.len();
    let started = Instant::now();
    for (n, (slot, name, folder, key)) in todo.into_iter().enumerate() {
        let left = total - n;
        let eta = match n {
            0 => "time left: unknown until the first student is done".to_string(),
            _ => format!(
                "about {} left",
                minutes(started.elapsed().as_secs_f64() / n as f64 * left as f64)
            ),
        };
        let student = grade_student(&name, &folder, &lessons, run.opts, |lesson| {
            say(&format!(
                "[{}/{}] grading {name}, lesson {} ... ({left} to grade, {eta})",
                done_before + n + 1,
                students.len(),
                lesson.key
            ))
        });
        // The gradebook first: a run killed between the two writes grades this student again
        // next time, and every student in the journal is always in the gradebook.
        students[slot] = Some(student.clone());
        let finished: Vec<Student> = students.iter().flatten().cloned().collect();
        write_gradebook(run.out, &gradebook(&finished, run.rank_unchecked))?;
        journal.save(&key, &student)?;
    }
    let students: Vec<Student> = students.into_iter().flatten().collect();
    // Also when nothing was left to grade: the gradebook may have been removed since.
    write_gradebook(run.out, &gradebook(&students, run.rank_unchecked))?;
    Ok(students)
}

fn minutes(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0} s")
    } else {
        format!("{:.0} min", secs / 60.0)
    }
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
    /// Rank among the ranked kernels of this lesson (1 = fastest): one plus the number of
    /// kernels faster by more than the noise of both gradings; kernels within it share a rank.
    pub rank: Option<usize>,
    /// The first line of the failure's message.
    pub why: String,
    /// The parts that could not be checked (`races technique`), empty when all were.
    #[serde(default)]
    pub unchecked: String,
    /// The speed over the reference's, timed beside it on the same machine.
    #[serde(default)]
    pub vs_reference: Option<f64>,
    /// Why a passing kernel was not ranked; empty when it was, or failed.
    #[serde(default)]
    pub not_ranked: String,
    /// How far from 1 the speed over the reference's is a tie, as a fraction: the reference's
    /// noise against itself, at least 5 % on a GPU and 20 % on a CPU's cores.
    #[serde(default)]
    pub tie_band: Option<f64>,
    /// The speed over the reference's is within the reference's noise against itself: as fast
    /// as the reference, as far as this machine can tell ([`lab::harness::timing::Beside::tie`]).
    #[serde(default)]
    pub tie: bool,
}

fn gflops_of(v: &Verdict) -> Option<f64> {
    v.timing
        .as_ref()
        .filter(|_| v.passed())
        .map(|(s, t)| t.gflops(*s))
}

/// What ranks a class, said once under its table.
pub const RANKED_BY: &str = "ranked by speed over the reference, timed beside each student's code on the same machine and the same problems, one call of each in turn, at a shape drawn for each grading (the median over the timed problems of the reference's time over the student's, every call checked), among kernels that passed with their speed checked and their code sandboxed; a ratio within the reference's own noise against itself (at least 5 % on a GPU, 20 % where the code runs on the CPU's cores) is a tie, and kernels whose ratios differ by less than the noise of both gradings share a rank";

/// Why a verdict takes no rank, or `None` when it does. A passing verdict whose speed or
/// sandbox could not be checked is not ranked unless `rank_unchecked`.
pub fn why_not_ranked(v: &Verdict, rank_unchecked: bool) -> Option<String> {
    if !v.passed() {
        return Some("failed".into());
    }
    if v.timing.is_none() {
        return Some("not timed".into());
    }
    let doubtful: Vec<&str> = v
        .unchecked_parts()
        .into_iter()
        .filter(|p| matches!(p, Part::Sandbox | Part::Speed))
        .map(|p| p.word())
        .collect();
    if !doubtful.is_empty() && !rank_unchecked {
        return Some(format!("{} not checked", doubtful.join(" and ")));
    }
    if v.beside.is_none() {
        return Some("the reference could not be timed beside it".into());
    }
    None
}

/// A verdict's speed over the reference timed beside it, when it takes a rank.
pub fn rank_value(v: &Verdict, rank_unchecked: bool) -> Option<f64> {
    if why_not_ranked(v, rank_unchecked).is_some() {
        return None;
    }
    ratio(v)
}

/// A ranked verdict's speed over the reference and the noise of that figure (its tie band).
fn ranked_speed(v: &Verdict) -> Option<(f64, f64)> {
    v.beside.map(|b| (b.ratio, b.band()))
}

/// Whether `a` is faster than `b` by more than their noise: each ratio was measured against
/// the reference in its own grading, so the noise of the comparison is both bands together.
fn clearly_faster(a: (f64, f64), b: (f64, f64)) -> bool {
    a.0 / b.0 - 1.0 > a.1.hypot(b.1)
}

fn ratio(v: &Verdict) -> Option<f64> {
    v.beside.filter(|_| v.passed()).map(|b| b.ratio)
}

/// The gradebook: one row per student and lesson, with each lesson's speed ranks.
pub fn gradebook(students: &[Student], rank_unchecked: bool) -> Vec<GradeRow> {
    let mut rows = Vec::new();
    for s in students {
        for v in &s.verdicts {
            let lesson = v.lesson.clone();
            let value = rank_value(v, rank_unchecked);
            // Rank: how many ranked kernels of this lesson are clearly faster, plus one;
            // kernels whose speeds differ by less than the noise of the two gradings share a
            // rank, as a kernel within the noise of the reference ties with it.
            let rank = value.and(ranked_speed(v)).map(|me| {
                1 + students
                    .iter()
                    .filter_map(|o| {
                        let i = o.verdicts.iter().position(|x| x.lesson == lesson)?;
                        rank_value(&o.verdicts[i], rank_unchecked)?;
                        ranked_speed(&o.verdicts[i])
                    })
                    .filter(|&other| clearly_faster(other, me))
                    .count()
            });
            let speed = gflops_of(v);
            rows.push(GradeRow {
                student: s.name.clone(),
                lesson,
                result: if v.passed() { "pass" } else { "fail" }.into(),
                kind: v.kind().map(report::kind_word).unwrap_or_default(),
                gflops: speed.map(|g| (g * 100.0).round() / 100.0),
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
                vs_reference: ratio(v).map(|r| (r * 1000.0).round() / 1000.0),
                not_ranked: match v.passed() {
                    true => why_not_ranked(v, rank_unchecked).unwrap_or_default(),
                    false => String::new(),
                },
                tie_band: v.beside.map(|b| (b.band() * 1000.0).round() / 1000.0),
                tie: value.is_some() && v.beside.is_some_and(|b| b.tie()),
            });
        }
    }
    rows
}

/// Writes the gradebook as CSV, replacing the file at once: a reader (or a run killed while
/// writing) sees the old gradebook or the new one, never half of one.
pub fn write_gradebook(path: &Path, rows: &[GradeRow]) -> Result<()> {
    let part = path.with_extension("csv.part");
    let _ = std::fs::remove_file(&part);
    record::append(&part, rows)?;
    if rows.is_empty() {
        std::fs::write(&part, "").with_context(|| format!("writing {}", part.display()))?;
    }
    std::fs::rename(&part, path).with_context(|| format!("writing {}", path.display()))
}

/// The class table and each lesson's ranking.
pub fn render(students: &[Student], shape: Shape, rank_unchecked: bool) -> String {
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
    let book = gradebook(students, rank_unchecked);
    let mut any = false;
    for v in &first.verdicts {
        let mut ranked: Vec<&GradeRow> = book
            .iter()
            .filter(|r| r.lesson == v.lesson && r.rank.is_some())
            .collect();
        ranked.sort_by_key(|r| r.rank);
        let list: Vec<String> = ranked
            .iter()
            .map(|r| {
                format!(
                    "{}. {} ({:.2}× reference{}, {} GFLOP/s)",
                    r.rank.unwrap_or(0),
                    r.student,
                    r.vs_reference.unwrap_or(0.0),
                    if r.tie { ", a tie" } else { "" },
                    report::gflops(r.gflops.unwrap_or(0.0))
                )
            })
            .collect();
        if !list.is_empty() {
            any = true;
            out.push_str(&format!("\nfastest in {}: {}", v.lesson, list.join(", ")));
        }
        let left_out: Vec<String> = book
            .iter()
            .filter(|r| r.lesson == v.lesson && !r.not_ranked.is_empty())
            .map(|r| format!("{} ({})", r.student, r.not_ranked))
            .collect();
        if !left_out.is_empty() {
            out.push_str(&format!(
                "\nnot ranked in {}: {}",
                v.lesson,
                left_out.join(", ")
            ));
        }
    }
    if any {
        out.push_str(&format!(
            "\n\nHow it ranks: {RANKED_BY}{}.",
            if rank_unchecked {
                " (here also those whose speed or sandbox could not be checked, as asked)"
            } else {
                ""
            }
        ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use lab::grade::{FailKind, Failure};
    use lab::harness::timing::{Beside, Timing};

    fn verdict(lesson: &str, ms: Option<f64>, unchecked: &[Part]) -> Verdict {
        let l = lab::ladder::find(lesson).unwrap();
        let mut v = Verdict::new(l, Path::new("x"));
        match ms {
            Some(ms) => {
                v.timing = Some((
                    Shape::square(64),
                    Timing {
                        device_ms: ms,
                        ..Default::default()
                    },
                ))
            }
            None => v.failure = Some(Failure::new(FailKind::Wrong, "wrong at (1, 2)")),
        }
        for &p in unchecked {
            v.not_checked(p, format!("{} not checked here", p.word()));
        }
        v
    }

    /// Only a threads check left unjudged on a busy machine is graded again.
    #[test]
    fn only_threads_unjudged_for_load_are_graded_again() {
        let mut busy = verdict("03", Some(1.0), &[]);
        busy.not_checked(
            Part::Threads,
            format!(
                "{}: that `matmul` shares its work among threads",
                grade::TOO_FEW_CORES
            ),
        );
        assert!(threads_unjudged_for_load(&busy));
        let no_proc = verdict("03", Some(1.0), &[Part::Threads]);
        assert!(!threads_unjudged_for_load(&no_proc));
        let races = verdict("05", Some(1.0), &[Part::Races]);
        assert!(!threads_unjudged_for_load(&races));
    }

    /// A student whose verdicts had the reference timed beside them at `speeds` GFLOP/s
    /// (none: not timed beside).
    fn student(name: &str, mut verdicts: Vec<Verdict>, speeds: Vec<Option<f64>>) -> Student {
        for (v, speed) in verdicts.iter_mut().zip(speeds) {
            let mine = v.timing.map(|(s, t)| t.gflops(s));
            v.beside = speed.zip(mine).map(|(theirs, mine)| Beside {
                timing: Timing::default(),
                ratio: mine / theirs,
                low: mine / theirs,
                high: mine / theirs,
                noise: 0.01,
                floor: lab::harness::timing::TIE_FLOOR,
            });
        }
        Student {
            name: name.into(),
            folder: PathBuf::from(name),
            verdicts,
        }
    }

    #[test]
    fn ranks_by_speed_over_the_reference_beside_and_leaves_out_the_unsandboxed() {
        // ada is slower in GFLOP/s but was timed on a busier machine: her reference was
        // slower still, so she ranks first.
        let ada = student("ada", vec![verdict("4", Some(2.0), &[])], vec![Some(0.1)]);
        let bo = student("bo", vec![verdict("4", Some(1.0), &[])], vec![Some(1.0)]);
        let cy = student(
            "cy",
            vec![verdict("4", Some(0.01), &[Part::Sandbox])],
            vec![Some(1.0)],
        );
        let dee = student("dee", vec![verdict("4", None, &[])], vec![None]);
        let class = [ada, bo, cy, dee];
        let book = gradebook(&class, false);
        let rank = |n: &str| book.iter().find(|r| r.student == n).unwrap().rank;
        assert_eq!(rank("ada"), Some(1));
        assert_eq!(rank("bo"), Some(2));
        assert_eq!(rank("cy"), None);
        assert_eq!(rank("dee"), None);
        let cy = book.iter().find(|r| r.student == "cy").unwrap();
        assert_eq!(cy.not_ranked, "sandbox not checked");
        assert_eq!(cy.unchecked, "sandbox");
        // Asked for, the unsandboxed kernel is ranked, and first.
        let all = gradebook(&class, true);
        assert_eq!(
            all.iter().find(|r| r.student == "cy").unwrap().rank,
            Some(1)
        );
        let text = render(&class, Shape::square(64), false);
        assert!(text.contains("not ranked in 04_naive_kernel: cy (sandbox not checked)"));
        assert!(text.contains("How it ranks: "), "{text}");
    }

    #[test]
    fn kernels_within_the_noise_of_each_other_share_a_rank() {
        // Speeds over the reference of 1.30, 1.03 and 1.00, each within 5 %: the two
        // slower ones differ by less than the noise of two gradings and share second place.
        let at = |name: &str, ratio: f64| {
            let v = verdict("4", Some(1.0), &[]);
            let mine = v.timing.map(|(s, t)| t.gflops(s)).unwrap();
            student(name, vec![v], vec![Some(mine / ratio)])
        };
        let class = [at("ada", 1.03), at("bo", 1.30), at("cy", 1.00)];
        let book = gradebook(&class, false);
        let rank = |n: &str| book.iter().find(|r| r.student == n).unwrap().rank;
        assert_eq!(rank("bo"), Some(1));
        assert_eq!(rank("ada"), Some(2));
        assert_eq!(rank("cy"), Some(2));
        // Apart by more than the noise, they are ranked apart.
        let class = [at("ada", 1.10), at("cy", 1.00)];
        let book = gradebook(&class, false);
        let rank = |n: &str| book.iter().find(|r| r.student == n).unwrap().rank;
        assert_eq!((rank("ada"), rank("cy")), (Some(1), Some(2)));
    }

    #[test]
    fn the_header_names_03_and_03b_apart() {
        let s = student(
            "ada",
            vec![verdict("3", Some(1.0), &[]), verdict("3b", Some(1.0), &[])],
            vec![Some(1.0), Some(1.0)],
        );
        let text = render(&[s], Shape::square(64), false);
        let header = text.lines().find(|l| l.contains("student")).unwrap();
        assert!(
            header.contains(" 03 ") && header.contains(" 03b "),
            "{header}"
        );
    }
}
