//! Grading an OpenCL lesson in this process: build, check the signature, run every case
//! guarded, judge it, then time it if asked.

use std::path::Path;
use std::rc::Rc;

use anyhow::{Context as _, Result};

use crate::harness::device::Gpu;
use crate::harness::exec::Launch;
use crate::harness::matrix::{Problem, Shape};
use crate::harness::paths;
use crate::harness::pool;
use crate::harness::program::{self, BuildFailed, Define, SignatureMismatch};
use crate::harness::timing::{self, FasterThanPossible, Target, TimedCallWrong, Timing};
use crate::lesson::{with_overrides, Ctx, Lesson, OclLesson};
use crate::prepared::{self, Prepared};

use super::shapes::timing_launch;
use super::words::with_defines;
use super::{
    is_starter, traced, verify, CaseReport, FailKind, Failure, Options, Progress, Verdict,
};

/// Sorts an error from the harness into a failure category.
pub fn classify(e: anyhow::Error) -> Failure {
    if let Some(w) = e.downcast_ref::<TimedCallWrong>() {
        return Failure::new(FailKind::Wrong, w.to_string());
    }
    if let Some(f) = e.downcast_ref::<FasterThanPossible>() {
        return Failure::new(FailKind::TooFast, f.to_string());
    }
    if let Some(b) = e.downcast_ref::<BuildFailed>() {
        return Failure::new(FailKind::Build, b.to_string());
    }
    if let Some(s) = e.downcast_ref::<SignatureMismatch>() {
        return Failure::new(FailKind::Signature, s.to_string());
    }
    Failure::new(FailKind::Runtime, format!("{e:#}"))
}

/// `opts` with the shape an OpenCL grading times, and at which the simulator counts the
/// technique, drawn once (`super::worker` grades and reviews with them): near the asked size,
/// made of whole work-groups of the device's launch, so that the simulator counts at the
/// very shape the device times (`super::looks`; it runs two work-groups and scales them,
/// exact only where no group is cut). A grading that times nothing (`lab grade`) counts at a
/// shape drawn the same way, never the asked size itself: at the asked size (256³ or 1024³,
/// cubes of a power of two) a kernel that keeps its technique for such shapes would be
/// credited with it. A shape given by whoever compares two gradings is kept as it is.
pub(super) fn with_shape_drawn(ocl: &OclLesson, opts: &Options) -> Options {
    let mut drawn = opts.drawing_the_timed_shape();
    if let Some((own, gpu)) = super::looks::own_device(ocl, &drawn) {
        let shape = match (drawn.timed_shape, drawn.time) {
            (Some(s), _) if opts.timed_shape.is_none() => Some(s),
            (None, None) => Some(timing::drawn_shape(drawn.asked(gpu))),
            _ => None,
        };
        if let Some(shape) = shape {
            drawn.timed_shape = Some(super::shapes::whole_groups_at_or_above(
                ocl,
                &own.defines,
                shape,
            ));
        }
    }
    drawn
}

pub(super) fn grade(
    lesson: &Lesson,
    ocl: &OclLesson,
    file: &Path,
    opts: &Options,
    progress: Progress,
) -> Verdict {
    let mut verdict = Verdict::new(lesson, file);
    if let Err(e) = grade_into(&mut verdict, lesson, ocl, file, opts, progress) {
        verdict.failure = Some(classify(e));
    }
    verdict
}

