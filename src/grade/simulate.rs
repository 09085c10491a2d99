//! The second look at an OpenCL kernel: run once, small, under Oclgrind, the OpenCL device
//! simulator. The sanitizer run finds what real devices hide (PoCL runs a work-group in
//! lock-step, so a missing barrier often gives right numbers there): races on local and
//! global memory, reads and writes past the end of a buffer or array, barriers that only
//! some work-items reach, uninitialised values. The metrics run counts what the kernel
//! does (global and local loads per multiply-add, bytes per access, image reads, barriers),
//! which is how the lesson's technique is judged: by behaviour, not by spelling.
//!
//! Each run is a worker process (the course's program again) that sees only Oclgrind as its
//! OpenCL platform; Oclgrind's reports arrive on that worker's stderr (counts on its
//! stdout), which the parent parses.

use std::path::{Path, PathBuf};

use crate::harness::child::{EventWriter, Scratch};
use crate::harness::device::Gpu;
use crate::harness::matrix::{self, Problem, Shape};
use crate::harness::oclgrind;
use crate::harness::oclgrind::addresses::{self, Place};
use crate::harness::oclgrind::banks;
use crate::harness::oclgrind::coverage;
use crate::harness::oclgrind::plugin;
use crate::harness::pool;
use crate::lesson::{Lesson, OclLesson, Probe};
use crate::prepared::Prepared;

pub use super::counts::Probed;
use super::counts::{
    built, judge_counts, judge_run, only_unoptimised, recount_unoptimised, runnable,
    unoptimised_count, Run, RECOUNTED, UNOPTIMISED,
};
use super::coverage::Coverage;
use super::looks::{asked_probe, drawn_of, own_optimised, probe_of, second_run, vast_looks};
use super::reported::{
    describe, failure_from, optimised_findings, simulator_trouble, skipped, UNORDERED_RUN,
};
use super::request::Request;
use super::trust::{instrument_failed, refuse_reads, replace_device_failure};
use super::{FailKind, Options, Part, Source, Verdict};

pub use super::request::Look;

/// How much of the simulator's output is kept: all of it, in practice (about 0.5 MB at
/// Oclgrind's default limit of 1000 messages).
const KEEP: usize = 8 << 20;

