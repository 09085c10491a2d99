//! The scoreboard: every lesson, the student's status beside the reference's speed.

use std::fmt::Write as _;

use crate::device::DeviceInfo;
use crate::grade::{self, FailKind, Options, Source, Verdict};
use crate::lessons::{Kind, Lesson, ALL};
use crate::matrix::Shape;
use crate::peak;
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
    match info {
        Some(i) if i.is_gpu() => Shape::square(1024),
        _ => Shape::square(256),
    }
}

/// Grades every lesson (or those in `only`): the student's folder and the reference.
pub fn collect(
    student_dir: &std::path::Path,
    opts: &Options,
    only: &[u32],
    mut progress: impl FnMut(&Lesson),
) -> Vec<Row> {
    let mut rows = Vec::new();
    for &lesson in ALL.iter() {
        if !only.is_empty() && !only.contains(&lesson.number) {
            continue;
        }
        progress(lesson);
        if matches!(lesson.kind, Kind::Device) {
            rows.push(Row {
                lesson,
                student: None,
                reference: None,
            });
            continue;
        }
        let reference = grade::grade(lesson, &Source::Solution, opts);
        let student = grade::grade(lesson, &Source::Student(student_dir.to_path_buf()), opts);
        rows.push(Row {
            lesson,
            student: Some(student),
            reference: Some(reference),
        });
    }
    rows
}

fn speed(v: &Verdict, asked: Shape) -> String {
    match &v.timing {
        Some((shape, t)) if *shape == asked => {
            format!("{} GFLOP/s", report::gflops(t.gflops(*shape)))
        }
        Some((shape, t)) => format!(
            "{} GFLOP/s at {}",
            report::gflops(t.gflops(*shape)),
            shape.m
        ),
        None => "—".into(),
    }
}

/// The student's status in a few words.
pub fn status(v: &Verdict, asked: Shape) -> String {
    match v.kind() {
        None => format!("done, {}", speed(v, asked)),
        Some(FailKind::NotStarted) => "not started".into(),
        Some(FailKind::Missing) => "missing".into(),
        Some(FailKind::Unsupported) => "device unsupported".into(),
        Some(FailKind::Setup) => "not graded".into(),
        Some(_) => "failing".into(),
    }
}

/// The scoreboard as text.
pub fn render(
    rows: &[Row],
    device: &str,
    student_dir: &str,
    shape: Shape,
    peak: Option<&peak::Peak>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "Scoreboard — kernels from {student_dir}");
    let _ = writeln!(s, "device: {device}; speeds at {shape}");
    let _ = writeln!(s);
    let _ = writeln!(s, "{:<34} {:<30} reference", "lesson", "your kernel");
    let _ = writeln!(s, "{}", "-".repeat(86));
    let mut notes = Vec::new();
    for r in rows {
        let name = format!("{} {}", r.lesson.id(), r.lesson.title);
        match (&r.student, &r.reference) {
            (Some(st), Some(rf)) => {
                let reference = match &rf.failure {
                    None => speed(rf, shape),
                    Some(f) => format!("FAILING ({})", report::short(f)),
                };
                let _ = writeln!(s, "{name:<34} {:<30} {reference}", status(st, shape));
                if let Some(f) = &st.failure {
                    notes.push(format!("{}:\n{}", name, indent(&report::failure_text(f))));
                }
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
                let _ = writeln!(s, "{name:<34} {:<30} {p}", "nothing to grade");
            }
        }
    }
    if !notes.is_empty() {
        let _ = writeln!(s);
        let _ = writeln!(s, "Why:");
        for n in notes {
            let _ = writeln!(s, "{n}");
        }
    }
    s
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
