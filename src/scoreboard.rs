//! The scoreboard: every lesson, the student's status beside the reference's speed.

use std::path::Path;

use comfy_table::{presets, ContentArrangement, Table};

use crate::grade::{self, FailKind, Options, Source, Verdict};
use crate::harness::device::DeviceInfo;
use crate::harness::matrix::Shape;
use crate::harness::peak::Peak;
use crate::harness::timing::{Beside, Clock};
use crate::ladder::ALL;
use crate::lesson::{Kind, Lesson};
use crate::progress::Entry;
use crate::report;

/// One lesson's line.
pub struct Row {
    pub lesson: &'static Lesson,
    /// None for lesson 00, which has nothing to grade.
    pub student: Option<Verdict>,
    pub reference: Option<Verdict>,
}

/// The timing size: large enough to mean something, small enough for a CPU.
pub fn timing_shape(info: Option<&DeviceInfo>) -> Shape {
    crate::grade::shapes::default_asked(info.is_some_and(|i| i.is_gpu()))
}

/// Whether a lesson is among those asked for (all when none are).
pub fn selected(lesson: &Lesson, only: &[&'static Lesson]) -> bool {
    only.is_empty() || only.iter().any(|l| l.key == lesson.key)
}

/// Grades every lesson (or those in `only`): the student's folder and the reference.
pub fn collect(
    student_dir: &Path,
    opts: &Options,
    only: &[&'static Lesson],
    mut progress: impl FnMut(&Lesson),
) -> Vec<Row> {
    let mut rows = Vec::new();
    for &lesson in ALL.iter().filter(|l| selected(l, only)) {
        progress(lesson);
        if matches!(lesson.kind, Kind::Device) {
            rows.push(Row {
                lesson,
                student: None,
                reference: None,
            });
            continue;
        }
        let opts = &opts.beside();
        let student = grade::grade(lesson, &Source::Folder(student_dir.to_path_buf()), opts);
        let reference = reference_for(lesson, &student, opts);
        rows.push(Row {
            lesson,
            student: Some(student),
            reference: Some(reference),
        });
    }
    rows
}

/// The reference's verdict beside a student's: its timing from the calls interleaved with the
/// student's ([`Verdict::beside`]), else (the student's code did not pass, or was not timed)
/// the reference graded alone.
pub fn reference_for(lesson: &'static Lesson, student: &Verdict, opts: &Options) -> Verdict {
    let file = opts.course.solutions().join(lesson.file_name());
    match (&student.beside, &student.timing) {
        (Some(b), Some((shape, _))) if student.passed() => Verdict {
            timing: Some((*shape, b.timing)),
            device: student.device.clone(),
            ..Verdict::new(lesson, &file)
        },
        _ => time_reference(lesson, &opts.drawing_the_timed_shape()),
    }
}

/// The reference answer's grading, for its speed beside the student's: give both gradings the
/// same options ([`Options::drawing_the_timed_shape`]) so that they multiply the same problem.
pub fn time_reference(lesson: &'static Lesson, opts: &Options) -> Verdict {
    // The reference is the course's own and proven by `cargo test`: here it is only timed,
    // so it skips the simulator.
    let quick = Options {
        simulate: false,
        ..opts.clone()
    };
    grade::grade(lesson, &Source::Folder(opts.course.solutions()), &quick)
}

/// A verdict's speed, at the asked size or the size it was timed at; `(wall clock)` where an
/// OpenCL device's clock could not be trusted.
pub fn speed(v: &Verdict, asked: Shape) -> String {
    let Some((shape, t)) = &v.timing else {
        return "—".into();
    };
    let mut s = format!("{} GFLOP/s", report::gflops(t.gflops(*shape)));
    // A shape drawn for the grading lies within 64 of the asked one in each dimension: the
    // header says so once; a size further off (a lesson limited to whole tiles) is named.
    let near = |d: usize, a: usize| d >= a && d < a + 64;
    if !(near(shape.m, asked.m) && near(shape.n, asked.n) && near(shape.k, asked.k)) {
        if shape.m == shape.n && shape.n == shape.k {
            s.push_str(&format!(" at {}", shape.m));
        } else {
            s.push_str(&format!(" at {}×{}×{}", shape.m, shape.n, shape.k));
        }
    }
    // CPU code is timed by the wall clock by nature; a device whose clock was not believed
    // says so.
    if t.clock == Clock::Wall && v.device.is_some() {
        s.push_str(" (wall clock)");
    }
    s
}

/// The student's status in a few words, with the parts not checked (`unchecked: races`).
pub fn status(v: &Verdict, asked: Shape) -> String {
    let base = status_word(v, asked);
    let unchecked = v.unchecked_words();
    match v.kind() {
        None if !unchecked.is_empty() => format!("{base} ({unchecked})"),
        _ => base,
    }
}

fn status_word(v: &Verdict, asked: Shape) -> String {
    match v.kind() {
        None => format!("done, {}", speed(v, asked)),
        Some(FailKind::NotStarted) => "not started".into(),
        Some(FailKind::Missing) => "missing".into(),
        Some(FailKind::Unsupported) => "device unsupported".into(),
        Some(FailKind::Setup) => "not graded".into(),
        Some(k) => format!("failing ({})", report::kind_word(k)),
    }
}

/// The scoreboard as text.
pub fn render(
    rows: &[Row],
    device: &str,
    student_dir: &str,
    shape: Shape,
    peak: Option<&Peak>,
) -> String {
    render_with_progress(rows, device, student_dir, shape, peak, &[])
}

/// The scoreboard, with a last column of what the student's progress file remembers of each
/// lesson (`passed on 2026-11-28, best 12.3 GFLOP/s`) when it remembers a pass of any: the
/// table is otherwise the same, column for column.
pub fn render_with_progress(
    rows: &[Row],
    device: &str,
    student_dir: &str,
    shape: Shape,
    peak: Option<&Peak>,
    recorded: &[Entry],
) -> String {
    let remembered = |l: &Lesson| {
        recorded
            .iter()
            .find(|e| e.lesson == l.name())
            .map(Entry::words)
            .unwrap_or_default()
    };
    let column = rows.iter().any(|r| !remembered(r.lesson).is_empty());
    let mut table = Table::new();
    let mut header = vec!["lesson", "your code", "reference"];
    if column {
        header.push("your progress");
    }
    table
        .load_style(presets::ASCII_BORDERS_ONLY_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    let mut notes = Vec::new();
    for r in rows {
        let name = format!("{} {}", r.lesson.key, r.lesson.title);
        let mut row = match (&r.student, &r.reference) {
            (Some(st), Some(rf)) => {
                let mut reference = match &rf.failure {
                    None => speed(rf, shape),
                    Some(f) => format!("FAILING ({})", report::short(f)),
                };
                if let Some(b) = st.beside.as_ref().filter(|_| st.passed()) {
                    reference.push_str(&format!("; yours {}", ratio_words(b)));
                }
                if let Some(f) = &st.failure {
                    notes.push(format!("{name}:\n{}", indent(&report::failure_text(f))));
                }
                vec![name, status(st, shape), reference]
            }
            _ => {
                let p = match peak {
                    Some(p) => format!(
                        "peak {} GFLOP/s, {} GB/s (measured {})",
                        report::gflops(p.gflops),
                        report::gflops(p.bandwidth_gbs),
                        p.date
                    ),
                    None => "peak not measured: run lesson 00".into(),
                };
                vec![name, "nothing to grade".into(), p]
            }
        };
        if column {
            row.push(remembered(r.lesson));
        }
        table.add_row(row);
    }
    let mut s = format!(
        "Scoreboard — kernels from {student_dir}\ndevice: {device}; speeds near {shape} (a shape drawn per grading; every timed call checked)\n\n{table}\n"
    );
    if !notes.is_empty() {
        s.push_str("\nWhy:\n");
        for n in notes {
            s.push_str(&n);
            s.push('\n');
        }
    }
    s
}

/// A speed over the reference's in words: `1.04× call for call, a tie` or `0.52× call for
/// call` (the median over the timed problems, each multiplied by both: not the ratio of the two
/// medians beside it).
pub fn ratio_words(b: &Beside) -> String {
    match b.tie() {
        true => format!("{:.2}× call for call, a tie", b.ratio),
        false => format!("{:.2}× call for call", b.ratio),
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::Failure;
    use crate::ladder;

    fn row(key: &str, failure: Option<FailKind>) -> Row {
        let lesson = ladder::get(key);
        let file = std::path::PathBuf::from(lesson.file_name());
        let mut student = Verdict::new(lesson, &file);
        student.failure = failure.map(|k| Failure::new(k, "x"));
        Row {
            lesson,
            student: Some(student),
            reference: Some(Verdict::new(lesson, &file)),
        }
    }

    fn entry(lesson: &str, passed_on: Option<&str>) -> Entry {
        Entry {
            lesson: lesson.into(),
            kernels: "/k".into(),
            passed: passed_on.is_some(),
            when: "2026-11-28T07:00:00Z".into(),
            gflops: None,
            device: None,
            passed_on: passed_on.map(str::to_string),
            best_gflops: passed_on.map(|_| 12.34),
            best_device: None,
        }
    }

    #[test]
    fn the_progress_column_shows_only_when_a_pass_is_remembered() {
        let rows = [
            row("04", Some(FailKind::Wrong)),
            row("05", Some(FailKind::NotStarted)),
        ];
        let shape = Shape::square(64);
        let plain = render(&rows, "d", "k", shape, None);
        let never = [entry("05_local_tiling", None)];
        assert_eq!(
            render_with_progress(&rows, "d", "k", shape, None, &never),
            plain
        );
        assert!(!plain.contains("your progress"));
        let once = [entry("04_naive_kernel", Some("2026-11-27T10:00:00Z"))];
        let text = render_with_progress(&rows, "d", "k", shape, None, &once);
        assert!(text.contains("your progress"), "{text}");
        let line = text.lines().find(|l| l.starts_with("| 04 ")).unwrap();
        assert!(
            line.contains("passed on 2026-11-27, best 12.3 GFLOP/s"),
            "{line}"
        );
        // .ci/run's checks of the rows still read them: "not started", then the reference.
        let line = text.lines().find(|l| l.starts_with("| 05 ")).unwrap();
        let after = line.split("not started").nth(1).unwrap().trim_start();
        assert!(after.starts_with('—'), "{line}");
    }
}
