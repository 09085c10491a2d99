//! The recorded rows, read once: peers recognised however their file spelled them, CPU rows
//! with their model and thread count, runs (rows taken together), the latest measurement of
//! each thing, and the peak each row is measured against.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

use lab::harness::peak::{self, Peak};
use lab::harness::record::{self, LadderRow};
use lab::ladder;
use lab::lesson::{Lesson, Unit};

use super::{pct, NONE};

/// Another library measured beside the rungs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Peer {
    Matrixmultiply,
    Clblast,
    Cublas,
}

impl Peer {
    /// The lesson column of the rows that measure it.
    pub fn key(self) -> &'static str {
        match self {
            Peer::Matrixmultiply => "matrixmultiply",
            Peer::Clblast => "clblast",
            Peer::Cublas => "cublas",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Peer::Matrixmultiply => "matrixmultiply",
            Peer::Clblast => "CLBlast",
            Peer::Cublas => "cuBLAS",
        }
    }

    /// The peer a row measured: lesson `cublas`, `clblast` or `matrixmultiply`; in older
    /// files lesson `peer` with the peer as its variant, or the variant `clblast` (or
    /// `cublas`) of a lesson.
    pub fn of(lesson: &str, variant: &str) -> Option<Peer> {
        let by_name = |s: &str| match s {
            "cublas" => Some(Peer::Cublas),
            "clblast" => Some(Peer::Clblast),
            "matrixmultiply" => Some(Peer::Matrixmultiply),
            _ => None,
        };
        match by_name(lesson) {
            Some(p) => Some(p),
            None if lesson == "peer" => by_name(variant),
            None => match by_name(variant) {
                Some(Peer::Matrixmultiply) | None => None,
                p => p,
            },
        }
    }
}

/// How a peer was timed, from its row's variant: on the same inputs back to back (`warm`, the
/// default of both scripts), on new inputs for every call (`…-fresh`, as the lessons are
/// timed), or back to back over inputs too large for the cache (`…-rotating`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Warm,
    Fresh,
    Rotating,
}

impl Way {
    pub const ALL: [Way; 3] = [Way::Warm, Way::Fresh, Way::Rotating];

    pub fn of(variant: &str) -> Way {
        if variant.ends_with("-fresh") {
            Way::Fresh
        } else if variant.ends_with("-rotating") {
            Way::Rotating
        } else {
            Way::Warm
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            Way::Warm => "warm",
            Way::Fresh => "fresh",
            Way::Rotating => "rotating",
        }
    }
}

/// One recorded measurement, as the book reads it.
#[derive(Clone, Debug)]
pub struct Row {
    /// The results file it came from (`nvidia-h100-80gb-hbm3.csv`) and its place there.
    pub file: String,
    pub line: usize,
    pub date: String,
    /// The run id as recorded; empty in files written before runs were recorded.
    pub run: String,
    pub device: String,
    /// CPU rows: the CPU's model, without the `(N threads)` the device column may carry.
    /// Other rows: the device.
    pub model: String,
    pub driver: String,
    /// Whether the code ran on the host CPU (Rust code, matrixmultiply), not an OpenCL
    /// device or CUDA.
    pub cpu: bool,
    /// CPU rows: the threads the code ran with, where known.
    pub threads: Option<usize>,
    /// The lesson's name, or the peer's key.
    pub lesson: String,
    /// The variant; for a peer, its configuration (empty in older files).
    pub variant: String,
    pub peer: Option<Peer>,
    pub defines: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Median device time.
    pub device_ms: f64,
    pub best_ms: Option<f64>,
    pub worst_ms: Option<f64>,
    pub gflops: f64,
    pub host_gflops: f64,
}

/// `1 thread`, `2 threads`.
pub fn threads_in_words(t: usize) -> String {
    if t == 1 {
        "1 thread".into()
    } else {
        format!("{t} threads")
    }
}

/// `(N threads)` at the end of a CPU row's device column: the model and N.
pub fn split_threads(device: &str) -> (String, Option<usize>) {
    if let Some(head) = device.strip_suffix(" threads)") {
        if let Some((model, n)) = head.rsplit_once(" (") {
            if let Ok(n) = n.trim().parse() {
                return (model.trim().to_string(), Some(n));
            }
        }
    }
    (device.trim().to_string(), None)
}

