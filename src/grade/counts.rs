//! The technique judged from the simulator's counts: which of the simulator's builds each
//! count runs, a count run again where the optimised build computed a wrong product, and the
//! lesson's judgement of the counts.

use serde::{Deserialize, Serialize};

use crate::harness::oclgrind::addresses::Place;
use crate::harness::oclgrind::banks::Banks;
use crate::harness::oclgrind::coverage::Access;
use crate::harness::oclgrind::Report;
use crate::lesson::{Measured, Probe};

use super::reported::describe;
use super::request::Look;
use super::trust::instrument_failed;
use super::{FailKind, Failure, Part, Verdict};

/// What a probe run reports through the event file (the simulator's own reports come on
/// stderr and stdout).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Probed {
    /// The simulator computed the right product.
    pub right: bool,
    /// CL_KERNEL_LOCAL_MEM_SIZE of the kernel, bytes.
    pub local_bytes: u64,
    /// Why the probe could not run (a build error in the simulator's compiler, say).
    pub error: Option<String>,
    /// The simulator built the kernel as written, its macros not expanded
    /// (`super::expand`: the expanded text did not build), so its places are the written
    /// text's.
    #[serde(default)]
    pub as_written: bool,
    /// Where C was wrong: why it was not made by the lesson's technique, where the run could
    /// tell ([`crate::harness::exec::RunOutput::technique`]).
    #[serde(default)]
    pub technique: Option<String>,
}

/// One probe run under the simulator: what the worker reported, what Oclgrind printed,
/// and whether the run was stopped.
pub(super) struct Run {
    pub(super) probed: Option<Probed>,
    pub(super) report: Report,
    /// The reports of a look's second run, at the drawn shape.
    pub(super) second: Option<Report>,
    /// What the bank counter counted, where it was loaded.
    pub(super) banks: Option<Banks>,
    /// Where the kernel reads a pointer's value, where the address reader was loaded.
    pub(super) addresses: Option<Vec<Place>>,
    /// Which of the kernel's global accesses ran, where the coverage was loaded: `None`
    /// inside where the list did not end (the run stopped before the kernel ended).
    pub(super) coverage: Option<Option<Vec<Access>>>,
    pub(super) killed: bool,
    /// The watchdog's limit, seconds.
    pub(super) limit_s: f64,
}

/// The count that runs the simulator's unoptimised build: the cheapest (by `mads`, the
/// multiply-adds it simulates) of those with defines other than the device's own, another
/// kind's or a declared set's ([`super::simulate::review`] counts one set where no other kind's
/// defines are counted). Every other count runs the build the device makes. So every grading
/// counts in both builds, and a kernel that behaves as the technique asks only in one of them
/// (Oclgrind 21.10 runs some optimised code wrongly, which a kernel can test for:
/// research/oclgrind-selects/) is counted where it does not; that count also asks about an
/// index past one dimension of an array, which the optimised build may hide. One count only:
/// lesson 11's model of the unit runs four times slower unoptimised.
pub(super) fn unoptimised_count(looks: &[Look], mads: impl Fn(&Look) -> f64) -> Option<Look> {
    (looks.iter())
        .filter(|l| matches!(l, Look::Metrics(..) | Look::Asked(.., false)))
        .min_by(|a, b| mads(a).total_cmp(&mads(b)))
        .copied()
}

/// What a count in the unoptimised build costs against one in the optimised build, per
/// multiply-add.
pub(super) const UNOPTIMISED: f64 = 2.0;

/// How a verdict names a count that [`recount_unoptimised`] ran again.
pub(super) const RECOUNTED: &str = "built unoptimised: the simulator's optimised build computed a wrong C there, where the device and the simulator's unoptimised build compute it right (Oclgrind 21.10 runs some optimised code wrongly, a `switch` on a number's lowest bits among it), so the counts are the unoptimised build's";

/// A count whose product the simulator's optimised build got wrong, run again built
/// unoptimised: the run whose counts are judged, and the optimised one where it was run
/// again (judged too: [`judge_run`]). Oclgrind runs the work-items of a group in the same order
/// in both builds (one after another, switching only at barriers), so a product wrong in one
/// build and right in the other is not the kernel's order dependence but the build's: either
/// Oclgrind runs the optimised code wrongly (research/oclgrind-selects/), or the kernel has
/// undefined behaviour, which the sanitizer's unoptimised looks ask about. The counts judged
/// are then those of the run whose product is right. Where the second run is wrong too, or
/// gave no product, the first stands, and with it the verdict that the result depends on the
/// order in which work-items run.
pub(super) fn recount_unoptimised(
    run: anyhow::Result<Run>,
    unoptimised: bool,
    again: impl FnOnce() -> anyhow::Result<Run>,
) -> (anyhow::Result<Run>, Option<Run>) {
    if unoptimised {
        return (run, None);
    }
    let product = |r: &Run, right: bool| {
        !r.killed && (r.probed.as_ref()).is_some_and(|p| p.error.is_none() && p.right == right)
    };
    match run {
        Ok(first) if product(&first, false) => match again() {
            Ok(r) if product(&r, true) => (Ok(r), Some(first)),
            _ => (Ok(first), None),
        },
        run => (run, None),
    }
}

