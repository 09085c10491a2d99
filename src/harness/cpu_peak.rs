//! The host CPU's datasheet peak: cores × FMA ports × f32 lanes × 2 FLOP × clock, the ceiling
//! the chip's designers built, beside which lesson 00's measured peak (PoCL's code, with its
//! vector width and its threads) and the CPU rungs' "% of peak" are read.
//!
//! The ports and the width a port computes at are not readable from the OS: they come from
//! the vendors' optimisation manuals, by CPU family ([`units`]). The clock is measured here
//! ([`measured_clock_ghz`]): in a virtual machine `/proc/cpuinfo` reports only the nominal
//! (TSC) rate, and the model name may be hidden, so a boost clock cannot be looked up.

use std::time::Instant;

/// FMA units per core and the f32 lanes each computes at once, with where that comes from.
#[derive(Clone, Debug, PartialEq)]
pub struct Units {
    pub fma_ports: u32,
    pub lanes: u32,
    pub source: &'static str,
}

/// The host CPU's datasheet peak.
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
        self.cores as f64
            * self.units.fma_ports as f64
            * self.units.lanes as f64
            * 2.0
            * self.clock_ghz
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

/// The host CPU's datasheet peak, or why it cannot be given.
pub fn host() -> Result<Datasheet, String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo")
        .map_err(|e| format!("/proc/cpuinfo could not be read ({e})"))?;
    let vendor = field(&cpuinfo, "vendor_id").unwrap_or("");
    let num = |name: &str| field(&cpuinfo, name).and_then(|v| v.parse::<u32>().ok());
    let (family, model) = (num("cpu family").unwrap_or(0), num("model").unwrap_or(0));
    let flags: Vec<&str> = field(&cpuinfo, "flags").unwrap_or("").split(' ').collect();
    let units = units(
        vendor,
        family,
        model,
        flags.contains(&"avx512f"),
        flags.contains(&"fma"),
    )
    .ok_or_else(|| {
        format!("the course does not know the FMA units of this CPU ({vendor}, family {family:#x}, model {model:#x})")
    })?;
    let cores = physical_cores(&cpuinfo)
        .or_else(|| {
            std::thread::available_parallelism()
                .ok()
                .map(|n| n.get() as u32)
        })
        .unwrap_or(1);
    let clock_ghz = measured_clock_ghz().ok_or("the clock is measured on x86-64 only")?;
    let nominal_ghz = field(&cpuinfo, "cpu MHz")
        .and_then(|v| v.parse::<f64>().ok())
        .map(|mhz| mhz / 1e3);
    Ok(Datasheet {
        cores,
        units,
        clock_ghz,
        nominal_ghz,
    })
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

    #[test]
    fn cpuinfo_fields_and_cores() {
        let text = "processor\t: 0\nvendor_id\t: AuthenticAMD\nphysical id\t: 0\ncore id\t: 0\n\nprocessor\t: 1\nphysical id\t: 0\ncore id\t: 1\n\nprocessor\t: 2\nphysical id\t: 0\ncore id\t: 1\n";
        assert_eq!(field(text, "vendor_id"), Some("AuthenticAMD"));
        assert_eq!(physical_cores(text), Some(2));
    }
}
