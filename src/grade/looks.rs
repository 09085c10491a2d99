//! The looks at the technique with the defines a device takes: at the size a grading was asked
//! for with the grading device's own, at a small problem of a few of its work-groups, every
//! one run, and at one work-group of each other kind of device's tiles ([`super::kinds`]).
//! The simulator runs them beside the declared sets' looks ([`super::simulate`]). Also the
//! smallest problem the sanitizer runs with the device's own defines ([`sanitized_shape`]), and
//! the probe each look runs ([`probe_of`], [`asked_probe`], [`drawn_of`]).

use crate::harness::device::Gpu;
use crate::harness::matrix::Shape;
use crate::lesson::OclLesson;

use super::request::Look;
use super::Options;
use crate::lesson::Probe;

/// Whether the looks with the device's own defines ([`Look::Own`]) run the build the device
/// makes. Not where the sanitizer runs a stand-in for part of the kernel (lesson 09's image):
/// Oclgrind 21.10 builds the stand-in's program optimised but cannot create its kernel.
pub(super) fn own_optimised(lesson: &crate::lesson::Lesson) -> bool {
    lesson.ocl().is_some_and(|o| o.sanitize.stand_in.is_none())
}

/// A count with a set of defines the lesson takes on some device, of whole work-groups: at
/// the asked size or a small problem with the device's own defines, or at one work-group of
/// another kind of device's tiles. Its shape as the launch takes it, the defines, how many
/// work-groups that launch has, whether every one of them runs (else the simulator runs the
/// first and the last, and the counts are scaled: all are alike at such a size), and how the
/// verdict names it.
pub(super) struct AskedLook {
    pub(super) shape: Shape,
    pub(super) defines: Vec<crate::harness::program::Define>,
    pub(super) groups: usize,
    pub(super) every_group: bool,
    /// The multiply-adds its work-groups simulate.
    pub(super) mads: f64,
    pub(super) at: String,
    /// With this device's own defines (not another kind of device's): a look it cannot run
    /// is the kernel's to answer for, not a note.
    pub(super) own: bool,
}

/// The most multiply-adds the asked size's look simulates.
const ASKED_MADS_AT_MOST: f64 = (1u64 << 23) as f64;

/// The most multiply-adds the look of one kind of device's tiles simulates.
const KIND_MADS_AT_MOST: f64 = (1u64 << 22) as f64;

