//! The one tuner: for any lesson that declares its knobs (`OclLesson::knobs`, every combination
//! it may choose on a device), build each combination, check and time it with the course's
//! protocol, rank them, and keep the winner per lesson, device and shape (a cube, or a long,
//! flat or small-and-deep one) in `results/tuned.csv`, where the lesson's `sized` finds it
//! again. The tuner knows no lesson: the space, the legality of a combination and the launch
//! are the lesson's declarations; every combination it tries is one the grader checks each
//! time (`knobs`), or what the lesson already runs at that shape.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::harness::device::{DeviceInfo, Gpu};
use crate::harness::matrix::Shape;
use crate::harness::paths::{self, Course};
use crate::harness::program::{self, Define};
use crate::harness::record;
use crate::lesson::{with_overrides, Ctx, Lesson};
use crate::prepared::{self, Prepared};

/// A tuning winner: a row of `results/tuned.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TunedRow {
    pub date: String,
    pub device: String,
    pub driver: String,
    /// Its speed at the shape it was tuned at.
    pub gflops: f64,
    /// The shape it was tuned at, in the column `size`: the side of a cube (`4096`), else
    /// `MxNxK` (`8192x8192x1024`).
    #[serde(with = "shape_tag")]
    pub size: Shape,
    /// `TSM=128 TSN=128 ...`.
    pub defines: String,
    /// The device's [`signature`]: a row tuned on one device also serves an untuned device
    /// whose signature is the same.
    #[serde(default)]
    pub props: String,
    /// The lesson tuned (`10_tuned`).
    #[serde(default)]
    pub lesson: String,
}

/// A shape in a CSV cell as [`Shape::tag`] writes it.
mod shape_tag {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::harness::matrix::Shape;

    pub fn serialize<S: Serializer>(shape: &Shape, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&shape.tag())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Shape, D::Error> {
        let text = String::deserialize(d)?;
        Shape::parse_tag(&text).map_err(serde::de::Error::custom)
    }
}

/// `results/tuned.csv`.
pub fn tuned_csv(results: &Path) -> PathBuf {
    results.join("tuned.csv")
}

/// What makes two devices the same for a kernel's tuning: vendor, kind, compute units, local
/// memory and work-group limit, the properties the tuned shapes depend on. Two boards of one
/// chip (an H100 SXM and an H200, which differ in their memory only) share it; a part of the
/// same family with fewer compute units does not.
pub fn signature(info: &DeviceInfo) -> String {
    format!(
        "{} {}: {} compute units, {} B local memory, {} work-items per group",
        info.vendor.trim(),
        info.kind,
        info.compute_units,
        info.local_mem_bytes,
        info.max_work_group
    )
}

/// The rows of `lesson` that apply to a device: its own, else (untuned) those of devices with
/// the same [`signature`]; oldest first.
pub fn rows_for(rows: &[TunedRow], lesson: &str, info: &DeviceInfo) -> Vec<TunedRow> {
    let mine: Vec<&TunedRow> = rows.iter().filter(|r| r.lesson == lesson).collect();
    let own: Vec<TunedRow> = mine
        .iter()
        .filter(|r| r.device.trim() == info.name)
        .map(|r| (*r).clone())
        .collect();
    if !own.is_empty() {
        return own;
    }
    let sig = signature(info);
    mine.into_iter()
        .filter(|r| r.props.trim() == sig)
        .cloned()
        .collect()
}

/// The rows of `lesson` for a device in a tuned.csv file whose defines `fits` accepts.
fn usable(
    path: &Path,
    lesson: &str,
    info: &DeviceInfo,
    fits: &dyn Fn(&[Define]) -> bool,
) -> Vec<(TunedRow, Vec<Define>)> {
    let rows: Vec<TunedRow> = record::read(path).unwrap_or_default();
    rows_for(&rows, lesson, info)
        .into_iter()
        .filter_map(|r| {
            let d = program::parse_line(&r.defines).ok()?;
            fits(&d).then_some((r, d))
        })
        .collect()
}

