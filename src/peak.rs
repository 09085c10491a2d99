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