/// The looks with the defines of each device: the asked size's with this device's own, then a
/// small problem of this device's tiles drawn for the grading, every work-group run, then
/// one work-group of the tiles each other kind of device takes ([`super::kinds`]) where an
/// earlier look does not count those defines already. The asked size's look runs its first
/// and last work-group only, which any kernel can tell by its group's number; the small
/// problem runs every group, so that a technique kept in those two alone is counted where it
/// is missing.
/// What cannot be counted becomes a note. `own_missing`: why there is no small problem of
/// this device's own defines, every work-group run (the one the sanitizer runs too).
pub(super) fn asked_looks(
    ocl: &OclLesson,
    opts: &Options,
    notes: &mut Vec<String>,
    own_missing: &mut Option<String>,
) -> Vec<AskedLook> {
    let several = !ocl.host.kernels.is_empty();
    if several {
        let why = "the lesson runs several kernels per multiplication, whose work-groups differ";
        notes.push(format!("the technique was not counted at the asked size nor with other devices' defines: {why}; its declared define sets and this device's own are counted whole"));
    }
    let gpu = match Gpu::open(opts.device.as_deref()) {
        Ok(g) => g,
        Err(e) => {
            notes.push(format!(
                "the technique was not counted at the asked size: {e:#}"
            ));
            *own_missing = Some(format!("{e:#}"));
            return Vec::new();
        }
    };
    let sorted = |d: &[crate::harness::program::Define]| {
        let mut d = d.to_vec();
        d.sort_by(|a, b| a.name.cmp(&b.name));
        d
    };
    let mut seen = Vec::new();
    let mut looks = Vec::new();
    let ctx = crate::lesson::Ctx {
        info: &gpu.info,
        course: &opts.course,
    };
    let own = crate::prepared::defines(ocl, &ctx, None, &opts.defines);
    if let Err(why) = &own {
        *own_missing = Some(why.clone());
    }
    if several {
        return match own.and_then(|d| several_look(ocl, d)) {
            Ok(a) => vec![a],
            Err(why) => {
                notes.push(format!(
                    "the technique was not counted with the defines the lesson takes on this device: {why}"
                ));
                *own_missing = Some(why);
                Vec::new()
            }
        };
    }
    // Where this grading times, the technique is counted at the very shape it times (drawn
    // for the grading, no kernel knows which): a kernel that keeps its
    // technique for the shapes it expects counted (cubes, powers of two, the asked size) times
    // without it, and is counted so. A grading that times nothing counts at a shape drawn
    // near the asked size the same way (`super::ocl::with_shape_drawn`). Where that shape
    // cannot be counted, the asked size is.
    let asked = opts.asked(gpu.info.is_gpu());
    let at_timed = |d: Vec<crate::harness::program::Define>| match opts.timed_shape {
        Some(timed) if timed != asked => asked_look(ocl, timed, d.clone())
            .map(|mut a| {
                a.at = match opts.time {
                    Some(_) => "the shape this grading times",
                    None => "a shape drawn near the asked size for this grading",
                }
                .to_string();
                a.at += ", with the device's own defines and launch";
                a
            })
            .or_else(|_| asked_look(ocl, asked, d)),
        _ => asked_look(ocl, asked, d),
    };
    match own.clone().and_then(at_timed) {
        Ok(a) => looks.push(a),
        Err(why) => notes.push(format!(
            "the technique was not counted at the asked size: {why}"
        )),
    }
    let kinds = super::kinds::kinds();
    let others = kinds.iter().map(|k| {
        let ctx = crate::lesson::Ctx {
            info: &k.info,
            course: &opts.course,
        };
        (
            k.label,
            false,
            crate::prepared::defines(ocl, &ctx, None, &[]),
        )
    });
    let own = own.map(|d| ("this device", true, Ok(d)));
    for (label, mine, defines) in own.into_iter().chain(others) {
        let Ok(defines) = defines else {
            continue;
        };
        if seen.contains(&sorted(&defines)) {
            continue;
        }
        seen.push(sorted(&defines));
        match small_look(ocl, defines, label, mine) {
            Ok(a) => looks.push(a),
            Err(why) => {
                notes.push(format!(
                    "the technique was not counted with the defines the lesson takes on {label}: {why}"
                ));
                if mine {
                    *own_missing = Some(why);
                }
            }
        }
    }
    looks
}

/// The options with the device's own defines, resolved as the device run resolves them.
pub(super) fn own_options(ocl: &OclLesson, opts: &Options) -> Option<Options> {
    own_device(ocl, opts).map(|(o, _)| o)
}

/// [`own_options`], and whether the device is a GPU.
pub(super) fn own_device(ocl: &OclLesson, opts: &Options) -> Option<(Options, bool)> {
    let gpu = Gpu::open(opts.device.as_deref()).ok()?;
    let ctx = crate::lesson::Ctx {
        info: &gpu.info,
        course: &opts.course,
    };
    let defines = crate::prepared::defines(ocl, &ctx, None, &opts.defines).ok()?;
    let options = Options {
        defines,
        ..opts.clone()
    };
    Some((options, gpu.info.is_gpu()))
}

/// The asked size's look, with the device's own `defines` (those the device run used and
/// the timing uses).
fn asked_look(
    ocl: &OclLesson,
    asked: Shape,
    defines: Vec<crate::harness::program::Define>,
) -> Result<AskedLook, String> {
    let (shape, launch) =
        super::shapes::timing_launch(ocl, asked, &defines).map_err(|e| format!("{e:#}"))?;
    // The counts are scaled as if every work-group did the first one's work, which holds
    // where the shape is whole tiles: the scoreboard's sizes (powers of two) are, for every
    // lesson's tiles. At a ragged size asked of `lab grade` the last work-group does less,
    // and the scaled counts are lower than the launch's by up to its share.
    let Some(groups) = work_groups(&launch)? else {
        return Err(format!(
            "{shape} is not whole work-groups of the device's launch"
        ));
    };
    // The scoreboard's sizes stay within it (two of lesson 06's 128×128 tiles at 256³ are
    // 2^23, about ten seconds for the simulator; a CPU's own 32×32 tiles a sixteenth of that);
    // a larger size asked of `lab grade` would take minutes.
    let mads = simulated_mads(shape, groups);
    if mads > ASKED_MADS_AT_MOST {
        return Err(format!(
            "two work-groups of {shape} are {mads:.1e} multiply-adds, more than the simulator runs in a grading ({ASKED_MADS_AT_MOST:.1e}); one work-group of the device's tiles is counted instead"
        ));
    }
    Ok(AskedLook {
        shape,
        defines,
        groups,
        every_group: false,
        mads,
        at: "the size this grading was asked for, with the device's own defines and launch".into(),
        own: true,
    })
}