/// A look's run in the build it asks for (`unoptimised`), and, where the simulator cannot run
/// that build at all, the unoptimised build's run and why: the optimiser made an intrinsic of
/// the kernel's code that Oclgrind 21.10 lacks and the build does not write out for it
/// (`crate::harness::oclgrind::lower` writes out the common ones: `llvm.ctpop`, `llvm.abs`, ...).
/// The device computes C the same way in both builds, so every question the look was to
/// answer (the sanitizer's, which code ran, the counts) is asked of the run that ran, and a
/// correct kernel is not refused for the simulator's gap.
pub(super) fn runnable(
    unoptimised: bool,
    run: impl Fn(bool) -> anyhow::Result<Run>,
) -> (anyhow::Result<Run>, Option<String>) {
    let first = run(unoptimised);
    match first
        .as_ref()
        .ok()
        .and_then(|r| lacking_intrinsic(&r.report))
    {
        Some(why) if !unoptimised => (run(true), Some(why)),
        _ => (first, None),
    }
}

/// How a verdict names where a count was made (`at`) and in which build.
pub(super) fn built(at: String, unoptimised: bool, lacking: Option<&str>) -> String {
    match (unoptimised, lacking) {
        (_, Some(why)) => {
            format!("{at}, built unoptimised: the simulator cannot run the optimised build ({why})")
        }
        (true, None) => format!("{at}, built unoptimised"),
        (false, None) => at,
    }
}

/// What a verdict says where a count ran only unoptimised for the simulator's gap (`why`), at
/// `at`: the device runs the optimised build, which a kernel can make behave otherwise (an
/// undefined operation the optimiser folds), so the technique there is not checked.
pub(super) fn only_unoptimised(why: &str, at: &str) -> String {
    format!(
        "the technique was counted only in the simulator's unoptimised build at {at}: the simulator cannot run the optimised build, which the device runs ({why}). Write the code that the optimiser turns into that function another way to have the technique checked in both builds"
    )
}

/// What the simulator said where it could not create the kernel for lacking a function the
/// optimiser called (an LLVM intrinsic it does not implement); `None` for every other run.
fn lacking_intrinsic(report: &Report) -> Option<String> {
    (report.findings.iter()).find_map(|f| match &f.kind {
        crate::harness::oclgrind::findings::Kind::SimulatorFailure { message }
            if message.contains("Undefined external function") =>
        {
            Some(message.clone())
        }
        _ => None,
    })
}

/// Why counts read from an output the kernel printed to judge nothing.
const PRINTED: &str = "your kernel printed (printf) while the OpenCL simulator counted its instructions, and the simulator prints its counts on the same output, so the counts cannot be told from what the kernel wrote: the technique is not shown. Remove printf from the kernel before grading (print from your own program's runs while you debug).";

/// The technique judged from the counts of `run`, whose product is not asked: the line the
/// verdict shows, or the technique's failure.
pub(super) fn judge_run(
    behaviour: &crate::lesson::Behaviour,
    probe: &Probe,
    run: &Run,
    scale: f64,
    at: &str,
    source: &str,
) -> Result<String, Failure> {
    let (Some(probed), Some(counts)) = (run.probed.as_ref(), run.report.counts.as_ref()) else {
        return Err(Failure::new(
            FailKind::Technique,
            format!("the simulator gave no counts\n({at}.)"),
        ));
    };
    if counts.printed {
        return Err(Failure::new(
            FailKind::Technique,
            format!("{PRINTED}\n({at}.)"),
        ));
    }
    let counts = counts.scaled(scale);
    let measured = Measured {
        counts: &counts,
        local_bytes: probed.local_bytes,
        banks: run.banks.as_ref(),
        source,
    };
    (behaviour.judge)(&measured, probe)
        .map(|line| format!("{line} ({at})"))
        .map_err(|why| Failure::new(FailKind::Technique, format!("{why}\n({at}.)")))
}

