//! Lesson 10's knobs: the six defines of its kernel, the rules they obey, the defaults a device
//! gets untuned, and the space the course's one tuner (`lab::tuner`) searches; the winners it
//! records in `results/tuned.csv` are read back here.

use std::fmt;
use std::path::Path;

use lab::harness::device::DeviceInfo;
use lab::harness::matrix::Shape;
use lab::harness::paths::Course;
use lab::harness::program::{self, Define};

/// One configuration of lesson 10's kernel: its six `-D` defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Params {
    /// Rows of C per work-group.
    pub tsm: usize,
    /// Columns of C per work-group.
    pub tsn: usize,
    /// Depth of one k-step.
    pub tsk: usize,
    /// Results per work-item along M.
    pub wptm: usize,
    /// Results per work-item along N.
    pub wptn: usize,
    /// 1: consecutive work-items load A along its rows (k), with As swizzled; 0: down its
    /// columns (m).
    pub alongk: usize,
}

/// The names of the defines, in [`Params`] order.
pub const NAMES: [&str; 6] = ["TSM", "TSN", "TSK", "WPTM", "WPTN", "ALONGK"];

impl Params {
    /// A configuration that loads A down its columns (`ALONGK=0`).
    pub const fn new(tsm: usize, tsn: usize, tsk: usize, wptm: usize, wptn: usize) -> Params {
        Params {
            tsm,
            tsn,
            tsk,
            wptm,
            wptn,
            alongk: 0,
        }
    }

    /// The same configuration with `ALONGK` set.
    pub const fn along_k(self, alongk: usize) -> Params {
        Params { alongk, ..self }
    }

    fn values(&self) -> [usize; 6] {
        [
            self.tsm,
            self.tsn,
            self.tsk,
            self.wptm,
            self.wptn,
            self.alongk,
        ]
    }

    /// Work-items along M (the work-group's dimension 1).
    pub fn rtsm(&self) -> usize {
        self.tsm / self.wptm.max(1)
    }

    /// Work-items along N (dimension 0).
    pub fn rtsn(&self) -> usize {
        self.tsn / self.wptn.max(1)
    }

    /// Work-items per work-group.
    pub fn threads(&self) -> usize {
        self.rtsm() * self.rtsn()
    }

    /// Local memory of the two buffers of both tiles, bytes.
    pub fn local_bytes(&self) -> u64 {
        (2 * self.tsk * (self.tsm + self.tsn) * 4) as u64
    }

    /// The kernel's own constraints: every division in it must be exact.
    pub fn check(&self) -> Result<(), String> {
        let Params {
            tsm,
            tsn,
            tsk,
            wptm,
            wptn,
            alongk,
        } = *self;
        if self.values()[..5].contains(&0) {
            return Err(format!(
                "{self}: TSM, TSN, TSK, WPTM and WPTN must be at least 1"
            ));
        }
        let mut why = Vec::new();
        if alongk > 1 {
            why.push("ALONGK must be 0 or 1 (it chooses one of two ways to load A)".to_string());
        }
        if wptm % 4 != 0 || wptn % 4 != 0 {
            why.push("WPTM and WPTN must be multiples of 4 (results are float4)".to_string());
        }
        if tsk % 4 != 0 {
            why.push("TSK must be a multiple of 4 (A is loaded as float4 along k)".to_string());
        }
        if tsm % wptm != 0 || tsn % wptn != 0 {
            why.push("TSM must be a multiple of WPTM and TSN of WPTN".to_string());
        } else {
            let threads = self.threads();
            if (tsm * tsk / 4) % threads != 0 || (tsk * tsn / 4) % threads != 0 {
                why.push(format!(
                    "the {threads} work-items must share the float4 loads of both tiles evenly (TSM·TSK/4 and TSK·TSN/4 multiples of {threads})"
                ));
            }
        }
        if why.is_empty() {
            Ok(())
        } else {
            Err(format!("{self}: {}", why.join("; ")))
        }
    }