fn grade_into(
    verdict: &mut Verdict,
    lesson: &Lesson,
    ocl: &OclLesson,
    file: &Path,
    opts: &Options,
    progress: Progress,
) -> Result<()> {
    let bytes = std::fs::read(file).with_context(|| format!("reading {}", paths::display(file)))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) if !t.trim().is_empty() => t,
        Ok(_) => {
            verdict.failure = Some(Failure::new(
                FailKind::Build,
                format!(
                    "{} is empty: the lesson expects {}\n  {}",
                    paths::display(file),
                    match ocl.host.kernels.len() {
                        0 => "a kernel",
                        _ => "these kernels",
                    },
                    ocl.declarations()
                ),
            ));
            return Ok(());
        }
        Err(_) => {
            verdict.failure = Some(Failure::new(
                FailKind::Build,
                format!(
                    "{} is not a text file (it is not valid UTF-8): the lesson expects OpenCL C source",
                    paths::display(file)
                ),
            ));
            return Ok(());
        }
    };
    let starter = is_starter(&text).then_some(lesson.hint);
    let gpu = Gpu::open(opts.device.as_deref())?;
    verdict.device = Some(gpu.info.name.clone());
    let prelude = ocl.prelude(&gpu);
    verdict
        .notes
        .extend(prelude.as_ref().map(|p| p.note.clone()));
    if let Some(version) = &opts.cl_std {
        verdict.notes.push(format!(
            "built as OpenCL C {version} ({})",
            program::cl_std_option(version)
        ));
    }
    if let Some(refused) = super::self_contained::opencl(&text, lesson.unit.counted_by()) {
        verdict.failure = Some(Failure::new(
            FailKind::NotSelfContained,
            refused.message(&paths::display(file)),
        ));
        return Ok(());
    }
    if let Err(why) = ocl.supports(&gpu.info) {
        verdict.failure = Some(Failure::new(FailKind::Unsupported, format!("{why:#}")));
        return Ok(());
    }
    let ctx = Ctx {
        info: &gpu.info,
        course: &opts.course,
    };
    let defines = match prepared::defines(ocl, &ctx, None, &opts.defines) {
        Ok(d) => d,
        Err(why) => {
            verdict.failure = Some(Failure::new(FailKind::Setup, why));
            return Ok(());
        }
    };
    // The device's own defines first, then the lesson's other sets (asymmetric tiles), unless
    // the grading was asked for particular defines.
    let mut sets = vec![defines.clone()];
    // Sets from this index on are the tuner's combinations, checked at small shapes only.
    let mut small_from = usize::MAX;
    if opts.defines.is_empty() {
        for extra in ocl.define_sets {
            let d = with_overrides(defines.clone(), &crate::lesson::defines(extra));
            if let Err(why) = (ocl.check_defines)(&d) {
                anyhow::bail!(
                    "lesson {}'s define set {extra:?} is not legal: {why}",
                    lesson.key
                );
            }
            sets.push(d);
        }
        if let Some(knobs) = ocl.knobs {
            // Every combination the tuner may choose on this device, after the fixed sets
            // (whose failures name the mistake they were chosen to expose), each at the
            // lesson's small shapes: the grade of a file does not depend on a draw.
            for combo in knobs(&gpu.info) {
                let d = with_overrides(defines.clone(), &combo);
                if !sets.contains(&d) {
                    sets.push(d);
                    small_from = small_from.min(sets.len() - 1);
                }
            }
        }
    }
    // Inputs no kernel can predict: the course's seed mixed with one drawn for this grading.
    let secret = timing::secret_seed();
    // The program of the device's own defines, kept for the timing, and its small shapes.
    let mut own = None;
    let mut own_small = Vec::new();
    let mut built: Vec<Option<Result<Prepared>>> = Vec::new();
    // Sets the compiler sees alike are one build (lesson 11's counts of parts of K): each set
    // runs on the program of the first set built the same way.
    let options = opts.build_options(ocl);
    let keys: Vec<String> = (sets.iter())
        .map(|d| program::options(&ocl.compiled(d), &options))
        .collect();
    let first_alike = |n: usize| keys.iter().position(|k| *k == keys[n]).unwrap_or(n);
    let mut kept: Vec<Option<Rc<Prepared>>> = Vec::new();
    kept.resize_with(sets.len(), || None);
    // Which sets a batch of builds has covered (the first is built alone).
    let mut batched = vec![false; sets.len()];
    // The asked size as the lesson takes it: its C is checked whole, every element, where
    // larger products are checked at thousands of drawn points (a kernel wrong in one element
    // at the size its student runs fails every time, not on the days a point lands on it),
    // up to the scoreboard's size on a GPU ([`WHOLE_AT_MOST`]).
    let asked_shape =
        timing_launch(ocl, opts.asked(gpu.info.is_gpu()), &defines).map(|(s, _)| s)?;
    for (n, set) in sets.iter().enumerate() {
        let shapes = match &opts.shapes {
            Some(s) => s.clone(),
            None => match (ocl.shapes)(set) {
                Ok(mut s) => {
                    // With the device's own defines, one more shape drawn for this grading
                    // alone (a kernel right only at the lesson's published shapes fails it),
                    // then the asked size and the round and thin shapes near it; with every
                    // other set, each knob combination among them, its small shapes and the
                    // deep thin ones (a combination that drops its last k-steps past some K
                    // is wrong there, and they cost little). All as the lesson accepts them
                    // (whole tiles where it needs them).
                    let near = match n {
                        0 => {
                            s.push(drawn_case(ocl, set, secret)?);
                            super::shapes::around_asked(
                                opts.asked(gpu.info.is_gpu()),
                                gpu.info.is_gpu(),
                                secret,
                            )
                        }
                        _ => super::shapes::thin(secret)[..2].to_vec(),
                    };
                    if n >= small_from {
                        s.retain(|x| x.m * x.n * x.k <= KNOB_SHAPE_MADS);
                    }
                    for x in near {
                        let shape = timing_launch(ocl, x, set)?.0;
                        if !s.contains(&shape) {
                            s.push(shape);
                        }
                    }
                    s
                }
                Err(why) => {
                    verdict.failure = Some(Failure::new(FailKind::Setup, why));
                    return Ok(());
                }
            },
        };
        let with = if n == 0 {
            String::new()
        } else {
            program::line(set)
        };
        progress(format!("building {} {with}", paths::display(file)));
        let prepared = match (kept[first_alike(n)].clone(), built.get_mut(n)) {
            (Some(p), _) => p,
            (None, Some(b)) if b.is_some() => Rc::new(b.take().expect("checked")?),
            (None, _) => Rc::new(Prepared::build(&gpu, ocl, file, &text, set, &options)?),
        };
        kept[n] = Some(prepared.clone());
        let kernel = &prepared.kernel;
        if n == 0 {
            own_small = (shapes.iter())
                .filter(|x| **x != asked_shape && x.m * x.n * x.k <= WIDE_AT_MOST)
                .copied()
                .collect();
        }
        // Every shape with uniform values, as always, and one small shape, drawn from the
        // secret seed, once more with values of wide dynamic range: checks are only added, so
        // nothing a uniform case rejects can pass, and no range of values is only timed.
        let small: Vec<usize> = (0..shapes.len())
            .filter(|&c| shapes[c].m * shapes[c].n * shapes[c].k <= WIDE_AT_MOST)
            .collect();
        let widened =
            (!small.is_empty()).then(|| small[((secret >> 11) % small.len() as u64) as usize]);
        let runs = (shapes.iter().enumerate())
            .flat_map(|(case, &shape)| {
                std::iter::once((case, shape, false))
                    .chain((widened == Some(case)).then_some((case, shape, true)))
            })
            .collect::<Vec<_>>();
        for (case, shape, wide) in runs {
            let launch: Launch = match (ocl.launch)(shape, set) {
                Ok(l) => l,
                Err(why) => {
                    verdict.failure = Some(Failure::new(FailKind::Setup, why));
                    return Ok(());
                }
            };
            progress(format!(
                "running {shape} {with} (global {:?}, local {:?})",
                launch.global, launch.local
            ));
            let seed = opts.problem_seed(case) ^ secret;
            let p = match wide {
                true => Problem::random(shape, seed).widened(seed.rotate_left(29)),
                false => Problem::random(shape, seed),
            };
            let out = (ocl.host.run)(&gpu, kernel, &p, &launch, set)?;
            // A lesson's own judgement of accuracy replaces the generic message, or fails a
            // result the per-element allowance let through.
            let whole = shape.m * shape.n * shape.k <= WHOLE_AT_MOST;
            let verified = match n == 0 && shape == asked_shape && !wide && whole {
                true => super::verify_whole(&p, &out, starter),
                false => verify(&p, &out, starter),
            };
            let failed = matches!(&verified, Err(f) if f.kind == FailKind::Wrong);
            let verified = match ocl.host.accuracy.and_then(|a| a(&p, &out, failed)) {
                Some(why) if failed || verified.is_ok() => {
                    Err(Failure::new(FailKind::Wrong, format!("{shape}: {why}")))
                }
                _ => verified,
            };
            let verified = traced(verified, &out, &format!("{shape}: "));
            match verified {
                // The shape is listed once, for its uniform values.
                Ok(_) if wide => {}
                Ok(cmp) => verdict.cases.push(CaseReport {
                    shape,
                    with: with.clone(),
                    max_rel_err: cmp.max_rel_err,
                    ms: out.kernel_ms,
                    checked: cmp.checked,
                }),
                Err(mut f) => {
                    if wide && f.kind == FailKind::Wrong {
                        f.message.push_str(&format!("\n{WIDE}"));
                    }
                    if !with.is_empty() && f.kind != FailKind::NotStarted {
                        f.message = format!("with -D {}: {}", with.replace(' ', " -D "), f.message);
                    }
                    verdict.failure = Some(f);
                    return Ok(());
                }
            }
        }
        if n == 0 {
            own = Some(prepared);
        }
        // The next sets are built once this one passed (a file that is wrong fails before
        // building more), side by side on the host's cores: the lesson's fixed sets, then
        // every combination the tuner may choose.
        let next = n + 1;
        if next < sets.len() && !batched[next] {
            let end = if next < small_from {
                small_from.min(sets.len())
            } else {
                sets.len()
            };
            batched[next..end].fill(true);
            // Only the first of the sets built alike.
            let first: Vec<usize> = (next..end).filter(|&i| first_alike(i) == i).collect();
            progress(format!(
                "building {} with {} more define sets ({} builds)",
                paths::display(file),
                end - next,
                first.len()
            ));
            built.resize_with(sets.len(), || None);
            let to_build: Vec<Vec<Define>> = first.iter().map(|&i| sets[i].clone()).collect();
            for (i, p) in first
                .into_iter()
                .zip(build_all(&gpu, ocl, file, &text, &to_build, &options))
            {
                built[i] = Some(p);
            }
        }
    }
    if own.is_some() {
        unoptimised(
            verdict,
            &gpu,
            ocl,
            file,
            &text,
            &defines,
            &[&[asked_shape][..], &own_small].concat(),
            opts,
            progress,
        )?;
        if !verdict.passed() {
            return Ok(());
        }
        let shapes = [&[asked_shape][..], own_small.get(..1).unwrap_or_default()].concat();
        super::counterfactual::check(
            verdict,
            &gpu,
            ocl,
            (file, &text),
            &defines,
            &shapes,
            opts,
            progress,
        )?;
        if !verdict.passed() {
            return Ok(());
        }
        // A grading (not a lesson program's check at its one shape): a problem past every
        // other on every side, on a window of its work-groups.
        if opts.shapes.is_none() {
            super::window::check(
                verdict,
                &gpu,
                ocl,
                (file, &text),
                &defines,
                &options,
                starter,
                progress,
            )?;
            if !verdict.passed() {
                return Ok(());
            }
        }
    }
    if let (Some(asked), Some(own)) = (opts.time, own) {
        let kernel = &own.kernel;
        let asked = match opts.timed_shape {
            Some(shared) => shared,
            None if opts.time_exactly => asked,
            None => timing::drawn_shape(asked),
        };
        // Lessons limited to whole tiles are timed at the nearest size they accept.
        let (shape, launch) = timing_launch(ocl, asked, &defines)?;
        let reference = match opts.beside {
            true => {
                progress(format!("building the reference to time beside {shape}"));
                reference_kernel(&gpu, lesson, ocl, opts, &defines)
                    .map_err(|e| verdict.not_beside(format!("{e:#}")))
                    .ok()
            }
            false => None,
        };
        progress(format!("timing {shape}"));
        let t = match &reference {
            Some(r) => {
                let target = Target::device(&gpu.info);
                let run = |k: &program::Kernels, p: &Problem| {
                    (ocl.host.run)(&gpu, k, p, &launch, &defines)
                };
                match timing::time_beside(
                    shape,
                    &target,
                    |f| run(kernel, f.problem),
                    |f| run(&r.kernel, f.problem),
                    |p, out| {
                        verify(p, out, starter)
                            .map(|_| ())
                            .map_err(|f| super::words::failure_text(&f))
                    },
                ) {
                    Ok((t, beside)) => {
                        verdict.beside = Some(beside);
                        t
                    }
                    Err(e) => match e.downcast_ref::<timing::BesideFailed>() {
                        Some(b) => {
                            verdict.not_beside(b);
                            time(&gpu, ocl, kernel, shape, &launch, &defines, starter)?
                        }
                        None => return Err(e),
                    },
                }
            }
            None => time(&gpu, ocl, kernel, shape, &launch, &defines, starter)?,
        };
        if let Some(note) = timing::clock_note(&t, &gpu.info.name, &gpu.info.driver) {
            verdict.notes.push(note);
        }
        if let Some(why) = prelude.as_ref().and_then(|p| p.speed_unchecked.clone()) {
            verdict.not_checked(super::Part::Speed, why);
        }
        verdict.timing = Some((shape, t));
    }
    Ok(())
}