/// How many work-groups `launch` has, or `None` where it is not whole work-groups of the size
/// it states; an error where it leaves that size open (its groups then follow the problem's
/// sides, not tiles: `Launch::work_group`).
fn work_groups(launch: &crate::harness::exec::Launch) -> Result<Option<usize>, String> {
    let Some(local) = launch.local else {
        return Err("the launch leaves the work-group's size open".into());
    };
    let whole = (0..2).all(|d| launch.global[d].is_multiple_of(local[d]));
    Ok(whole.then(|| (0..2).map(|d| launch.global[d] / local[d]).product()))
}

/// The multiply-adds the simulator runs at `shape` in quick mode: two of its `groups`
/// work-groups (the last and one drawn), each an equal share.
fn simulated_mads(shape: Shape, groups: usize) -> f64 {
    groups.min(2) as f64 * (shape.m * shape.n * shape.k) as f64 / groups.max(1) as f64
}

/// How many work-groups the launch of `defines` has at `shape`, where they are whole and end
/// where the shape ends (a side one longer needs more of them); `None` where not, or where
/// the launch does not take the shape; an error where it leaves the work-group open.
fn whole_groups(
    ocl: &OclLesson,
    defines: &[crate::harness::program::Define],
    shape: Shape,
) -> Option<Result<usize, String>> {
    let launch = (ocl.launch)(shape, defines).ok()?;
    let grown = Shape::new(shape.m + 1, shape.n + 1, shape.k);
    let tiles_end_here = (ocl.launch)(grown, defines)
        .map_or(true, |l| (0..2).all(|d| l.global[d] > launch.global[d]));
    work_groups(&launch)
        .map(|g| g.filter(|_| tiles_end_here))
        .transpose()
}

/// The k-step `defines` take (1 where the lesson names none).
fn k_step(ocl: &OclLesson, defines: &[crate::harness::program::Define]) -> Result<usize, String> {
    match &ocl.behaviour {
        Some(b) => Ok((b.k_step)(defines)?.max(1)),
        None => Ok(1),
    }
}

/// The defines the lesson takes on each other kind of device ([`super::kinds`]) where they
/// differ from `own` and from each other, with the square the count of that kind looks at
/// ([`small_look`]), for a lesson of one kernel: where lesson 11's unit changed is also run.
pub(super) fn other_kinds(
    ocl: &OclLesson,
    own: &[crate::harness::program::Define],
    course: &crate::harness::paths::Course,
) -> Vec<(&'static str, Vec<crate::harness::program::Define>, Shape)> {
    if !ocl.host.kernels.is_empty() {
        return Vec::new();
    }
    let sorted = |d: &[crate::harness::program::Define]| {
        let mut d = d.to_vec();
        d.sort_by(|a, b| a.name.cmp(&b.name));
        d
    };
    let mut seen = vec![sorted(own)];
    let mut out = Vec::new();
    for kind in super::kinds::kinds() {
        let ctx = crate::lesson::Ctx {
            info: &kind.info,
            course,
        };
        let Ok(defines) = crate::prepared::defines(ocl, &ctx, None, &[]) else {
            continue;
        };
        if seen.contains(&sorted(&defines)) {
            continue;
        }
        seen.push(sorted(&defines));
        if let Ok(look) = small_look(ocl, defines, kind.label, false) {
            out.push((kind.label, look.defines, look.shape));
        }
    }
    out
}