/// The worker's side: runs one probe on the only device it sees (the simulator).
pub fn probe_here(lesson: &Lesson, source: &Source, opts: &Options, look: Look) -> Probed {
    let fail = |e: String| Probed {
        error: Some(e),
        ..Probed::default()
    };
    let Some(ocl) = lesson.ocl() else {
        return fail("not an OpenCL lesson".into());
    };
    let probe = match look {
        Look::Asked(_, shape, ..) | Look::Own(shape, _) | Look::Vast(shape, _) => {
            Some(asked_probe(shape, &opts.defines))
        }
        _ => probe_of(ocl, look),
    };
    let Some(probe) = probe else {
        return fail("no such probe".into());
    };
    let file = source.path(lesson);
    // The edges of the vast shape's launch, or a drawn group and the last.
    crate::harness::groups::see_edges(matches!(look, Look::Vast(_, true)));
    let run = || -> anyhow::Result<Probed> {
        // Its own macros expanded (`super::expand`); as written where that does not build.
        let written = std::fs::read_to_string(&file)?;
        let mut text = super::expand::expanded(&written);
        let gpu = Gpu::open(None)?;
        let defines = probe.defines();
        let launch = (ocl.launch)(probe.shape, &defines).map_err(anyhow::Error::msg)?;
        let build_options = opts.build_options(ocl);
        // The sanitizer runs the lesson's stand-in where it has one (an image the simulator
        // cannot follow, read from a buffer); the technique's counts, the kernel as written.
        let stand_in = match look {
            Look::Sanitize(_) | Look::Drawn(..) | Look::Own(..) | Look::Vast(..) => {
                ocl.sanitize.stand_in
            }
            Look::Metrics(..) | Look::Asked(..) | Look::Read(_) => None,
        };
        let prepare = |text: &str, defines: &[crate::harness::program::Define]| match stand_in {
            Some(s) => Prepared::stand_in(&gpu, ocl, s, &file, text, defines, &build_options),
            None => Prepared::build(&gpu, ocl, &file, text, defines, &build_options),
        };
        let prepared = match prepare(&text, &defines) {
            Err(_) if text != written => {
                text = written.clone();
                prepare(&text, &defines)?
            }
            built => built?,
        };
        let kernel = &prepared.kernel;
        let local_bytes = kernel.get_local_mem_size(gpu.device.id()).unwrap_or(0);
        // Another device's tiles may need more local memory than the simulator has.
        if matches!(look, Look::Asked(..) | Look::Own(..) | Look::Vast(..))
            && local_bytes > gpu.info.local_mem_bytes
        {
            anyhow::bail!(
                "with these defines the kernel needs {local_bytes} bytes of local memory, more than the simulator's {}",
                gpu.info.local_mem_bytes
            );
        }
        // Inputs drawn for this run from a seed the kernel cannot know: a kernel that behaves
        // only on the simulator's inputs (recognised by a value of A, say) behaves badly here.
        let exact = stand_in.map_or(ocl.host.exact, |s| s.exact);
        let p = Problem::random(probe.shape, matrix::secret_seed());
        // At the asked size, the call a timed one is (C poisoned, guard zones), of which only
        // the last work-group and one drawn (src/harness/groups.rs) run and write C.
        // Why a wrong C was not made by the technique, where the run could tell (lesson 11's
        // unit scaled in every run of the model, the simulator's included).
        let mut technique: Option<String> = None;
        let mut judged = |out: crate::harness::exec::RunOutput, right: bool| {
            if !right && technique.is_none() {
                technique = out.technique;
            }
            right
        };
        let mut right = match look {
            Look::Asked(..) => {
                // A numeric poison (random numbers or an earlier C, as the timed calls draw
                // them): a NaN one sends the host to a second call where NaN comes back,
                // and the quick mode leaves most of C as it was.
                let mut p = p.clone();
                while p.poison.kind == crate::harness::poison::Kind::Nan {
                    p.poison = crate::harness::poison::draw(p.shape.m * p.shape.n, p.shape.k);
                }
                let out = (ocl.host.run)(&gpu, kernel, &p, &launch, &defines)?;
                let right = matrix::written_right(&p, &out.c);
                judged(out, right)
            }
            // The sanitizer's findings are this look's answer: its product, of the first and
            // the last work-group, is judged by the counts' look at the same size, which
            // runs the same work-groups with the same defines.
            Look::Own(_, false) | Look::Vast(..) => {
                exact(&gpu, kernel, &p, &launch, &defines)?;
                true
            }
            _ => {
                let out = exact(&gpu, kernel, &p, &launch, &defines)?;
                let right = matrix::check(&p, &out.c).passed();
                judged(out, right)
            }
        };
        if let Some(drawn) = drawn_of(ocl, look) {
            eprint!("{}", second_run(look).unwrap_or_default());
            // Drawn defines other than the declared probe's, or a prelude that orders less
            // than the lesson's own (its numbers are not the product, and not checked): a
            // build of their own.
            let defines = drawn.defines();
            let unordered = ocl.draws_unordered();
            let rebuilt = match unordered {
                true => Some(Prepared::build_as(
                    &gpu,
                    ocl,
                    &file,
                    &ocl.unordered_source(&gpu, &text),
                    &defines,
                    &build_options,
                )?),
                false => (drawn.defines != probe.defines)
                    .then(|| prepare(&text, &defines))
                    .transpose()?,
            };
            let kernel = rebuilt.as_ref().map_or(kernel, |r| &r.kernel);
            let launch = (ocl.launch)(drawn.shape, &defines).map_err(anyhow::Error::msg)?;
            let p = Problem::random(drawn.shape, matrix::secret_seed());
            let out = exact(&gpu, kernel, &p, &launch, &defines)?;
            let this = unordered || matrix::check(&p, &out.c).passed();
            right &= judged(out, this);
        }
        Ok(Probed {
            right,
            technique,
            local_bytes,
            error: None,
            as_written: text == written && super::expand::expanded(&written) != written,
        })
    };
    run().unwrap_or_else(|e| fail(format!("{e:#}")))
}

impl Run {
    /// The simulator ran the look to its end, with nothing of its own to report: no watchdog,
    /// no error building or running the kernel, no trouble of Oclgrind's.
    fn ran_cleanly(&self) -> bool {
        !self.killed
            && self.probed.as_ref().is_some_and(|p| p.error.is_none())
            && simulator_trouble(&self.report).is_none()
            && (self.second.as_ref()).is_none_or(|s| simulator_trouble(s).is_none())
    }
}

