//! Text the student reads: a lesson run's report, a grading verdict, a failure.

use std::fmt::Write as _;

use crate::grade::{FailKind, Failure, Verdict};
use crate::paths;
use crate::runner::Measurement;

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

/// The report a lesson binary prints.
pub fn measurement(m: &Measurement) -> String {
    let mut s = String::new();
    let shape = m.shape;
    let t = &m.timing;
    let _ = writeln!(
        s,
        "Lesson {} · {} — {} ({})",
        m.lesson.id(),
        m.lesson.title,
        m.variant,
        paths::display(&m.file)
    );
    let device = if m.driver.is_empty() {
        m.device.clone()
    } else {
        format!("{} (driver {})", m.device, m.driver)
    };
    let _ = writeln!(s, "  device       {device}");
    let _ = writeln!(s, "  size         {shape}");
    if !m.defines.is_empty() {
        let d: Vec<String> = m
            .defines
            .iter()
            .map(|d| format!("{}={}", d.name, d.value))
            .collect();
        let _ = writeln!(s, "  defines      {}", d.join(" "));
    }
    let _ = writeln!(
        s,
        "  check        passed: {} elements against the f64 reference, max relative error {:.1e}",
        m.checked, m.max_rel_err
    );
    // CPU lessons have no driver and no transfers: one time says it all.
    if m.driver.is_empty() {
        let _ = writeln!(
            s,
            "  time         {} (median of {}, best {})",
            ms(t.device_ms),
            t.reps,
            ms(t.best_ms)
        );
        let _ = writeln!(s, "  speed        {} GFLOP/s", gflops(t.gflops(shape)));
    } else {
        let _ = writeln!(
            s,
            "  time         {} on the device (median of {}, best {}); {} end to end with transfers",
            ms(t.device_ms),
            t.reps,
            ms(t.best_ms),
            ms(t.host_ms)
        );
        let _ = writeln!(
            s,
            "  speed        {} GFLOP/s on the device, {} GFLOP/s end to end",
            gflops(t.gflops(shape)),
            gflops(t.host_gflops(shape))
        );
    }
    match m.peak_gflops {
        Some(p) => {
            let _ = writeln!(
                s,
                "  of peak      {:.1} % of the measured FP32 peak ({} GFLOP/s, lesson 00)",
                100.0 * t.gflops(shape) / p,
                gflops(p)
            );
        }
        None => {
            let _ = writeln!(
                s,
                "  of peak      unknown: run lesson 00 on this device to measure its peak"
            );
        }
    }
    if let Some((n, prev)) = &m.previous {
        let _ = writeln!(
            s,
            "  vs lesson {n:02}  {:.2}× the speed of lesson {n:02}'s reference ({} GFLOP/s)",
            prev.device_ms / t.device_ms,
            gflops(prev.gflops(shape))
        );
    }
    if let Some(note) = &m.previous_note {
        let _ = writeln!(s, "  vs previous  {note}");
    }
    s
}

/// A failure as the student reads it: what kind, then where and what.
pub fn failure_text(f: &Failure) -> String {
    let head = match f.kind {
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
        FailKind::Unsupported => "UNSUPPORTED DEVICE",
        FailKind::Setup => "CANNOT GRADE",
    };
    format!("{head}: {}", f.message)
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
    for c in &v.cases {
        let _ = writeln!(
            s,
            "  ok  {}  (max relative error {:.1e})",
            c.shape, c.max_rel_err
        );
    }
    match &v.failure {
        None => {
            let _ = writeln!(s, "  PASSED");
        }
        Some(f) => {
            for line in failure_text(f).lines() {
                let _ = writeln!(s, "  {line}");
            }
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