/// A look at a small problem of the tiles `defines` launch. Its square is the first side of
/// 32, 64, 128 and 256 that the launch takes and that a side one longer would need more
/// work-groups for (or that the lesson takes only in whole tiles), over the smallest K of 16,
/// 32 and 64 that is whole k-steps of the defines (the k-step itself where it is longer):
/// one work-group of a GPU's tiles, which the simulator runs in about a second. Another kind
/// of device's look is that square; this device's (`own`) is drawn near three of them side
/// by side ([`super::shapes::whole_tiles_near`]), over two k-steps or more, every work-group
/// run.
fn small_look(
    ocl: &OclLesson,
    defines: Vec<crate::harness::program::Define>,
    label: &str,
    own: bool,
) -> Result<AskedLook, String> {
    let whole = |shape: Shape| whole_groups(ocl, &defines, shape);
    // K in whole k-steps of these defines: a step padded with zeros would count its loads
    // against multiply-adds the product does not have.
    let step = k_step(ocl, &defines)?;
    let ks: Vec<usize> = [16, 32, 64, step]
        .into_iter()
        .filter(|k| k.is_multiple_of(step))
        .collect();
    let found = ks.iter().find_map(|&k| {
        [32, 64, 128, 256].iter().find_map(|&side| {
            let shape = Shape::new(side, side, k);
            Some((shape, whole(shape)?))
        })
    });
    let Some((shape, groups)) = found else {
        return Err(
            "no square of side 32 to 256 (K = 16, 32, 64 or the k-step) is whole work-groups of its launch"
                .into(),
        );
    };
    let groups = groups?;
    // Another kind of device's tiles: that square, whose first and last work-group run (one,
    // for a large GPU's tiles, which cost the simulator seconds each).
    if !own {
        let mads = simulated_mads(shape, groups);
        if mads > KIND_MADS_AT_MOST {
            return Err(format!(
                "its work-groups at {shape} are {mads:.1e} multiply-adds, more than the simulator runs for one kind of device ({KIND_MADS_AT_MOST:.1e})"
            ));
        }
        return Ok(AskedLook {
            shape,
            defines,
            groups,
            every_group: false,
            mads,
            at: format!("with the defines the lesson takes on {label}"),
            own,
        });
    }
    // This device's: a problem of three or more work-groups, drawn for this grading near
    // three such squares side by side, every one run: one is neither the first nor the last,
    // and no kernel knows the shape.
    // K of two k-steps or more: what one step leaves for the next (a tile overwritten while
    // others still read it, a read before the barrier of the next step) happens only there.
    let side = shape.m;
    let base = Shape::new(side, 3 * side, shape.k.max(2 * step));
    let most = 2 * base.m * base.n * base.k;
    let groups_of = |s: Shape| {
        let fits = s.k.is_multiple_of(step)
            && s.k >= base.k
            && s.m * s.n * s.k <= most
            && ((s.m * s.n * s.k) as f64) <= KIND_MADS_AT_MOST;
        whole(s).and_then(Result::ok).filter(|&g| fits && g >= 3)
    };
    let enough = |s: Shape| groups_of(s).is_some();
    let seed = crate::harness::matrix::secret_seed().rotate_left(41);
    let found = (super::shapes::whole_tiles_near(base, &[], seed, enough))
        .or_else(|| enough(base).then_some(base))
        .and_then(|s| Some((s, groups_of(s)?)));
    let Some((shape, groups)) = found else {
        return Err(format!(
            "no problem of three or more work-groups of its {side}×{side} tiles near {base} is one its launch takes within {KIND_MADS_AT_MOST:.1e} multiply-adds"
        ));
    };
    let mads = (shape.m * shape.n * shape.k) as f64;
    Ok(AskedLook {
        shape,
        defines,
        groups,
        every_group: true,
        mads,
        at: format!("with the defines the lesson takes on {label}"),
        own: true,
    })
}