    /// Whether the device can run this configuration: work-group size and local memory.
    pub fn fits(&self, info: &DeviceInfo) -> Result<(), String> {
        self.check()?;
        if self.threads() > info.max_work_group {
            return Err(format!(
                "{self}: {} work-items per group, the device allows {}",
                self.threads(),
                info.max_work_group
            ));
        }
        for (d, n) in [self.rtsn(), self.rtsm()].into_iter().enumerate() {
            if let Some(&max) = info.max_work_item_sizes.get(d) {
                if n > max {
                    return Err(format!(
                        "{self}: {n} work-items in dimension {d}, the device allows {max}"
                    ));
                }
            }
        }
        if self.local_bytes() > info.local_mem_bytes {
            return Err(format!(
                "{self}: {} bytes of local memory, the device has {}",
                self.local_bytes(),
                info.local_mem_bytes
            ));
        }
        Ok(())
    }

    pub fn defines(&self) -> Vec<Define> {
        NAMES
            .iter()
            .zip(self.values())
            .map(|(n, v)| Define::new(n, v))
            .collect()
    }

    /// Reads the defines (later ones win, as with `-D` overrides). `ALONGK` may be missing
    /// (rows recorded before it existed): then it is 0, the kernel's own default.
    pub fn from_defines(defines: &[Define]) -> Result<Params, String> {
        let find = |name: &str| defines.iter().rev().find(|d| d.name == name);
        let parse = |d: &Define| -> Result<usize, String> {
            d.value
                .trim()
                .parse()
                .map_err(|_| format!("{}={} is not a whole number", d.name, d.value))
        };
        let get = |name: &str| -> Result<usize, String> {
            parse(find(name).ok_or_else(|| format!("the define {name} is missing"))?)
        };
        let alongk = find("ALONGK").map(parse).transpose()?.unwrap_or(0);
        Ok(Params::new(
            get("TSM")?,
            get("TSN")?,
            get("TSK")?,
            get("WPTM")?,
            get("WPTN")?,
        )
        .along_k(alongk))
    }

    /// Parses `"TSM=128 TSN=128 TSK=16 WPTM=8 WPTN=8 ALONGK=0"` (the `defines` column).
    pub fn parse(text: &str) -> Result<Params, String> {
        Params::from_defines(&program::parse_line(text)?)
    }
}

impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = NAMES
            .iter()
            .zip(self.values())
            .map(|(n, v)| format!("{n}={v}"))
            .collect();
        write!(f, "{}", parts.join(" "))
    }
}

/// The configuration used when a device has not been tuned: 128×128 blocks of 8×8 per
/// work-item where the device allows 256 work-items and 32 KiB of local memory (any recent
/// GPU), smaller blocks elsewhere.
pub fn defaults(info: &DeviceInfo) -> Params {
    let preferred = if info.is_gpu() {
        [
            Params::new(128, 128, 16, 8, 8),
            Params::new(128, 128, 8, 8, 8),
            Params::new(64, 64, 16, 4, 4),
            Params::new(64, 64, 8, 8, 8),
            Params::new(32, 32, 8, 4, 4),
        ]
    } else {
        // A CPU runs a work-group as a loop: fewer, fatter work-items suit it.
        [
            Params::new(64, 64, 16, 8, 8),
            Params::new(64, 64, 8, 8, 8),
            Params::new(32, 32, 8, 8, 8),
            Params::new(32, 32, 8, 4, 4),
            Params::new(16, 16, 4, 4, 4),
        ]
    };
    preferred
        .into_iter()
        .find(|p| p.fits(info).is_ok())
        .unwrap_or(Params::new(8, 8, 4, 4, 4))
}

/// Whether a recorded combination still fits the device (a row of a device with the same
/// signature, or one recorded before a rule changed).
fn fits(info: &DeviceInfo) -> impl Fn(&[Define]) -> bool + '_ {
    move |d| Params::from_defines(d).is_ok_and(|p| p.check().is_ok() && p.fits(info).is_ok())
}

/// The device's most recent winner in a tuned.csv file (or, for an untuned device, that of
/// a device with the same signature), if it still fits the device.
pub fn tuned_from(path: &Path, info: &DeviceInfo) -> Option<Params> {
    let d = lab::tuner::latest(path, &super::LESSON.name(), info, &fits(info))?;
    Params::from_defines(&d).ok()
}

