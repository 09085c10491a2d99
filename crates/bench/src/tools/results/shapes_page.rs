//! Rungs at every shape: the lessons a file records (the highest rung first, the one below
//! beside it) with cuBLAS (TF32 off and on) and CUTLASS's 3xTF32 GEMM — the matrix units'
//! algorithm, published — at square, ragged, long and flat shapes, from
//! `results/shapes/<device>.csv`. Each run in a file is one device command: the peers' script
//! and the lessons ran in it one after the other, so its rows compare. The lessons are
//! whatever the rows name (`who` is a lesson's name, `11_matrix_units`, or a lesson's variant,
//! `11_matrix_units-warp-group`), read from the ladder.
//!
//! Tables per run (the newest first), a bar chart of the newest (`shapes-<device>.svg`), and the
//! sentences that say where the highest rung stops winning, computed from the same rows so that
//! they cannot drift from them.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};
use serde::Deserialize;

use super::charts::{self, Bar, Group, Panel, PALETTE};
use lab::harness::record;
use lab::ladder;

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
    /// A lesson's name (`NN_slug`), a variant's (`NN_slug-variant`), `cublas-fp32`,
    /// `cublas-tf32` or `cutlass-3xtf32`.
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
    super::data::size_label(m, n, k)
}

/// A column of the table: a lesson's reference, or one of its variants (`who` is then
/// `<lesson>-<variant>`, as `lab-bench accuracy` names its C).
struct Version {
    label: String,
    who: String,
}

/// The versions the rows name, highest rung first, each lesson's variants after it; and how
/// many of them belong to the highest rung (the page's subject).
fn versions(rows: &[ShapeRow]) -> (Vec<Version>, usize) {
    let mut out = Vec::new();
    let mut top = 0;
    for l in ladder::ALL.iter().rev() {
        if !rows.iter().any(|r| r.who == l.name()) {
            continue;
        }
        let first = out.is_empty();
        out.push(Version {
            label: format!("lesson {}", l.key),
            who: l.name(),
        });
        for v in l.ocl().map_or(&[][..], |o| o.variants) {
            let who = format!("{}-{}", l.name(), v.name);
            if rows.iter().any(|r| r.who == who) {
                out.push(Version {
                    label: format!("{} {}", l.key, v.name),
                    who,
                });
            }
        }
        if first {
            top = out.len();
        }
    }
    (out, top)
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
        // Each run is one device command, and only its own rows compare with each other
        // ("best" below then means CUTLASS's fastest build in that run, never the luckiest of
        // several runs). The newest comes first, with its chart; earlier ones keep shapes the
        // newest did not measure.
        let mut runs: Vec<&str> = Vec::new();
        for r in recorded {
            if !runs.contains(&r.run.as_str()) {
                runs.push(r.run.as_str());
            }
        }
        for (i, run) in runs.iter().rev().enumerate() {
            let rows: Vec<ShapeRow> = recorded.iter().filter(|r| r.run == *run).cloned().collect();
            if let Some(figure) = run_section(&mut s, name, &rows, i == 0)? {
                figures.push(figure);
            }
        }
    }
    Ok((s, figures))
}

