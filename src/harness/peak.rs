//! The device's measured peak (lesson 00), kept in `results/peak.csv` so that every later
//! report can say what fraction of it a kernel reaches.

use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::harness::device::DeviceInfo;
use crate::harness::record;

/// One device's measured ceilings: a row of `results/peak.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Peak {
    pub date: String,
    pub device: String,
    pub driver: String,
    /// "GPU", "CPU", ...
    pub kind: String,
    /// Compute units the measurement used (for a CPU: the cores OpenCL ran on). A CPU peak
    /// applies to CPU code only when that code ran with as many threads.
    #[serde(default)]
    pub units: Option<u32>,
    /// Best FP32 rate of the multiply-add chains, GFLOP/s.
    #[serde(rename = "fp32_gflops")]
    pub gflops: f64,
    /// The vector width that reached it.
    pub best_width: u32,
    /// Global-memory bandwidth (bytes read plus written), GB/s.
    pub bandwidth_gbs: f64,
    /// The matrix unit's rate on TF32 inputs (NVIDIA's `mma.sync ... tf32`), GFLOP/s, where
    /// the device has one; empty elsewhere and in rows recorded before it was measured.
    #[serde(default)]
    pub matrix_tf32_gflops: Option<f64>,
    /// The L2 cache's read bandwidth, GB/s, where lesson 00 measures it (NVIDIA GPUs); empty
    /// elsewhere and in rows recorded before it was measured.
    #[serde(default)]
    pub l2_gbs: Option<f64>,
    /// The L1 caches' read bandwidth, all compute units together, GB/s, likewise.
    #[serde(default)]
    pub l1_gbs: Option<f64>,
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

/// The file peaks are recorded in.
pub fn file(results: &Path) -> std::path::PathBuf {
    results.join("peak.csv")
}

/// Every recorded peak, oldest first.
pub fn all(results: &Path) -> Result<Vec<Peak>> {
    let path = file(results);
    if !path.is_file() {
        return Ok(Vec::new());
    }
    record::read(&path)
}

/// The newest recorded peak of this OpenCL device (same name) on all its compute units.
pub fn lookup(results: &Path, info: &DeviceInfo) -> Option<Peak> {
    of_device(&all(results).ok()?, &info.name, Some(info.compute_units)).cloned()
}

/// The ceiling of OpenCL kernels on the device `name`, which run on all its compute units:
/// the newest peak of that name measured on `units` units (or with the count not recorded,
/// as for a GPU); when `units` is not known, the one measured on the most. A CPU device's
/// peak on fewer cores, the ceiling of single-threaded CPU code, is never it.
pub fn of_device<'a>(peaks: &'a [Peak], name: &str, units: Option<u32>) -> Option<&'a Peak> {
    let named = peaks.iter().enumerate().filter(|(_, p)| p.device == name);
    match units {
        Some(u) => named
            .filter(|(_, p)| p.units.is_none_or(|n| n == u))
            .max_by_key(|&(i, _)| i),
        None => named.max_by_key(|&(i, p)| (p.units.unwrap_or(0), i)),
    }
    .map(|(_, p)| p)
}

/// The newest recorded peak that is the ceiling of CPU code running on `cpu_model` with
/// `threads` threads: a CPU device whose OpenCL name carries that model (PoCL names its
/// device `pthread-<arch>-<model>`) and that was measured on as many compute units. Any
/// other machine, or another thread count, has no recorded ceiling.
pub fn for_cpu(results: &Path, cpu_model: &str, threads: usize) -> Option<Peak> {
    let model = cpu_model.trim();
    if model.is_empty() {
        return None;
    }
    all(results).ok()?.into_iter().rev().find(|p| {
        p.kind == "CPU"
            && p.units == Some(threads as u32)
            && (p.device == model || p.device.ends_with(&format!("-{model}")))
    })
}

/// Records a peak, its rates to 0.1 (the measurement is not finer than that).
pub fn save(results: &Path, p: &Peak) -> Result<()> {
    let tenth = |x: f64| (x * 10.0).round() / 10.0;
    let rounded = Peak {
        gflops: tenth(p.gflops),
        bandwidth_gbs: tenth(p.bandwidth_gbs),
        matrix_tf32_gflops: p.matrix_tf32_gflops.map(tenth),
        l2_gbs: p.l2_gbs.map(tenth),
        l1_gbs: p.l1_gbs.map(tenth),
        ..p.clone()
    };
    record::append(&file(results), &[rounded])
}