/// The asked size once more, then the small problems the device's own defines were checked
/// at (`shapes`, the asked size first), with those defines, the kernel built unoptimised
/// (`-cl-opt-disable`). A value the kernel uses before it sets it (an accumulator without
/// `= 0.0f`, a private array partly filled, or read past its end) is undefined, and an
/// optimiser may put any value there: often the one that makes C right, on every size and in
/// every work-group. Unoptimised, it is whatever the memory held. No kernel can tell this
/// build from the others (the names compilers predefine are refused), and the run covers
/// every work-group at the size users run, where the simulator can afford two, and at small
/// problems, where the simulator's checker of uninitialised values costs four times the rest
/// of its run.
#[allow(clippy::too_many_arguments)]
fn unoptimised(
    verdict: &mut Verdict,
    gpu: &Gpu,
    ocl: &OclLesson,
    file: &Path,
    text: &str,
    defines: &[Define],
    shapes: &[Shape],
    opts: &Options,
    progress: Progress,
) -> Result<()> {
    let options = format!("{} {UNOPTIMISED}", opts.build_options(ocl));
    let options = options.trim_start();
    progress(format!("building {} unoptimised", paths::display(file)));
    // The prelude too: lesson 11's `async_copy16` is the prelude's.
    let source = internal_inline(&ocl.source(gpu, text));
    let prepared = match Prepared::build_as(gpu, ocl, file, &source, defines, options) {
        Ok(p) => p,
        Err(e) => {
            verdict.notes.push(format!(
                "not checked built without optimisation ({UNOPTIMISED}): the device could not build it ({e:#})"
            ));
            return Ok(());
        }
    };
    let seed = timing::secret_seed().rotate_left(41);
    let wrong = first_wrong(gpu, ocl, &prepared, defines, shapes, seed, &mut |shape| {
        // What a grading stopped here says: built optimised, the kernel ran right at this size.
        progress(format!(
            "running {shape} with the kernel built unoptimised ({UNOPTIMISED}), where built optimised it ran right: a loop an optimiser removes (its result unused, or known beforehand) runs in full here"
        ))
    })?;
    if let Some((i, f)) = wrong {
        let with = with_defines(defines);
        let at = match i {
            0 => "at the size this grading was asked for",
            _ => "at a small problem",
        };
        verdict.failure = Some(Failure::new(
            FailKind::Undefined,
            format!(
                "built without optimisation ({UNOPTIMISED}){with}, your kernel gives a wrong C {at}, where built as the device builds it, it gave the right one: {}\nThe optimiser resolved something undefined in your favour: most often a value used before anything was stored in it, never initialised (an accumulator declared without `= 0.0f`, a private array only partly filled, or read past its end), which unoptimised holds whatever the memory held; or work-items that read what others write with no barrier between, whose order the unoptimised build changes.",
                f.message
            ),
        ));
    }
    Ok(())
}