/// The device's most recent winner for `lesson` tuned at a cube (or, untuned, that of a device
/// with the same [`signature`]) that `fits` the device. A winner at a long, flat or small shape
/// serves its own class of shapes ([`tuned_near`], [`for_shape`]), never every problem.
pub fn latest(
    path: &Path,
    lesson: &str,
    info: &DeviceInfo,
    fits: &dyn Fn(&[Define]) -> bool,
) -> Option<Vec<Define>> {
    usable(path, lesson, info, fits)
        .into_iter()
        .rfind(|(r, _)| r.size.is_cube())
        .map(|(_, d)| d)
}

/// The device's winner for `lesson` tuned at a shape near `shape`, every side of one within
/// the ratio `within` (1.2: a fifth) of the same side of the other, if one is recorded and
/// `fits` the device: the nearest (the smallest sum over the three sides of how far apart
/// they are, by ratio; the newest among equals), with the shape it was tuned at. A shape's
/// class is its sides' proportions as much as its size: a winner tuned at 8192×8192×1024 serves
/// 8000×9000×1100, not 1024×8192×8192 or 4096³.
pub fn tuned_near(
    path: &Path,
    lesson: &str,
    info: &DeviceInfo,
    shape: Shape,
    fits: &dyn Fn(&[Define]) -> bool,
    within: f64,
) -> Option<(Shape, Vec<Define>)> {
    let apart = |at: Shape| {
        [(at.m, shape.m), (at.n, shape.n), (at.k, shape.k)]
            .map(|(x, y)| (x.max(1) as f64 / y.max(1) as f64).ln().abs())
    };
    usable(path, lesson, info, fits)
        .into_iter()
        .filter(|(r, _)| apart(r.size).iter().all(|&d| d <= within.ln() + 1e-12))
        .map(|(r, d)| (apart(r.size).iter().sum::<f64>(), (r.size, d)))
        // `min_by` keeps the first minimum: walk newest first.
        .rev()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, found)| found)
}

/// The device's winner for `lesson` that serves `shape`, among those recorded that `fits`
/// accepts: the size it was tuned at, and its defines. At a cube a winner was tuned at, that
/// winner (the tuner measured it there). Everywhere else (long, flat and small problems, and
/// cubes between two tuned ones) what decides is how well a winner's work-groups fill the
/// device's compute units: `groups` counts a winner's work-groups at `shape`, and the one
/// whose last wave is fullest (work-groups ÷ (waves × compute units), one work-group per
/// compute unit) wins. Fills within 15 % of the best count as equal, decided then by
/// [`nearest_size`]'s rule: where both of lesson 10's blocks fill an H200, the larger is 12–16 %
/// faster per wave, which a slightly emptier last wave does not undo. Measured there
/// (research/tuner-shapes-10): the rule by the largest side alone gave 1024×1024×8192 a block
/// that fills a quarter of the device, three times slower than the one this picks.
pub fn for_shape(
    path: &Path,
    lesson: &str,
    info: &DeviceInfo,
    shape: Shape,
    fits: &dyn Fn(&[Define]) -> bool,
    groups: &dyn Fn(&[Define]) -> Option<usize>,
) -> Option<(Shape, Vec<Define>)> {
    let rows = usable(path, lesson, info, fits);
    let units = info.compute_units.max(1) as usize;
    let fill = |d: &[Define]| {
        groups(d).filter(|&g| g > 0).map(|g| {
            let waves = g.div_ceil(units);
            g as f64 / (waves * units) as f64
        })
    };
    let (tuned_here, rows): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(r, _)| shape == r.size);
    if !tuned_here.is_empty() {
        return nearest_size(tuned_here, shape);
    }
    let best = rows.iter().filter_map(|(_, d)| fill(d)).reduce(f64::max);
    let Some(best) = best else {
        return nearest_size(rows, shape);
    };
    nearest_size(
        rows.into_iter()
            .filter(|(_, d)| fill(d).is_some_and(|f| f >= 0.85 * best))
            .collect(),
        shape,
    )
}

/// Of `rows` (oldest first), the one tuned at the shape whose largest side is nearest to
/// `shape`'s largest side (by ratio; the newest among equals).
fn nearest_size(rows: Vec<(TunedRow, Vec<Define>)>, shape: Shape) -> Option<(Shape, Vec<Define>)> {
    let largest = |s: Shape| s.m.max(s.n).max(s.k).max(1) as f64;
    let want = largest(shape);
    rows.into_iter()
        .map(|(r, d)| ((largest(r.size) / want).ln().abs(), (r.size, d)))
        // `min_by` keeps the first minimum: walk newest first.
        .rev()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, found)| found)
}

