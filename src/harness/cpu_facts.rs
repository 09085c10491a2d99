//! The host CPU's fact sheet, read once per process and carried to every figure the course
//! derives from it: the cores this process may use, the widest f32 vector its instruction set
//! has, its FMA units (by family), its clocks, and from them the two rates the course needs —
//! the **datasheet peak** (cores × FMA ports × f32 lanes × 2 FLOP × clock: what the chip's
//! designers built, beside which lesson 00's measured peak is read) and the **ceiling** (the
//! fastest any code could go here, with headroom: a time above it is not a speed).
//!
//! The ports and the width a port computes at are not readable from the OS: they come from
//! the vendors' optimisation manuals, by CPU family ([`units`]). The clock for the datasheet
//! is measured ([`measured_clock_ghz`]): in a virtual machine `/proc/cpuinfo` reports only the
//! nominal (TSC) rate, and the model name may be hidden, so a boost clock cannot be looked up.
//! The ceiling does not wait for that measurement (a quarter of a second, and lower on a busy
//! machine, where a ceiling must not fall): it takes the highest clock the OS reports.
//!
//! How many cores are *free* is not a fact of the machine: it changes from one moment to the
//! next, and the thread check measures how many sat idle during the very calls it judges
//! (`cpu_watch::idle_ns`).

use std::sync::OnceLock;
use std::time::Instant;

/// The one formula of an FP32 rate from a CPU's parts, GFLOP/s: cores × FMA ports × f32 lanes
/// × 2 FLOP (a multiply and an add) × GHz. The datasheet peak, the ceiling and the book's
/// peaks of recorded CPUs are all this product of different terms.
pub fn fp32_gflops(cores: f64, fma_ports: f64, lanes: f64, ghz: f64) -> f64 {
    cores * fma_ports * lanes * 2.0 * ghz
}

/// What the course knows of the host CPU, read once ([`host`]).
#[derive(Clone, Debug)]
pub struct Facts {
    pub vendor: String,
    pub family: u32,
    pub model: u32,
    /// The cores this process may run on (the scheduler's affinity, a container's limit).
    pub cores_allowed: u32,
    /// Physical cores in /proc/cpuinfo, where it tells.
    pub physical_cores: Option<u32>,
    /// The widest f32 vector of the instruction set: 16 with AVX-512, 8 with AVX, else 4.
    pub lanes: u32,
    pub avx512: bool,
    pub fma: bool,
    /// The FMA units of the family, where the course knows it.
    pub units: Option<Units>,
    /// The highest clock /proc/cpuinfo reports for any core, GHz.
    pub nominal_ghz: Option<f64>,
    /// The highest clock cpufreq allows, GHz (absent in most virtual machines).
    pub max_ghz: Option<f64>,
}

/// Clock assumed for the ceiling where the OS reports none: faster than any shipping core.
const UNKNOWN_CLOCK_GHZ: f64 = 6.0;

impl Facts {
    /// Reads the facts from `/proc/cpuinfo` (its text), cpufreq's maximum (kHz) and the
    /// number of cores this process may use.
    pub fn from(cpuinfo: &str, max_khz: Option<f64>, cores_allowed: u32) -> Facts {
        let vendor = field(cpuinfo, "vendor_id").unwrap_or("").to_string();
        let num = |name: &str| field(cpuinfo, name).and_then(|v| v.parse::<u32>().ok());
        let (family, model) = (num("cpu family").unwrap_or(0), num("model").unwrap_or(0));
        let flags: Vec<&str> = field(cpuinfo, "flags")
            .or_else(|| field(cpuinfo, "Features"))
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let has = |f: &str| flags.contains(&f);
        let (avx512, fma) = (has("avx512f"), has("fma"));
        let lanes = if avx512 {
            16
        } else if has("avx") || has("avx2") {
            8
        } else {
            4
        };
        let nominal_ghz = cpuinfo
            .lines()
            .filter(|l| l.starts_with("cpu MHz"))
            .filter_map(|l| l.split(':').nth(1)?.trim().parse::<f64>().ok())
            .reduce(f64::max)
            .map(|mhz| mhz / 1e3);
        Facts {
            units: units(&vendor, family, model, avx512, fma),
            vendor,
            family,
            model,
            cores_allowed: cores_allowed.max(1),
            physical_cores: physical_cores(cpuinfo),
            lanes,
            avx512,
            fma,
            nominal_ghz,
            max_ghz: max_khz.filter(|&k| k > 0.0).map(|khz| khz / 1e6),
        }
    }