/// Runs a built kernel on the device at `shapes` in turn, on inputs drawn from `seed`, every
/// element of C compared where the product is small: the first shape whose C is wrong (its
/// index) and the failure, or `None`. `starting` is told each shape before it runs.
pub(super) fn first_wrong(
    gpu: &Gpu,
    ocl: &OclLesson,
    prepared: &Prepared,
    defines: &[Define],
    shapes: &[Shape],
    seed: u64,
    starting: &mut dyn FnMut(Shape),
) -> Result<Option<(usize, Failure)>> {
    for (i, &shape) in shapes.iter().enumerate() {
        let launch = (ocl.launch)(shape, defines).map_err(anyhow::Error::msg)?;
        starting(shape);
        let p = Problem::random(shape, seed);
        let out = (ocl.host.run)(gpu, &prepared.kernel, &p, &launch, defines)?;
        let verified = match shape.m * shape.n * shape.k <= WHOLE_AT_MOST {
            true => super::verify_whole(&p, &out, None),
            false => verify(&p, &out, None),
        };
        if let Err(f) = verified {
            return Ok(Some((i, f)));
        }
    }
    Ok(None)
}

/// The build option of [`unoptimised`].
const UNOPTIMISED: &str = "-cl-opt-disable";

/// `text` (the prelude and the kernel) with every `inline` of its code that has no storage
/// class before it made `static inline`, on the same line. OpenCL C's `inline` is C99's: a
/// definition for inlining only, and a call the compiler does not inline needs an external
/// definition nobody wrote. Unoptimised,
/// nothing is inlined, and NVIDIA's compiler then fails ("Unresolved extern function"), so the
/// unoptimised run could not check lesson 11 on an H200 (research/grading-h100/, call 10).
/// `static` changes only the function's linkage, which no kernel can observe, and defines no
/// name that a kernel could test (as `-D inline=` would).
fn internal_inline(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let (mut i, mut from) = (0, 0);
    let mut last_word: &str = "";
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |n| i + n + 4);
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &text[start..i];
                if word == "inline" && !matches!(last_word, "static" | "extern") {
                    out.push_str(&text[from..start]);
                    out.push_str("static ");
                    from = start;
                }
                last_word = word;
            }
            c if c.is_ascii_digit() => {
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
                {
                    i += 1;
                }
                last_word = "";
            }
            c => {
                if !c.is_ascii_whitespace() {
                    last_word = "";
                }
                i += 1;
            }
        }
    }
    out.push_str(&text[from.min(text.len())..]);
    out
}

