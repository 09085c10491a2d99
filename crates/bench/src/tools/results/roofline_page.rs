//! `roofline.md`: a roofline per device with a recorded peak, every rung as a dot.

use std::fmt::Write as _;

use anyhow::Result;

use super::*;

impl Book<'_> {
    pub(super) fn roofline_page(&mut self) -> Result<String> {
        let mut s = String::from(NOTE);
        let peak_lesson = device_lesson();
        let _ = writeln!(
            s,
            "\nOne roofline per device with a peak in `results/peak.csv`. Each dot is a rung's reference kernel, at the size most rungs were measured at on that device.\n\n\
             - **Requested intensity**: the FLOP the kernel does per byte of global memory it *requests*, counted from its tiling and its defines (the loads of A and B; C's single store is left out). Caches serve some requests again, so the bytes that come from DRAM are at most these, and the DRAM intensity at least this.\n\
             - **x**, DRAM intensity, at least: the larger of the requested intensity and the speed divided by the measured bandwidth. A kernel that runs at *y* GFLOP/s with *B* GB/s of DRAM bandwidth cannot have moved more than *B*/*y* bytes a FLOP, so its DRAM intensity is at least *y*/*B*. Where that bound is the larger, the dot sits on the slanted roof, and the caches must have served the rest of what it requested: the table says at least how much.\n\
             - **y**: GFLOP/s from the median device time.\n\
             - **The roofs**: the measured bandwidth times the intensity (slanted) and the FP32 peak (flat): measured by {peak_lesson} on a GPU; on a CPU the ceiling of its cores at their nominal clock (see {peak_lesson}'s table). They meet at the ridge point. Below the slanted roof a kernel is limited by memory, below the flat one by arithmetic. No dot can be above either.\n\
             - **Hollow dots**: the row did not record the kernel's defines, so its intensity uses the defines the lesson's code chooses for that device (listed under the table).\n\
             - **Dashed grey lines**: the peers at the same size, measured on the same device; their tiling is unknown, so they have no intensity.\n"
        );
        let files = self.files.clone();
        let mut without: Vec<String> = Vec::new();
        let mut any = false;
        for file in &files {
            let refs: Vec<&Row> = file.latest.iter().filter(|r| r.is_reference()).collect();
            // Peaks in the order their rows appear.
            let mut peaks: Vec<Peak> = Vec::new();
            for r in &refs {
                if let Some(p) = self.peaks.of(r) {
                    if !peaks.contains(&p) {
                        peaks.push(p);
                    }
                }
            }
            for p in &peaks {
                any = true;
                s.push_str(&self.roofline_of(file, p, &refs)?);
            }
            // Machines with rungs and no peak at all.
            for m in file.machines() {
                let mine: Vec<&Row> = refs.iter().filter(|r| r.machine() == m).copied().collect();
                if mine.is_empty() || mine.iter().any(|r| self.peaks.of(r).is_some()) {
                    continue;
                }
                let r = mine[0];
                let on_other = peaks.iter().any(|p| !r.cpu && p.device == r.device);
                if !on_other {
                    without.push(format!(
                        "{} (`results/{}`): {}",
                        r.machine_words(),
                        file.name,
                        self.peaks.why_none(&mine).join("; ")
                    ));
                }
            }
        }
        if !without.is_empty() {
            let _ = writeln!(s, "\nNo roofline for:\n");
            for w in &without {
                let _ = writeln!(s, "- {w}.");
            }
        }
        if !any && without.is_empty() {
            let _ = writeln!(s, "\n*No measurement is recorded yet: run `cargo run --release --bin {} -- --record`, then `cargo run --release -p lab-bench -- ladder`.*", ladder::device().name());
        }
        Ok(s)
    }

    fn roofline_of(&mut self, file: &File, p: &Peak, refs: &[&Row]) -> Result<String> {
        let mut s = String::new();
        let mine: Vec<&Row> = refs
            .iter()
            .filter(|r| self.peaks.of(r).as_ref() == Some(p))
            .copied()
            .collect();
        let Some(size) = common_size(&mine) else {
            return Ok(s);
        };
        let at: Vec<&Row> = mine
            .iter()
            .filter(|r| r.is_square() && r.m == size)
            .copied()
            .collect();
        let (info, known) = intensity::device_info(&p.device, &p.kind, &self.tuned);
        struct Point<'r> {
            row: &'r Row,
            lesson: &'static Lesson,
            defines: String,
            assumed: bool,
            x: f64,
        }
        let mut points: Vec<Point> = Vec::new();
        let mut unplaced: Vec<String> = Vec::new();
        for r in &at {
            let Some(lesson) = r.rung() else { continue };
            // The row's own defines where they (or none) give the intensity; else, for a
            // row that did not record them, those the lesson picks for the device.
            let (defines, assumed) = if intensity::intensity(lesson.key, &r.defines).is_some()
                || !r.defines.is_empty()
            {
                (r.defines.clone(), false)
            } else {
                (
                    intensity::lesson_defines(
                        self.course,
                        lesson,
                        &info,
                        Shape::new(r.m, r.n, r.k),
                    ),
                    true,
                )
            };
            match intensity::intensity(lesson.key, &defines) {
                Some(x) => points.push(Point {
                    row: r,
                    lesson,
                    defines,
                    assumed,
                    x,
                }),
                None => unplaced.push(format!("{} {}", lesson.key, lesson.title)),
            }
        }
        points.sort_by_key(|pt| pt.lesson.key);
        if points.is_empty() {
            return Ok(s);
        }
        // The unit whose roof this is: a rung on the matrix unit is drawn under that unit's
        // own roof, in a chart of its own.
        let matrix = points
            .iter()
            .any(|pt| pt.lesson.unit == lab::lesson::Unit::MatrixTf32);
        let roof_words = if matrix {
            "matrix-unit roof (TF32 rate ÷ 3)"
        } else {
            "FP32 peak"
        };
        // A CPU device may have peaks on one core and on all of them: name which.
        let device = &match p.units {
            Some(u) if p.kind == "CPU" => format!(
                "{}, {}",
                p.device,
                if u == 1 {
                    "one core".to_string()
                } else {
                    format!("{u} cores")
                }
            ),
            _ if matrix => format!("{}, matrix unit", p.device),
            _ => p.device.clone(),
        };
        let used: Vec<&str> = {
            let g: BTreeSet<&str> = points.iter().map(|pt| pt.row.group()).collect();
            g.into_iter().collect()
        };
        let many_runs = used.len() > 1;
        let peers: Vec<&Row> = file
            .latest
            .iter()
            .filter(|r| {
                r.peer.is_some()
                    && r.is_square()
                    && r.m == size
                    && self.peaks.of(r).as_ref() == Some(p)
            })
            .collect();
        let dots: Vec<Dot> = points
            .iter()
            .enumerate()
            .map(|(i, pt)| Dot {
                label: pt.lesson.key.to_string(),
                name: format!(
                    "{} {}{}",
                    pt.lesson.key,
                    pt.lesson.title,
                    if many_runs {
                        format!(" ({})", file.runs.letter(pt.row.group()))
                    } else {
                        String::new()
                    }
                ),
                x: dram_at_least(pt.x, pt.row.gflops, p.bandwidth_gbs),
                y: pt.row.gflops,
                hollow: pt.assumed,
                color: charts::PALETTE[i % charts::PALETTE.len()],
            })
            .collect();
        let levels: Vec<Level> = peers
            .iter()
            .map(|r| Level {
                label: format!(
                    "{} {} GFLOP/s{}",
                    r.name(),
                    charts::rate(r.gflops),
                    if many_runs {
                        format!(" ({})", file.runs.letter(r.group()))
                    } else {
                        String::new()
                    }
                ),
                y: r.gflops,
            })
            .collect();
        let all_rows: Vec<&Row> = points
            .iter()
            .map(|pt| pt.row)
            .chain(peers.iter().copied())
            .collect();
        // Where the dots ran: the device with its driver, and the host CPU's rungs.
        let mut ran_on: Vec<String> = Vec::new();
        if let Some(r) = points.iter().map(|pt| pt.row).find(|r| !r.cpu) {
            ran_on.push(if r.driver.is_empty() {
                r.device.clone()
            } else {
                format!("driver {}", r.driver)
            });
        }
        if let Some(r) = points.iter().map(|pt| pt.row).find(|r| r.cpu) {
            ran_on.push(format!("CPU rungs: {}", r.machine_words()));
        }
        let mut heading = vec![
            format!("Roofline of {device}: every rung at {size}³"),
            format!(
                "{} · results/{} · measured {}",
                ran_on.join(" · "),
                file.name,
                dates(&all_rows)
            ),
            format!(
                "roofs: {} and bandwidth measured {} by {} (results/peak.csv)",
                if matrix {
                    "the matrix unit's measured TF32 rate over the three products per multiply-add of the kernels on it"
                } else if super::ceiling::of(p).is_some() {
                    "FP32 ceiling of the cores"
                } else {
                    "FP32 peak"
                },
                p.date,
                device_lesson()
            ),
        ];
        if many_runs {
            heading.push(format!(
                "runs (letter after each label): {}",
                file.runs.short_legend(&used)
            ));
        }
        let mut footer = vec![
            "x: DRAM intensity, at least: the larger of the FLOP per byte the kernel requests (from its tiles) and its speed over the measured bandwidth.".to_string(),
        ];
        if points.iter().any(|pt| pt.assumed) {
            footer.push(
                "Hollow: the row did not record its defines; placed with the ones the lesson's code picks for this device."
                    .to_string(),
            );
        }
        if !levels.is_empty() {
            footer.push(format!(
                "Dashed grey: peers at {size}³ on this device (no intensity: their tiling is unknown)."
            ));
        }
        let svg = charts::roofline(&Roofline {
            heading,
            peak_gflops: p.gflops,
            roof: roof_words.to_string(),
            bandwidth_gbs: p.bandwidth_gbs,
            dots,
            levels,
            footer,
        })?;
        let name = figure_name("roofline-", file, device);
        self.figures.push((name.clone(), svg));
        let _ = writeln!(s, "\n### {device}\n");
        let _ = writeln!(
            s,
            "![Roofline of {device}: GFLOP/s of every rung at {size}³ against its arithmetic intensity, under the bandwidth roof and the {roof_words}]({})\n",
            format_args!("figures/{name}")
        );
        let _ = writeln!(
            s,
            "Measured {} (`results/{}`); the roofs: {} GB/s measured by {} on {}, and {} GFLOP/s {}; ridge at {} FLOP/byte. {}\n",
            dates(&all_rows),
            file.name,
            gflops(p.bandwidth_gbs),
            device_lesson(),
            p.date,
            gflops(p.gflops),
            if super::ceiling::of(p).is_some() {
                format!("(the cores' ceiling, {}'s table)", device_lesson())
            } else {
                "measured with it".to_string()
            },
            charts::axis_number_1(p.ridge()),
            if many_runs {
                format!("Runs: {}.", file.runs.legend(&used))
            } else {
                format!("One run: {}.", file.runs.legend(&used))
            }
        );
        let _ = writeln!(
            s,
            "| rung | requested FLOP/byte | DRAM FLOP/byte, at least | GFLOP/s (% of peak) | roof there, GFLOP/s | caches served, at least |\n|---|--:|--:|--:|--:|--:|"
        );
        let mut counted = Vec::new();
        for pt in &points {
            let x = dram_at_least(pt.x, pt.row.gflops, p.bandwidth_gbs);
            let roof = (p.bandwidth_gbs * x).min(p.gflops);
            let bound = if p.bandwidth_gbs * x < p.gflops {
                "memory"
            } else if matrix {
                "matrix unit"
            } else {
                "FP32"
            };
            let _ = writeln!(
                s,
                "| {} {}{} | {} | {} | {} ({}) | {} ({bound}) | {} |",
                pt.lesson.key,
                pt.lesson.title,
                if many_runs {
                    format!(" ({})", file.runs.letter(pt.row.group()))
                } else {
                    String::new()
                },
                charts::axis_number_1(pt.x),
                charts::axis_number_1(x),
                gflops(pt.row.gflops),
                pct(100.0 * pt.row.gflops / p.gflops),
                gflops(roof),
                if x > pt.x {
                    pct(100.0 * (1.0 - pt.x / x))
                } else {
                    NONE.to_string()
                }
            );
            counted.push(format!(
                "{}: {}{}",
                pt.lesson.key,
                intensity::rule(pt.lesson.key),
                if pt.defines.is_empty() {
                    String::new()
                } else if pt.assumed {
                    format!(", with `{}` (assumed)", pt.defines)
                } else {
                    format!(", with `{}`", pt.defines)
                }
            ));
        }
        let _ = writeln!(
            s,
            "\nThe requested intensity, counted per rung: {}.",
            counted.join("; ")
        );
        let mut notes = Vec::new();
        let top = top_lesson();
        if points.iter().any(|pt| pt.assumed) {
            notes.push(if known {
                format!("Assumed defines: what each lesson's host code picks for {device} with the properties `results/tuned.csv` records for it ({top}: the configuration tuned nearest that size).")
            } else {
                format!("Assumed defines: what each lesson's host code picks for a {} that allows 1024-item work-groups and 48 KiB of local memory ({device}'s properties are not recorded; {top}: its tuned rows, else its defaults).", p.kind)
            });
        }
        let missing: Vec<String> = mine
            .iter()
            .filter(|r| !at.iter().any(|a| a.lesson == r.lesson))
            .filter_map(|r| r.rung())
            .map(|l| format!("{} {}", l.key, l.title))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if !missing.is_empty() {
            notes.push(format!(
                "Not measured at {size}³, so not shown: {}.",
                missing.join(", ")
            ));
        }
        // Rungs on a unit whose roof is not measured: no dot under another unit's roof.
        let elsewhere: Vec<String> = refs
            .iter()
            .filter(|r| !r.cpu && r.device == p.device && r.is_square() && r.m == size)
            .filter_map(|r| Some((r.rung()?, self.peaks.unmeasured(r)?)))
            .map(|(l, u)| {
                format!(
                    "{} {} (n/a: {}; its ceiling is not measured)",
                    l.key,
                    l.title,
                    u.words()
                )
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        if !elsewhere.is_empty() {
            notes.push(format!(
                "Not on this roofline, whose flat roof is the FP32 lanes' peak: {}. `results/peak.csv` records no roof for that unit, and a kernel that multiplies on it is not bound by the FP32 roof.",
                elsewhere.join(", ")
            ));
        }
        if !unplaced.is_empty() {
            notes.push(format!(
                "No intensity (defines unknown): {}.",
                unplaced.join(", ")
            ));
        }
        if !notes.is_empty() {
            let _ = writeln!(s, "\n{}", notes.join(" "));
        }
        Ok(s)
    }
}

/// The least DRAM intensity a kernel can have had: what it requested, or, where its speed
/// is more than the bandwidth could feed at that intensity, its speed over the bandwidth.
fn dram_at_least(requested: f64, gflops: f64, bandwidth_gbs: f64) -> f64 {
    if bandwidth_gbs > 0.0 {
        requested.max(gflops / bandwidth_gbs)
    } else {
        requested
    }
}