/// The measured peaks as a Markdown table, for the book.
pub fn markdown_table(peaks: &[Peak]) -> String {
    if peaks.is_empty() {
        return "No peak has been recorded yet: `cargo run --release --bin 00_your_device -- --record` \
                measures one.\n"
            .to_string();
    }
    let cell = |s: &str| s.replace('|', "\\|");
    // The caches' column only once some device has them (lesson 00 measures them on NVIDIA
    // GPUs).
    let l2 = peaks
        .iter()
        .any(|p| p.l2_gbs.is_some() || p.l1_gbs.is_some());
    let mut out = String::from(if l2 {
        "| device | kind | units | driver | date | FP32 GFLOP/s | best width | bandwidth GB/s | ridge FLOP/byte | L1 / L2 read GB/s |\n\
         |---|---|--:|---|---|--:|---|--:|--:|--:|\n"
    } else {
        "| device | kind | units | driver | date | FP32 GFLOP/s | best width | bandwidth GB/s | ridge FLOP/byte |\n\
         |---|---|--:|---|---|--:|---|--:|--:|\n"
    });
    for p in peaks {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {:.1} | `{}` | {:.1} | {:.1} |",
            cell(&p.device),
            cell(&p.kind),
            p.units.map_or("—".to_string(), |u| u.to_string()),
            cell(&p.driver),
            cell(&p.date),
            p.gflops,
            vector_type(p.best_width),
            p.bandwidth_gbs,
            p.ridge()
        ));
        if l2 {
            let rate = |g: Option<f64>| g.map_or("—".to_string(), |g| format!("{g:.1}"));
            out.push_str(&format!(" {} / {} |", rate(p.l1_gbs), rate(p.l2_gbs)));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn peak(device: &str, kind: &str, units: Option<u32>) -> Peak {
        Peak {
            date: "2025-01-02".into(),
            device: device.into(),
            driver: "1.0".into(),
            kind: kind.into(),
            units,
            gflops: 1000.0,
            best_width: 4,
            bandwidth_gbs: 100.0,
            matrix_tf32_gflops: None,
            l2_gbs: None,
            l1_gbs: None,
        }
    }

    #[test]
    fn table_has_one_row_per_peak_and_the_ridge() {
        let p = peak("Some|GPU", "GPU", Some(80));
        let t = markdown_table(&[p.clone(), p]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(lines[2].contains("Some\\|GPU"), "{t}");
        assert!(lines[2].contains("| 10.0 |"), "{t}");
        assert!(lines[2].contains("`float4`"), "{t}");
        assert!(markdown_table(&[]).contains("--record"));
    }

    #[test]
    fn an_opencl_device_is_measured_against_its_peak_on_all_its_units() {
        let mut two = peak("pthread-x", "CPU", Some(2));
        two.gflops = 87.0;
        let mut one = peak("pthread-x", "CPU", Some(1));
        one.gflops = 46.0;
        // The one-core peak was recorded last, for single-threaded CPU code.
        let peaks = [peak("GPU", "GPU", None), two, one];
        let of = |units| of_device(&peaks, "pthread-x", units).map(|p| p.gflops);
        assert_eq!(of(Some(2)), Some(87.0));
        assert_eq!(of(None), Some(87.0));
        assert_eq!(of(Some(4)), None);
        assert_eq!(
            of_device(&peaks, "GPU", Some(132)).map(|p| p.kind.as_str()),
            Some("GPU")
        );
    }

    #[test]
    fn a_cpu_peak_applies_only_to_the_same_model_and_thread_count() {
        let tmp = crate::harness::child::Scratch::new("peak").unwrap();
        let dir = tmp.dir.clone();
        std::fs::create_dir_all(&dir).unwrap();
        let _ = std::fs::remove_file(file(&dir));
        let model = "Intel(R) Xeon(R) Processor @ 2.80GHz";
        save(
            &dir,
            &peak(&format!("pthread-skylake-avx512-{model}"), "CPU", Some(2)),
        )
        .unwrap();
        assert!(for_cpu(&dir, model, 2).is_some());
        // 16 threads of another Xeon are not the 2-core machine's ceiling.
        assert!(for_cpu(&dir, model, 16).is_none());
        assert!(for_cpu(&dir, "Intel(R) Xeon(R) Processor", 2).is_none());
    }
}
