//! A failure's words: its kind as a heading, and the failure as the student reads it. Here,
//! beside the verdict, so that grading and every report word a failure alike.

pub mod oclgrind;

use super::{FailKind, Failure};

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
        FailKind::Undefined => "UNDEFINED BEHAVIOUR",
        FailKind::Unsupported => "UNSUPPORTED DEVICE",
        FailKind::NotSelfContained => "NOT SELF-CONTAINED",
        FailKind::Setup => "CANNOT GRADE",
        FailKind::Unchecked => "NOT CHECKED",
        FailKind::TooFast => "FASTER THAN POSSIBLE",
    }
}

/// A failure as the student reads it: what kind, then where and what.
pub fn failure_text(f: &Failure) -> String {
    format!("{}: {}", head(f.kind), f.message)
}

/// ` with -D TS=16 -D WPT=8`: defines named as a failing define set is; empty where none.
pub(super) fn with_defines(defines: &[crate::harness::program::Define]) -> String {
    match defines.is_empty() {
        true => String::new(),
        false => format!(
            " with -D {}",
            crate::harness::program::line(defines).replace(' ', " -D ")
        ),
    }
}