/// The course's reference answer for `lesson`, built as the code under test is (the same
/// prelude, defines and build options), to be timed beside it.
fn reference_kernel(
    gpu: &Gpu,
    lesson: &Lesson,
    ocl: &OclLesson,
    opts: &Options,
    defines: &[Define],
) -> Result<Prepared> {
    let file = opts.course.solutions().join(lesson.file_name());
    Prepared::read(gpu, ocl, &file, defines, &opts.build_options(ocl))
}

/// Builds the programs of `sets` on as many threads as the host has cores (at most four):
/// each set's build, in order.
fn build_all(
    gpu: &Gpu,
    ocl: &OclLesson,
    file: &Path,
    text: &str,
    sets: &[Vec<Define>],
    options: &str,
) -> Vec<Result<Prepared>> {
    pool::side_by_side(sets, 4, |set| {
        Prepared::build(gpu, ocl, file, text, set, options)
    })
}

/// The largest shape (in multiply-adds) checked once more with values of wide dynamic range.
const WIDE_AT_MOST: usize = 1 << 22;

/// The largest asked size whose C is compared whole: the scoreboard's 1024³ on a GPU, whose
/// product in double takes the host about a second; 8192³ would take it many minutes, and is
/// compared at drawn points.
const WHOLE_AT_MOST: usize = 1 << 30;

