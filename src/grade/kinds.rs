//! The kinds of device a lesson chooses its defines for. A lesson picks its tiles from the
//! device's limits (a large GPU's 128×128 tiles, a small one's 64×64, a CPU's 32×32), and a
//! grading runs on one device only. A kernel whose technique holds in the tiles of the
//! grading machine but not in another device's (`#if TSM * TSN <= 32 * 32`) would pass on a
//! student's laptop and miss the technique on the class's GPU. So the technique is counted
//! with the defines the lesson takes on each of these kinds too, whatever device grades.
//!
//! Each kind is described by the limits the lessons read, as those devices' drivers report
//! them; nothing here runs on such a device.

use crate::harness::device::DeviceInfo;

/// A kind of device, as the lessons see it.
pub struct Kind {
    /// How the verdict names it ("a large GPU (an NVIDIA H100's limits)").
    pub label: &'static str,
    pub info: DeviceInfo,
}

fn info(kind: &str, vendor: &str, name: &str, work_group: usize, local_kib: u64) -> DeviceInfo {
    DeviceInfo {
        index: 0,
        platform: String::new(),
        name: name.to_string(),
        vendor: vendor.to_string(),
        driver: String::new(),
        version: "OpenCL 3.0".to_string(),
        kind: kind.to_string(),
        compute_units: 8,
        clock_mhz: 1000,
        global_mem_bytes: 8 << 30,
        max_alloc_bytes: 2 << 30,
        local_mem_bytes: local_kib * 1024,
        max_work_group: work_group,
        max_work_item_sizes: vec![work_group, work_group, 64],
        image_support: true,
        image2d_max_width: 16384,
        preferred_float_width: 1,
        native_float_width: 1,
        base_align_bytes: 128,
        host_unified_memory: false,
    }
}

/// The kinds every grading counts the technique for: a large GPU with matrix units, a small
/// GPU (128 work-items per group, 16 KB of local memory, as small mobile GPUs have), and a
/// CPU as PoCL shows one. Together they reach every branch of the lessons' define choices but
/// the tiniest GPUs' (fewer than 64 work-items or 16 KB), whose 32 × 32 tiles a CPU's match in
/// all but TSK.
pub fn kinds() -> Vec<Kind> {
    let mut h100 = info(
        "GPU",
        "NVIDIA Corporation",
        "NVIDIA H100 80GB HBM3",
        1024,
        48,
    );
    h100.compute_units = 132;
    h100.global_mem_bytes = 80 << 30;
    vec![
        Kind {
            label: "a large GPU (an NVIDIA H100's limits: 1024 work-items per group, 48 KB of local memory)",
            info: h100,
        },
        Kind {
            label: "a small GPU (128 work-items per group, 16 KB of local memory)",
            info: info("GPU", "", "a small GPU", 128, 16),
        },
        Kind {
            label: "a CPU (PoCL's limits: 4096 work-items per group, 4 MB of local memory)",
            info: info("CPU", "", "a CPU", 4096, 4096),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::paths::Course;

    /// The kinds take three different tilings of lesson 06, so none of them is there for
    /// nothing.
    #[test]
    fn the_kinds_take_three_different_tilings_of_lesson_06() {
        let course = Course::from_env();
        let ocl = crate::ladder::get("06").ocl().unwrap();
        let sets: Vec<_> = kinds()
            .iter()
            .map(|k| {
                let ctx = crate::lesson::Ctx {
                    info: &k.info,
                    course: &course,
                };
                crate::prepared::defines(ocl, &ctx, None, &[]).unwrap()
            })
            .collect();
        for (i, a) in sets.iter().enumerate() {
            for b in &sets[i + 1..] {
                assert_ne!(a, b, "{sets:?}");
            }
        }
    }
}