    /// The fastest any code could run an FP32 product on the cores this process may use,
    /// GFLOP/s: two FMA units a core (the most any x86 core has) of the widest vector the
    /// instruction set has, at the highest clock the OS reports, doubled for headroom (turbo
    /// clocks the OS does not report). A measured time above it is not a speed.
    pub fn ceiling_gflops(&self) -> f64 {
        let ghz = self
            .nominal_ghz
            .into_iter()
            .chain(self.max_ghz)
            .reduce(f64::max)
            .unwrap_or(UNKNOWN_CLOCK_GHZ);
        let lanes = self.lanes.max(self.units.as_ref().map_or(0, |u| u.lanes));
        2.0 * fp32_gflops(self.cores_allowed as f64, 2.0, lanes as f64, ghz)
    }

    /// The datasheet peak of the host's physical cores, with the clock measured now, or why it
    /// cannot be given.
    pub fn datasheet(&self) -> Result<Datasheet, String> {
        let units = self.units.clone().ok_or_else(|| {
            format!(
                "the course does not know the FMA units of this CPU ({}, family {:#x}, model {:#x})",
                self.vendor, self.family, self.model
            )
        })?;
        let clock_ghz = measured_clock_ghz().ok_or("the clock is measured on x86-64 only")?;
        Ok(Datasheet {
            cores: self.physical_cores.unwrap_or(self.cores_allowed),
            units,
            clock_ghz,
            nominal_ghz: self.nominal_ghz,
        })
    }
}

/// The host's facts, read on the first call and kept for the life of the process.
pub fn host() -> &'static Facts {
    static FACTS: OnceLock<Facts> = OnceLock::new();
    FACTS.get_or_init(|| {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let max_khz =
            std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
                .ok()
                .and_then(|s| s.trim().parse::<f64>().ok());
        let allowed = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        Facts::from(&cpuinfo, max_khz, allowed)
    })
}

/// FMA units per core and the f32 lanes each computes at once, with where that comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Units {
    pub fma_ports: u32,
    pub lanes: u32,
    pub source: &'static str,
}

/// The host CPU's datasheet peak ([`Facts::datasheet`]).
#[derive(Clone, Debug)]
pub struct Datasheet {
    /// Physical cores.
    pub cores: u32,
    pub units: Units,
    /// The clock the cores ran a dependent chain of adds at, GHz.
    pub clock_ghz: f64,
    /// The nominal clock /proc/cpuinfo reports, GHz.
    pub nominal_ghz: Option<f64>,
}

impl Datasheet {
    pub fn gflops(&self) -> f64 {
        fp32_gflops(
            self.cores as f64,
            self.units.fma_ports as f64,
            self.units.lanes as f64,
            self.clock_ghz,
        )
    }

    /// "2 cores × 2 FMA ports × 16 lanes × 2 FLOP × 3.70 GHz = 473.6 GFLOP/s".
    pub fn formula(&self) -> String {
        format!(
            "{} cores × {} FMA ports × {} lanes × 2 FLOP × {:.2} GHz = {:.1} GFLOP/s",
            self.cores,
            self.units.fma_ports,
            self.units.lanes,
            self.clock_ghz,
            self.gflops()
        )
    }
}

