//! What a CPU can do at most, from its name: the "% of peak" of CPU rows is taken against
//! this ceiling, not against the rate lesson 00's multiply-add chains reached through the
//! OpenCL runtime (compiled Rust with fused multiply-adds goes past that one). Also the
//! peaks' table of the book, and the dates that must not break across lines.

use std::fmt::Write as _;

use lab::harness::cpu_facts;

use super::*;

/// A CPU's FP32 ceiling, from the names OpenCL gives it: the SIMD width in its PoCL name
/// (`pthread-skylake-avx512-…`: 16 lanes; an AVX2 target: 8), two fused multiply-add units
/// a core (2 FLOP each a lane a cycle: the most any x86 core has), and the clock in its model
/// name (`@ 2.80GHz`), times the cores the peak was measured on.
pub struct Ceiling {
    pub gflops: f64,
    pub lanes: u32,
    pub ghz: f64,
    pub cores: u32,
}

pub fn of(p: &Peak) -> Option<Ceiling> {
    if p.kind != "CPU" {
        return None;
    }
    let name = p.device.to_ascii_lowercase();
    let lanes = if name.contains("avx512") || name.contains("sapphirerapids") {
        16
    } else if ["haswell", "broadwell", "skylake", "znver", "avx2"]
        .iter()
        .any(|n| name.contains(n))
    {
        8
    } else {
        return None;
    };
    let at = name.rfind('@')?;
    let ghz: f64 = name[at + 1..]
        .trim()
        .strip_suffix("ghz")?
        .trim()
        .parse()
        .ok()?;
    let cores = p.units?;
    Some(Ceiling {
        gflops: cpu_facts::fp32_gflops(cores as f64, 2.0, lanes as f64, ghz),
        lanes,
        ghz,
        cores,
    })
}

/// The peak a row's "% of peak" uses: a CPU's ceiling where its name gives one, else the
/// measured peak.
pub fn applied(p: Peak) -> Peak {
    match of(&p) {
        Some(c) => Peak {
            gflops: c.gflops,
            ..p
        },
        None => p,
    }
}

/// What 100 % means for this peak: "FP32 ceiling" for a CPU's, else "measured FP32 peak".
pub fn words(p: &Peak) -> &'static str {
    if of(p).is_some() {
        "FP32 ceiling"
    } else {
        "measured FP32 peak"
    }
}

/// `peak.md`: each device's measured peak, and for a CPU its ceiling beside it.
pub fn peak_table(peaks: &[Peak]) -> String {
    if peaks.is_empty() {
        return peak::markdown_table(peaks);
    }
    let mut s = String::from(
        "| device | measured FP32 GFLOP/s (best width) | ceiling GFLOP/s | bandwidth GB/s | ridge FLOP/byte |\n|---|--:|--:|--:|--:|\n",
    );
    let mut notes = Vec::new();
    for p in peaks {
        let c = of(p);
        let ridge = c.as_ref().map_or(p.ridge(), |c| c.gflops / p.bandwidth_gbs);
        let _ = writeln!(
            s,
            "| {}{} | {} (`float{}`) | {} | {} | {} |",
            cell(&p.device),
            match p.units {
                Some(u) if p.kind == "CPU" => format!(", {}", cores(u)),
                _ => String::new(),
            },
            gflops(p.gflops),
            p.best_width,
            c.as_ref().map_or(NONE.to_string(), |c| gflops(c.gflops)),
            gflops(p.bandwidth_gbs),
            charts::axis_number_1(ridge)
        );
        if let Some(c) = &c {
            notes.push(format!(
                "{}, {}: {} × {} lanes × 2 multiply-add units × 2 FLOP × {:.2} GHz (the clock in its name), of which the measured rate is {}",
                cell(&p.device),
                cores(c.cores),
                cores(c.cores),
                c.lanes,
                c.ghz,
                pct(100.0 * p.gflops / c.gflops)
            ));
        }
    }
    let _ = writeln!(
        s,
        "\nMeasured by {} ({}), with driver {}. \"Measured\" is the best rate of its multiply-add chains, at the vector width in brackets. The ceiling, for a CPU, is what its cores can do at most at their nominal clock, and every CPU \"% of peak\" in the book is taken against it; a GPU's % of peak is against its measured rate.{}",
        device_lesson(),
        peaks
            .iter()
            .map(|p| p.date.as_str())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
            .join(", "),
        {
            let mut drivers: Vec<String> = Vec::new();
            for p in peaks {
                let d = format!("{} ({})", p.driver, cell(&p.device));
                if !drivers.contains(&d) {
                    drivers.push(d);
                }
            }
            drivers.join(", ")
        },
        if notes.is_empty() {
            String::new()
        } else {
            format!(" The ceilings: {}.", notes.join("; "))
        }
    );
    s
}