impl Row {
    pub fn from_record(file: &str, line: usize, r: LadderRow) -> Row {
        let peer = Peer::of(&r.lesson, &r.variant);
        let (model, named_threads) = split_threads(&r.device);
        let cpu = r.driver.trim().is_empty()
            && (r.threads > 0 || named_threads.is_some() || peer == Some(Peer::Matrixmultiply));
        let from_variant = r
            .variant
            .strip_prefix("threads=")
            .and_then(|t| t.parse::<usize>().ok());
        let serial = lab::ladder::find(&r.lesson)
            .and_then(|l| l.cpu())
            .is_some_and(|c| c.serial);
        let threads = if !cpu {
            None
        } else if serial {
            // Lessons 01 and 02 run on one thread; older rows named the machine's threads.
            Some(1)
        } else if r.threads > 0 {
            Some(r.threads)
        } else if let Some(t) = from_variant {
            Some(t)
        } else if peer == Some(Peer::Matrixmultiply) {
            // Older files named the machine's threads in the device column, not the ones
            // matrixmultiply chose for itself (its physical cores, at most 4).
            None
        } else {
            named_threads
        };
        let (lesson, variant) = match peer {
            Some(p) => {
                let old = r.lesson == "peer" || Peer::of(&r.lesson, "").is_none();
                (
                    p.key().to_string(),
                    if old { String::new() } else { r.variant },
                )
            }
            None => (r.lesson, r.variant),
        };
        // Rates from the recorded times, at full precision (the CSV's GFLOP/s are rounded).
        let flops = 2.0 * (r.m * r.n * r.k) as f64;
        let rate = |ms: f64| flops / (ms * 1e-3) / 1e9;
        let gflops = if r.device_ms > 0.0 {
            rate(r.device_ms)
        } else {
            r.gflops
        };
        let host_gflops = if r.host_ms > 0.0 {
            rate(r.host_ms)
        } else {
            r.host_gflops
        };
        let positive = |x: f64| (x > 0.0).then_some(x);
        Row {
            file: file.to_string(),
            line,
            date: r.date,
            run: r.run.trim().to_string(),
            device: r.device,
            model,
            driver: r.driver,
            cpu,
            threads,
            lesson,
            variant,
            peer,
            defines: r.defines.trim().to_string(),
            m: r.m,
            n: r.n,
            k: r.k,
            device_ms: r.device_ms,
            best_ms: positive(r.best_ms),
            worst_ms: positive(r.worst_ms),
            gflops,
            host_gflops,
        }
    }

    /// The rows measured together with this one share this: the run id, or in files
    /// written before run ids the date.
    pub fn group(&self) -> &str {
        if self.run.is_empty() {
            &self.date
        } else {
            &self.run
        }
    }

    /// What the row measured, apart from when: a later row with the same key replaces it.
    pub fn key(
        &self,
    ) -> (
        String,
        String,
        Option<usize>,
        String,
        String,
        usize,
        usize,
        usize,
    ) {
        (
            self.file.clone(),
            self.model.clone(),
            self.threads,
            self.lesson.clone(),
            self.variant.clone(),
            self.m,
            self.n,
            self.k,
        )
    }

    pub fn shape(&self) -> (usize, usize, usize) {
        (self.m, self.n, self.k)
    }

    pub fn is_square(&self) -> bool {
        self.m == self.n && self.n == self.k
    }

    /// `1024³` or `M×N×K`.
    pub fn size(&self) -> String {
        size_label(self.m, self.n, self.k)
    }

    /// GFLOP/s for a time of this row's product.
    pub fn rate(&self, ms: f64) -> f64 {
        2.0 * (self.m * self.n * self.k) as f64 / (ms * 1e-3) / 1e9
    }

    /// The GFLOP/s of the fastest and the slowest repetition, where recorded.
    pub fn rate_range(&self) -> Option<(f64, f64)> {
        Some((self.rate(self.worst_ms?), self.rate(self.best_ms?)))
    }