/// The device's winner that serves `shape` ([`lab::tuner::for_shape`]): the one tuned at it,
/// else the one whose TSM×TSN blocks fill the device's compute units best.
pub fn tuned_for_size(path: &Path, info: &DeviceInfo, shape: Shape) -> Option<Params> {
    let groups = |d: &[Define]| {
        let p = Params::from_defines(d).ok()?;
        Some(shape.m.div_ceil(p.tsm) * shape.n.div_ceil(p.tsn))
    };
    let name = super::LESSON.name();
    let (_, d) = lab::tuner::for_shape(path, &name, info, shape, &fits(info), &groups)?;
    Params::from_defines(&d).ok()
}

/// The defines lesson 10 uses on a device: its tuned winner, else [`defaults`].
pub fn params_for(course: &Course, info: &DeviceInfo) -> Params {
    tuned_from(&lab::tuner::tuned_csv(&course.results()), info).unwrap_or_else(|| defaults(info))
}

/// The tuner's search space: block shapes (TSM×TSN tiles, WPTM×WPTN results per work-item)
/// and k-steps with a way of loading A. Declared, not generated: every grading checks every
/// combination (`OclLesson::knobs`), so the space holds the shapes that matter on the devices
/// the course has tuned (the winners in results/tuned.csv are all here) and both directions
/// of every asymmetric one.
const BLOCKS: [(usize, usize, usize, usize); 8] = [
    (32, 32, 4, 4),
    (64, 32, 8, 4),
    (32, 64, 4, 8),
    (64, 64, 8, 8),
    (64, 128, 8, 4),
    (128, 64, 8, 4),
    (128, 128, 8, 8),
    (128, 256, 8, 16),
];

/// The k-steps of the space, each with the way of loading A it is tried with (`ALONGK`): the
/// pairs the tuned winners use (a k-step of 8 is left to the defaults of small devices).
const STEPS: [(usize, usize); 2] = [(16, 0), (32, 1)];

/// Every configuration of the search space the device can run, the defaults first (with both
/// ways of loading A), then the likeliest winners: 128–256 work-items, 64 or 128 results
/// each, squarer tiles, k-steps near 16.
pub fn space(info: &DeviceInfo) -> Vec<Params> {
    space_at(info, None)
}

