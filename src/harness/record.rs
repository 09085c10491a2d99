//! Recorded measurements: CSV files under `results/`, one row per measurement, each naming
//! its device, driver and date, so the book's numbers can be regenerated and traced. A
//! file's columns are the fields of one serde struct, so writer and reader cannot disagree.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

mod csv;

/// Today's date (UTC) as YYYY-MM-DD.
pub fn today() -> String {
    chrono::Utc::now().format("%Y-%m-%d").to_string()
}

/// An identifier for one measuring session: rows written with the same `run` were taken
/// together, in one process or one device lease.
pub fn run_id() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The header line `T` writes, from one of its rows.
fn header_of<T: Serialize>(row: &T) -> Result<String> {
    csv::header(row).context("encoding a row")
}

/// Appends rows to a CSV file, writing the header first if the file is new or empty. A file
/// written with other columns (an older version of `T`) is first rewritten with `T`'s, so
/// that every line of a file has the same columns.
pub fn append<T: Serialize + DeserializeOwned + Clone>(path: &Path, rows: &[T]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let existing = std::fs::read_to_string(path).unwrap_or_default();
    let header = header_of(first)?;
    if let Some(old) = existing.lines().next().filter(|l| !l.trim().is_empty()) {
        if old.trim() != header {
            let mut all: Vec<T> = read(path)?;
            all.extend(rows.iter().cloned());
            let part = path.with_extension("csv.part");
            let _ = std::fs::remove_file(&part);
            append_fresh(&part, &all)?;
            return std::fs::rename(&part, path)
                .with_context(|| format!("rewriting {}", path.display()));
        }
    }
    append_fresh(path, rows)
}

fn append_fresh<T: Serialize>(path: &Path, rows: &[T]) -> Result<()> {
    let fresh = std::fs::metadata(path)
        .map(|m| m.len() == 0)
        .unwrap_or(true);
    let mut text = String::new();
    if fresh {
        if let Some(first) = rows.first() {
            text = header_of(first)? + "\n";
        }
    }
    for row in rows {
        text += &csv::row(row).with_context(|| format!("writing a row to {}", path.display()))?;
    }
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Reads every row of a CSV file written by [`append`]. Columns the struct does not know are
/// ignored; a row that does not fit the struct is an error naming its line.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    csv::rows(&text).with_context(|| path.display().to_string())
}

/// Reads a number that older files leave empty (or leave out) as its default.
fn lenient<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: std::str::FromStr + Default,
    T::Err: std::fmt::Display,
{
    let s = String::deserialize(d)?;
    if s.trim().is_empty() {
        Ok(T::default())
    } else {
        s.trim().parse().map_err(serde::de::Error::custom)
    }
}

/// One measured kernel (or peer) at one size: a row of `results/<device>.csv`, written by
/// `cargo run --release -p lab-bench -- ladder` and by `scripts/cublas_sgemm.py`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LadderRow {
    pub date: String,
    /// Rows with the same run were measured together (one process, one device lease).
    #[serde(default)]
    pub run: String,
    pub device: String,
    #[serde(default)]
    pub driver: String,
    /// CPU rows: the threads the code ran with (0 for GPU rows).
    #[serde(default, deserialize_with = "lenient")]
    pub threads: usize,
    /// `05_local_tiling`, or a peer's name (`cublas`, `clblast`, `matrixmultiply`).
    pub lesson: String,
    /// `reference`, a variant's name, or a peer's configuration.
    pub variant: String,
    /// The kernel's defines (`TSM=128 TSN=128 ...`), where the row is a lesson's kernel run
    /// with its own; empty otherwise.
    #[serde(default)]
    pub defines: String,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Median device time (profiling events; wall clock for CPU code and host-timed peers).
    pub device_ms: f64,
    /// Fastest and slowest of the timed repetitions.
    #[serde(default, deserialize_with = "lenient")]
    pub best_ms: f64,
    #[serde(default, deserialize_with = "lenient")]
    pub worst_ms: f64,
    #[serde(default, deserialize_with = "lenient")]
    pub reps: usize,
    /// Median end-to-end time with transfers, on the host clock.
    pub host_ms: f64,
    pub gflops: f64,
    pub host_gflops: f64,
    /// Largest relative error against the f64 reference; empty where not checked here.
    #[serde(default, deserialize_with = "csv::invalid_option")]
    pub max_rel_err: Option<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct Row {
        a: String,
        b: f64,
        #[serde(default)]
        c: Option<usize>,
    }

    #[test]
    fn csv_round_trip_with_quotes_and_missing_columns() {
        let tmp = crate::harness::child::Scratch::new("record").unwrap();
        let dir = tmp.dir.clone();
        let path = dir.join("t.csv");
        let _ = std::fs::remove_file(&path);
        let first = Row {
            a: "x,\"y\"".into(),
            b: 1.5,
            c: Some(3),
        };
        append(&path, &[first]).unwrap();
        append(
            &path,
            &[Row {
                a: "z".into(),
                b: 2.0,
                c: None,
            }],
        )
        .unwrap();
        let rows: Vec<Row> = read(&path).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].a, "x,\"y\"");
        assert_eq!(rows[1].c, None);
        // An older file without column c still reads, and is rewritten when appended to.
        std::fs::write(&path, "a,b\nq,4\n").unwrap();
        let rows: Vec<Row> = read(&path).unwrap();
        assert_eq!(rows[0].c, None);
        append(
            &path,
            &[Row {
                a: "r".into(),
                b: 5.0,
                c: Some(1),
            }],
        )
        .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "a,b,c\nq,4.0,\nr,5.0,1\n");
        // A row that does not fit names its line.
        std::fs::write(&path, "a,b\nq,notanumber\n").unwrap();
        let err = read::<Row>(&path).unwrap_err();
        assert!(format!("{err:#}").contains("row 2"), "{err:#}");
    }

    #[test]
    fn ladder_rows_with_empty_columns_read() {
        let text = "date,run,device,driver,threads,lesson,variant,defines,m,n,k,device_ms,best_ms,worst_ms,reps,host_ms,gflops,host_gflops,max_rel_err\n\
                    2026-01-01,,GPU,1.0,,cublas,sgemm-fp32,,8,8,8,1.5,,,,1.5,0.7,0.7,\n";
        let rows: Vec<LadderRow> = csv::rows(text).unwrap();
        assert_eq!(
            (rows[0].threads, rows[0].reps, rows[0].max_rel_err),
            (0, 0, None)
        );
        assert_eq!(rows[0].best_ms, 0.0);
    }

    #[test]
    fn today_is_a_plausible_date() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"), "{d}");
    }
}
