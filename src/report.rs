//! Text the student reads: a grading verdict, a failure, numbers with sensible digits.

use std::fmt::Write as _;

use crate::grade::{FailKind, Failure, Verdict};
use crate::harness::paths;

/// GFLOP/s with a sensible number of digits.
pub fn gflops(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

/// Milliseconds with a sensible number of digits.
pub fn ms(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0} ms")
    } else if x >= 1.0 {
        format!("{x:.2} ms")
    } else {
        format!("{x:.3} ms")
    }
}

/// A failure's kind in a few lowercase words, for tables.
pub fn kind_word(kind: FailKind) -> String {
    head(kind).to_lowercase()
}

/// A failure's kind as the heading of its message.
pub fn head(kind: FailKind) -> &'static str {
    match kind {
        FailKind::NotStarted => "NOT STARTED",
        FailKind::Missing => "MISSING",
        FailKind::Build => "DOES NOT COMPILE",
        FailKind::Signature => "WRONG SIGNATURE",
        FailKind::Runtime => "RUNTIME ERROR",
        FailKind::Unwritten => "C NOT WRITTEN",
        FailKind::Wrong => "WRONG RESULT",
        FailKind::OutOfBounds => "OUT-OF-BOUNDS WRITE",
        FailKind::InputsChanged => "INPUT CHANGED",
        FailKind::Hang => "DID NOT FINISH",
        FailKind::Crash => "CRASHED",
        FailKind::Technique => "TECHNIQUE MISSING",
        FailKind::Race => "DATA RACE",
        FailKind::Divergence => "BARRIER NOT REACHED BY ALL",
        FailKind::BadAccess => "OUT-OF-BOUNDS ACCESS",
        FailKind::Uninitialized => "UNINITIALISED VALUE",
        FailKind::Unsupported => "UNSUPPORTED DEVICE",
        FailKind::Setup => "CANNOT GRADE",
        FailKind::Unchecked => "NOT CHECKED",
        FailKind::TooFast => "FASTER THAN POSSIBLE",
    }
}

/// A failure as the student reads it: what kind, then where and what.
pub fn failure_text(f: &Failure) -> String {
    format!("{}: {}", head(f.kind), f.message)
}

/// A grading verdict in full.
pub fn verdict(v: &Verdict) -> String {
    let mut s = String::new();
    // CPU lessons, and failures before a device was opened, have no device to name.
    let place = v
        .device
        .as_deref()
        .map(|d| format!(" on {d}"))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "lesson {} — {}{place}",
        v.lesson,
        paths::display(&v.file)
    );
    // One line per define set: the sizes checked and the largest error.
    let mut sets: Vec<(&str, Vec<String>, f64)> = Vec::new();
    for c in &v.cases {
        match sets.iter_mut().find(|(w, _, _)| *w == c.with) {
            Some((_, shapes, err)) => {
                shapes.push(c.shape.to_string());
                *err = err.max(c.max_rel_err);
            }
            None => sets.push((&c.with, vec![c.shape.to_string()], c.max_rel_err)),
        }
    }
    for (with, shapes, err) in sets {
        let with = if with.is_empty() {
            String::new()
        } else if with.contains('=') {
            format!("with {with}: ")
        } else {
            format!("{with}: ")
        };
        let _ = writeln!(
            s,
            "  ok  {with}{} (max relative error {err:.1e})",
            shapes.join(", ")
        );
    }
    match &v.failure {
        None if !v.unchecked.is_empty() => {
            let _ = writeln!(s, "  PASSED ({})", v.unchecked_words());
        }
        None => {
            let _ = writeln!(s, "  PASSED");
        }
        Some(f) => {
            for line in failure_text(f).lines() {
                let _ = writeln!(s, "  {line}");
            }
        }
    }
    for note in &v.notes {
        let _ = writeln!(s, "  note: {note}");
    }
    if !v.printed.is_empty() {
        let _ = writeln!(s, "  your code printed:");
        for line in v.printed.lines() {
            let _ = writeln!(s, "    | {line}");
        }
    }
    s
}

/// The first line of a failure, for tables.
pub fn short(f: &Failure) -> String {
    let text = failure_text(f);
    let line = text.lines().next().unwrap_or("").to_string();
    if line.chars().count() > 90 {
        format!("{}…", line.chars().take(89).collect::<String>())
    } else {
        line
    }
}