/// What a wrong result on inputs of wide dynamic range says about them.
const WIDE: &str = "These inputs had wide dynamic range: each row of A and each column of B scaled by a power of two from 2^-20 to 2^20 (every element of C is then as easy to get right as with values in [-1, 1)).";

/// The largest product (multiply-adds) a knob combination is checked at: the lesson's shapes
/// up to this size show every path of the combination, and hundreds of combinations stay quick.
const KNOB_SHAPE_MADS: usize = 1 << 22;

/// Times a built kernel with the course's one protocol: every call on fresh inputs through the
/// lesson's host code, each call's C checked as the graded problems are.
pub fn time(
    gpu: &Gpu,
    ocl: &OclLesson,
    kernel: &program::Kernels,
    shape: Shape,
    launch: &Launch,
    defines: &[Define],
    starter: Option<&str>,
) -> Result<Timing> {
    time_within(
        gpu,
        ocl,
        kernel,
        shape,
        launch,
        defines,
        starter,
        timing::BUDGET_MS,
    )
}

/// [`time`] within another budget than the course's (the tuner's time per candidate).
#[allow(clippy::too_many_arguments)]
pub fn time_within(
    gpu: &Gpu,
    ocl: &OclLesson,
    kernel: &program::Kernels,
    shape: Shape,
    launch: &Launch,
    defines: &[Define],
    starter: Option<&str>,
    budget_ms: f64,
) -> Result<Timing> {
    let target = Target {
        budget_ms,
        ..Target::device(&gpu.info)
    };
    timing::time_checked(
        shape,
        &target,
        |p| (ocl.host.run)(gpu, kernel, p, launch, defines),
        |p, out| {
            verify(p, out, starter)
                .map(|_| ())
                .map_err(|f| super::words::failure_text(&f))
        },
    )
}

