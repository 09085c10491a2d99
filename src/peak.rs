//! The device's measured peak (lesson 00), kept in `results/peak.csv` so that every later
//! report can say what fraction of it a kernel reaches.

use anyhow::Result;

use crate::device::DeviceInfo;
use crate::paths;
use crate::record;

/// The columns of `results/peak.csv`.
pub const HEADER: &[&str] = &[
    "date",
    "device",
    "driver",
    "kind",
    "fp32_gflops",
    "best_width",
    "bandwidth_gbs",
];

/// One device's measured ceilings.
#[derive(Clone, Debug, PartialEq)]
pub struct Peak {
    pub date: String,
    pub device: String,
    pub driver: String,
    pub kind: String,
    /// Best FP32 rate of the multiply-add chains, GFLOP/s.
    pub gflops: f64,
    /// The vector width that reached it.
    pub best_width: u32,
    /// Global-memory bandwidth (bytes read plus written), GB/s.
    pub bandwidth_gbs: f64,
}

impl Peak {
    /// The roofline's ridge point: the arithmetic intensity (FLOP per byte of global memory
    /// traffic) above which a kernel can be limited by arithmetic rather than by memory.
    pub fn ridge(&self) -> f64 {
        if self.bandwidth_gbs > 0.0 {
            self.gflops / self.bandwidth_gbs
        } else {
            f64::NAN
        }
    }
}

/// The OpenCL type of a vector width: `float`, `float2`, ... `float16`.
pub fn vector_type(width: u32) -> String {
    if width <= 1 {
        "float".to_string()
    } else {
        format!("float{width}")
    }
}

/// Every recorded peak, oldest first.
pub fn all() -> Result<Vec<Peak>> {
    let path = paths::results_dir().join("peak.csv");
    if !path.is_file() {
        return Ok(Vec::new());
    }
    Ok(record::read(&path)?
        .into_iter()
        .filter_map(|r| {
            Some(Peak {
                date: r.get("date")?.clone(),
                device: r.get("device")?.clone(),
                driver: r.get("driver")?.clone(),
                kind: r.get("kind")?.clone(),
                gflops: r.get("fp32_gflops")?.parse().ok()?,
                best_width: r.get("best_width")?.parse().ok()?,
                bandwidth_gbs: r.get("bandwidth_gbs")?.parse().ok()?,
            })
        })
        .collect())
}

/// The newest recorded peak of this device (same name).
pub fn lookup(info: &DeviceInfo) -> Option<Peak> {
    all()
        .ok()?
        .into_iter()
        .rev()
        .find(|p| p.device == info.name)
}

/// The newest recorded peak of any CPU device: the ceiling for the CPU lessons.
pub fn cpu() -> Option<Peak> {
    all().ok()?.into_iter().rev().find(|p| p.kind == "CPU")
}

/// Records a peak.
pub fn save(p: &Peak) -> Result<()> {
    record::append(
        &paths::results_dir().join("peak.csv"),
        HEADER,
        &[vec![
            p.date.clone(),
            p.device.clone(),
            p.driver.clone(),
            p.kind.clone(),
            format!("{:.1}", p.gflops),
            p.best_width.to_string(),
            format!("{:.1}", p.bandwidth_gbs),
        ]],
    )
}

/// The measured peaks as a Markdown table, for the book.
pub fn markdown_table(peaks: &[Peak]) -> String {
    if peaks.is_empty() {
        return "No peak has been recorded yet: `cargo run --release --bin 00_your_device -- --record` \
                measures one.\n"
            .to_string();
    }
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = String::from(
        "| device | kind | driver | date | FP32 GFLOP/s | best width | bandwidth GB/s | ridge FLOP/byte |\n\
         |---|---|---|---|--:|---|--:|--:|\n",
    );
    for p in peaks {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} | `{}` | {:.1} | {:.1} |\n",
            cell(&p.device),
            cell(&p.kind),
            cell(&p.driver),
            cell(&p.date),
            p.gflops,
            vector_type(p.best_width),
            p.bandwidth_gbs,
            p.ridge()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_one_row_per_peak_and_the_ridge() {
        let p = Peak {
            date: "2025-01-02".into(),
            device: "Some|GPU".into(),
            driver: "1.0".into(),
            kind: "GPU".into(),
            gflops: 1000.0,
            best_width: 4,
            bandwidth_gbs: 100.0,
        };
        let t = markdown_table(&[p.clone(), p]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[2].contains("Some\\|GPU"), "{t}");
        assert!(lines[2].contains("| 10.0 |"), "{t}");
        assert!(lines[2].contains("`float4`"), "{t}");
        assert!(markdown_table(&[]).contains("--record"));
    }
}