/// The look with the device's own `defines` of a lesson of several kernels: a problem drawn
/// for this grading near the one the lesson names ([`crate::lesson::Host::own_look`]), no
/// larger in any side, every work-group of every kernel run (no count is scaled from some
/// groups to all: the kernels' groups differ).
fn several_look(
    ocl: &OclLesson,
    defines: Vec<crate::harness::program::Define>,
) -> Result<AskedLook, String> {
    let Some(base) = ocl.host.own_look else {
        return Err("the lesson names no problem to count it at".into());
    };
    let base = base(&defines)?;
    let valid = |s: Shape| {
        s.m <= base.m && s.n <= base.n && s.k <= base.k && (ocl.launch)(s, &defines).is_ok()
    };
    let seed = crate::harness::matrix::secret_seed().rotate_left(41);
    let shape = super::shapes::whole_tiles_near(base, &[], seed, valid)
        .or_else(|| valid(base).then_some(base))
        .ok_or_else(|| format!("its launch takes no problem near {base}"))?;
    Ok(AskedLook {
        shape,
        defines,
        groups: 0,
        every_group: true,
        mads: (shape.m * shape.n * shape.k) as f64,
        at: "with the defines the lesson takes on this device".into(),
        own: true,
    })
}

/// The sanitizer's looks at the grading's largest launch (the vast thin shape drawn from
/// `secret`, [`super::shapes::thin`]) with the device's own `defines`, each with the
/// multiply-adds its two work-groups simulate: a drawn group and the last, and the edges (one
/// group in the last column of groups, one in the last row), at the drawn shape and again
/// where its last tiles are cut the two extreme ways ([`super::shapes::cut_both_ways`]): the
/// drawn sides leave a drawn part of the last tiles past the edge, which may be less than a
/// vector; the cuts leave all of it but one row and column, and one row and column, so that a
/// kernel reading past the edge in its last tiles is found in every grading. Or why none runs.
pub(super) fn vast_looks(
    ocl: &OclLesson,
    secret: u64,
    defines: Option<&[crate::harness::program::Define]>,
) -> Result<Vec<(Look, f64)>, String> {
    let defines = defines.ok_or("the device's own defines could not be resolved")?;
    let launch =
        |s: Shape| super::shapes::timing_launch(ocl, s, defines).map_err(|e| format!("{e:#}"));
    let vast = super::shapes::thin(secret)[2];
    let (shape, l) = launch(vast)?;
    if l.groups() < 3 {
        return Err(format!(
            "at {shape} it has fewer than three work-groups, whose edges the small problems run"
        ));
    }
    let two_of = |s: Shape, groups: usize| 2.0 * (s.m * s.n * s.k) as f64 / groups.max(1) as f64;
    let mut looks = vec![
        (Look::Vast(shape, false), two_of(shape, l.groups())),
        (Look::Vast(shape, true), two_of(shape, l.groups())),
    ];
    // A launch that takes only whole tiles rounds the cuts away: nothing more to see there.
    for cut in super::shapes::cut_both_ways(vast) {
        match launch(cut) {
            Ok((taken, l)) if taken == cut && cut != shape && l.groups() >= 3 => {
                looks.push((Look::Vast(cut, true), two_of(cut, l.groups())))
            }
            _ => {}
        }
    }
    Ok(looks)
}

/// The problem the sanitizer runs with the device's own `defines` ([`super::simulate`]):
/// the smallest that asks each of its questions. Three or four work-groups, every one run
/// (one is neither the first nor the last), over two or three k-steps (what one step leaves
/// for the next happens only from the second on); which of the few shapes of that size, drawn
/// for this grading from `seed`. The counts' problem of the same defines is larger (near
/// three squares of 32 or more, [`small_look`]), and the sanitizer's unoptimised run costs
/// about five times a count's per multiply-add: at this size it costs a fifth of that for
/// lesson 05's 16×16 tiles. `None` where no such problem of whole work-groups exists.
pub(super) fn sanitized_shape(
    ocl: &OclLesson,
    defines: &[crate::harness::program::Define],
    seed: u64,
) -> Option<Shape> {
    let found = sanitized_shapes(ocl, defines);
    (!found.is_empty()).then(|| found[(seed % found.len() as u64) as usize])
}