/// A shape drawn from `secret`, each side between 17 and 144 (sometimes 128), grown to the nearest one the
/// lesson accepts with `defines` (whole tiles where it needs them).
fn drawn_case(ocl: &OclLesson, defines: &[Define], secret: u64) -> Result<Shape> {
    let mut rng = crate::harness::matrix::Rng::new(secret ^ 0x5eed_5a9e);
    let mut side = || super::shapes::drawn_side(&mut rng, 17, 144);
    let asked = Shape::new(side(), side(), side());
    Ok(timing_launch(ocl, asked, defines)?.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::child::Scratch;
    use crate::harness::paths::Course;

    #[test]
    fn every_inline_without_a_storage_class_becomes_static_on_its_line() {
        let text = "// inline in a comment\ninline float f(float x) { return x; }\n\
                    static inline int g(void) { return 1; }\nextern inline int e(void);\n\
                    float inline h(void) { return 2.0f; } /* inline\n inline */ int inlined;\n\
                    #define INL inline\nconstant char* s = \"inline\";\n";
        let out = internal_inline(text);
        assert_eq!(
            out,
            "// inline in a comment\nstatic inline float f(float x) { return x; }\n\
             static inline int g(void) { return 1; }\nextern inline int e(void);\n\
             float static inline h(void) { return 2.0f; } /* inline\n inline */ int inlined;\n\
             #define INL static inline\nconstant char* s = \"inline\";\n"
        );
        assert_eq!(out.lines().count(), text.lines().count());
        let plain = "__kernel void k(__global float* c) { c[0] = 1.0f; }\n";
        assert_eq!(internal_inline(plain), plain);
    }

    /// One verdict builds the student's kernel once per define set it grades (sets the
    /// compiler sees alike, lesson 11's counts of parts, once for all), once more unoptimised
    /// with the device's own set ([`unoptimised`]), and the reference once to time beside it:
    /// the checks, the timing and the comparison all run the same builds.
    #[test]
    fn one_verdict_builds_each_define_set_once() {
        for key in ["06", "11"] {
            builds_each_define_set_once(key);
        }
    }

    fn builds_each_define_set_once(key: &str) {
        let course = Course::from_env();
        let lesson = crate::ladder::get(key);
        let ocl = lesson.ocl().unwrap();
        let dir = Scratch::new("builds").unwrap();
        let file = dir.dir.join(lesson.file_name());
        std::fs::copy(course.solutions().join(lesson.file_name()), &file).unwrap();
        let mut opts = Options::new(course, std::path::PathBuf::from("unused"));
        opts.time = Some(Shape::square(64));
        opts.beside = true;
        opts.simulate = false;
        opts.technique = false;
        let v = grade(lesson, ocl, &file, &opts, &mut |_| {});
        assert!(v.failure.is_none(), "{:?}", v.failure);
        assert!(
            v.timing.is_some() && v.beside.is_some(),
            "timed beside the reference"
        );
        let builds = crate::prepared::builds_of(&file);
        // The sets graded: the device's own, the fixed ones, the tuner's.
        let gpu = Gpu::open(None).unwrap();
        let ctx = Ctx {
            info: &gpu.info,
            course: &opts.course,
        };
        let own = prepared::defines(ocl, &ctx, None, &[]).unwrap();
        let sets: Vec<Vec<Define>> = std::iter::once(own.clone())
            .chain(
                ocl.define_sets
                    .iter()
                    .map(|d| with_overrides(own.clone(), &crate::lesson::defines(d))),
            )
            .chain(ocl.knobs.map_or(vec![], |k| k(&gpu.info)))
            .map(|d| ocl.compiled(&with_overrides(own.clone(), &d)))
            .collect();
        let mut alike = sets.clone();
        alike.sort_by_key(|d| program::options(d, ""));
        alike.dedup();
        if key == "11" {
            assert!(alike.len() < sets.len(), "counts of parts built alike");
        }
        assert_eq!(
            builds.len(),
            2 + alike.len(),
            "one build per define set the compiler sees, and the own set's unoptimised and for a window of a launch: {builds:?}"
        );
        assert_eq!(
            (builds.iter())
                .filter(|(o, _)| o.ends_with(" (a window)"))
                .count(),
            1,
            "{builds:?}"
        );
        assert!(builds.iter().all(|(_, n)| *n == 1), "{builds:?}");
        let unoptimised: Vec<_> = (builds.iter())
            .filter(|(o, _)| o.contains(UNOPTIMISED))
            .collect();
        assert_eq!(unoptimised.len(), 1, "{builds:?}");
        let own = unoptimised[0].0.replace(&format!(" {UNOPTIMISED}"), "");
        assert!(
            builds.iter().any(|(o, _)| *o == own),
            "the unoptimised build is of a set the verdict built optimised too: {builds:?}"
        );
    }
}
