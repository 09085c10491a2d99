//! Code the simulator never saw run. The simulator checks a kernel (races, reads out of
//! bounds, the lesson's technique) and the device times it; a kernel that can tell them apart
//! can show each a different code. Names that ask which compiler builds the kernel are
//! refused (`super::self_contained`), and so is a pointer's value (`super::trust`), but the
//! simulator's arithmetic is not the device's either, and no list could hold every
//! difference: its `mad` is fused where PoCL's is not, its `sin` rounds otherwise, a float
//! converted past an integer's range gives another integer. Whatever tells them apart, the
//! code the device runs instead has accesses to memory that never ran under the simulator
//! (to global memory, or to local memory where it computes from its tiles otherwise).
//!
//! So the simulator's plugin records which of the kernel's accesses to global and local
//! memory ran in any of its looks ([`crate::harness::oclgrind::coverage`]). Where some never
//! ran, the device is asked whether it runs them at problems the simulator ran whole, with
//! the same defines: the kernel is built once more with those accesses made to reach another
//! element ([`super::shift`]), so that C comes out wrong wherever one of them runs. Code that runs on the
//! device where the simulator, at the same problem, did not run it is the kernel's failure;
//! code that runs on neither (a path for sizes the lesson never takes) is not.

use std::path::Path;

use crate::harness::device::Gpu;
use crate::harness::matrix::Shape;
use crate::harness::oclgrind::coverage::Access;
use crate::harness::paths;
use crate::harness::program::Define;
use crate::harness::timing;
use crate::lesson::OclLesson;
use crate::prepared::Prepared;

use super::counts::Run;
use super::looks::{probe_of, AskedLook};
use super::ocl::first_wrong;
use super::request::Look;
use super::shift::{shifted, Place};
use super::trust::source_lines;
use super::words::with_defines;
use super::{FailKind, Failure, Options, Part, Verdict};

/// A problem the simulator ran, with its defines: every work-group, or the first and the
/// last (the asked size).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ran {
    pub shape: Shape,
    pub defines: Vec<Define>,
    pub every_group: bool,
}

/// What the simulator's looks ran of the kernel's memory accesses, over every look.
#[derive(Debug, Default)]
pub(super) struct Coverage {
    /// Places that ran in some look.
    pub ran: Vec<Place>,
    /// Places that ran in none.
    pub never: Vec<Place>,
}

impl Coverage {
    /// Over the simulator's runs of every look; `None` where a run was stopped, did not
    /// start, or loaded the plugin and left no whole list. A look without the plugin adds
    /// nothing.
    pub fn of_runs(runs: &[anyhow::Result<Run>]) -> Option<Coverage> {
        Coverage::of(runs.iter().map(|r| match r {
            Ok(Run { killed: true, .. }) | Err(_) => None,
            Ok(Run {
                coverage: Some(c), ..
            }) => c.as_deref(),
            Ok(_) => Some(&[][..]),
        }))
    }

    /// Over the lists of every look that loaded the plugin; `None` where one of them did
    /// not end (its run stopped before the kernel ended, so what it ran is not known).
    pub fn of<'a>(lists: impl IntoIterator<Item = Option<&'a [Access]>>) -> Option<Coverage> {
        let mut all: Vec<(Place, bool)> = Vec::new();
        for list in lists {
            for a in list? {
                if a.file == "input.cl" && a.line > 0 {
                    all.push(((a.line, a.column), a.ran));
                }
            }
        }
        let mut ran: Vec<Place> = all.iter().filter(|a| a.1).map(|a| a.0).collect();
        ran.sort_unstable();
        ran.dedup();
        let mut never: Vec<Place> = (all.iter())
            .filter(|a| !a.1 && ran.binary_search(&a.0).is_err())
            .map(|a| a.0)
            .collect();
        never.sort_unstable();
        never.dedup();
        Some(Coverage { ran, never })
    }
}

/// The problems the device is asked at, each as the simulator ran it (`looks`; `asked`, the
/// looks with the defines devices take; `own`, the device's own defines): those it ran whole,
/// three at most, the smallest first; then the asked size, where it ran the first and the
/// last work-group (code kept to the others runs on the device there).
pub(super) fn problems(
    ocl: &OclLesson,
    looks: &[Look],
    asked: &[AskedLook],
    own: Option<&Vec<Define>>,
) -> Vec<Ran> {
    let mads = |s: Shape| (s.m * s.n * s.k) as f64;
    let mut whole: Vec<Ran> = (looks.iter())
        .filter_map(|l| match *l {
            Look::Asked(i, shape, true, _) => Some((shape, asked[i].defines.clone())),
            Look::Asked(..) | Look::Own(_, false) | Look::Vast(..) | Look::Read(_) => None,
            Look::Own(shape, true) => own.map(|d| (shape, d.clone())),
            Look::Sanitize(_) | Look::Drawn(..) | Look::Metrics(..) => {
                probe_of(ocl, *l).map(|p| (p.shape, p.defines()))
            }
        })
        .map(|(shape, defines)| Ran {
            shape,
            defines,
            every_group: true,
        })
        .collect();
    whole.sort_by(|a, b| mads(a.shape).total_cmp(&mads(b.shape)));
    whole.dedup();
    whole.truncate(3);
    let at_the_asked_size = (looks.iter()).find_map(|l| match *l {
        Look::Asked(i, shape, false, true) if asked[i].own => Some(Ran {
            shape,
            defines: asked[i].defines.clone(),
            every_group: false,
        }),
        _ => None,
    });
    whole.extend(at_the_asked_size);
    whole
}