/// The FMA ports and lanes of a CPU, from its vendor, family and model (as /proc/cpuinfo gives
/// them) and whether it runs AVX-512 and FMA. `None` where the course does not know the family.
pub fn units(vendor: &str, family: u32, model: u32, avx512: bool, fma: bool) -> Option<Units> {
    match (vendor, family) {
        // Zen 5: four FP pipes, two of them FMA; 512 bits wide on desktop and server parts.
        ("AuthenticAMD", 0x1a) if avx512 => Some(Units {
            fma_ports: 2,
            lanes: 16,
            source: "Zen 5: 2 FMA pipes, 512-bit datapath (AMD's Zen 5 optimisation guide)",
        }),
        ("AuthenticAMD", 0x1a) => Some(Units {
            fma_ports: 2,
            lanes: 8,
            source: "Zen 5 with a 256-bit datapath: 2 FMA pipes",
        }),
        // Zen 3 and Zen 4: two 256-bit FMA pipes; Zen 4 splits a 512-bit op in two halves.
        ("AuthenticAMD", 0x19) => Some(Units {
            fma_ports: 2,
            lanes: 8,
            source: "Zen 3/4: 2 FMA pipes of 256 bits (AVX-512 runs as two halves on Zen 4)",
        }),
        // Zen 2 (models 0x30 and up) has 256-bit pipes, Zen and Zen+ 128-bit ones.
        ("AuthenticAMD", 0x17) => Some(Units {
            fma_ports: 2,
            lanes: if model >= 0x30 { 8 } else { 4 },
            source: "Zen/Zen 2: 2 FMA pipes (128-bit before Zen 2)",
        }),
        ("GenuineIntel", 6) if avx512 => Some(Units {
            fma_ports: 2,
            lanes: 16,
            source: "Intel with AVX-512: ports 0+1 fused and port 5, 512 bits (one port on some Xeon Silver/Bronze)",
        }),
        ("GenuineIntel", 6) if fma => Some(Units {
            fma_ports: 2,
            lanes: 8,
            source: "Intel Haswell and later: 2 FMA ports of 256 bits",
        }),
        _ => None,
    }
}

/// A field of /proc/cpuinfo's first processor.
fn field<'a>(cpuinfo: &'a str, name: &str) -> Option<&'a str> {
    cpuinfo
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim())
}

/// Physical cores in /proc/cpuinfo: distinct (physical id, core id) pairs.
fn physical_cores(cpuinfo: &str) -> Option<u32> {
    let mut seen = std::collections::BTreeSet::new();
    for block in cpuinfo.split("\n\n") {
        let package = field(block, "physical id").unwrap_or("0");
        if let Some(core) = field(block, "core id") {
            seen.insert((package.to_string(), core.to_string()));
        }
    }
    (!seen.is_empty()).then_some(seen.len() as u32)
}