/// How to tune.
#[derive(Clone, Debug)]
pub struct TuneOptions {
    pub course: Course,
    pub device: Option<String>,
    /// The shape to tune at; `None`: 4096³ on a GPU, 256³ elsewhere.
    pub shape: Option<Shape>,
    /// Most combinations to try, in the lesson's order; `None`: all of them.
    pub budget: Option<usize>,
    /// Time spent timing each combination, ms.
    pub time_ms: f64,
    /// Show a progress bar.
    pub progress: bool,
    /// The folder of kernels whose lesson kernel is tuned (`lab-bench tune --kernels DIR`);
    /// `None`: the reference in solutions/.
    pub kernels: Option<PathBuf>,
}

/// One combination that built, checked and was timed.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub defines: Vec<Define>,
    pub device_ms: f64,
    pub gflops: f64,
}

/// What a tuning run found.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The lesson tuned (`10_tuned`) and its kernel file.
    pub lesson: String,
    pub file: PathBuf,
    pub device: String,
    pub driver: String,
    /// The device's [`signature`], recorded with the winner.
    pub props: String,
    pub shape: Shape,
    /// Combinations in the space, and how many were tried.
    pub space: usize,
    pub tried: usize,
    /// Those that did not build, with the first reason.
    pub build_failed: usize,
    /// Those that built but computed a wrong result (or failed to run), with the first reason.
    pub check_failed: usize,
    pub first_failure: Option<String>,
    /// The timed ones, fastest first.
    pub ranked: Vec<Candidate>,
    /// The defines the lesson runs at this shape now (its own for the device, its rule by
    /// shape, or an earlier winner), if they passed.
    pub defaults: Option<Candidate>,
}

impl Outcome {
    pub fn best(&self) -> Option<&Candidate> {
        self.ranked.first()
    }

    /// The report: counts, the best `top` combinations and the defaults for comparison.
    pub fn report(&self, top: usize) -> String {
        let mut s = format!(
            "Tuned {} ({}) on {} (driver {}) at {}\n  {} combinations fit this device; tried {}: {} did not build, {} failed the check, {} timed\n",
            self.lesson,
            paths::display(&self.file),
            self.device,
            self.driver,
            self.shape,
            self.space,
            self.tried,
            self.build_failed,
            self.check_failed,
            self.ranked.len()
        );
        if let Some(why) = &self.first_failure {
            s.push_str(&format!("  first failure: {why}\n"));
        }
        for (i, c) in self.ranked.iter().take(top).enumerate() {
            s.push_str(&format!(
                "  {:>2}. {:>9.1} GFLOP/s  {:>9.3} ms  {}\n",
                i + 1,
                c.gflops,
                c.device_ms,
                program::line(&c.defines),
            ));
        }
        if let (Some(d), Some(b)) = (&self.defaults, self.best()) {
            s.push_str(&format!(
                "  what the lesson ran at this shape before: {:.1} GFLOP/s ({}); the winner is {:.2}× faster\n",
                d.gflops,
                program::line(&d.defines),
                d.device_ms / b.device_ms
            ));
        }
        s
    }

    /// The winner as a row of `results/tuned.csv`.
    pub fn row(&self) -> Option<TunedRow> {
        let b = self.best()?;
        Some(TunedRow {
            date: record::today(),
            device: self.device.clone(),
            driver: self.driver.clone(),
            gflops: (b.gflops * 10.0).round() / 10.0,
            size: self.shape,
            defines: program::line(&b.defines),
            props: self.props.clone(),
            lesson: self.lesson.clone(),
        })
    }

    /// Appends the winner to a tuned.csv file.
    pub fn write(&self, path: &Path) -> Result<()> {
        let row = self
            .row()
            .context("no combination passed, so there is no winner to record")?;
        record::append(path, &[row])
    }
}

