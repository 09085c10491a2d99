//! DRAM traffic, counted: the bytes a rung's code moves between DRAM and the last-level
//! cache, from its blocking and the size of that cache. This is the roofline's x.
//!
//! The lessons declare what their code *requests* from global memory (`Lesson::intensity`):
//! that is a property of the code alone. How much of it reaches DRAM also depends on the
//! device's last-level cache, which no lesson knows, so the model lives here, beside the
//! table of cache sizes it needs. It is a model, not a measurement: where a rung's measured
//! speed is above the roof at the counted intensity, the page says that the model
//! overcounts instead of moving the dot.

use anyhow::Result;

use lab::harness::device::DeviceInfo;
use lab::harness::matrix::Shape;
use lab::lesson::Walk;

use super::intensity::parse_defines;

/// A device's last-level cache, as the roofline page uses it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cache {
    pub bytes: f64,
    /// Where the figure comes from, for the page.
    pub source: &'static str,
    /// Not recorded for this device: a stated assumption.
    pub assumed: bool,
}

const MIB: f64 = 1024.0 * 1024.0;

/// The last-level cache of a device with a roofline. Nothing in `results/` records cache
/// sizes, so they are listed here with their source.
pub fn cache_of(device: &str, kind: &str) -> Cache {
    if device.contains("H100") {
        return Cache {
            bytes: 50.0 * MIB,
            source: "NVIDIA's H100 datasheet gives 50 MB of L2, taken as 50 MiB",
            assumed: false,
        };
    }
    if device.contains("H200") {
        // The H200 is the H100's chip (GH100) with more and faster memory: NVIDIA gives no
        // L2 size of its own for it.
        return Cache {
            bytes: 50.0 * MIB,
            source:
                "the H200 is the H100's chip, whose datasheet gives 50 MB of L2, taken as 50 MiB",
            assumed: false,
        };
    }
    if kind == "CPU" {
        // The results name the CPU only as "Intel(R) Xeon(R) Processor": neither its model
        // nor its L3. 8 MiB is what lesson 03's measured speed needs: at 1024³ its B (4 MiB)
        // must stay cached from one row of C to the next, or it could not run as fast as it
        // does on the measured bandwidth.
        return Cache {
            bytes: 8.0 * MIB,
            source: "the results record no L3 size for this CPU",
            assumed: true,
        };
    }
    Cache {
        bytes: 0.0,
        source: "none: the results record no cache size for this device",
        assumed: true,
    }
}

/// The walk a rung's code declares, with these defines on this device: the rows of C in
/// flight worked out where the driver picks the work-group (`None`: no walk declared, or a
/// define it needs is not recorded).
fn walk(key: &str, defines: &str, info: &DeviceInfo, shape: Shape) -> Option<Counted> {
    let rule = lab::ladder::find(key)?.intensity?;
    Some(match (rule.walk)(&parse_defines(defines))? {
        Walk::Rows => Counted::Rows { rows: 1.0 },
        // At least one work-group of the largest size on every compute unit.
        Walk::RowsInFlight => Counted::Rows {
            rows: (info.compute_units as f64 * info.max_work_group as f64 / shape.n as f64)
                .floor()
                .max(1.0),
        },
        Walk::Blocks { bm, bn } => Counted::Blocks { bm, bn },
        Walk::KBlocked { bk, bn } => Counted::KBlocked { bk, bn },
        Walk::Packed { kc, nc } => Counted::Packed { kc, nc },
    })
}

/// A walk as counted: the rows in flight made a number.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Counted {
    Rows { rows: f64 },
    Blocks { bm: f64, bn: f64 },
    KBlocked { bk: f64, bn: f64 },
    Packed { kc: f64, nc: f64 },
}

/// How often an operand comes from DRAM, in words: "once (its 2 MiB panel stays cached)",
/// "32 times (64 MiB does not stay)".
fn reads(stays: bool, what: &str, bytes: f64, times: f64) -> String {
    let size = mib(bytes);
    if stays {
        format!("{what} once ({size} stays cached)")
    } else {
        format!("{what} {times} times ({size} does not stay)")
    }
}

/// Bytes as MiB, for the rule's words.
fn mib(bytes: f64) -> String {
    let v = bytes / MIB;
    if v >= 10.0 {
        format!("{v:.0} MiB")
    } else if v >= 0.1 {
        format!("{v:.1} MiB")
    } else {
        format!("{:.0} KiB", bytes / 1024.0)
    }
}

