//! What the simulator's reports mean for a verdict: which findings fail a kernel, how they
//! read for the student, and how a probe is named in a message. Its own room, so that the
//! looks' runner ([`super::simulate`]) and its judgements share the words.

use std::path::Path;

use crate::harness::oclgrind::{Finding, Kind as Found, Report};
use crate::harness::paths;
use crate::lesson::{OclLesson, Probe, StandIn};

use super::{FailKind, Failure, Part, Unchecked, Verdict};

/// How a probe reads in a message: `M=19 N=36 K=20 with TSM=8 TSN=16 ...`.
pub(super) fn describe(probe: &Probe) -> String {
    if probe.defines.is_empty() {
        probe.shape.to_string()
    } else {
        let d: Vec<String> = probe
            .defines
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        format!("{} with {}", probe.shape, d.join(" "))
    }
}

/// What a finding of the drawn run means where it ran the lesson's unordered prelude.
pub(super) const UNORDERED_RUN: &str = "\n\n(At this shape the simulator ran the matrix unit as the tensor cores order it: a warp waits for its own 32 lanes at each mma, never for the other warps, so a warp that is ahead may already copy the next k-step while another still reads the tiles. On the CPU's model of the unit every call waits for the whole work-group, which hides this.)";

/// The findings of a run of the optimised build that a correct kernel cannot have: all but
/// an index past one dimension of an array, which the optimiser may make of a flat index
/// into the whole (an access outside every array or buffer is still one).
pub(super) fn optimised_findings(report: &Report) -> Report {
    Report {
        findings: (report.findings.iter())
            .filter(|f| !matches!(f.kind, Found::IndexOutOfRange { .. }))
            .cloned()
            .collect(),
        ..report.clone()
    }
}

/// The failure category of a finding.
pub(super) fn kind_of(f: &Finding) -> Option<FailKind> {
    match f.kind {
        Found::Race { .. } => Some(FailKind::Race),
        Found::Divergence { .. } => Some(FailKind::Divergence),
        Found::InvalidAccess { .. } | Found::IndexOutOfRange { .. } | Found::Unaligned { .. } => {
            Some(FailKind::BadAccess)
        }
        Found::Uninitialized(_) => Some(FailKind::Uninitialized),
        Found::Api { .. } | Found::SimulatorFailure { .. } | Found::Other { .. } => None,
    }
}

/// The findings that fail a kernel, rendered for the student, most important first.
pub(super) fn failure_from(
    report: &Report,
    probe: &Probe,
    file: &Path,
    source: &str,
    stand_in: Option<&StandIn>,
) -> Option<Failure> {
    let faults: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| kind_of(f).is_some())
        .collect();
    let first = faults.first()?;
    let kind = kind_of(first)?;
    let shown = 3;
    let mut text = format!(
        "under the OpenCL simulator (Oclgrind), at {}, your kernel has {} problem(s) that a real device may hide:",
        describe(probe),
        faults.len()
    );
    let mut hints: Vec<String> = Vec::new();
    for f in faults.iter().take(shown) {
        text.push_str("\n\n");
        // A hint said once is enough.
        // A report in the stand-in's own lines is about how the kernel used the object it
        // stands for: the stand-in's words, at the kernel's file.
        let rendered = match stand_in {
            Some(s) if f.at.as_ref().is_some_and(|at| at.file == s.file) => {
                format!("{}: {}", paths::display(file), s.outside)
            }
            _ => super::words::oclgrind::render(f, &paths::display(file), source),
        };
        let kept: Vec<&str> = rendered
            .trim_end()
            .lines()
            .filter(|l| {
                let hint = l.trim_start();
                if !hint.starts_with("hint:") {
                    return true;
                }
                if hints.iter().any(|h| h == hint) {
                    return false;
                }
                hints.push(hint.to_string());
                true
            })
            .collect();
        text.push_str(&kept.join("\n"));
    }
    if faults.len() > shown {
        text.push_str(&format!(
            "\n\n(and {} more of the same kinds)",
            faults.len() - shown
        ));
    }
    if report.suppressed {
        text.push_str(
            "\n(The simulator stopped reporting after its limit of messages: there may be more.)",
        );
    }
    Some(Failure::new(kind, text))
}

/// The simulator did not run to the end: races are not checked, nor the technique where the
/// lesson has one to judge (it is judged from the simulator's counts).
pub(super) fn skipped(v: &mut Verdict, ocl: &OclLesson, line: String) {
    if ocl.behaviour.is_some() {
        v.unchecked.push(Unchecked {
            part: Part::Technique,
            why: line.clone(),
        });
    }
    v.not_checked(Part::Races, line);
}

/// Trouble of the simulator's own (not the kernel's): a failure to build or to run.
pub(super) fn simulator_trouble(report: &Report) -> Option<String> {
    report.findings.iter().find_map(|f| match &f.kind {
        Found::SimulatorFailure { message } => Some(format!(
            "the simulator stopped early ({message}); this is a limit of Oclgrind, not necessarily a bug in your kernel"
        )),
        Found::Api { function, error, .. } => Some(format!(
            "the simulator's OpenCL call {function} failed ({error})"
        )),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::oclgrind::{Access, RaceKind, Space};

    fn finding(kind: Found) -> Finding {
        Finding {
            kind,
            kernel: None,
            at: None,
            other: None,
            entity: None,
            other_entity: None,
            count: 1,
        }
    }

    #[test]
    fn the_optimised_build_is_judged_by_all_but_one_dimension_of_an_array() {
        let report = Report {
            findings: vec![
                finding(Found::IndexOutOfRange {
                    index: 17,
                    size: 16,
                    access: Some(Access::Read),
                    space: Some(Space::Local),
                }),
                finding(Found::Race {
                    kind: RaceKind::ReadWrite,
                    space: Space::Local,
                }),
                finding(Found::InvalidAccess {
                    access: Access::Read,
                    space: Space::Global,
                    size: 4,
                    address: 1 << 48,
                }),
            ],
            suppressed: false,
            counts: None,
        };
        let kinds = |r: &Report| r.findings.iter().map(kind_of).collect::<Vec<_>>();
        assert_eq!(
            kinds(&report),
            [
                Some(FailKind::BadAccess),
                Some(FailKind::Race),
                Some(FailKind::BadAccess)
            ]
        );
        assert_eq!(
            kinds(&optimised_findings(&report)),
            [Some(FailKind::Race), Some(FailKind::BadAccess)]
        );
    }
}
