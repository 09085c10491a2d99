//! Arithmetic intensity: the FLOP a rung's code does per byte of global memory it requests,
//! from its tiling and its defines. Requested, not measured: caches serve some requests
//! again without going to DRAM, so the DRAM traffic is lower and the true intensity higher.

use std::collections::BTreeMap;

use lab::harness::device::DeviceInfo;
use lab::harness::matrix::Shape;
use lab::harness::paths::Course;
use lab::lesson::{Ctx, Lesson};
use lab::tuner::TunedRow;

/// `TSM=128 TSN=64 ...` as numbers by name (a later value of the same name wins).
pub fn parse_defines(text: &str) -> BTreeMap<String, f64> {
    text.split_whitespace()
        .filter_map(|d| {
            let (name, value) = d.trim_start_matches("-D").split_once('=')?;
            Some((name.to_string(), value.trim().parse().ok()?))
        })
        .collect()
}

/// The intensity of a rung's code with these defines, by the rule its lesson declares
/// (`None`: no rule, or a define it needs is not recorded).
pub fn intensity(lesson_key: &str, defines: &str) -> Option<f64> {
    let rule = lab::ladder::find(lesson_key)?.intensity?;
    (rule.of)(&parse_defines(defines))
}

/// How a lesson's intensity is counted, for the table under the roofline.
pub fn rule(lesson_key: &str) -> &'static str {
    lab::ladder::find(lesson_key)
        .and_then(|l| l.intensity)
        .map_or("", |i| i.rule)
}

/// What a device's properties are, for choosing a lesson's defines where a row did not
/// record them: from `results/tuned.csv`'s signature of the device where it has one, else
/// assumed (a device that allows 1024-item work-groups and 48 KiB of local memory).
pub fn device_info(device: &str, kind: &str, tuned: &[TunedRow]) -> (DeviceInfo, bool) {
    let recorded = tuned
        .iter()
        .rev()
        .filter(|r| r.device.trim() == device)
        .find_map(|r| parse_signature(&r.props));
    let (vendor, kind, units, local, group, known) = match recorded {
        Some((v, k, u, l, g)) => (v, k, u, l, g, true),
        None => (String::new(), kind.to_string(), 0, 48 * 1024, 1024, false),
    };
    let info = DeviceInfo {
        index: 0,
        platform: String::new(),
        name: device.to_string(),
        vendor,
        driver: String::new(),
        version: String::new(),
        kind,
        compute_units: units,
        clock_mhz: 0,
        global_mem_bytes: 0,
        max_alloc_bytes: 0,
        local_mem_bytes: local,
        max_work_group: group,
        max_work_item_sizes: Vec::new(),
        image_support: true,
        image2d_max_width: 0,
        preferred_float_width: 0,
        native_float_width: 0,
        base_align_bytes: 0,
        host_unified_memory: false,
    };
    (info, known)
}

/// `NVIDIA Corporation GPU: 132 compute units, 49152 B local memory, 1024 work-items per
/// group` (the tuner's signature): vendor, kind, compute units, local bytes, work-group.
fn parse_signature(text: &str) -> Option<(String, String, u32, u64, usize)> {
    let (head, tail) = text.split_once(": ")?;
    let (vendor, kind) = head.trim().rsplit_once(' ')?;
    let mut numbers = tail.split(", ").map(|part| {
        part.split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok())
    });
    let units = numbers.next()??;
    let local = numbers.next()??;
    let group = numbers.next()??;
    Some((
        vendor.to_string(),
        kind.to_string(),
        units as u32,
        local,
        group as usize,
    ))
}