/// Every problem [`sanitized_shape`] draws from: the fewest multiply-adds with three or four
/// whole work-groups and two or three k-steps, and those within half as many again.
fn sanitized_shapes(ocl: &OclLesson, defines: &[crate::harness::program::Define]) -> Vec<Shape> {
    let Ok(step) = k_step(ocl, defines) else {
        return Vec::new();
    };
    let mut found: Vec<(usize, Shape)> = Vec::new();
    for k in [2 * step, 3 * step] {
        for m in (4..=512).step_by(4) {
            for n in (4..=512).step_by(4) {
                let s = Shape::new(m, n, k);
                let groups = whole_groups(ocl, defines, s).and_then(Result::ok);
                if groups.is_some_and(|g| (3..=4).contains(&g)) {
                    found.push((m * n * k, s));
                }
            }
        }
    }
    let Some(least) = found.iter().map(|f| f.0).min() else {
        return Vec::new();
    };
    (found.into_iter())
        .filter(|f| 2 * f.0 <= 3 * least)
        .map(|f| f.1)
        .collect()
}

/// The probe a look runs (for [`Look::Drawn`], the declared one it runs first).
pub(super) fn probe_of(ocl: &OclLesson, look: Look) -> Option<Probe> {
    match look {
        Look::Sanitize(i) | Look::Drawn(i, ..) | Look::Read(i) => {
            ocl.sanitize.probes.get(i).copied()
        }
        Look::Metrics(j, shape) => behaviour_probe(ocl, j).map(|p| Probe { shape, ..p }),
        // Its defines are the request's, not the lesson's declaration: [`asked_probe`].
        Look::Asked(..) | Look::Own(..) | Look::Vast(..) => None,
    }
}

/// The probe of a [`Look::Asked`]: the asked shape with the device's own defines. A probe's
/// defines are static (the lessons declare theirs); these few strings, made once per
/// grading, live as long as the process.
pub(super) fn asked_probe(shape: Shape, defines: &[crate::harness::program::Define]) -> Probe {
    let pairs: Vec<(&'static str, &'static str)> = defines
        .iter()
        .map(|d| -> (&'static str, &'static str) {
            (
                Box::leak(d.name.clone().into_boxed_str()),
                Box::leak(d.value.clone().into_boxed_str()),
            )
        })
        .collect();
    Probe {
        shape,
        defines: Box::leak(pairs.into_boxed_slice()),
    }
}

/// The behaviour's probe number `j`.
fn behaviour_probe(ocl: &OclLesson, j: usize) -> Option<Probe> {
    ocl.behaviour.as_ref()?.probes.get(j).copied()
}

/// The drawn probe a look runs second, if any: the drawn shape, with the drawn defines.
pub(super) fn drawn_of(ocl: &OclLesson, look: Look) -> Option<Probe> {
    match look {
        Look::Drawn(i, j, shape, _) => {
            let p = match j {
                Some(j) => behaviour_probe(ocl, j)?,
                None => ocl.sanitize.probes.get(i).copied()?,
            };
            Some(Probe { shape, ..p })
        }
        _ => None,
    }
}