    /// The lesson of a rung's row (none for a peer's).
    pub fn rung(&self) -> Option<&'static Lesson> {
        if self.peer.is_some() {
            return None;
        }
        ladder::find(&self.lesson)
    }

    /// How a peer's row was timed (a rung's rows are [`Way::Fresh`] by the course's protocol,
    /// whatever their variant).
    pub fn way(&self) -> Way {
        match self.peer {
            Some(_) => Way::of(&self.variant),
            None => Way::Fresh,
        }
    }

    /// A rung's reference answer (not a variant, not a peer).
    pub fn is_reference(&self) -> bool {
        self.peer.is_none() && self.variant == "reference"
    }

    /// The machine the row ran on, as blocks of a table group rows: the device, or for CPU
    /// rows the model.
    pub fn machine(&self) -> &str {
        &self.model
    }

    /// How the row is named in the ladder: `05 Local-memory tiling`, `cuBLAS`,
    /// `matrixmultiply, 4 threads`.
    pub fn name(&self) -> String {
        match self.peer {
            Some(Peer::Matrixmultiply) => match self.threads {
                Some(1) => "matrixmultiply, 1 thread".into(),
                Some(t) => format!("matrixmultiply, {}", threads_in_words(t)),
                None => "matrixmultiply (threads not recorded)".into(),
            },
            Some(p) => match self.way() {
                Way::Warm => p.title().to_string(),
                w => format!("{}, {} inputs", p.title(), w.word()),
            },
            None => {
                let base = match self.rung() {
                    Some(l) => format!("{} {}", l.key, l.title),
                    None => self.lesson.replace('_', " "),
                };
                if self.variant == "reference" {
                    base
                } else {
                    format!("{base} ({})", self.variant)
                }
            }
        }
    }

    /// A CPU row's device in words: `Intel(R) Xeon(R) Processor, 16 threads`.
    pub fn machine_words(&self) -> String {
        match (self.cpu, self.threads) {
            (true, Some(1)) => format!("{}, 1 thread", self.model),
            (true, Some(t)) => format!("{}, {}", self.model, threads_in_words(t)),
            (true, None) => format!("{} (threads not recorded)", self.model),
            (false, _) => self.device.clone(),
        }
    }
}

pub fn size_label(m: usize, n: usize, k: usize) -> String {
    if m == n && n == k {
        format!("{m}³")
    } else {
        format!("{m}×{n}×{k}")
    }
}

/// The runs of one results file, in the order they first appear: rows of one run were
/// measured together.
#[derive(Clone, Debug, Default)]
pub struct Runs {
    groups: Vec<(String, bool)>,
}

impl Runs {
    pub fn of(rows: &[Row]) -> Runs {
        let mut groups: Vec<(String, bool)> = Vec::new();
        for r in rows {
            if !groups.iter().any(|(g, _)| g == r.group()) {
                groups.push((r.group().to_string(), !r.run.is_empty()));
            }
        }
        Runs { groups }
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.groups.len()
    }

    /// The letter a run is cited by: `a`, `b`, ...
    pub fn letter(&self, group: &str) -> String {
        let i = self
            .groups
            .iter()
            .position(|(g, _)| g == group)
            .unwrap_or(0);
        letter(i)
    }

    /// One run in words: `run 2026-11-23T10:00:00Z`, or for older files `the rows dated
    /// 2026-11-21 (no run id: same file and date)`.
    pub fn describe(&self, group: &str) -> String {
        match self.groups.iter().find(|(g, _)| g == group) {
            Some((g, true)) => format!("run {g}"),
            _ => format!("the rows dated {group} (no run id: same file and date)"),
        }
    }

