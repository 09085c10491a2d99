//! Recorded measurements: CSV files under `results/`, one row per measurement, each naming
//! its device, driver and date, so the book's numbers can be regenerated and traced.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::Path;

use anyhow::{Context as _, Result};

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    format!("{:04}-{:02}-{:02}", if m <= 2 { y + 1 } else { y }, m, d)
}

/// Quotes a CSV field when it needs it.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Appends rows to a CSV file, writing the header first if the file is new or empty.
pub fn append(path: &Path, header: &[&str], rows: &[Vec<String>]) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let fresh = std::fs::metadata(path)
        .map(|m| m.len() == 0)
        .unwrap_or(true);
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    if fresh {
        writeln!(f, "{}", header.join(","))?;
    }
    for row in rows {
        let line: Vec<String> = row.iter().map(|s| field(s)).collect();
        writeln!(f, "{}", line.join(","))?;
    }
    Ok(())
}

/// Reads a CSV file written by [`append`] into header-keyed rows.
pub fn read(path: &Path) -> Result<Vec<std::collections::BTreeMap<String, String>>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(header) = lines.next() else {
        return Ok(Vec::new());
    };
    let header = split(header);
    Ok(lines
        .map(|l| header.iter().cloned().zip(split(l)).collect())
        .collect())
}

/// Splits one CSV line, honouring double quotes.
pub fn split(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The columns of a ladder measurement file.
pub const LADDER_HEADER: &[&str] = &[
    "date",
    "device",
    "driver",
    "lesson",
    "variant",
    "m",
    "n",
    "k",
    "device_ms",
    "host_ms",
    "gflops",
    "host_gflops",
    "max_rel_err",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_round_trip_with_quotes() {
        let dir = std::env::temp_dir().join(format!("lab-record-{}", std::process::id()));
        let path = dir.join("t.csv");
        let _ = std::fs::remove_file(&path);
        append(
            &path,
            &["a", "b"],
            &[vec!["x,y".into(), "say \"hi\"".into()]],
        )
        .unwrap();
        append(&path, &["a", "b"], &[vec!["1".into(), "2".into()]]).unwrap();
        let rows = read(&path).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["a"], "x,y");
        assert_eq!(rows[0]["b"], "say \"hi\"");
        assert_eq!(rows[1]["b"], "2");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn today_is_a_plausible_date() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"), "{d}");
    }
}