/// The clock the calling thread runs at, in GHz: a chain of dependent register-to-register
/// adds, one cycle each on every x86-64 since the first (an add of a constant might be folded
/// away by a recent core's renamer; one of a register is not), timed on the wall clock; the fastest of several short
/// runs, since another process taking the core can only make a run slower. `None` off x86-64.
pub fn measured_clock_ghz() -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        const ITERS: u64 = 2_000_000;
        const ADDS_PER_ITER: u64 = 16;
        let mut best = f64::MAX;
        for _ in 0..25 {
            let t = Instant::now();
            let mut x: u64 = 0;
            let mut n = ITERS;
            // SAFETY: register arithmetic only.
            unsafe {
                std::arch::asm!(
                    "2:",
                    "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
                    "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
                    "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
                    "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
                    "dec {n}",
                    "jnz 2b",
                    x = inout(reg) x,
                    one = in(reg) 1u64,
                    n = inout(reg) n,
                    options(nomem, nostack),
                );
            }
            std::hint::black_box((x, n));
            best = best.min(t.elapsed().as_secs_f64());
        }
        Some((ITERS * ADDS_PER_ITER) as f64 / best / 1e9)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_give_their_units() {
        let zen5 = units("AuthenticAMD", 0x1a, 2, true, true).unwrap();
        assert_eq!((zen5.fma_ports, zen5.lanes), (2, 16));
        let zen4 = units("AuthenticAMD", 0x19, 0x11, true, true).unwrap();
        assert_eq!((zen4.fma_ports, zen4.lanes), (2, 8));
        let zen1 = units("AuthenticAMD", 0x17, 0x01, false, true).unwrap();
        assert_eq!(zen1.lanes, 4);
        let skx = units("GenuineIntel", 6, 0x55, true, true).unwrap();
        assert_eq!((skx.fma_ports, skx.lanes), (2, 16));
        assert_eq!(
            units("GenuineIntel", 6, 0x3c, false, true).unwrap().lanes,
            8
        );
        assert_eq!(units("CentaurHauls", 6, 0, false, false), None);
    }

    #[test]
    fn the_formula_multiplies_its_terms() {
        let d = Datasheet {
            cores: 2,
            units: Units {
                fma_ports: 2,
                lanes: 16,
                source: "",
            },
            clock_ghz: 3.5,
            nominal_ghz: None,
        };
        assert!((d.gflops() - 448.0).abs() < 1e-9);
        assert!(d.formula().ends_with("= 448.0 GFLOP/s"), "{}", d.formula());
    }

    const CPUINFO: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\ncpu MHz\t\t: 2445.404\nflags\t\t: fpu avx avx2 fma\nphysical id\t: 0\ncore id\t: 0\n\nprocessor\t: 1\ncpu MHz\t\t: 3700.000\nphysical id\t: 0\ncore id\t: 1\n";

    #[test]
    fn the_facts_come_from_cpuinfo() {
        let f = Facts::from(CPUINFO, None, 2);
        assert_eq!((f.family, f.model, f.lanes), (0x19, 1, 8));
        assert!(f.fma && !f.avx512);
        assert_eq!(f.units.as_ref().map(|u| u.fma_ports), Some(2));
        assert_eq!(f.physical_cores, Some(2));
        // The highest clock of any core, not the first one's.
        assert_eq!(f.nominal_ghz, Some(3.7));
    }

    #[test]
    fn the_ceiling_takes_the_highest_clock_and_doubles_the_widest_units() {
        // 2 cores × 2 ports × 8 lanes × 2 FLOP × 3.7 GHz, doubled.
        let f = Facts::from(CPUINFO, None, 2);
        assert!(
            (f.ceiling_gflops() - 473.6).abs() < 1e-9,
            "{}",
            f.ceiling_gflops()
        );
        // cpufreq's maximum above the reported clock raises it.
        let boosted = Facts::from(CPUINFO, Some(4_800_000.0), 2);
        assert!((boosted.ceiling_gflops() - 614.4).abs() < 1e-9);
        // Nothing known: no shipping clock passes the assumed one, and no fewer than one core.
        let bare = Facts::from("", None, 0);
        assert_eq!(bare.cores_allowed, 1);
        assert!((bare.ceiling_gflops() - 2.0 * fp32_gflops(1.0, 2.0, 4.0, 6.0)).abs() < 1e-9);
        assert!(host().ceiling_gflops().is_finite() && host().ceiling_gflops() > 1.0);
    }

    #[test]
    fn cpuinfo_fields_and_cores() {
        let text = "processor\t: 0\nvendor_id\t: AuthenticAMD\nphysical id\t: 0\ncore id\t: 0\n\nprocessor\t: 1\nphysical id\t: 0\ncore id\t: 1\n\nprocessor\t: 2\nphysical id\t: 0\ncore id\t: 1\n";
        assert_eq!(field(text, "vendor_id"), Some("AuthenticAMD"));
        assert_eq!(physical_cores(text), Some(2));
    }
}