/// One look under the simulator. `plugins`: the course's plugins where they could be built,
/// whose address reader then reads every look's program and whose bank counter counts the
/// technique's looks where `banks`. `unoptimised`: built without optimisation whatever the
/// look's own build ([`unoptimised_count`], [`recount_unoptimised`]).
#[allow(clippy::too_many_arguments)]
fn simulate(
    lesson: &Lesson,
    source: &Source,
    opts: &Options,
    look: Look,
    icd: &Path,
    plugins: Option<&Path>,
    banks: bool,
    unoptimised: bool,
) -> anyhow::Result<Run> {
    let scratch = Scratch::new("simulate")?;
    let with_plugins = |o: oclgrind::Options| oclgrind::Options {
        plugin: plugins.map(Path::to_path_buf),
        addresses: plugins.is_some(),
        coverage: plugins.and(lesson.ocl()).map(|o| o.kernel.to_string()),
        ..o
    };
    let counted = with_plugins(oclgrind::Options {
        banks: banks && plugins.is_some(),
        ..oclgrind::Options::metrics()
    });
    let options = match look {
        Look::Sanitize(_) | Look::Drawn(..) => with_plugins(oclgrind::Options::sanitizer()),
        // The device's own defines, built as the device builds them (optimised) where there
        // is no stand-in: races, accesses outside every buffer, barriers. Not uninitialised
        // values, whose checker needs the unoptimised build and costs four times the rest of
        // the run: the device's run of the kernel built unoptimised asks that (`super::ocl`).
        // At the asked size the last work-group and one drawn (quick mode), without the
        // address reader (the same build of the same defines is read at the small problem).
        Look::Own(_, every_group) => {
            let o = oclgrind::Options {
                quick: !every_group,
                uninitialized: false,
                disable_optimization: !own_optimised(lesson),
                ..oclgrind::Options::sanitizer()
            };
            match every_group {
                true => with_plugins(o),
                false => o,
            }
        }
        // Bounds, barriers, uninitialised values (K is short); not races, whose detector costs
        // by the buffers' size (C is 64 MiB: lesson 04's grading 2.6 s without, 8.2 s with).
        Look::Vast(..) => oclgrind::Options {
            quick: true,
            disable_optimization: true,
            races: false,
            ..oclgrind::Options::sanitizer()
        },
        Look::Metrics(..) => counted,
        // Only the program is read: nothing counted or checked, the first and last work-group.
        Look::Read(_) => with_plugins(oclgrind::Options {
            races: false,
            inst_counts: false,
            quick: true,
            ..oclgrind::Options::metrics()
        }),
        // Counts, and with the device's own defines the sanitizer's questions but
        // uninitialised values (races, barriers, accesses outside every buffer) in the build
        // the device makes, which cost about as much again (another kind's one work-group:
        // barriers and accesses, which cost nothing more). One thread: the asked size's look
        // starts first (the costliest) and the other looks share the other cores.
        Look::Asked(_, _, every_group, checked) => oclgrind::Options {
            quick: !every_group,
            races: checked,
            threads: Some(1),
            ..counted
        },
    };
    let options = oclgrind::Options {
        disable_optimization: options.disable_optimization
            || unoptimised
            || std::env::var_os("LAB_HACK_O0").is_some(),
        ..options
    };
    let folder = scratch.dir.join("icd");
    let env = oclgrind::environment(icd, &folder, &options)?;
    let request = Request {
        lesson: lesson.name(),
        source: source.clone(),
        opts: opts.clone(),
        look: Some(look),
        unit_scale: Some(crate::harness::unit_scale::factor()),
    };
    let mut probed = None;
    let ended = super::request::spawn(
        &request,
        &env,
        oclgrind::REMOVE_FROM_ENVIRONMENT,
        KEEP,
        |p: Probed| probed = Some(p),
    )?;
    let split = second_run(look).and_then(|m| ended.stderr.head.split_once(&m));
    let (first, second) = match split {
        Some((a, b)) => (a.to_string(), Some(oclgrind::parse(b))),
        None => (ended.stderr.head.clone(), None),
    };
    let output = format!("{first}\n{}", ended.stdout.head);
    let banks = (options.banks)
        .then(|| std::fs::read_to_string(folder.join(banks::OUT_FILE)).ok())
        .flatten()
        .and_then(|t| banks::parse(&t));
    // No file: the reader found nothing (it writes only what it finds).
    let addresses = (options.addresses).then(|| {
        std::fs::read_to_string(folder.join(addresses::OUT_FILE))
            .map(|t| addresses::parse(&t))
            .unwrap_or_default()
    });
    let covered = (options.coverage.is_some())
        .then(|| std::fs::read_to_string(folder.join(coverage::OUT_FILE)).ok())
        .flatten();
    let coverage =
        (options.coverage.is_some()).then(|| covered.as_deref().and_then(coverage::parse));
    let mut report = oclgrind::parse(&output);
    // The lanes the simulator's count leaves out, from the same run's plugin.
    if let Some(c) = report.counts.as_mut() {
        c.wide_lanes = covered.as_deref().and_then(coverage::lanes);
    }
    Ok(Run {
        probed,
        report,
        second,
        banks,
        addresses,
        coverage,
        killed: ended.killed(),
        limit_s: opts.step_timeout.as_secs_f64(),
    })
}

/// What a sanitizer's run costs against a count's per multiply-add: its build is unoptimised
/// and every value carries its shadow.
const SANITIZER: f64 = 5.0;

/// What a run of the optimised build with races, bounds and barriers checked costs against a
/// count's per multiply-add: every access is kept for the race detector (measured: lesson
/// 10's asked size, 0.91 s against the count's 0.45).
const CHECKED: f64 = 2.0;

/// The most a sanitizer's run with the device's own defines may cost, in a count's
/// multiply-adds: about a minute of the simulator (5 × 2^21).
const OWN_SANITIZED_MADS_AT_MOST: f64 = 5.0 * (1u64 << 21) as f64;

/// The worker's answer to a probe request: the probe runs and its result goes to the event
/// file.
pub fn serve_probe(
    lesson: &Lesson,
    source: &Source,
    opts: &Options,
    look: Look,
    out: &mut EventWriter,
) -> anyhow::Result<()> {
    out.send(&probe_here(lesson, source, opts, look))
}

/// Whether the lesson runs `probe`'s defines at a shape: the shapes a drawn probe may take.
fn accepts<'a>(ocl: &'a OclLesson, probe: &Probe) -> impl Fn(Shape) -> bool + 'a {
    let d = probe.defines();
    move |s| (ocl.check_defines)(&d).is_ok() && (ocl.launch)(s, &d).is_ok()
}

