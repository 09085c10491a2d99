//! Rungs at every shape: the lessons a file records (the highest rung first, the one below
//! beside it) with cuBLAS (TF32 off and on) and CUTLASS's 3xTF32 GEMM — the matrix units'
//! algorithm, published — at square, ragged, long and flat shapes, from
//! `results/shapes/<device>.csv`. Each file is one device command: the peers' script and the
//! lesson programs ran in it one after the other, so its rows compare. The lessons are
//! whatever the rows name (`who` is a lesson's name, `11_matrix_units`), read from the ladder.
//!
//! A table per device, a bar chart per device (`shapes-<device>.svg`), and the sentences that
//! say where the highest rung stops winning, computed from the same rows so that they cannot drift
//! from them.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};
use serde::Deserialize;

use super::charts::{self, Bar, Group, Panel, PALETTE};
use lab::harness::record;
use lab::ladder;
use lab::lesson::Lesson;

/// One measurement: a kernel at one shape.
#[derive(Clone, Debug, Deserialize)]
pub struct ShapeRow {
    pub date: String,
    pub run: String,
    pub device: String,
    pub driver: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// A lesson's name (`NN_slug`), `cublas-fp32`, `cublas-tf32` or `cutlass-3xtf32`.
    pub who: String,
    /// The lesson's defines, or the CUTLASS build (block, stages, alignment, B's layout).
    pub variant: String,
    /// Median GFLOP/s with new inputs for every timed call (the course's protocol).
    pub fresh_gflops: f64,
    /// Median GFLOP/s with the same inputs every call (peers only).
    pub warm_gflops: Option<f64>,
    pub max_rel_err: f64,
}

impl ShapeRow {
    fn shape(&self) -> (usize, usize, usize) {
        (self.m, self.n, self.k)
    }
}

/// Every file of `results/shapes/`, by file name.
fn files(results: &Path) -> Result<Vec<(String, Vec<ShapeRow>)>> {
    let dir = results.join("shapes");
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(out);
    };
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    names.sort();
    for name in names {
        let path = dir.join(&name);
        let rows: Vec<ShapeRow> =
            record::read(&path).with_context(|| format!("reading {}", path.display()))?;
        out.push((name, rows));
    }
    Ok(out)
}

/// The fastest row of `who` at a shape in one run (CUTLASS: its best build there; the others
/// have one row per shape).
fn best<'a>(rows: &'a [ShapeRow], shape: (usize, usize, usize), who: &str) -> Option<&'a ShapeRow> {
    rows.iter()
        .filter(|r| r.shape() == shape && r.who == who)
        .max_by(|a, b| a.fresh_gflops.total_cmp(&b.fresh_gflops))
}

fn tflops(g: f64) -> String {
    format!("{:.1}", g / 1000.0)
}

fn shape_name((m, n, k): (usize, usize, usize)) -> String {
    if m == n && n == k {
        format!("{m}³")
    } else {
        format!("{m}×{n}×{k}")
    }
}