    /// The runs in words, each with its letter: `**a** = the rows dated 2026-11-21 (...);
    /// **b** = run 2026-11-23T10:00:00Z`; only those of `only`, unless it is empty.
    pub fn legend(&self, only: &[&str]) -> String {
        self.groups
            .iter()
            .enumerate()
            .filter(|(_, (g, _))| only.is_empty() || only.contains(&g.as_str()))
            .map(|(i, (g, _))| format!("**{}** = {}", letter(i), self.describe(g)))
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// The same, for a figure's small print: `a = 2026-11-21, b = 2026-11-22`.
    pub fn short_legend(&self, used: &[&str]) -> String {
        self.groups
            .iter()
            .enumerate()
            .filter(|(_, (g, _))| used.is_empty() || used.contains(&g.as_str()))
            .map(|(i, (g, _))| format!("{} = {g}", letter(i)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn letter(i: usize) -> String {
    let letters = "abcdefghijklmnopqrstuvwxyz";
    let c = letters.as_bytes()[i % 26] as char;
    if i < 26 {
        c.to_string()
    } else {
        format!("{c}{}", i / 26)
    }
}

/// One results file: its rows in file order, each run's last measurement of each thing,
/// and the latest measurement of each thing.
#[derive(Clone, Debug)]
pub struct File {
    pub name: String,
    /// Every row, in file order.
    pub rows: Vec<Row>,
    /// Per run, the last row of each thing (a run that measured something twice keeps the
    /// later one), in file order.
    pub by_run: Vec<Row>,
    /// The latest row of each thing, whatever its run, in file order: a later measurement
    /// of the same thing replaces an earlier one.
    pub latest: Vec<Row>,
    pub runs: Runs,
}

impl File {
    pub fn new(name: &str, rows: Vec<Row>) -> File {
        let runs = Runs::of(&rows);
        let by_run = last_of(&rows, |r| (r.group().to_string(), r.key()));
        let latest = last_of(&rows, |r| r.key());
        File {
            name: name.to_string(),
            rows,
            by_run,
            latest,
            runs,
        }
    }

    /// `nvidia-h100-80gb-hbm3`.
    pub fn stem(&self) -> &str {
        self.name.trim_end_matches(".csv")
    }

    /// The machines of the file's rows, the OpenCL/CUDA device first, then host CPUs.
    pub fn machines(&self) -> Vec<String> {
        let mut out: Vec<(bool, usize, String)> = Vec::new();
        for r in &self.latest {
            if !out.iter().any(|(_, _, m)| m == r.machine()) {
                out.push((r.cpu, r.line, r.machine().to_string()));
            }
        }
        out.sort_by_key(|(cpu, line, _)| (*cpu, *line));
        out.into_iter().map(|(_, _, m)| m).collect()
    }
}

/// The last row of each key, in file order.
fn last_of<K: Ord>(rows: &[Row], key: impl Fn(&Row) -> K) -> Vec<Row> {
    let mut last: BTreeMap<K, usize> = BTreeMap::new();
    for (i, r) in rows.iter().enumerate() {
        last.insert(key(r), i);
    }
    let mut keep: Vec<usize> = last.into_values().collect();
    keep.sort_unstable();
    keep.into_iter().map(|i| rows[i].clone()).collect()
}

/// Every ladder file of `results/`, by name: the CSV files whose header names a lesson, a
/// variant and a size (not peak.csv, tuned.csv or the graders' grader-suite.csv).
pub fn files(dir: &Path) -> Result<Vec<File>> {
    let is_ladder = |p: &Path| {
        let header = std::fs::read_to_string(p)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_string))
            .unwrap_or_default();
        let columns: Vec<&str> = header.split(',').map(str::trim).collect();
        ["lesson", "variant", "m", "n", "k"]
            .iter()
            .all(|c| columns.contains(c))
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "csv"))
        .filter(|p| is_ladder(p))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let rows: Vec<Row> = record::read::<LadderRow>(&p)?
            .into_iter()
            .enumerate()
            .map(|(i, r)| Row::from_record(&name, i + 2, r))
            .collect();
        if !rows.is_empty() {
            out.push(File::new(&name, rows));
        }
    }
    Ok(out)
}

/// The recorded peaks, and the rule that matches a row to one.
pub struct Peaks {
    results: PathBuf,
    pub all: Vec<Peak>,
    /// Per results file, the OpenCL devices its rows ran on: the machine it came from.
    devices: BTreeMap<String, BTreeSet<String>>,
}

impl Peaks {
    pub fn read(results: &Path, files: &[File]) -> Result<Peaks> {
        let devices = files
            .iter()
            .map(|f| {
                let d = f
                    .rows
                    .iter()
                    .filter(|r| !r.cpu)
                    .map(|r| r.device.clone())
                    .collect();
                (f.name.clone(), d)
            })
            .collect();
        Ok(Peaks {
            results: results.to_path_buf(),
            all: peak::all(results)?,
            devices,
        })
    }