/// Runs the sanitizer and, if the kernel is clean and right, the metrics, and folds what
/// they find into the verdict: a finding fails the lesson, a technique the counts do not
/// show fails it, and what could not be checked becomes a note.
pub fn review(lesson: &Lesson, ocl: &OclLesson, source: &Source, opts: &Options, v: &mut Verdict) {
    // Nothing to look at: the file is not there, not started, refused as not the code it
    // shows, does not build, or this device cannot run the lesson at all.
    if matches!(
        v.kind(),
        Some(
            FailKind::NotStarted
                | FailKind::Missing
                | FailKind::NotSelfContained
                | FailKind::Build
                | FailKind::Signature
                | FailKind::Setup
                | FailKind::Unsupported
        )
    ) {
        return;
    }
    let Some(icd) = oclgrind::find_icd() else {
        skipped(
            v,
            ocl,
            "not checked for races, reads out of bounds and barriers some work-items miss, and the lesson's technique not checked: Oclgrind, the OpenCL simulator, is not installed (sudo apt-get install oclgrind)".into(),
        );
        return;
    };
    let file = source.path(lesson);
    let written = std::fs::read_to_string(&file).unwrap_or_default();
    // Every probe at once, on as many of the host's cores as there are (each simulator runs
    // on one thread): the technique's probe too, where the device run passed, though its
    // counts are read only if the sanitizer finds nothing. The results are read in the
    // probes' order, so the verdict is the one probes run one after another would give.
    //
    // Besides the declared probes, which anyone can read in the lesson's declaration, one of
    // them again at a shape drawn for this grading, built with the define set drawn for it
    // (below): a kernel that behaves only at the declared shapes or defines is seen there.
    let mut looks: Vec<Look> = (0..ocl.sanitize.probes.len()).map(Look::Sanitize).collect();
    let secret = crate::harness::matrix::secret_seed();
    // Every shape the lesson declares for the simulator: the drawn ones keep apart from them all.
    let behaviour_probes = ocl.behaviour.as_ref().map_or(&[][..], |b| b.probes);
    let declared: Vec<_> = (ocl.sanitize.probes.iter())
        .chain(behaviour_probes)
        .map(|p| p.shape)
        .collect();
    // The define set of the sanitizer's drawn run, drawn for this grading among the
    // behaviour's (the technique is counted at every set, below).
    let set = (!behaviour_probes.is_empty())
        .then(|| (secret.rotate_left(29) % behaviour_probes.len() as u64) as usize);
    if let Some(i) = (!ocl.sanitize.probes.is_empty())
        .then(|| (secret % ocl.sanitize.probes.len() as u64) as usize)
    {
        // Near the drawn set's own shape, whose sides are whole tiles of its defines.
        let p = set.map_or(ocl.sanitize.probes[i], |j| behaviour_probes[j]);
        match super::shapes::near_probe(p.shape, &declared, secret, accepts(ocl, &p)) {
            Some(shape) => looks[i] = Look::Drawn(i, set, shape, secret.rotate_left(17)),
            None => v.notes.push(format!(
                "not checked under the simulator at a drawn shape: none near {} is one the lesson's launch accepts; only the declared probes ran",
                describe(&p)
            )),
        }
    }
    // The looks with the defines devices take ([`super::looks`]). Once at the size this
    // grading was asked for, with the device's own defines and launch: the call every user's
    // run makes, which no kernel can tell from a timed one, so that a technique shown only to
    // small problems is counted where it is missing. Then with the device's own defines at a
    // problem of a few work-groups drawn for this grading, every one run: a technique kept
    // only in the work-groups the asked size's look runs (its first and last) is counted
    // where it is missing. Then one work-group of the tiles each other kind of device takes:
    // a technique kept only in the tiles of the machine that grades is counted where it is
    // missing too.
    let (mut asked_notes, mut own_missing) = (Vec::new(), None);
    let asked = super::looks::asked_looks(ocl, opts, &mut asked_notes, &mut own_missing);
    // The sanitizer asks of the device's own defines too: whatever set was drawn above, the
    // defines every run on this device uses are checked for races, bounds and barriers, at a
    // small problem every work-group run and at the asked size. Where the technique is
    // counted (the device run passed), the counts' looks with those defines ask these
    // questions themselves, in the same run and build ([`Look::Asked`]): one simulator run
    // per problem. Else the sanitizer's own looks ask them, the small problem the smallest
    // that asks each question (three or four work-groups, two or three k-steps); and there
    // also where the sanitizer runs a stand-in for part of the kernel (lesson 09's image,
    // which the counts read as the device does: a read outside it is seen in the stand-in
    // only). Uninitialised values with these defines are the question of the device's run
    // built unoptimised, at the asked size and the small problems it checked (`super::ocl`):
    // the simulator's checker of them costs four times the rest of its run.
    let counts_ask = v.passed() && !behaviour_probes.is_empty();
    let own =
        (asked.iter()).find(|a| a.own && a.every_group && (!counts_ask || !own_optimised(lesson)));
    // The device's own defines: as the asked size's looks have them, else resolved here (a
    // lesson whose looks do not count them still runs the largest launch with them, below).
    let own_opts = (asked.iter().find(|a| a.own))
        .map(|a| Options {
            defines: a.defines.clone(),
            ..opts.clone()
        })
        .or_else(|| super::looks::own_options(ocl, opts));
    let own_shape = own.map(|a| {
        super::looks::sanitized_shape(ocl, &a.defines, secret.rotate_left(53)).unwrap_or(a.shape)
    });
    let mads = |s: Shape| (s.m * s.n * s.k) as f64;
    let own_cost = match own_optimised(lesson) {
        true => CHECKED,
        false => SANITIZER,
    };
    match own.zip(own_shape) {
        Some((_, shape)) if own_cost * mads(shape) <= OWN_SANITIZED_MADS_AT_MOST => {
            looks.push(Look::Own(shape, true))
        }
        Some((a, shape)) => v.notes.push(format!(
            "not checked under the simulator with the device's own defines (only with the lesson's declared sets): its problem of whole work-groups, {}, is more than the sanitizer runs in a grading",
            describe(&asked_probe(shape, &a.defines))
        )),
        // A lesson that takes no defines has no own ones to ask about; where the counts ask,
        // they say what they could not count.
        None if counts_ask || ocl.sanitize.probes.iter().all(|p| p.defines.is_empty()) => {}
        None => v.notes.push(format!(
            "not checked under the simulator with the device's own defines (only with the lesson's declared sets): {}",
            own_missing.unwrap_or_else(|| "no problem of whole work-groups of its tiles".into())
        )),
    }
    // And at the size this grading was asked for, the last work-group and one drawn as the
    // counts' look there: a kernel keyed on the problem's size or on how many work-groups it
    // has (a barrier kept only below some count) is asked where every user's run is.
    let at_asked = (asked.iter()).find(|a| a.own && !a.every_group && !counts_ask);
    let at_asked_mads = at_asked.map_or(0.0, |a| a.mads);
    match at_asked {
        Some(a) if own_cost * a.mads <= OWN_SANITIZED_MADS_AT_MOST => {
            looks.push(Look::Own(a.shape, false))
        }
        Some(a) => v.notes.push(format!(
            "not checked under the simulator at the size this grading was asked for (races, reads out of bounds, barriers): its first and last work-group, {}, are more than the sanitizer runs in a grading",
            describe(&asked_probe(a.shape, &a.defines))
        )),
        None => {}
    }
    // And the grading's largest launch (the vast thin shape), own defines: a drawn group and
    // the last, then the edges, also where the last tiles are cut the two extreme ways.
    let own_defines = own_opts.as_ref().map(|o| o.defines.as_slice());
    let vast = vast_looks(ocl, secret.rotate_left(11), own_defines).unwrap_or_else(|why| {
        v.notes.push(format!(
            "not checked under the simulator at the grading's largest launch (the edges of a launch of thousands of work-groups): {why}"
        ));
        Vec::new()
    });
    looks.extend(vast.iter().map(|&(look, _)| look));
    // What quick mode simulates there: two of the launch's work-groups.
    let vast_mads = |look: &Look| {
        vast.iter()
            .find(|(l, _)| l == look)
            .map_or(0.0, |&(_, m)| m)
    };
    let sanitized = looks.len();
    let counted = if v.passed() { behaviour_probes } else { &[] };
    let asked = match counted.is_empty() {
        true => Vec::new(),
        false => {
            v.notes.append(&mut asked_notes);
            asked
        }
    };
    // The lesson's declared define sets, each at a shape drawn for this grading, where the
    // device's own defines could not be counted at a problem of whole work-groups every one
    // run, or where a tuner may choose other combinations than the devices' defaults: a
    // kernel keyed on one set's values (`#if TS == 8`) or on a declared shape is counted
    // where it does not have the technique. Whole tiles, so that the counts per multiply-add
    // mean what they do there. Where only the asked size's look counts the device's own
    // defines (its first and last work-group), the set drawn for the sanitizer is counted,
    // at a shape of three or more work-groups, every one run.
    // And one set at least where no other kind of device's defines are counted: those and
    // the sets are counted in the simulator's unoptimised build, the device's own defines in
    // the build the device makes, and every grading counts in both ([`unoptimised_count`]).
    let whole_own = asked.iter().any(|a| a.own && a.every_group);
    let unoptimised_elsewhere = asked.iter().any(|a| !a.own);
    let counted: Vec<usize> = match (asked.is_empty(), whole_own, ocl.knobs, set) {
        (false, true, None, _) if unoptimised_elsewhere => Vec::new(),
        (false, _, None, Some(j)) if !counted.is_empty() => vec![j],
        _ => (0..counted.len()).collect(),
    };
    let some_groups_only = !asked.is_empty();
    let mut sets = Vec::new();
    for j in counted {
        let p = &behaviour_probes[j];
        let valid = accepts(ocl, p);
        let seed = secret.rotate_left(7 * j as u32);
        // Three work-groups or more where the other looks run one or two: some group is then
        // neither the first nor the last.
        let d = p.defines();
        let groups = |s: Shape| (ocl.launch)(s, &d).map_or(0, |l| l.groups());
        let near = |enough: usize| {
            super::shapes::whole_tiles_near(p.shape, &declared, seed, |s| {
                valid(s) && groups(s) >= enough
            })
        };
        let drawn = match some_groups_only {
            true => near(3).or_else(|| near(0)),
            false => near(0),
        };
        if drawn.is_none() {
            v.notes.push(format!(
                "the technique was counted at a declared shape only: no other shape of whole tiles near {} is one the lesson's launch accepts",
                describe(p)
            ));
        }
        sets.push(Look::Metrics(j, drawn.unwrap_or(p.shape)));
    }
    let asked_opts: Vec<Options> = (asked.iter())
        .map(|a| Options {
            defines: a.defines.clone(),
            ..opts.clone()
        })
        .collect();
    let asked_looks = (0..asked.len()).map(|i| {
        let a = &asked[i];
        Look::Asked(i, a.shape, a.every_group, a.own)
    });
    // Judged in this order. Where the asked size's and the kinds' looks run (a lesson without
    // knobs), the one set counted whole is judged after them: it is there for a kernel that
    // passes them.
    match (some_groups_only, ocl.knobs) {
        (true, None) => looks.extend(asked_looks.chain(sets)),
        _ => looks.extend(sets.into_iter().chain(asked_looks)),
    }
    // The course's plugins, built once for this machine: the address reader reads every
    // look's program, the bank counter counts where the technique is judged by banks.
    let plugin = plugin::build(&opts.course.root().join("target").join("lab-plugins"), &icd);
    let loaded = plugin.as_ref().ok().map(PathBuf::as_path);
    let technique = looks.len() - sanitized;
    // The program as the device builds it is read where no look of the technique builds it
    // (a lesson without one, or a kernel the device already failed): the address reader's
    // question is asked of the optimised build too.
    if technique == 0 && loaded.is_some() && !ocl.sanitize.probes.is_empty() {
        looks.push(Look::Read(0));
    }
    // The costliest first, so that none started last runs alone on one core at the end: by
    // the multiply-adds each simulates, a sanitizer's at about five times the price of a
    // count's (its build is unoptimised and every value carries its shadow).
    // Which build each count runs ([`unoptimised_count`]).
    let simulated = |look: &Look| match *look {
        Look::Metrics(_, shape) => mads(shape),
        Look::Asked(i, ..) => asked.get(i).map_or(0.0, |a| a.mads),
        _ => 0.0,
    };
    let unoptimised = unoptimised_count(&looks[sanitized..], simulated);
    let unopt = |look: Look| unoptimised == Some(look);
    let build = |look: &Look| if unopt(*look) { UNOPTIMISED } else { 1.0 };
    let cost = |look: &Look| -> f64 {
        let declared = |i: usize| ocl.sanitize.probes.get(i).map_or(0.0, |p| mads(p.shape));
        match *look {
            Look::Sanitize(i) => SANITIZER * declared(i),
            Look::Read(i) => declared(i),
            Look::Drawn(i, _, shape, _) => SANITIZER * (declared(i) + mads(shape)),
            Look::Metrics(_, shape) => build(look) * mads(shape),
            Look::Asked(i, .., checked) => {
                let races = if checked { CHECKED } else { 1.0 };
                races * build(look) * asked.get(i).map_or(0.0, |a| a.mads)
            }
            Look::Own(shape, true) => own_cost * mads(shape),
            Look::Own(_, false) => own_cost * at_asked_mads,
            Look::Vast(..) => SANITIZER * vast_mads(look),
        }
    };
    let banks = ocl.behaviour.as_ref().is_some_and(|b| b.banks);
    let look_opts = |look: Look| match look {
        Look::Asked(i, ..) => &asked_opts[i],
        Look::Own(..) | Look::Vast(..) => own_opts.as_ref().unwrap_or(opts),
        _ => opts,
    };
    let run_look = |look: Look, unoptimised: bool| {
        simulate(
            lesson,
            source,
            look_opts(look),
            look,
            &icd,
            loaded,
            banks,
            unoptimised,
        )
    };
    // A look whose optimised build the simulator cannot run is asked unoptimised ([`runnable`]).
    let (runs, lacking): (Vec<_>, Vec<_>) =
        pool::side_by_side_costliest_first(&looks, usize::MAX, cost, |&look| {
            runnable(unopt(look), |unoptimised| run_look(look, unoptimised))
        })
        .into_iter()
        .unzip();
    // The text the simulator ran: its reports' columns are that text's.
    let ran = super::expand::ran(&written, &runs);
    let text = ran.clone().unwrap_or_else(|| written.clone());
    // A kernel that reads where the runtime put its memory can tell the simulator from the
    // device: refused before anything the simulator saw is believed.
    match &plugin {
        Ok(_) => {
            let places: Vec<&Place> = (runs.iter().flatten())
                .flat_map(|r| r.addresses.iter().flatten())
                .collect();
            if refuse_reads(v, &places, &file, &text) {
                return;
            }
        }
        Err(e) => v.notes.push(format!(
            "not checked whether the kernel reads a pointer's value or runs code the simulator never ran (either tells the simulator from the device): {e:#}"
        )),
    }
    // Which of the kernel's global accesses ran, and where the device is asked about those
    // that never did ([`super::coverage`]).
    let coverage = plugin.as_ref().ok().and_then(|_| Coverage::of_runs(&runs));
    let own_defines = own_opts.as_ref().map(|o| &o.defines);
    let whole = super::coverage::problems(ocl, &looks, &asked, own_defines);
    let mut runs = runs.into_iter();
    for look in &looks[..sanitized] {
        let probe = &match *look {
            Look::Own(shape, _) | Look::Vast(shape, _) => {
                asked_probe(shape, &look_opts(*look).defines)
            }
            _ => probe_of(ocl, *look).expect("a look of a declared probe"),
        };
        let run = match runs.next().expect("one run per look") {
            Ok(r) => r,
            Err(e) => {
                skipped(
                    v,
                    ocl,
                    format!("not checked for races: the simulator could not be run: {e:#}"),
                );
                return;
            }
        };
        // The device's own defines run in the optimised build, where the compiler may fold a
        // flat index into a local array back into its declared dimensions: the simulator's
        // check of each dimension's index is not believed there (an access outside every
        // array or buffer still is).
        let report = match look {
            Look::Own(..) if own_optimised(lesson) => &optimised_findings(&run.report),
            _ => &run.report,
        };
        // The declared shape's reports first, then the drawn shape's.
        let found =
            failure_from(report, probe, &file, &text, ocl.sanitize.stand_in).or_else(|| {
                let drawn = drawn_of(ocl, *look)?;
                let mut f = failure_from(
                    run.second.as_ref()?,
                    &drawn,
                    &file,
                    &text,
                    ocl.sanitize.stand_in,
                )?;
                if ocl.draws_unordered() {
                    f.message.push_str(UNORDERED_RUN);
                }
                Some(f)
            });
        if let Some(f) = found {
            match &mut v.failure {
                // The device run already saw the bad write: keep its words, and add where
                // in the source the simulator saw it.
                Some(old)
                    if matches!(old.kind, FailKind::OutOfBounds | FailKind::InputsChanged) =>
                {
                    old.message
                        .push_str(&format!("\n\nThe simulator locates it: {}", f.message));
                }
                _ => replace_device_failure(v, f),
            }
            return;
        }
        // Where the simulator could not finish or run the kernel: the kernel's failure where
        // the answer runs there (and the device run passed: else its failure is the verdict).
        let answer = |v: &Verdict| {
            (v.passed())
                .then(|| answer_runs(lesson, look_opts(*look), *look, &icd, loaded, false))
                .flatten()
        };
        if run.killed {
            let why = format!(
                "it did not finish within {:.0} s",
                opts.step_timeout.as_secs_f64()
            );
            match answer(v) {
                Some(s) => v.failure = Some(instrument_failed(true, &why, &describe(probe), s)),
                None => skipped(
                    v,
                    ocl,
                    format!(
                        "not checked under the simulator: {why} at {}",
                        describe(probe)
                    ),
                ),
            }
            return;
        }
        if let Some(why) = run
            .probed
            .as_ref()
            .and_then(|p| p.error.clone())
            .or_else(|| simulator_trouble(&run.report))
            .or_else(|| run.second.as_ref().and_then(simulator_trouble))
            .or_else(|| {
                (drawn_of(ocl, *look).is_some() && run.second.is_none())
                    .then(|| "its run at the drawn shape did not report".to_string())
            })
        {
            match answer(v) {
                Some(s) => {
                    v.failure = Some(instrument_failed(
                        false,
                        &format!("it could not be run ({why})"),
                        &describe(probe),
                        s,
                    ))
                }
                None => skipped(
                    v,
                    ocl,
                    format!(
                        "not checked under the simulator at {}: {why}",
                        describe(probe)
                    ),
                ),
            }
            return;
        }
    }
    if !v.passed() {
        return;
    }
    match &coverage {
        Some(c) => super::coverage::check(ocl, &file, &written, ran.as_deref(), opts, c, &whole, v),
        None if plugin.is_ok() => v.notes.push(
            "not checked whether the kernel runs code the simulator never ran: a simulator run stopped before its kernel ended".into(),
        ),
        None => {}
    }
    if !v.passed() {
        return;
    }
    let Some(behaviour) = &ocl.behaviour else {
        return;
    };
    if !behaviour.not_checked.is_empty() {
        v.notes
            .push(format!("not checked: {}", behaviour.not_checked));
    }
    if technique == 0 {
        // No define set to count with: a lesson declares at least two (a test checks it).
        v.not_checked(
            Part::Technique,
            "the technique was not checked: the lesson declares no probe for it".into(),
        );
        return;
    }
    let mut lines = Vec::new();
    let mut banks_unchecked = false;
    for (n, &look) in looks[sanitized..sanitized + technique].iter().enumerate() {
        let run = runs
            .next()
            .expect("the technique's counts ran with the sanitizer's");
        let lacking = &lacking[sanitized + n];
        let (run, optimised) = recount_unoptimised(run, unopt(look) || lacking.is_some(), || {
            run_look(look, true)
        });
        // Another kind of device's defines that the simulator cannot run: said, not judged
        // (the counts at the asked size and the declared sets still are).
        if let (
            Look::Asked(i, ..),
            Ok(Run {
                probed: Some(p), ..
            }),
        ) = (look, &run)
        {
            if let (Some(why), false) = (&p.error, asked[i].own) {
                v.notes.push(format!(
                    "the technique was not counted {}: {why}",
                    asked[i].at
                ));
                continue;
            }
        }
        // Where it was counted, as the sanitizer's reports say where they were found.
        let (probe, scale, at) = match look {
            Look::Asked(i, shape, ..) => {
                let a = &asked[i];
                let ran = if a.every_group {
                    a.groups
                } else {
                    a.groups.min(2)
                };
                let probe = asked_probe(shape, &a.defines);
                let groups = match a.groups {
                    // A lesson of several kernels ([`super::looks`]).
                    0 => "every work-group of each of its kernels run".to_string(),
                    1 => "its one work-group run".to_string(),
                    g if ran == g => format!("every one of its {g} work-groups run"),
                    g => format!("{ran} of its {g} work-groups run, the last and one drawn for this grading, and counted for all"),
                };
                let at = format!(
                    "counted under the simulator at {}, {} ({groups})",
                    describe(&probe),
                    a.at
                );
                (probe, a.groups.max(1) as f64 / ran.max(1) as f64, at)
            }
            _ => {
                let probe = probe_of(ocl, look).expect("a look of a declared set");
                let at = format!(
                    "counted under the simulator at {}, a shape drawn for this grading with one of the lesson's {} define sets, every work-group run",
                    describe(&probe),
                    behaviour.probes.len()
                );
                (probe, 1.0, at)
            }
        };
        let at = built(at, unopt(look), lacking.as_deref());
        let counted_at = match optimised {
            Some(_) => format!("{at}, {RECOUNTED}"),
            None => at.clone(),
        };
        // What the simulator found in a count is the kernel's failure, as the sanitizer's
        // would be: races, barriers and accesses outside every buffer; in the unoptimised
        // build also an index past one dimension of an array (in the optimised one the
        // optimiser may fold a flat index into a local array back into its declared
        // dimensions, which the simulator then reports in a correct kernel).
        let unoptimised = unopt(look) || lacking.is_some() || optimised.is_some();
        for (r, unoptimised) in [
            (run.as_ref().ok(), unoptimised),
            (optimised.as_ref(), false),
        ] {
            let Some(r) = r else { continue };
            let found = match unoptimised {
                true => r.report.clone(),
                false => optimised_findings(&r.report),
            };
            if let Some(f) = failure_from(&found, &probe, &file, &text, None) {
                v.failure = Some(f);
                return;
            }
        }
        let answer = || answer_runs(lesson, look_opts(look), look, &icd, loaded, unopt(look));
        // Recounted: the build the device makes is judged too, from its counts (a kernel
        // that shows the technique only to the unoptimised build, and makes the simulator's
        // optimised build go wrong to be recounted there, is judged by what the device runs).
        if let Some(o) = &optimised {
            let device_build = format!(
                "{at}, built optimised as the device builds it; the simulator computed a wrong C in this build and a right one unoptimised"
            );
            if let Err(f) = judge_run(behaviour, &probe, o, scale, &device_build, &text) {
                v.failure = Some(f);
                return;
            }
        }
        match judge_counts(
            v,
            behaviour,
            &probe,
            run,
            scale,
            &counted_at,
            &text,
            &answer,
        ) {
            Some((line, counted_banks)) => {
                lines.push(line);
                if let Some(why) = lacking {
                    v.not_checked(Part::Technique, only_unoptimised(why, &describe(&probe)));
                }
                // Where the banks could not be counted, the technique is judged without them,
                // and the verdict says so.
                if behaviour.banks && !counted_banks && !banks_unchecked {
                    banks_unchecked = true;
                    let why = match &plugin {
                        Err(e) => format!("{e:#}"),
                        _ => format!(
                            "the simulator's bank counter did not report at {}",
                            describe(&probe)
                        ),
                    };
                    v.not_checked(
                        Part::Technique,
                        format!("bank conflicts not counted: {why}"),
                    );
                }
            }
            // Not counted, or judged wrong: the verdict says so.
            None => return,
        }
    }
    v.notes.push(format!("technique: {}", lines.join("; ")));
}

/// Whether the lesson's own answer runs cleanly under the simulator at `look`, within a quarter
/// of the time a run is given: then a run of the student's kernel there that did not finish,
/// or that the simulator could not run, is the kernel's doing (code that loops, or behaves
/// otherwise, only under the simulator), not the machine's or Oclgrind's
/// ([`instrument_failed`]). The seconds the answer took; `None` where it does not run cleanly
/// there either, or is not there.
fn answer_runs(
    lesson: &Lesson,
    opts: &Options,
    look: Look,
    icd: &Path,
    plugins: Option<&Path>,
    unoptimised: bool,
) -> Option<f64> {
    let answer = Source::Folder(opts.course.solutions());
    if !answer.path(lesson).is_file() {
        return None;
    }
    let started = std::time::Instant::now();
    let run = simulate(
        lesson,
        &answer,
        opts,
        look,
        icd,
        plugins,
        false,
        unoptimised,
    )
    .ok()?;
    let took = started.elapsed();
    (run.ran_cleanly() && took * 4 <= opts.step_timeout).then_some(took.as_secs_f64())
}

#[cfg(test)]
#[path = "simulate_tests.rs"]
mod tests;