/// One device command's tables and sentences, and (for the newest) its chart.
fn run_section(
    s: &mut String,
    name: &str,
    rows: &[ShapeRow],
    newest: bool,
) -> Result<Option<(String, String)>> {
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let mut shapes: Vec<(usize, usize, usize)> = Vec::new();
    for r in rows {
        if !shapes.contains(&r.shape()) {
            shapes.push(r.shape());
        }
    }
    let (versions, top) = versions(rows);
    let Some(subject) = versions.first() else {
        return Ok(None);
    };
    let key = subject.label.trim_start_matches("lesson ").to_string();
    let mine = &versions[..top];
    let _ = writeln!(
        s,
        "\n### {} (driver {}, {}; {} device command: {})\n",
        first.device,
        first.driver,
        first.date,
        if newest { "one" } else { "an earlier" },
        first.run,
    );
    s.push_str(
        "TFLOP/s, median device time on new inputs for every timed call (cuBLAS: the same \
         inputs every call in brackets). Errors: max |C − exact| / max |exact| against float64 \
         (the text with the table says on which inputs and elements each run compared).\n\n",
    );
    let short = |v: &Version| v.label.trim_start_matches("lesson ").to_string();
    let _ = writeln!(
        s,
        "| M × N × K | {} | cuBLAS FP32 | cuBLAS TF32 | CUTLASS 3xTF32 |\n|---|{}",
        versions
            .iter()
            .map(|v| v.label.clone())
            .collect::<Vec<_>>()
            .join(" | "),
        "--:|".repeat(versions.len() + 3),
    );
    // The ratios, the errors and CUTLASS's builds in tables of their own: one with every
    // column would not fit a page's width.
    let mut ratios_table = format!(
        "\n| M × N × K | {} |\n|---|{}\n",
        mine.iter()
            .map(|v| format!("{0} / cuBLAS FP32 | {0} / CUTLASS", short(v)))
            .collect::<Vec<_>>()
            .join(" | "),
        "--:|".repeat(2 * mine.len()),
    );
    let mut behind_cublas: Vec<Vec<String>> = vec![Vec::new(); mine.len()];
    let mut behind_cutlass: Vec<Vec<String>> = vec![Vec::new(); mine.len()];
    let mut groups = Vec::new();
    let mut second = format!(
        "\n| M × N × K | {} | error cuBLAS FP32 | error CUTLASS | CUTLASS's fastest build |\n|---|{}---|\n",
        mine.iter()
            .map(|v| format!("error {}", short(v)))
            .collect::<Vec<_>>()
            .join(" | "),
        "--:|".repeat(mine.len() + 2),
    );
    for &shape in &shapes {
        let fp32 = best(rows, shape, "cublas-fp32");
        let tf32 = best(rows, shape, "cublas-tf32");
        let cut = best(rows, shape, "cutlass-3xtf32");
        let rate = |r: Option<&ShapeRow>| r.map_or("–".to_string(), |r| tflops(r.fresh_gflops));
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
        let rates: Vec<String> = versions
            .iter()
            .map(|v| rate(best(rows, shape, &v.who)))
            .collect();
        let ratios: Vec<String> = mine
            .iter()
            .map(|v| {
                let m = best(rows, shape, &v.who);
                format!("{} | {}", ratio(m, fp32), ratio(m, cut))
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} |",
            shape_name(shape),
            rates.join(" | "),
            fp32_cell,
            rate(tf32),
            cut_cell,
        );
        let _ = writeln!(
            ratios_table,
            "| {} | {} |",
            shape_name(shape),
            ratios.join(" | ")
        );
        let errors: Vec<String> = mine
            .iter()
            .map(|v| err(best(rows, shape, &v.who)))
            .collect();
        let _ = writeln!(
            second,
            "| {} | {} | {} | {} | {} |",
            shape_name(shape),
            errors.join(" | "),
            err(fp32),
            err(cut),
            cut.map_or("none meets its alignment", |r| r.variant.as_str()),
        );
        for (i, v) in mine.iter().enumerate() {
            let m = best(rows, shape, &v.who);
            if let (Some(a), Some(b)) = (m, fp32) {
                if a.fresh_gflops < b.fresh_gflops {
                    behind_cublas[i].push(shape_name(shape));
                }
            }
            if let (Some(a), Some(b)) = (m, cut) {
                if a.fresh_gflops < b.fresh_gflops {
                    behind_cutlass[i].push(shape_name(shape));
                }
            }
        }
        let mut shown = Vec::new();
        for (i, v) in mine.iter().enumerate() {
            shown.push((
                v.label.clone(),
                best(rows, shape, &v.who),
                PALETTE[[0, 2, 3][i % 3]],
            ));
        }
        shown.push(("CUTLASS 3xTF32".to_string(), cut, PALETTE[1]));
        shown.push(("cuBLAS FP32".to_string(), fp32, PALETTE[9]));
        for (i, v) in versions.iter().enumerate().skip(top) {
            shown.push((
                v.label.clone(),
                best(rows, shape, &v.who),
                PALETTE[4 + i % 5],
            ));
        }
        let bars = shown
            .into_iter()
            .filter_map(|(label, row, color)| {
                row.map(|r| Bar {
                    label,
                    value: r.fresh_gflops,
                    range: None,
                    text: format!("{} TFLOP/s", tflops(r.fresh_gflops)),
                    color,
                })
            })
            .collect();
        groups.push(Group {
            title: shape_name(shape),
            bars,
        });
    }
    s.push_str(&ratios_table);
    s.push_str(&second);
    s.push('\n');
    for (i, v) in mine.iter().enumerate() {
        let who = if i == 0 {
            format!("Lesson {key}")
        } else {
            format!(
                "Lesson {key}'s {}",
                v.label.trim_start_matches(&format!("{key} "))
            )
        };
        let _ = write!(
            s,
            "{} ",
            if behind_cublas[i].is_empty() {
                format!("{who} is at least as fast as cuBLAS FP32 at every shape here.")
            } else {
                format!(
                    "{who} is slower than cuBLAS FP32 at {}.",
                    behind_cublas[i].join(", ")
                )
            }
        );
        let _ = writeln!(
            s,
            "{}\n",
            if behind_cutlass[i].is_empty() {
                "It is faster than CUTLASS's 3xTF32 GEMM at every shape CUTLASS could run."
                    .to_string()
            } else {
                format!(
                    "CUTLASS's 3xTF32 GEMM, the published form of the same algorithm, is faster at {}.",
                    behind_cutlass[i].join(", ")
                )
            },
        );
    }
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
    let builds: std::collections::BTreeSet<&str> = rows
        .iter()
        .filter(|r| r.who == "cutlass-3xtf32")
        .map(|r| r.variant.as_str())
        .collect();
    let _ = writeln!(
        s,
        "CUTLASS builds tried at every shape (block M×N, stages, `a1`: any alignment, \
         `colB`: B stored transposed, made once outside the timing): {}.\n",
        builds.into_iter().collect::<Vec<_>>().join(", ")
    );
    if !newest {
        return Ok(None);
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
    Ok(Some((figure, svg)))
}