    /// The ceiling a row is measured against, matched exactly: an OpenCL or CUDA device's
    /// newest peak of the same name on all its units ([`peak::of_device`]); for CPU code, [`peak::for_cpu`]'s with the row's model
    /// and thread count, measured on a CPU device of the row's own machine (one its results
    /// file's OpenCL rows ran on: CPU model names are often generic, and another machine's
    /// file may carry the same one). Anything else has none.
    ///
    /// The peak returned is the ceiling of the unit the row's code multiplies on
    /// ([`Unit`]): none where that unit's ceiling is not recorded ([`Peaks::unmeasured`]).
    pub fn of(&self, r: &Row) -> Option<Peak> {
        let p = self.fp32(r)?;
        let gflops = unit(r).ceiling(&p)?;
        Some(Peak { gflops, ..p })
    }

    /// The FP32 peak (a CPU's: its FP32 ceiling) of the device a row ran on.
    fn fp32(&self, r: &Row) -> Option<Peak> {
        if r.cpu {
            let p = peak::for_cpu(&self.results, &r.model, r.threads?)?;
            self.same_machine(r, &p).then(|| super::ceiling::applied(p))
        } else {
            peak::of_device(&self.all, &r.device, None)
                .cloned()
                .map(super::ceiling::applied)
        }
    }

    /// The unit a row's code multiplies on, where its device has a recorded peak but not of
    /// that unit (lesson 11's matrix unit): its share of peak is "n/a", never a share of
    /// another unit's ceiling.
    pub fn unmeasured(&self, r: &Row) -> Option<Unit> {
        let u = unit(r);
        let p = self.fp32(r)?;
        u.ceiling(&p).is_none().then_some(u)
    }

    /// A row's "% of peak" cell: its share of its unit's ceiling, `n/a (matrix unit)` where
    /// that ceiling is not recorded, else `—`.
    pub fn share(&self, r: &Row) -> String {
        match (self.of(r), self.unmeasured(r)) {
            (Some(p), _) => pct(100.0 * r.gflops / p.gflops),
            (None, Some(u)) => format!("n/a ({})", u.words()),
            (None, None) => NONE.into(),
        }
    }

    fn same_machine(&self, r: &Row, p: &Peak) -> bool {
        self.devices
            .get(&r.file)
            .is_some_and(|d| d.contains(&p.device))
    }

