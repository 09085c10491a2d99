//! The book's compatibility table: for each OpenCL lesson, how its reference fared on each
//! OpenCL implementation a run recorded (`results/compat.csv`, written by
//! `lab --kernels solutions --record-compat`). Only recorded verdicts appear: an
//! implementation nobody ran is not in the table.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;

use lab::compat::{self, Compat};
use lab::ladder;

/// One column: an implementation, a device and the OpenCL C version the kernels were built as.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Column {
    platform: String,
    device: String,
    driver: String,
    cl_std: String,
}

impl Column {
    fn of(r: &Compat) -> Column {
        Column {
            platform: r.platform.clone(),
            device: r.device.clone(),
            driver: r.driver.clone(),
            cl_std: r.cl_std.clone(),
        }
    }

    fn heading(&self) -> String {
        let std = if self.cl_std.is_empty() {
            String::new()
        } else {
            format!("<br>as OpenCL C {}", self.cl_std)
        };
        format!(
            "{} {}<br>{}{std}",
            self.platform.replace('|', "/"),
            self.driver.replace('|', "/"),
            self.device.replace('|', "/")
        )
    }
}

/// The page: one row per OpenCL lesson, one column per recorded implementation, each cell the
/// newest verdict recorded for it, with its date under the table.
pub fn page(results: &Path, note: &str) -> Result<String> {
    let rows = compat::all(results)?;
    let mut s = String::from(note);
    if rows.is_empty() {
        s.push_str(
            "\nNo run has recorded it yet: `cargo run --release -- --kernels solutions \
             --record-compat` grades the references on your device and records the verdicts.\n",
        );
        return Ok(s);
    }
    let mut columns: Vec<Column> = Vec::new();
    for r in &rows {
        let c = Column::of(r);
        if !columns.contains(&c) {
            columns.push(c);
        }
    }
    let newest = |c: &Column, lesson: &str| {
        rows.iter()
            .rev()
            .find(|r| Column::of(r) == *c && r.lesson == lesson)
    };
    s.push_str("\n| lesson |");
    for c in &columns {
        let _ = write!(s, " {} |", c.heading());
    }
    s.push_str("\n|---|");
    for _ in &columns {
        s.push_str("---|");
    }
    s.push('\n');
    for l in ladder::ALL
        .iter()
        .filter(|l| matches!(l.kind, lab::lesson::Kind::OpenCl(_)))
    {
        let _ = write!(s, "| {} {} |", l.key, l.title);
        for c in &columns {
            let cell = newest(c, l.key).map_or("not recorded".to_string(), |r| r.verdict.clone());
            let _ = write!(s, " {cell} |");
        }
        s.push('\n');
    }
    s.push('\n');
    for c in &columns {
        let dates: std::collections::BTreeSet<&str> = rows
            .iter()
            .filter(|r| Column::of(r) == *c)
            .map(|r| r.date.as_str())
            .collect();
        let _ = writeln!(
            s,
            "- {} on {}{}: recorded {}.",
            c.platform,
            c.device,
            if c.cl_std.is_empty() {
                String::new()
            } else {
                format!(", built as OpenCL C {}", c.cl_std)
            },
            dates.into_iter().collect::<Vec<_>>().join(", ")
        );
    }
    Ok(s)
}