/// [`space`], ordered for a square problem of `size` when one is given: on a GPU, tiles
/// that make too few work-groups to keep half the compute units busy come last.
pub fn space_at(info: &DeviceInfo, size: Option<usize>) -> Vec<Params> {
    let first = defaults(info);
    let mut all = vec![first, first.along_k(1)];
    for (tsm, tsn, wptm, wptn) in BLOCKS {
        for (tsk, alongk) in STEPS {
            let p = Params::new(tsm, tsn, tsk, wptm, wptn).along_k(alongk);
            if !all.contains(&p) && p.threads() >= 16 && p.fits(info).is_ok() {
                all.push(p);
            }
        }
    }
    let score = |p: &Params| {
        let t = p.threads();
        let threads = if t == 256 {
            0
        } else if t == 128 {
            1
        } else if t == 512 {
            2
        } else {
            3
        };
        let work = p.wptm * p.wptn;
        let work = if work == 64 || work == 128 {
            0
        } else if work == 32 {
            1
        } else {
            2
        };
        let starves = match size {
            Some(n) if info.is_gpu() => {
                let groups = n.div_ceil(p.tsm) * n.div_ceil(p.tsn);
                2 * groups < info.compute_units as usize
            }
            _ => false,
        };
        let square = p.tsm.abs_diff(p.tsn) / 32;
        (
            p.along_k(0) != first,
            starves,
            threads + work,
            square,
            usize::abs_diff(p.tsk, 16),
        )
    };
    // A stable sort: each shape's two ALONGK values stay next to each other.
    all.sort_by_key(score);
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use lab::harness::record;
    use lab::tuner::{signature, TunedRow};

    fn device(max_wg: usize, local: u64, gpu: bool) -> DeviceInfo {
        DeviceInfo {
            index: 0,
            platform: "test".into(),
            name: "Test Device".into(),
            vendor: "test".into(),
            driver: "1.0".into(),
            version: "OpenCL 3.0".into(),
            kind: if gpu { "GPU" } else { "CPU" }.into(),
            compute_units: 1,
            clock_mhz: 1000,
            global_mem_bytes: 1 << 30,
            max_alloc_bytes: 1 << 28,
            local_mem_bytes: local,
            max_work_group: max_wg,
            max_work_item_sizes: vec![max_wg, max_wg, max_wg],
            image_support: false,
            image2d_max_width: 0,
            preferred_float_width: 4,
            native_float_width: 4,
            base_align_bytes: 128,
            host_unified_memory: false,
        }
    }

    #[test]
    fn defines_round_trip() {
        let p = Params::new(128, 64, 16, 8, 4);
        assert_eq!(Params::parse(&p.to_string()).unwrap(), p);
        assert_eq!(Params::from_defines(&p.defines()).unwrap(), p);
        assert!(Params::parse("TSM=128 TSN=128")
            .unwrap_err()
            .contains("TSK"));
        assert!(Params::parse("TSM=x TSN=1 TSK=1 WPTM=4 WPTN=4").is_err());
        // Rows recorded before ALONGK existed load A down its columns, the kernel's default.
        let old = Params::parse("TSM=128 TSN=64 TSK=16 WPTM=8 WPTN=4").unwrap();
        assert_eq!(old, p);
        let k = p.along_k(1);
        assert_eq!(Params::parse(&k.to_string()).unwrap(), k);
        assert!(k.to_string().ends_with("ALONGK=1"));
    }

    #[test]
    fn constraints_are_enforced() {
        assert!(Params::new(128, 128, 16, 8, 8).check().is_ok());
        assert!(Params::new(128, 128, 16, 6, 8).check().is_err());
        assert!(Params::new(128, 128, 6, 8, 8).check().is_err());
        // 1024 work-items cannot share 128·8/4 = 256 float4 loads.
        assert!(Params::new(128, 128, 8, 4, 4).check().is_err());
        assert!(Params::new(128, 128, 16, 8, 8).along_k(1).check().is_ok());
        let why = Params::new(128, 128, 16, 8, 8)
            .along_k(2)
            .check()
            .unwrap_err();
        assert!(why.contains("ALONGK must be 0 or 1"), "{why}");
        let small = device(256, 16 * 1024, true);
        assert!(Params::new(128, 128, 16, 8, 8).fits(&small).is_err());
        assert!(Params::new(64, 64, 16, 4, 4).fits(&small).is_ok());
    }

    #[test]
    fn defaults_fit_and_space_starts_with_them() {
        for info in [
            device(1024, 48 * 1024, true),
            device(256, 32 * 1024, true),
            device(4096, 2 << 20, false),
            device(64, 16 * 1024, true),
        ] {
            let d = defaults(&info);
            assert!(d.fits(&info).is_ok(), "{d} on {info:?}");
            let s = space(&info);
            assert!(!s.is_empty());
            assert_eq!(s[0], d);
            assert!(s.iter().all(|p| p.fits(&info).is_ok()));
        }
        let h100 = device(1024, 48 * 1024, true);
        assert_eq!(defaults(&h100), Params::new(128, 128, 16, 8, 8));
        // The defaults with both ways of loading A, then every declared combination that
        // fits, each once: few enough for every grading to check them all.
        let s = space(&h100);
        assert_eq!(s[1], s[0].along_k(1));
        assert!(s.len() <= 2 + BLOCKS.len() * STEPS.len(), "{}", s.len());
        for (i, p) in s.iter().enumerate() {
            assert!(!s[..i].contains(p), "{p} twice");
        }
        // The winners recorded on the H100 and the H200 are in it.
        for w in [
            Params::new(128, 256, 16, 8, 16),
            Params::new(64, 128, 32, 8, 4).along_k(1),
            Params::new(128, 64, 32, 8, 4).along_k(1),
        ] {
            assert!(s.contains(&w), "{w} is not in the space");
        }
    }

    #[test]
    fn at_a_small_size_tiles_that_leave_compute_units_idle_come_last() {
        let mut gpu = device(1024, 48 * 1024, true);
        gpu.compute_units = 132;
        let s = space_at(&gpu, Some(1024));
        assert_eq!(s.len(), space(&gpu).len());
        // The defaults first, with both ways of loading A, whatever the size.
        assert_eq!(s[0], defaults(&gpu));
        assert_eq!(s[1], defaults(&gpu).along_k(1));
        // Then: 128×128 tiles make 64 work-groups at 1024, fewer than half of 132 units.
        let groups = |p: &Params| 1024usize.div_ceil(p.tsm) * 1024usize.div_ceil(p.tsn);
        let first_starving = s[2..].iter().position(|p| 2 * groups(p) < 132).unwrap() + 2;
        assert!(s[first_starving..].iter().all(|p| 2 * groups(p) < 132));
        assert!(first_starving > 2);
    }

    #[test]
    fn tuned_csv_picks_the_latest_row_of_the_device() {
        let tmp = lab::harness::child::Scratch::new("tuned").unwrap();
        let dir = tmp.dir.clone();
        let path = dir.join("tuned.csv");
        let _ = std::fs::remove_file(&path);
        let info = device(1024, 48 * 1024, true);
        assert_eq!(tuned_from(&path, &info), None);
        let row = |dev: &str, defines: &str| TunedRow {
            date: "2025-01-01".into(),
            device: dev.into(),
            driver: "1.0".into(),
            gflops: 100.0,
            size: Shape::square(4096),
            defines: defines.into(),
            props: "elsewhere".into(),
            lesson: "10_tuned".into(),
        };
        record::append(
            &path,
            &[
                row("Test Device", "TSM=64 TSN=64 TSK=8 WPTM=4 WPTN=4"),
                row("Test Device", "TSM=128 TSN=64 TSK=16 WPTM=8 WPTN=4"),
                row("Other Device", "TSM=32 TSN=32 TSK=8 WPTM=4 WPTN=4"),
                // Too much local memory for this device: ignored.
                row("Test Device", "TSM=256 TSN=256 TSK=32 WPTM=16 WPTN=8"),
            ],
        )
        .unwrap();
        assert_eq!(
            tuned_from(&path, &info),
            Some(Params::new(128, 64, 16, 8, 4))
        );
        // A winner at a flat shape, newer, serves its own shapes, not as the device's default.
        let flat = TunedRow {
            size: Shape::new(8192, 8192, 1024),
            ..row("Test Device", "TSM=64 TSN=128 TSK=16 WPTM=4 WPTN=8")
        };
        assert!(fits(&info)(&program::parse_line(&flat.defines).unwrap()));
        record::append(&path, &[flat]).unwrap();
        assert_eq!(
            tuned_from(&path, &info),
            Some(Params::new(128, 64, 16, 8, 4))
        );
    }

    #[test]
    fn an_untuned_device_takes_the_rows_of_a_device_with_the_same_signature() {
        let tmp = lab::harness::child::Scratch::new("tuned-sig").unwrap();
        let dir = tmp.dir.clone();
        let path = dir.join("tuned.csv");
        let _ = std::fs::remove_file(&path);
        let tuned = device(1024, 48 * 1024, true);
        let mut twin = tuned.clone();
        twin.name = "Twin Device".into();
        twin.global_mem_bytes *= 2;
        let mut other = tuned.clone();
        other.name = "Other Device".into();
        other.compute_units += 1;
        assert_eq!(signature(&twin), signature(&tuned));
        assert_ne!(signature(&other), signature(&tuned));
        let row = |dev: &DeviceInfo, defines: &str| TunedRow {
            date: "2025-01-01".into(),
            device: dev.name.clone(),
            driver: "1.0".into(),
            gflops: 100.0,
            size: Shape::square(4096),
            defines: defines.into(),
            props: signature(dev),
            lesson: "10_tuned".into(),
        };
        let p = Params::new(128, 256, 16, 8, 16).along_k(1);
        record::append(&path, &[row(&tuned, &p.to_string())]).unwrap();
        assert_eq!(tuned_from(&path, &twin), Some(p));
        assert_eq!(tuned_from(&path, &other), None);
        // Once the twin has a row of its own, that one wins.
        let own = Params::new(64, 64, 16, 4, 4);
        record::append(&path, &[row(&twin, &own.to_string())]).unwrap();
        assert_eq!(tuned_from(&path, &twin), Some(own));
        assert_eq!(tuned_from(&path, &tuned), Some(p));
    }

    #[test]
    fn a_shape_nobody_tuned_at_gets_the_winner_that_fills_the_device() {
        let tmp = lab::harness::child::Scratch::new("tuned-shape").unwrap();
        let path = tmp.dir.join("tuned.csv");
        let _ = std::fs::remove_file(&path);
        let mut h200 = device(1024, 48 * 1024, true);
        h200.compute_units = 132;
        let big = Params::new(128, 256, 16, 8, 16).along_k(0);
        let small = Params::new(128, 64, 32, 8, 4).along_k(1);
        let row = |size: usize, p: &Params| TunedRow {
            date: "2026-11-22".into(),
            device: h200.name.clone(),
            driver: "1.0".into(),
            gflops: 100.0,
            size: Shape::square(size),
            defines: p.to_string(),
            props: signature(&h200),
            lesson: "10_tuned".into(),
        };
        // The H200's winners as results/tuned.csv holds them.
        record::append(&path, &[row(4096, &big), row(2048, &big), row(1024, &small)]).unwrap();
        // The faster of the two at each shape, measured with both forced on an H200
        // (research/tuner-shapes-10): the big block where both fill the device, the small
        // one where M·N is small or between the tuned cubes.
        for (m, n, k, want) in [
            (8192, 8192, 1024, &big),
            (1024, 8192, 8192, &big),
            (12288, 4096, 3072, &big),
            (8192, 1024, 8192, &big),
            (1024, 8192, 1024, &big),
            (1024, 1024, 8192, &small),
            (1000, 1000, 8000, &small),
            (1024, 1024, 4096, &small),
            (512, 512, 8192, &small),
            (768, 768, 4096, &small),
            (512, 512, 2048, &small),
            (1536, 1536, 1536, &small),
            (3072, 3072, 3072, &small),
            // Measured the same way at 23 more shapes (calls 2 and 3), from which the rule's
            // tolerance was chosen: the faster block at each.
            (2560, 2560, 2560, &big),
            (6144, 1024, 2048, &small),
            (1536, 1536, 6144, &small),
            (4096, 512, 4096, &small),
            (16384, 2048, 1024, &big),
            (5000, 3000, 700, &big),
            (2048, 6144, 512, &big),
            (384, 3072, 4096, &small),
            (7000, 7000, 7000, &big),
            (2304, 2304, 2304, &small),
            (3584, 3584, 1024, &big),
            (1200, 1200, 1200, &small),
            (1800, 1800, 1800, &big),
            (2200, 2200, 2200, &small),
            (3800, 3800, 3800, &big),
            (4608, 4608, 4608, &big),
            (2048, 2048, 1024, &big),
            (1280, 1280, 1280, &small),
            (2816, 2816, 2816, &big),
            (8192, 512, 2048, &big),
            (640, 640, 16384, &small),
            (3000, 5000, 1500, &big),
            (10000, 2000, 3000, &big),
            // And at twelve shapes measured after the rule was settled (call 4).
            (3328, 3328, 3328, &big),
            (2432, 2432, 2432, &small),
            (1664, 1664, 1664, &small),
            (5120, 5120, 512, &big),
            (6000, 1500, 3000, &small),
            (1024, 4096, 2048, &big),
            (2944, 2944, 2944, &small),
            (896, 896, 8192, &small),
            (4096, 1536, 4096, &small),
            (7168, 3072, 1024, &big),
            (1920, 1920, 1920, &big),
            (3456, 2048, 2048, &big),
            // The cubes tuned at: their own winners.
            (4096, 4096, 4096, &big),
            (2048, 2048, 2048, &big),
            (1024, 1024, 1024, &small),
        ] {
            let got = tuned_for_size(&path, &h200, Shape::new(m, n, k));
            assert_eq!(got.as_ref(), Some(want), "{m}×{n}×{k}");
        }
    }
}