/// The page, and the charts it links to (file name, SVG).
pub fn page(results: &Path, note: &str) -> Result<(String, Vec<(String, String)>)> {
    let mut s = String::from(note);
    let mut figures = Vec::new();
    let all = files(results)?;
    if all.is_empty() {
        s.push_str("\nNo run has recorded the rungs at other shapes yet.\n");
        return Ok((s, figures));
    }
    for (name, recorded) in &all {
        // A later device command replaces an earlier one, as everywhere in results/: only the
        // newest run's rows compare with each other, and "best" below then means CUTLASS's
        // fastest build in that run, never the luckiest of several runs.
        let Some(newest) = recorded.last().map(|r| r.run.as_str()) else {
            continue;
        };
        let rows: Vec<ShapeRow> = recorded
            .iter()
            .filter(|r| r.run == newest)
            .cloned()
            .collect();
        let rows = rows.as_slice();
        let Some(first) = rows.first() else { continue };
        let mut shapes: Vec<(usize, usize, usize)> = Vec::new();
        for r in rows {
            if !shapes.contains(&r.shape()) {
                shapes.push(r.shape());
            }
        }
        let _ = writeln!(
            s,
            "\n### {} (driver {}, {}; one device command: {newest})\n",
            first.device, first.driver, first.date,
        );
        s.push_str(
            "TFLOP/s, median device time on new inputs for every timed call (cuBLAS: the same \
             inputs every call in brackets). Errors: max |C − exact| / max |exact| against \
             float64; the lessons at the course's 4 356+ checked elements of their inputs, the \
             peers at 4 096 sampled elements of theirs (one distribution, uniform in [−1, 1), \
             not the same values).\n\n",
        );
        // The lessons the rows name, highest rung first: the first is the page's subject.
        let lessons: Vec<&'static Lesson> = ladder::ALL
            .iter()
            .rev()
            .copied()
            .filter(|l| rows.iter().any(|r| r.who == l.name()))
            .collect();
        let Some(top) = lessons.first().copied() else {
            continue;
        };
        let label = |l: &Lesson| format!("lesson {}", l.key);
        let key = top.key;
        let _ = writeln!(
            s,
            "| M × N × K | {} | cuBLAS FP32 | cuBLAS TF32 | CUTLASS 3xTF32 | {key} / cuBLAS FP32 | {key} / CUTLASS |\n\
             |---|{}--:|--:|--:|--:|--:|",
            lessons.iter().map(|l| label(l)).collect::<Vec<_>>().join(" | "),
            "--:|".repeat(lessons.len()),
        );
        let mut behind_cublas = Vec::new();
        let mut behind_cutlass = Vec::new();
        let mut groups = Vec::new();
        // The errors and CUTLASS's builds in a second table: one with every column would not
        // fit a page's width.
        let mut second = format!(
            "\n| M × N × K | error {key} | error cuBLAS FP32 | error CUTLASS | CUTLASS's fastest build |\n\
             |---|--:|--:|--:|---|\n"
        );
        for &shape in &shapes {
            let mine = best(rows, shape, &top.name());
            let fp32 = best(rows, shape, "cublas-fp32");
            let tf32 = best(rows, shape, "cublas-tf32");
            let cut = best(rows, shape, "cutlass-3xtf32");
            let rate =
                |r: Option<&ShapeRow>| r.map_or("–".to_string(), |r| tflops(r.fresh_gflops));
            let err = |r: Option<&ShapeRow>| {
                r.map_or("–".to_string(), |r| format!("{:.1e}", r.max_rel_err))
            };
            let ratio = |a: Option<&ShapeRow>, b: Option<&ShapeRow>| match (a, b) {
                (Some(a), Some(b)) if b.fresh_gflops > 0.0 => {
                    format!("{:.2}", a.fresh_gflops / b.fresh_gflops)
                }
                _ => "–".to_string(),
            };
            let fp32_cell = fp32.map_or("–".to_string(), |r| match r.warm_gflops {
                Some(w) => format!("{} ({})", tflops(r.fresh_gflops), tflops(w)),
                None => tflops(r.fresh_gflops),
            });
            let cut_cell = cut.map_or("cannot (alignment)".to_string(), |r| tflops(r.fresh_gflops));
            let rates: Vec<String> = lessons
                .iter()
                .map(|l| rate(best(rows, shape, &l.name())))
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} |",
                shape_name(shape),
                rates.join(" | "),
                fp32_cell,
                rate(tf32),
                cut_cell,
                ratio(mine, fp32),
                ratio(mine, cut),
            );
            let _ = writeln!(
                second,
                "| {} | {} | {} | {} | {} |",
                shape_name(shape),
                err(mine),
                err(fp32),
                err(cut),
                cut.map_or("none meets its alignment", |r| r.variant.as_str()),
            );
            if let (Some(a), Some(b)) = (mine, fp32) {
                if a.fresh_gflops < b.fresh_gflops {
                    behind_cublas.push(shape_name(shape));
                }
            }
            if let (Some(a), Some(b)) = (mine, cut) {
                if a.fresh_gflops < b.fresh_gflops {
                    behind_cutlass.push(shape_name(shape));
                }
            }
            let mut bars = Vec::new();
            let mut shown = vec![
                (label(top), mine, PALETTE[0]),
                ("CUTLASS 3xTF32".to_string(), cut, PALETTE[1]),
                ("cuBLAS FP32".to_string(), fp32, PALETTE[9]),
            ];
            for (i, l) in lessons.iter().enumerate().skip(1) {
                shown.push((label(l), best(rows, shape, &l.name()), PALETTE[(1 + i) % 9]));
            }
            for (label, row, color) in shown {
                if let Some(r) = row {
                    bars.push(Bar {
                        label,
                        value: r.fresh_gflops,
                        range: None,
                        text: format!("{} TFLOP/s", tflops(r.fresh_gflops)),
                        color,
                    });
                }
            }
            groups.push(Group {
                title: shape_name(shape),
                bars,
            });
        }
        s.push_str(&second);
        let _ = writeln!(
            s,
            "\n{}\n\n{}\n",
            if behind_cublas.is_empty() {
                format!("Lesson {key} is at least as fast as cuBLAS FP32 at every shape here.")
            } else {
                format!(
                    "Lesson {key} is slower than cuBLAS FP32 at {}.",
                    behind_cublas.join(", ")
                )
            },
            if behind_cutlass.is_empty() {
                "It is faster than CUTLASS's 3xTF32 GEMM at every shape CUTLASS could run."
                    .to_string()
            } else {
                format!(
                    "CUTLASS's 3xTF32 GEMM is faster than lesson {key} at {}: there the course's \
                     kernel stops winning against the published form of its own algorithm.",
                    behind_cutlass.join(", ")
                )
            },
        );
        let tf32_errors: Vec<f64> = rows
            .iter()
            .filter(|r| r.who == "cublas-tf32")
            .map(|r| r.max_rel_err)
            .collect();
        if let (Some(lo), Some(hi)) = (
            tf32_errors.iter().copied().reduce(f64::min),
            tf32_errors.iter().copied().reduce(f64::max),
        ) {
            let _ = writeln!(
                s,
                "cuBLAS TF32 is one TF32 product per multiply-add: the unit's practical speed, at \
                 TF32's accuracy (errors {lo:.1e} to {hi:.1e} here, a hundred times lesson {key}'s).\n"
            );
        }
        let stem = name.trim_end_matches(".csv");
        let figure = format!("shapes-{stem}.svg");
        let svg = charts::bars(&[Panel {
            heading: vec![
                format!("Lesson {key} at every shape · {}", first.device),
                format!("one device command, {} · results/shapes/{name}", first.date),
            ],
            groups,
            axis: "GFLOP/s (median device time, new inputs every call)".into(),
            limit: None,
            x_max: None,
            footer: vec![
                "CUTLASS: its fastest build at the shape; none where no build meets its alignment."
                    .into(),
            ],
        }])?;
        let _ = writeln!(
            s,
            "![Lesson {key}, CUTLASS 3xTF32 and cuBLAS FP32 at every shape on {}](figures/{figure})\n",
            first.device
        );
        figures.push((figure, svg));
        let builds: std::collections::BTreeSet<&str> = rows
            .iter()
            .filter(|r| r.who == "cutlass-3xtf32")
            .map(|r| r.variant.as_str())
            .collect();
        let _ = writeln!(
            s,
            "CUTLASS builds tried at every shape (block M×N, stages, `a1`: any alignment, \
             `colB`: B stored transposed, made once outside the timing): {}.",
            builds.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    Ok((s, figures))
}