/// The line the worker prints on stderr between a look's two runs, so that the parent can
/// tell the simulator's reports of the one from the other's: a word and the look's own
/// number, on a line of its own (the simulator echoes a kernel's lines indented, and no
/// kernel knows the number).
pub(super) fn second_run(look: Look) -> Option<String> {
    match look {
        Look::Drawn(.., mark) => Some(format!("\nLAB-SIMULATOR-SECOND-RUN {mark:016x}\n")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls `check` with each lesson's name and declaration, each kind of device, the defines
    /// the lesson takes there and their k-step.
    fn every_lesson_and_kind(
        mut check: impl FnMut(
            &str,
            &OclLesson,
            &super::super::kinds::Kind,
            Vec<crate::harness::program::Define>,
            usize,
        ),
    ) {
        let course = crate::harness::paths::Course::from_env();
        for lesson in crate::ladder::ALL {
            let Some(ocl) = lesson.ocl() else { continue };
            let Some(b) = &ocl.behaviour else { continue };
            for kind in super::super::kinds::kinds() {
                let ctx = crate::lesson::Ctx {
                    info: &kind.info,
                    course: &course,
                };
                let Ok(defines) = crate::prepared::defines(ocl, &ctx, None, &[]) else {
                    continue;
                };
                let name = lesson.name();
                let step = (b.k_step)(&defines).unwrap_or_else(|e| panic!("{name}: {e}"));
                check(&name, ocl, &kind, defines, step);
            }
        }
    }

    /// The largest launch's edges are asked at the drawn shape and where its last tiles are cut
    /// the two extreme ways, whatever is drawn, for every lesson whose launch takes a ragged
    /// side: there the last column and row of groups hold one column and row of the matrix, or
    /// all but one.
    #[test]
    fn the_largest_launchs_edges_are_also_asked_where_they_are_cut_both_ways() {
        every_lesson_and_kind(|name, ocl, kind, defines, _| {
            for secret in 0..8u64 {
                let Ok(looks) = vast_looks(ocl, secret, Some(&defines)) else {
                    return;
                };
                let shapes: Vec<(Shape, bool)> = (looks.iter())
                    .map(|(l, _)| match *l {
                        Look::Vast(s, edges) => (s, edges),
                        _ => panic!("{name}: {l:?}"),
                    })
                    .collect();
                let drawn = shapes[0].0;
                assert_eq!(&shapes[..2], &[(drawn, false), (drawn, true)], "{name}");
                // A launch of whole tiles only keeps no cut side: nothing more to ask there.
                if drawn.m.is_multiple_of(64) && drawn.n.is_multiple_of(64) {
                    assert_eq!(shapes.len(), 2, "{name} on {}: {shapes:?}", kind.label);
                    continue;
                }
                assert_eq!(shapes.len(), 4, "{name} on {}: {shapes:?}", kind.label);
                for ((cut, edges), rest) in shapes[2..].iter().zip([1, 255]) {
                    assert!(*edges, "{name}: {cut}");
                    assert_eq!((cut.m % 256, cut.n % 256), (rest, rest), "{name}: {cut}");
                }
                assert!(looks.iter().all(|(_, mads)| *mads > 0.0), "{name}");
            }
        });
    }

    /// Every kind of device's look runs whole k-steps of that kind's tiles: the lesson names
    /// its k-step in the defines every kind takes, and K is a multiple of it; the look drawn
    /// for the device's own defines runs two steps or more.
    #[test]
    fn every_kinds_look_is_whole_k_steps() {
        every_lesson_and_kind(|name, ocl, kind, defines, step| {
            if let Ok(look) = small_look(ocl, defines.clone(), kind.label, false) {
                assert!(look.shape.k.is_multiple_of(step), "{name}: {}", look.shape);
            }
            // This device's look, drawn anew each grading: always two k-steps or more,
            // every work-group run, whatever the draw.
            for _ in 0..16 {
                let Ok(look) = small_look(ocl, defines.clone(), kind.label, true) else {
                    break;
                };
                let k = look.shape.k;
                assert!(
                    k.is_multiple_of(step) && k >= 2 * step,
                    "{name}: {}",
                    look.shape
                );
                assert!(
                    look.every_group && look.groups >= 3,
                    "{name}: {}",
                    look.shape
                );
            }
        });
    }

    /// The sanitizer's problem with the device's own defines: whole work-groups, three or
    /// four, every k-step whole and two or more, whichever is drawn; never much larger than the
    /// counts' problem of the same defines (at most half as large again: the counts draw theirs
    /// near three squares, which may be the smallest problem itself).
    #[test]
    fn the_sanitizers_own_problem_is_small_and_asks_every_question() {
        every_lesson_and_kind(|name, ocl, kind, defines, step| {
            let Ok(counted) = small_look(ocl, defines.clone(), kind.label, true) else {
                return;
            };
            let all = sanitized_shapes(ocl, &defines);
            assert!(!all.is_empty(), "{name} on {}: no problem", kind.label);
            for s in all {
                let launch = (ocl.launch)(s, &defines).expect("the launch takes it");
                let groups = work_groups(&launch).unwrap().expect("whole work-groups");
                assert!((3..=4).contains(&groups), "{name}: {s}, {groups} groups");
                assert!(s.k.is_multiple_of(step) && s.k >= 2 * step, "{name}: {s}");
                let mads = |s: Shape| s.m * s.n * s.k;
                let (a, b) = (mads(s), mads(counted.shape));
                assert!(2 * a <= 3 * b, "{name}: {s} against {}", counted.shape);
            }
        });
    }
}