/// Tunes `lesson` over the combinations it declares for the device: each built, then checked
/// and timed as the grader times it (every call on fresh inputs, its C checked).
pub fn tune(lesson: &'static Lesson, opts: &TuneOptions) -> Result<Outcome> {
    let ocl = lesson
        .ocl()
        .with_context(|| format!("{} is not an OpenCL lesson", lesson.name()))?;
    let knobs = ocl
        .knobs
        .with_context(|| format!("{} declares no knobs to tune", lesson.name()))?;
    let gpu = Gpu::open(opts.device.as_deref())?;
    ocl.supports(&gpu.info)?;
    let shape = opts
        .shape
        .unwrap_or(Shape::square(if gpu.info.is_gpu() { 4096 } else { 256 }));
    anyhow::ensure!(
        shape.m > 0 && shape.n > 0 && shape.k > 0,
        "every side of the shape must be at least 1"
    );
    let folder = opts
        .kernels
        .clone()
        .unwrap_or_else(|| opts.course.solutions());
    let file = folder.join(lesson.file_name());
    let source = std::fs::read_to_string(&file)
        .with_context(|| format!("reading {}", paths::display(&file)))?;
    let ctx = Ctx {
        info: &gpu.info,
        course: &opts.course,
    };
    // Every combination laid over the device's own defines, as the grader lays them.
    let own = prepared::defines(ocl, &ctx, None, &[]).map_err(|e| anyhow::anyhow!(e))?;
    let mut all: Vec<Vec<Define>> = knobs(&gpu.info)
        .into_iter()
        .map(|k| with_overrides(own.clone(), &k))
        .collect();
    anyhow::ensure!(
        !all.is_empty(),
        "{} has nothing to tune on {}: it declares no combination of its knobs for this device",
        lesson.name(),
        gpu.info.name
    );
    // What the lesson runs at this shape now (its rule by shape, or an earlier winner) is
    // timed too, so that the winner recorded is never slower there than what ran before: a
    // lesson whose rule picks a setting outside the declared space (lesson 11 splits K into as
    // many parts as fill the device) is measured against it, not against the space alone.
    let now = prepared::defines(ocl, &ctx, Some(shape), &[]).map_err(|e| anyhow::anyhow!(e))?;
    if !all.iter().any(|d| program::same(d, &now)) {
        all.insert(0, now.clone());
    }
    let mut todo = all.clone();
    if let Some(b) = opts.budget {
        todo.truncate(b.max(1));
    }
    let bar = if opts.progress {
        ProgressBar::new(todo.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut out = Outcome {
        lesson: lesson.name(),
        file: file.clone(),
        device: gpu.info.name.clone(),
        driver: gpu.info.driver.clone(),
        props: signature(&gpu.info),
        shape,
        space: all.len(),
        tried: 0,
        build_failed: 0,
        check_failed: 0,
        first_failure: None,
        ranked: Vec::new(),
        defaults: None,
    };
    for defines in &todo {
        let named = program::line(defines);
        bar.set_message(named.clone());
        out.tried += 1;
        // Err((true, why)): it did not build; Err((false, why)): it did not run or check.
        let tried = (|| {
            let illegal = |why: String| (false, anyhow::anyhow!(why));
            (ocl.check_defines)(defines).map_err(illegal)?;
            let launch = (ocl.launch)(shape, defines).map_err(illegal)?;
            let p = Prepared::build(&gpu, ocl, &file, &source, defines, ocl.build_options)
                .map_err(|e| (true, e))?;
            crate::grade::ocl::time_within(
                &gpu,
                ocl,
                &p.kernel,
                shape,
                &launch,
                defines,
                None,
                opts.time_ms,
            )
            .map_err(|e| (false, e))
        })();
        match tried {
            Ok(t) => {
                let c = Candidate {
                    defines: defines.clone(),
                    device_ms: t.device_ms,
                    gflops: shape.flops() / (t.device_ms * 1e-3) / 1e9,
                };
                if program::same(defines, &now) {
                    out.defaults = Some(c.clone());
                }
                let best = out.ranked.first().map_or(0.0, |b| b.gflops);
                if c.gflops > best {
                    bar.println(format!("  new best: {:.1} GFLOP/s  {named}", c.gflops));
                }
                out.ranked.push(c);
                out.ranked.sort_by(|x, y| y.gflops.total_cmp(&x.gflops));
            }
            Err((built, e)) => {
                if built {
                    out.build_failed += 1;
                } else {
                    out.check_failed += 1;
                }
                let what = if built { "did not build: " } else { "" };
                out.first_failure
                    .get_or_insert(format!("{named}: {what}{e:#}"));
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(out)
}