/// The technique judged from one run of the simulator's counts at `probe`: the line the
/// verdict shows and whether the banks were counted in it, or `None` with the verdict's
/// failure or unchecked part set.
/// `answer`: whether the lesson's answer runs cleanly at the same look ([`answer_runs`]),
/// asked only where the kernel's run gave no counts.
#[allow(clippy::too_many_arguments)]
pub(super) fn judge_counts(
    v: &mut Verdict,
    behaviour: &crate::lesson::Behaviour,
    probe: &Probe,
    run: anyhow::Result<Run>,
    scale: f64,
    at: &str,
    source: &str,
    answer: &dyn Fn() -> Option<f64>,
) -> Option<(String, bool)> {
    let run = match run {
        Ok(r) => r,
        Err(e) => {
            v.not_checked(
                Part::Technique,
                format!("the technique was not checked: {e:#}"),
            );
            return None;
        }
    };
    // Not counted: the kernel's doing where the answer is counted there, else said.
    let uncounted = |v: &mut Verdict, killed: bool, why: String| match answer() {
        Some(s) => v.failure = Some(instrument_failed(killed, &why, &describe(probe), s)),
        None => v.not_checked(
            Part::Technique,
            format!(
                "the technique was not checked: {why} at {}",
                describe(probe)
            ),
        ),
    };
    if run.killed {
        let why = format!("it did not finish within {:.0} s", run.limit_s);
        uncounted(v, true, why);
        return None;
    }
    let (Some(probed), Some(_)) = (run.probed.as_ref(), run.report.counts.as_ref()) else {
        uncounted(v, false, "the simulator gave no counts".into());
        return None;
    };
    if let Some(why) = &probed.error {
        uncounted(v, false, format!("it could not be run ({why})"));
        return None;
    }
    if let (false, Some(why)) = (probed.right, &probed.technique) {
        // Right on the device, wrong under the simulator, where the unit is the model and its
        // products are scaled: C was made elsewhere (on the tensor cores nothing is scaled).
        // Said where, as a count's failure is ([`judge_run`]): which kind's defines, say.
        v.failure = Some(Failure::new(
            FailKind::Technique,
            format!("under the OpenCL simulator: {why}\n({at}.)"),
        ));
        return None;
    }
    if !probed.right {
        // Right on the device, wrong in the simulator (which runs work-items one after
        // another): the counts of a wrong run prove nothing about the technique.
        v.failure = Some(Failure::new(
            FailKind::Wrong,
            format!(
                "your kernel gives the right C on the device but a wrong one under the OpenCL simulator at {}: its result depends on the order in which work-items run. Look for a missing barrier or work-items that read what others write.",
                describe(probe)
            ),
        ));
        return None;
    }
    match judge_run(behaviour, probe, &run, scale, at, source) {
        Ok(line) => Some((line, run.banks.is_some())),
        Err(f) => {
            v.failure = Some(f);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::matrix::Shape;

    fn run(right: bool, killed: bool) -> Run {
        Run {
            probed: Some(Probed {
                right,
                local_bytes: 0,
                error: None,
                as_written: false,
                technique: None,
            }),
            report: Default::default(),
            second: None,
            banks: None,
            addresses: None,
            coverage: None,
            killed,
            limit_s: 1.0,
        }
    }

    /// An optimised build the simulator cannot create (it lacks an intrinsic the optimiser
    /// called) runs again unoptimised, and says why; a build that failed otherwise, or a look
    /// unoptimised already, keeps its one run.
    #[test]
    fn an_optimised_build_the_simulator_cannot_run_is_run_unoptimised() {
        let lacking = "OCLGRIND FATAL ERROR (./src/core/WorkItem.cpp:1681)\nUndefined external function: llvm.bitreverse.i32\nWhen creating kernel 'matmul'\n";
        let other = "OCLGRIND FATAL ERROR (./src/core/WorkItem.cpp:99)\nUnsupported instruction\n";
        let with = |text: &str| {
            let mut r = run(true, false);
            r.report = crate::harness::oclgrind::parse(text);
            r
        };
        for (first, unoptimised, builds_expected, reason) in [
            (lacking, false, vec![false, true], true),
            (lacking, true, vec![true], false),
            (other, false, vec![false], false),
            ("", false, vec![false], false),
        ] {
            let builds = std::cell::RefCell::new(Vec::new());
            let (r, why) = runnable(unoptimised, |u| {
                builds.borrow_mut().push(u);
                Ok(if builds.borrow().len() == 1 {
                    with(first)
                } else {
                    run(true, false)
                })
            });
            assert_eq!(*builds.borrow(), builds_expected, "{first}");
            assert_eq!(why.is_some(), reason, "{first}");
            if reason {
                assert!(why.unwrap().contains("llvm.bitreverse.i32"));
                assert!(r.unwrap().report.findings.is_empty());
            }
        }
        assert_eq!(
            built("at M=8".into(), false, Some("Undefined external function: llvm.bitreverse.i32")),
            "at M=8, built unoptimised: the simulator cannot run the optimised build (Undefined external function: llvm.bitreverse.i32)"
        );
    }

    /// Wrong under the simulator where the run traced it to the technique (lesson 11's unit
    /// scaled in every run of the model, right on the tensor cores): a missing technique,
    /// with the run's reason, not a result that depends on the work-items' order.
    #[test]
    fn a_wrong_simulated_product_traced_to_the_technique_is_a_missing_technique() {
        let behaviour = crate::lesson::Behaviour {
            probes: &[],
            judge: |_, _| Ok("counted".into()),
            banks: false,
            not_checked: "",
            k_step: |_| Ok(1),
        };
        let probe = Probe {
            shape: Shape::new(8, 8, 8),
            defines: &[],
        };
        let judged = |r: Run| {
            let mut v = Verdict::named("11_matrix_units".into(), std::path::Path::new("k.cl"));
            let at = "counted under the simulator at M=8 N=8 K=8, with the defines the lesson takes on a large GPU";
            judge_counts(&mut v, &behaviour, &probe, Ok(r), 1.0, at, "", &|| None);
            v.failure.map(|f| (f.kind, f.message))
        };
        let mut r = run(false, false);
        r.report.counts = Some(Default::default());
        if let Some(p) = r.probed.as_mut() {
            p.technique = Some("your C does not come from the matrix unit.\nHint: the unit".into());
        }
        let (kind, message) = judged(r).expect("a failure");
        assert_eq!(kind, FailKind::Technique);
        assert!(
            message.contains("does not come from the matrix unit"),
            "{message}"
        );
        // Where: the shape and which kind of device's defines, after the reason and its
        // hint, as a count's failure says it.
        assert!(
            message.ends_with("unit.\nHint: the unit\n(counted under the simulator at M=8 N=8 K=8, with the defines the lesson takes on a large GPU.)"),
            "{message}"
        );
        // Without a reason, the order of the work-items is blamed, as before.
        let mut r = run(false, false);
        r.report.counts = Some(Default::default());
        let (kind, message) = judged(r).expect("a failure");
        assert_eq!(kind, FailKind::Wrong);
        assert!(message.contains("order"), "{message}");
    }

    fn right(r: &anyhow::Result<Run>) -> Option<bool> {
        r.as_ref().ok()?.probed.as_ref().map(|p| p.right)
    }

    /// The cheapest count with other defines than the device's own runs unoptimised: another
    /// kind's or a declared set's, never the device's own.
    #[test]
    fn the_cheapest_count_with_other_defines_runs_unoptimised() {
        let s = |n: usize| Shape::new(n, n, n);
        let mads = |l: &Look| match *l {
            Look::Metrics(_, s) | Look::Asked(_, s, ..) => (s.m * s.n * s.k) as f64,
            _ => 0.0,
        };
        let looks = [
            Look::Asked(0, s(4), false, true),
            Look::Asked(1, s(16), true, false),
            Look::Metrics(0, s(12)),
            Look::Metrics(1, s(8)),
            Look::Sanitize(0),
        ];
        assert_eq!(
            unoptimised_count(&looks, mads),
            Some(Look::Metrics(1, s(8)))
        );
        assert_eq!(unoptimised_count(&looks[..2], mads), Some(looks[1]));
        assert_eq!(unoptimised_count(&looks[..1], mads), None);
    }

    /// Run again only where an optimised count finished with a wrong product; the second run
    /// replaces the first only where its product is right, and the first is kept to be judged.
    #[test]
    fn a_wrong_optimised_product_is_counted_again_unoptimised() {
        let never = || -> anyhow::Result<Run> { panic!("run again where it should not be") };
        let (r, first) = recount_unoptimised(Ok(run(true, false)), false, never);
        assert_eq!((right(&r), first.is_none()), (Some(true), true));
        let (r, first) = recount_unoptimised(Ok(run(false, true)), false, never);
        assert_eq!((right(&r), first.is_none()), (Some(false), true));
        let (r, first) = recount_unoptimised(Ok(run(false, false)), true, never);
        assert_eq!((right(&r), first.is_none()), (Some(false), true));
        let (r, first) = recount_unoptimised(Ok(run(false, false)), false, || Ok(run(true, false)));
        assert_eq!(right(&r), Some(true));
        assert!(first.is_some_and(|f| f.probed.is_some_and(|p| !p.right)));
        // Wrong in both builds: the first run stands, and with it the order's verdict.
        let (r, first) =
            recount_unoptimised(Ok(run(false, false)), false, || Ok(run(false, false)));
        assert_eq!((right(&r), first.is_none()), (Some(false), true));
        let (r, first) = recount_unoptimised(Ok(run(false, false)), false, || {
            anyhow::bail!("no simulator")
        });
        assert_eq!((right(&r), first.is_none()), (Some(false), true));
    }
}