/// The defines a lesson's reference picks on a device at a size, as its program resolves
/// them (lesson 10: its defaults with the winner tuned nearest that size in
/// `results/tuned.csv` laid over them).
pub fn lesson_defines(course: &Course, lesson: &Lesson, info: &DeviceInfo, shape: Shape) -> String {
    let Some(ocl) = lesson.ocl() else {
        return String::new();
    };
    let ctx = Ctx { info, course };
    let d = match lab::prepared::defines(ocl, &ctx, Some(shape), &[]) {
        Ok(d) => d,
        Err(why) => return format!("(its defines are not legal: {why})"),
    };
    lab::harness::program::line(&d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn intensities_follow_the_tiling() {
        assert!(close(intensity("04", "").unwrap(), 0.25));
        assert!(close(intensity("01", "").unwrap(), 0.25));
        assert!(close(intensity("03", "").unwrap(), 1.0 / 6.0));
        assert!(close(intensity("05", "TS=16").unwrap(), 4.0));
        assert!(close(intensity("05", "TS=8").unwrap(), 2.0));
        assert_eq!(intensity("05", ""), None);
        // TSM = TSN = T is T/4, as lesson 05's tiles.
        let d = "TSM=128 TSN=128 TSK=16 WPTM=8 WPTN=8";
        assert!(close(intensity("06", d).unwrap(), 32.0));
        assert!(close(
            intensity("08", &format!("{d} WIDTH=4 PAD=2")).unwrap(),
            32.0
        ));
        // Asymmetric tiles, and the order of the two does not matter.
        let a = intensity("10", "TSM=128 TSN=256 TSK=16 WPTM=8 WPTN=16 ALONGK=0").unwrap();
        assert!(close(a, 2.0 * 128.0 * 256.0 / (4.0 * 384.0)));
        assert!(close(a, 128.0 / 3.0));
        let b = intensity("10", "TSM=64 TSN=128").unwrap();
        let c = intensity("10", "TSM=128 TSN=64").unwrap();
        assert!(close(b, c) && close(b, 64.0 / 3.0));
        assert_eq!(intensity("07", "TSM=128"), None);
        assert_eq!(intensity("42", ""), None);
    }

    #[test]
    fn lesson_09_counts_each_work_items_image_reads() {
        // The Adreno blog's tile: 8 rows × 4 columns, A from global memory: 64 FLOP per
        // 32 B of A and 16 B of B per step.
        let blog = intensity("09", "WGX=16 WGY=8 RM=8 RN=1 KT=16 A_LOCAL=0").unwrap();
        assert!(close(blog, 64.0 / 48.0));
        // It equals a register tile of RM × 4·RN without shared loads.
        assert!(close(blog, lab::lesson::register_tile(8.0, 4.0)));
        // A shared through local memory: A's bytes per work-item divided by WGX.
        let shared = intensity("09", "WGX=32 WGY=8 RM=16 RN=1 KT=16 A_LOCAL=1").unwrap();
        assert!(close(shared, 128.0 / (4.0 * 16.0 / 32.0 + 16.0)));
        assert!(close(shared, 1024.0 / 144.0));
        // A_LOCAL defaults to 1, as in the kernel.
        assert!(close(
            intensity("09", "WGX=32 WGY=8 RM=16 RN=1").unwrap(),
            shared
        ));
        assert_eq!(intensity("09", "RM=16 RN=1"), None);
    }

    #[test]
    fn defines_parse_and_signatures_give_the_device() {
        let d = parse_defines("TSM=64 -DTSN=32 junk WPTM=x TSM=128");
        assert_eq!(d.get("TSM"), Some(&128.0));
        assert_eq!(d.get("TSN"), Some(&32.0));
        assert!(!d.contains_key("WPTM"));
        let row = TunedRow {
            date: "d".into(),
            device: "NVIDIA H100 80GB HBM3".into(),
            driver: "1".into(),
            gflops: 1.0,
            size: lab::harness::matrix::Shape::square(4096),
            defines: String::new(),
            props: "NVIDIA Corporation GPU: 132 compute units, 49152 B local memory, 1024 work-items per group".into(),
            lesson: "10_tuned".into(),
        };
        let (info, known) = device_info("NVIDIA H100 80GB HBM3", "CPU", std::slice::from_ref(&row));
        assert!(known);
        assert_eq!(
            (info.vendor.as_str(), info.kind.as_str()),
            ("NVIDIA Corporation", "GPU")
        );
        assert_eq!(
            (
                info.compute_units,
                info.local_mem_bytes,
                info.max_work_group
            ),
            (132, 49152, 1024)
        );
        let (info, known) = device_info("pthread-x", "CPU", &[row]);
        assert!(!known);
        assert_eq!(info.kind, "CPU");
    }

    #[test]
    fn a_lessons_own_code_chooses_the_assumed_defines() {
        let course = Course::from_env();
        let (info, _) = device_info("some GPU", "GPU", &[]);
        let shape = Shape::square(4096);
        let d = lesson_defines(&course, lab::ladder::get("05"), &info, shape);
        assert_eq!(d, "TS=16");
        let d = lesson_defines(&course, lab::ladder::get("06"), &info, shape);
        assert!(close(intensity("06", &d).unwrap(), 32.0), "{d}");
        let d = lesson_defines(&course, lab::ladder::get("09"), &info, shape);
        assert!(intensity("09", &d).is_some(), "{d}");
        assert_eq!(
            lesson_defines(&course, lab::ladder::get("03"), &info, shape),
            ""
        );
    }
}