    /// Why these rows have no peak: one clause per device (or CPU model), without a
    /// full stop.
    pub fn why_none(&self, rows: &[&Row]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |s: String| {
            if !out.contains(&s) {
                out.push(s);
            }
        };
        let mut cpu: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
        for r in rows.iter().filter(|r| self.of(r).is_none()) {
            if let Some(u) = self.unmeasured(r) {
                push(format!(
                    "n/a ({w}; its ceiling is not measured): {} multiplies on the {w}, whose rate `results/peak.csv` does not record, and a share of the FP32 peak would measure it against units it does not use",
                    r.rung().map_or(r.lesson.clone(), |l| format!("lesson {}", l.key)),
                    w = u.words()
                ));
                continue;
            }
            match (r.cpu, r.threads) {
                (false, _) => push(format!("`results/peak.csv` has no peak for {}", r.device)),
                (true, None) => push(format!(
                    "the {} rows do not record how many threads they ran with",
                    r.peer.map_or(r.lesson.as_str(), |p| p.title())
                )),
                (true, Some(t)) => {
                    let ts = cpu.entry((r.model.clone(), r.file.clone())).or_default();
                    if !ts.contains(&t) {
                        ts.push(t);
                    }
                }
            }
        }
        for ((model, file), mut threads) in cpu {
            threads.sort_unstable();
            // Peaks that fit the model and threads but were measured on another machine.
            let elsewhere: Vec<(usize, Peak)> = threads
                .iter()
                .filter_map(|&t| peak::for_cpu(&self.results, &model, t).map(|p| (t, p)))
                .collect();
            for (t, p) in &elsewhere {
                push(format!(
                    "the CPU peak of {model} for {t} compute units was measured on {} ({}), which no row of `results/{file}` ran on: another machine may report the same model name",
                    p.device, p.date
                ));
            }
            threads.retain(|t| !elsewhere.iter().any(|(u, _)| u == t));
            if threads.is_empty() {
                continue;
            }
            let wanted = or_list(&threads);
            // The CPU peaks whose device names the model, as `peak::for_cpu` reads them.
            let named: Vec<&Peak> = self
                .all
                .iter()
                .filter(|p| {
                    p.kind == "CPU"
                        && (p.device == model || p.device.ends_with(&format!("-{model}")))
                })
                .collect();
            push(if named.is_empty() {
                format!("`results/peak.csv` has no CPU peak of {model}")
            } else if let Some(p) = named.iter().find(|p| p.units.is_none()) {
                format!(
                    "the CPU peak recorded for {model} ({}, {}) does not say how many compute units it used, so it applies to no thread count (wanted: {wanted}); a CPU peak applies only to the same model and thread count",
                    p.device, p.date
                )
            } else {
                let units: Vec<usize> = named
                    .iter()
                    .filter_map(|p| p.units)
                    .map(|u| u as usize)
                    .collect();
                format!(
                    "`results/peak.csv` has CPU peaks of {model} for {} compute units only, not {wanted}; a CPU peak applies only to the same model and thread count",
                    or_list(&units)
                )
            });
        }
        out
    }
}

/// `1, 2 or 16`.
/// The unit a row's code multiplies on: its lesson's; a peer's, the FP32 lanes.
pub fn unit(r: &Row) -> Unit {
    r.rung().map_or(Unit::Fp32, |l| l.unit)
}

fn or_list(xs: &[usize]) -> String {
    let s: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    match s.len() {
        0 => String::new(),
        1 => s[0].clone(),
        n => format!("{} or {}", s[..n - 1].join(", "), s[n - 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(device: &str, driver: &str, lesson: &str, variant: &str, date: &str) -> LadderRow {
        LadderRow {
            date: date.into(),
            run: String::new(),
            device: device.into(),
            driver: driver.into(),
            threads: 0,
            lesson: lesson.into(),
            variant: variant.into(),
            defines: String::new(),
            m: 1024,
            n: 1024,
            k: 1024,
            device_ms: 2.0,
            best_ms: 0.0,
            worst_ms: 0.0,
            reps: 0,
            host_ms: 4.0,
            gflops: 1073.7,
            host_gflops: 536.9,
            max_rel_err: None,
        }
    }

    #[test]
    fn a_peer_is_named_by_how_it_was_timed() {
        let row = |lesson: &str, variant: &str| {
            Row::from_record(
                "f.csv",
                2,
                record("NVIDIA H200", "580", lesson, variant, "d"),
            )
        };
        let warm = row("clblast", "sgemm");
        assert_eq!((warm.way(), warm.name().as_str()), (Way::Warm, "CLBlast"));
        let fresh = row("clblast", "sgemm-fresh");
        assert_eq!(fresh.way(), Way::Fresh);
        assert_eq!(fresh.name(), "CLBlast, fresh inputs");
        assert_eq!(
            row("cublas", "sgemm-fp32-fresh").name(),
            "cuBLAS, fresh inputs"
        );
        assert_eq!(row("cublas", "sgemm-fp32-rotating").way(), Way::Rotating);
        assert_eq!(row("cublas", "sgemm-fp32").way(), Way::Warm);
        // A lesson's rows are timed the course's way, whatever their variant.
        assert_eq!(row("10_tuned", "untuned").way(), Way::Fresh);
    }

    #[test]
    fn peers_are_recognised_however_they_were_recorded() {
        assert_eq!(Peer::of("cublas", "sgemm"), Some(Peer::Cublas));
        assert_eq!(Peer::of("peer", "cublas"), Some(Peer::Cublas));
        assert_eq!(
            Peer::of("peer", "matrixmultiply"),
            Some(Peer::Matrixmultiply)
        );
        assert_eq!(Peer::of("10_tuned", "clblast"), Some(Peer::Clblast));
        assert_eq!(Peer::of("clblast", "sgemm"), Some(Peer::Clblast));
        assert_eq!(
            Peer::of("matrixmultiply", "threads=4"),
            Some(Peer::Matrixmultiply)
        );
        assert_eq!(Peer::of("10_tuned", "reference"), None);
        assert_eq!(Peer::of("10_tuned", "untuned"), None);
    }

    #[test]
    fn cpu_rows_carry_their_model_and_threads() {
        let r = Row::from_record(
            "f.csv",
            2,
            record(
                "Intel(R) Xeon(R) Processor (16 threads)",
                "",
                "03_cpu_parallel",
                "threads=4",
                "2026-11-21",
            ),
        );
        assert!(r.cpu);
        assert_eq!(r.model, "Intel(R) Xeon(R) Processor");
        assert_eq!(
            r.threads,
            Some(4),
            "the variant's threads, not the machine's"
        );
        let r = Row::from_record(
            "f.csv",
            2,
            record(
                "Intel(R) Xeon(R) Processor (16 threads)",
                "",
                "03b_cpu_packed",
                "reference",
                "d",
            ),
        );
        assert_eq!(r.threads, Some(16));
        // Lesson 01's code runs on one thread, whatever the machine has.
        let r = Row::from_record(
            "f.csv",
            2,
            record(
                "Intel(R) Xeon(R) Processor (16 threads)",
                "",
                "01_cpu_naive",
                "reference",
                "d",
            ),
        );
        assert_eq!(r.threads, Some(1));
        assert_eq!(r.machine_words(), "Intel(R) Xeon(R) Processor, 1 thread");
        // An older matrixmultiply row named the machine's threads, not the crate's.
        let r = Row::from_record(
            "f.csv",
            2,
            record(
                "Intel(R) Xeon(R) Processor (16 threads)",
                "",
                "peer",
                "matrixmultiply",
                "d",
            ),
        );
        assert_eq!((r.peer, r.threads), (Some(Peer::Matrixmultiply), None));
        assert_eq!(r.lesson, "matrixmultiply");
        // A newer one records them.
        let mut rec = record(
            "Intel(R) Xeon(R) Processor",
            "",
            "matrixmultiply",
            "threads=4",
            "d",
        );
        rec.threads = 4;
        let r = Row::from_record("f.csv", 2, rec);
        assert_eq!((r.cpu, r.threads), (true, Some(4)));
        assert_eq!(r.name(), "matrixmultiply, 4 threads");
        // An OpenCL device is not a CPU row, even PoCL on a CPU.
        let r = Row::from_record(
            "f.csv",
            2,
            record("pthread-x", "3.1", "05_local_tiling", "reference", "d"),
        );
        assert!(!r.cpu);
        assert_eq!(r.threads, None);
        // Rates come from the times.
        assert!((r.gflops - 1073.741824).abs() < 1e-6, "{}", r.gflops);
    }

    #[test]
    fn rows_group_by_run_or_by_date_and_later_rows_replace_earlier_ones() {
        let mut rows = Vec::new();
        let mut push = |date: &str, run: &str, lesson: &str, ms: f64| {
            let mut r = record("GPU", "1.0", lesson, "reference", date);
            r.run = run.into();
            r.device_ms = ms;
            rows.push(Row::from_record("f.csv", rows.len() + 2, r));
        };
        push("2026-01-01", "", "10_tuned", 1.0);
        push("2026-01-01", "", "cublas", 1.0);
        push("2026-01-02", "", "10_tuned", 2.0);
        push("2026-01-03", "2026-01-03T10:00:00Z", "10_tuned", 3.0);
        push("2026-01-03", "2026-01-03T10:00:00Z", "10_tuned", 4.0);
        push("2026-01-03", "2026-01-03T11:00:00Z", "cublas", 5.0);
        let f = File::new("f.csv", rows);
        assert_eq!(f.runs.len(), 4);
        assert_eq!(f.runs.letter("2026-01-01"), "a");
        assert_eq!(f.runs.letter("2026-01-03T11:00:00Z"), "d");
        assert!(f
            .runs
            .legend(&[])
            .contains("**a** = the rows dated 2026-01-01 (no run id"));
        assert!(f
            .runs
            .legend(&[])
            .contains("**c** = run 2026-01-03T10:00:00Z"));
        assert_eq!(
            f.runs.legend(&["2026-01-02"]),
            "**b** = the rows dated 2026-01-02 (no run id: same file and date)"
        );
        // Within a run the later row wins; across runs too.
        let times: Vec<(String, f64)> = f
            .by_run
            .iter()
            .map(|r| (r.group().to_string(), r.device_ms))
            .collect();
        assert_eq!(
            times,
            vec![
                ("2026-01-01".to_string(), 1.0),
                ("2026-01-01".to_string(), 1.0),
                ("2026-01-02".to_string(), 2.0),
                ("2026-01-03T10:00:00Z".to_string(), 4.0),
                ("2026-01-03T11:00:00Z".to_string(), 5.0),
            ]
        );
        let latest: Vec<f64> = f.latest.iter().map(|r| r.device_ms).collect();
        assert_eq!(latest, vec![4.0, 5.0]);
    }

    #[test]
    fn a_cpu_row_gets_a_peak_only_for_its_exact_model_and_threads() {
        let tmp = lab::harness::child::Scratch::new("results-peaks").unwrap();
        let dir = tmp.dir.clone();
        std::fs::create_dir_all(&dir).unwrap();
        let pocl = Peak {
            date: "2026-11-21".into(),
            device: "pthread-skylake-avx512-Intel(R) Xeon(R) Processor".into(),
            driver: "3.1+debian".into(),
            kind: "CPU".into(),
            units: Some(2),
            gflops: 79.2,
            best_width: 16,
            bandwidth_gbs: 17.2,
            matrix_tf32_gflops: None,
            l2_gbs: None,
            l1_gbs: None,
        };
        let _ = std::fs::remove_file(peak::file(&dir));
        peak::save(&dir, &pocl).unwrap();
        let cpu = |file: &str, threads: &str| {
            Row::from_record(
                file,
                2,
                record(
                    &format!("Intel(R) Xeon(R) Processor ({threads} threads)"),
                    "",
                    "03_cpu_parallel",
                    "reference",
                    "d",
                ),
            )
        };
        let ocl = |file: &str, device: &str| {
            Row::from_record(
                file,
                2,
                record(device, "3.1+debian", "05_local_tiling", "reference", "d"),
            )
        };
        // The 2-core machine's file: its PoCL device and its CPU rows. Another machine's
        // file: a GPU and a CPU with the same model name.
        let here = File::new(
            "pocl.csv",
            vec![cpu("pocl.csv", "2"), ocl("pocl.csv", &pocl.device)],
        );
        let there = File::new(
            "gpu.csv",
            vec![
                cpu("gpu.csv", "2"),
                cpu("gpu.csv", "16"),
                ocl("gpu.csv", "GPU"),
            ],
        );
        let peaks = Peaks::read(&dir, &[here, there]).unwrap();
        assert_eq!(peaks.of(&cpu("pocl.csv", "2")), Some(pocl.clone()));
        // The 16-thread host of another machine is not the 2-core machine.
        assert!(peaks.of(&cpu("gpu.csv", "16")).is_none());
        let why = peaks.why_none(&[&cpu("gpu.csv", "16")]).join("; ");
        assert!(why.contains("for 2 compute units only, not 16"), "{why}");
        // Nor are 2 of its threads: same model name, same count, another machine.
        assert!(peaks.of(&cpu("gpu.csv", "2")).is_none());
        let why = peaks.why_none(&[&cpu("gpu.csv", "2")]).join("; ");
        assert!(
            why.contains("which no row of `results/gpu.csv` ran on"),
            "{why}"
        );
        // OpenCL rows: the device's own name, exactly.
        assert_eq!(peaks.of(&ocl("pocl.csv", &pocl.device)), Some(pocl.clone()));
        assert!(peaks
            .of(&ocl(
                "pocl.csv",
                "pthread-skylake-avx512-Intel(R) Xeon(R) Processor @ 2.80GHz"
            ))
            .is_none());
    }
}