/// Asks the device whether it runs the kernel's accesses that never ran under the simulator
/// (`coverage.never`, places of `ran_text`, the text it ran; `text` as written), at
/// `problems` the simulator ran (each with its defines); the verdict fails where it does,
/// says so where this could not be asked.
#[allow(clippy::too_many_arguments)]
pub(super) fn check(
    ocl: &OclLesson,
    file: &Path,
    text: &str,
    ran_text: Option<&str>,
    opts: &Options,
    coverage: &Coverage,
    problems: &[Ran],
    v: &mut Verdict,
) {
    if coverage.never.is_empty() {
        return;
    }
    let mut lines: Vec<u32> = coverage.never.iter().map(|p| p.0).collect();
    lines.dedup();
    let (what, runs) = match lines.len() {
        1 => ("the memory access on", "runs"),
        _ => ("the memory accesses on", "run"),
    };
    let more = match lines.len() {
        n if n > 3 => format!(" and {} more lines", n - 3),
        _ => String::new(),
    };
    let shown = format!("{what} {}{more}", source_lines(text, &lines).join("; "));
    let unchecked = |v: &mut Verdict, why: String| {
        v.not_checked(
            Part::Races,
            format!(
                "not checked under the simulator: {shown} never ran there, and whether the device runs it could not be asked ({why})"
            ),
        )
    };
    // The places are those of the text the simulator ran (`super::expand::ran`).
    let Some(ran_text) = ran_text else {
        return unchecked(
            v,
            "the simulator built the kernel with its macros expanded in some runs and as written in others".into(),
        );
    };
    let Some(mutated) = shifted(ran_text, &coverage.never, &coverage.ran) else {
        unchecked(
            v,
            "its pointer could not be told apart from code that ran".into(),
        );
        return;
    };
    if problems.is_empty() {
        unchecked(v, "no problem the simulator ran".into());
        return;
    }
    let asked = || -> anyhow::Result<Option<(&Ran, Failure)>> {
        let gpu = Gpu::open(opts.device.as_deref())?;
        let seed = timing::secret_seed().rotate_left(23);
        let mut built: Vec<(&Vec<Define>, Prepared)> = Vec::new();
        for p in problems {
            if !built.iter().any(|b| b.0 == &p.defines) {
                let prepared = Prepared::build(
                    &gpu,
                    ocl,
                    file,
                    &mutated,
                    &p.defines,
                    &opts.build_options(ocl),
                )?;
                built.push((&p.defines, prepared));
            }
            let prepared = &built.iter().find(|b| b.0 == &p.defines).expect("built").1;
            let wrong = first_wrong(
                &gpu,
                ocl,
                prepared,
                &p.defines,
                &[p.shape],
                seed,
                &mut |_| {},
            )?;
            if let Some((_, f)) = wrong {
                return Ok(Some((p, f)));
            }
        }
        Ok(None)
    };
    match asked() {
        Err(e) => unchecked(v, format!("{e:#}")),
        // Runs on neither: a path for problems the lesson does not take.
        Ok(None) => v.notes.push(format!(
            "{shown} did not run under the simulator in this grading, nor on the device at the problems the simulator ran: none of them takes that path, so it was not checked there"
        )),
        Ok(Some((p, _))) => {
            let with = with_defines(&p.defines);
            let there = match p.every_group {
                true => "at that same problem",
                false => "at that same problem (the size this grading was asked for or the shape it times, where the simulator runs the last work-group and one drawn for this grading: code kept to the others is not checked there)",
            };
            v.failure = Some(Failure::new(
                FailKind::NotSelfContained,
                format!(
                    "{}: {shown} {runs} on the device at {}{with} and never ran under the simulator {there}. The grader checks your kernel under the simulator (races, reads out of bounds, the lesson's technique) and times it on the device, so both must run the same code: a kernel that branches on something they compute differently (the rounding of `mad`, `sin` or `exp`, a float converted past an integer's range, a value never initialised) shows each a different code. Compute what the product needs from the problem's sizes, the work-item's ids and the inputs only.",
                    paths::display(file),
                    p.shape
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_is_over_every_look_and_unknown_where_one_did_not_end() {
        let at = |line, column, ran| Access {
            file: "input.cl".into(),
            line,
            column,
            ran,
        };
        let one = [at(4, 9, true), at(8, 16, false), at(9, 3, false)];
        let two = [at(9, 3, true), at(0, 0, false)];
        let c = Coverage::of([Some(&one[..]), Some(&two[..])]).unwrap();
        assert_eq!(c.never, vec![(8, 16)]);
        assert_eq!(c.ran, vec![(4, 9), (9, 3)]);
        assert!(Coverage::of([Some(&one[..]), None]).is_none());
    }
}