fn cores(n: u32) -> String {
    if n == 1 {
        "1 core".into()
    } else {
        format!("{n} cores")
    }
}

/// Wraps every date (`2026-11-22`), time and run id (`2026-11-22T09:44:00Z-h100-a`) of a
/// generated page in a span that does not break, outside code, links and HTML comments.
pub fn nowrap_dates(page: &str) -> String {
    page.lines()
        .map(|line| {
            if line.starts_with("![") || line.starts_with("<!--") {
                line.to_string()
            } else {
                nowrap_line(line)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if page.ends_with('\n') { "\n" } else { "" }
}

fn nowrap_line(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    let mut in_code = false;
    let mut last = 0;
    while i < b.len() {
        if b[i] == b'`' {
            in_code = !in_code;
            i += 1;
            continue;
        }
        let is_date = !in_code
            && i + 10 <= b.len()
            && (i == 0
                || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'-' || b[i - 1] == b'/'))
            && b[i..i + 4].iter().all(u8::is_ascii_digit)
            && b[i + 4] == b'-'
            && b[i + 5..i + 7].iter().all(u8::is_ascii_digit)
            && b[i + 7] == b'-'
            && b[i + 8..i + 10].iter().all(u8::is_ascii_digit);
        if !is_date {
            i += 1;
            continue;
        }
        // The date, then a time and a run's name if they follow.
        let mut end = i + 10;
        if end < b.len() && b[end] == b'T' {
            while end < b.len() && (b[end].is_ascii_alphanumeric() || b"-:".contains(&b[end])) {
                end += 1;
            }
        }
        out.push_str(&line[last..i]);
        let _ = write!(out, "<span class=\"nowrap\">{}</span>", &line[i..end]);
        last = end;
        i = end;
    }
    out.push_str(&line[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_run_ids_do_not_break() {
        assert_eq!(
            nowrap_line("Runs: **c** = run 2026-11-22T09:44:00Z-h100-a; `2026-11-21` 2026-11-25."),
            "Runs: **c** = run <span class=\"nowrap\">2026-11-22T09:44:00Z-h100-a</span>; \
             `2026-11-21` <span class=\"nowrap\">2026-11-25</span>."
        );
    }

    #[test]
    fn a_cpu_ceiling_comes_from_its_names() {
        let p = Peak {
            date: "2026-11-22".into(),
            device: "pthread-skylake-avx512-Intel(R) Xeon(R) Processor @ 2.80GHz".into(),
            driver: "3.1".into(),
            kind: "CPU".into(),
            units: Some(2),
            gflops: 87.3,
            best_width: 8,
            bandwidth_gbs: 19.0,
            matrix_tf32_gflops: None,
            l2_gbs: None,
            l1_gbs: None,
        };
        let c = of(&p).unwrap();
        assert!((c.gflops - 358.4).abs() < 1e-9);
        assert!(of(&Peak {
            kind: "GPU".into(),
            ..p
        })
        .is_none());
    }
}