/// Counted DRAM traffic of one rung at one shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Traffic {
    pub bytes: f64,
    /// How it was counted, in words.
    pub rule: String,
}

impl Traffic {
    /// FLOP per DRAM byte.
    pub fn intensity(&self, shape: Shape) -> f64 {
        2.0 * shape.m as f64 * shape.n as f64 * shape.k as f64 / self.bytes
    }
}

/// The DRAM bytes of a rung's code: compulsory traffic (A and B read once, C written once)
/// when the three matrices fit in the last-level cache together; else what its blocking
/// re-reads, each reused panel counted once where it fits in the cache beside what streams
/// past it. `None` where the rung's walk is not modelled.
pub fn count(
    key: &str,
    defines: &str,
    info: &DeviceInfo,
    shape: Shape,
    cache: &Cache,
) -> Result<Option<Traffic>> {
    anyhow::ensure!(
        shape.m > 0 && shape.n > 0 && shape.k > 0,
        "no DRAM traffic to count for an empty product of {}×{}×{}",
        shape.m,
        shape.n,
        shape.k
    );
    let Some(w) = walk(key, defines, info, shape) else {
        return Ok(None);
    };
    let (m, n, k) = (shape.m as f64, shape.n as f64, shape.k as f64);
    let (a, b, c) = (4.0 * m * k, 4.0 * n * k, 4.0 * m * n);
    let l = cache.bytes;
    let fits = |bytes: f64| bytes <= l;
    if fits(a + b + c) {
        return Ok(Some(Traffic {
            bytes: a + b + c,
            rule: format!(
                "A, B and C ({}) fit in the cache together: each read or written once",
                mib(a + b + c)
            ),
        }));
    }
    let times = |total: f64, step: f64| (total / step).ceil();
    let (bytes, rule) = match w {
        Counted::Rows { rows } => {
            let stays = fits(b + 4.0 * rows * (k + n));
            let rb = if stays { 1.0 } else { times(m, rows) };
            let head = if rows > 1.0 {
                format!("{rows} rows of C at once (compute units × largest work-group / N)")
            } else {
                "row by row".to_string()
            };
            (
                a + c + b * rb,
                format!("{head}: A and C once, {}", reads(stays, "all of B", b, rb)),
            )
        }
        Counted::Blocks { bm, bn } => {
            let a_stays = fits(4.0 * k * (bm + bn));
            let b_stays = fits(b + 4.0 * k * bm);
            let ra = if a_stays { 1.0 } else { times(n, bn) };
            let rb = if b_stays { 1.0 } else { times(m, bm) };
            (
                a * ra + b * rb + c,
                format!(
                    "{bm}×{bn} blocks of C along block rows: {}, {}, C once",
                    reads(a_stays, &format!("A's {bm}-row panel"), 4.0 * k * bm, ra),
                    reads(b_stays, "all of B", b, rb)
                ),
            )
        }
        Counted::KBlocked { bk, bn } => {
            let a_stays = fits(4.0 * m * (bk + bn));
            let c_stays = fits(c + 4.0 * m * bk);
            let ra = if a_stays { 1.0 } else { times(n, bn) };
            let rc = if c_stays {
                1.0
            } else {
                2.0 * times(k, bk) - 1.0
            };
            (
                b + a * ra + c * rc,
                format!(
                    "{bk}×{bn} blocks of B, every row of C for each: B once, {}, {}",
                    reads(a_stays, &format!("A's {bk}-column panel"), 4.0 * m * bk, ra),
                    reads(c_stays, "C (read and written)", c, rc)
                ),
            )
        }
        Counted::Packed { kc, nc } => {
            let a_stays = fits(a + 4.0 * kc * nc);
            let panel = 4.0 * m * nc.min(n);
            let c_stays = fits(panel + 4.0 * kc * nc.min(n));
            let ra = if a_stays { 1.0 } else { times(n, nc) };
            let rc = if c_stays {
                1.0
            } else {
                2.0 * times(k, kc) - 1.0
            };
            (
                b + a * ra + c * rc,
                format!(
                    "KC×NC = {kc}×{nc} packed panels of B: B once, {}, {}",
                    reads(a_stays, "all of A", a, ra),
                    reads(c_stays, "C's NC-column panel (read and written)", panel, rc)
                ),
            )
        }
    };
    Ok(Some(Traffic { bytes, rule }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::results::intensity::device_info;

    fn h100() -> DeviceInfo {
        let mut info = device_info("NVIDIA H100 80GB HBM3", "GPU", &[]).0;
        info.compute_units = 132;
        info.max_work_group = 1024;
        info
    }

    fn x(key: &str, defines: &str, info: &DeviceInfo, size: usize, cache: &Cache) -> f64 {
        let shape = Shape::square(size);
        count(key, defines, info, shape, cache)
            .unwrap()
            .unwrap()
            .intensity(shape)
    }

    #[test]
    fn matrices_that_fit_move_once() {
        let cache = cache_of("NVIDIA H100 80GB HBM3", "GPU");
        // 3 × 4 MiB at 1024³ fit in 50 MiB: 2·1024³ FLOP over 12 MiB.
        let want = 2.0 * 1024f64.powi(3) / (12.0 * MIB);
        assert!((x("04", "", &h100(), 1024, &cache) - want).abs() < 1e-9);
    }

    #[test]
    fn blocks_reread_what_does_not_stay() {
        let cache = cache_of("NVIDIA H100 80GB HBM3", "GPU");
        let d = "TSM=128 TSN=128 TSK=16 WPTM=8 WPTN=8";
        // At 4096³ B (64 MiB) does not stay; A's 128-row panel (2 MiB) does: A once, B 32
        // times, C once.
        let want = 2.0 * 4096f64.powi(3) / (4.0 * 4096f64.powi(2) * 34.0);
        assert!((x("06", d, &h100(), 4096, &cache) - want).abs() < 1e-9);
        // Right of the ridge of a 66 TFLOP/s, 3 TB/s device.
        assert!(want > 66_300.0 / 3_003.0);
        // With no cache at all, both are re-read: the tile's own intensity, nearly.
        let none = Cache {
            bytes: 0.0,
            source: "",
            assumed: true,
        };
        let bare = x("06", d, &h100(), 4096, &none);
        assert!((bare - 2.0 * 4096f64.powi(3) / (4.0 * 4096f64.powi(2) * 65.0)).abs() < 1e-9);
        assert_eq!(
            count("07", "TSM=128", &h100(), Shape::square(64), &none).unwrap(),
            None
        );
        assert_eq!(
            count("42", "", &h100(), Shape::square(64), &none).unwrap(),
            None
        );
        assert!(count("06", d, &h100(), Shape::new(0, 4, 4), &none).is_err());
    }

    #[test]
    fn packed_panels_are_right_of_a_cpu_ridge() {
        let cache = cache_of("pthread-x", "CPU");
        let info = device_info("pthread-x", "CPU", &[]).0;
        let packed = x("03b", "", &info, 1024, &cache);
        assert!(packed > 50.0, "{packed}");
        // With no cache, C is written in the first of the four KC passes and read and written
        // in each of the three others: with A and B once, 36 MiB at 1024³.
        let none = Cache {
            bytes: 0.0,
            source: "",
            assumed: true,
        };
        let bare = x("03b", "", &info, 1024, &none);
        assert!(
            (bare - 2.0 * 1024f64.powi(3) / (36.0 * MIB)).abs() < 1e-9,
            "{bare}"
        );
    }

    #[test]
    fn the_declared_blocks_are_the_solutions() {
        let course = lab::harness::paths::Course::from_env();
        let read = |name: &str| std::fs::read_to_string(course.solutions().join(name)).unwrap();
        let walk = |key: &str| (lab::ladder::get(key).intensity.unwrap().walk)(&Default::default());
        let Some(Walk::KBlocked { bk, bn }) = walk("02") else {
            panic!("lesson 02 walks in blocks of B")
        };
        let l02 = read("02_cpu_loop_order.rs");
        assert!(l02.contains(&format!("pub const BK: usize = {bk};")));
        assert!(l02.contains(&format!("pub const BN: usize = {bn};")));
        let Some(Walk::Packed { kc, nc }) = walk("03b") else {
            panic!("lesson 03b walks in packed panels")
        };
        let l03b = read("03b_cpu_packed.rs");
        assert!(l03b.contains(&format!("pub const KC: usize = {kc};")));
        assert!(l03b.contains(&format!("pub const NC: usize = {nc};")));
    }

    #[test]
    fn every_recorded_rung_is_under_its_roof() {
        // The page says so where a measured speed is above the roof at the counted
        // intensity; with the results recorded, none is: the model does not overcount them.
        let course = lab::harness::paths::Course::from_env();
        let page = course.book().join("generated/roofline.md");
        let text = std::fs::read_to_string(&page).unwrap();
        assert!(text.contains("DRAM FLOP/byte (x)"), "{}", page.display());
        assert!(!text.contains("Above its roof"), "{}", page.display());
    }
}
