//! `roofline.md`: a roofline per device with a recorded peak, every rung as a dot.

use std::fmt::Write as _;

use anyhow::{Context as _, Result};

use super::*;

impl Book<'_> {
    pub(super) fn roofline_page(&mut self) -> Result<String> {
        let mut s = String::from(NOTE);
        let peak_lesson = device_lesson();
        let _ = writeln!(
            s,
            "\nOne roofline per device with a peak in `results/peak.csv`. Each dot is a rung's reference kernel, at the size most rungs were measured at on that device.\n\n\
             - **x**, DRAM intensity: the FLOP the kernel does per byte it moves between DRAM and the device's last-level cache, *counted* from the kernel's blocking, not inferred from its speed. If A, B and C fit in that cache together, each comes from DRAM once (C is written once). If not, the blocking decides: a kernel that computes C in BM×BN blocks, block row by block row, reads A's BM-row panel once if it stays in the cache along the row (else once per block), and all of B once if it stays in the cache (else once per block row). The cache size used is stated under each chart. This is a model: it leaves out any other reuse the cache finds, so it errs towards too many bytes.\n\
             - **Requested intensity** (in the table, and the small squares where an L2 roof is drawn): the FLOP the kernel does per byte it *requests* from global memory, from its tiles (the loads of A and B). The caches (L1, L2, local memory) serve the difference. Where {peak_lesson} measured the caches' read bandwidths (NVIDIA GPUs), they are drawn against this intensity: the L2's dashed, the most the L2 could feed a kernel whose every request it served, and the L1's dotted, which every request passes.\n\
             - **y**: GFLOP/s from the median device time.\n\
             - **The roofs**: the measured bandwidth times the intensity (slanted) and the FP32 peak (flat): measured by {peak_lesson} on a GPU; on a CPU the ceiling of its cores at their nominal clock (see {peak_lesson}'s table). They meet at the ridge point. A rung left of the ridge is labelled *memory*: DRAM cannot feed its arithmetic any faster. Right of it, DRAM is not what holds it back, and the roof is the arithmetic's; a dot far below it is held by something these roofs do not draw (cache bandwidth, latency, the instructions issued). A dot above its roof would mean the model counts more bytes than the kernel moved: the page says so where it happens.\n\
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
            shape: Shape,
            lesson: &'static Lesson,
            defines: String,
            assumed: bool,
            /// The requested intensity, from the lesson's rule.
            requested: f64,
            /// The counted DRAM traffic: the dot's x.
            traffic: traffic::Traffic,
        }
        let cache = traffic::cache_of(&p.device, &p.kind);
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
            let shape = Shape::new(r.m, r.n, r.k);
            let counted = traffic::count(lesson.key, &defines, &info, shape, &cache)
                .with_context(|| format!("the DRAM traffic of lesson {}", lesson.key))?;
            match (intensity::intensity(lesson.key, &defines), counted) {
                (Some(requested), Some(traffic)) => points.push(Point {
                    row: r,
                    shape,
                    lesson,
                    defines,
                    assumed,
                    requested,
                    traffic,
                }),
                _ => unplaced.push(format!("{} {}", lesson.key, lesson.title)),
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
        // Every run a dot or a peer's level comes from, so that each letter is explained.
        let used: Vec<&str> = {
            let g: BTreeSet<&str> = points
                .iter()
                .map(|pt| pt.row.group())
                .chain(peers.iter().map(|r| r.group()))
                .collect();
            g.into_iter().collect()
        };
        let many_runs = used.len() > 1;
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
                x: pt.traffic.intensity(pt.shape),
                y: pt.row.gflops,
                hollow: pt.assumed,
                color: charts::PALETTE[i % charts::PALETTE.len()],
                requested: p.l2_gbs.or(p.l1_gbs).map(|_| pt.requested),
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
            format!(
                "x: DRAM intensity, counted from each kernel's blocking with a last-level cache of {}: {}; not from its speed.",
                cache_words(&cache),
                cache.source
            ),
        ];
        if points.iter().any(|pt| pt.assumed) {
            footer.push(
                "Hollow: the row did not record its defines; placed with the ones the lesson's code picks for this device."
                    .to_string(),
            );
        }
        if let Some(l2) = p.l2_gbs {
            footer.push(format!(
                "Dashed roof: the L2 cache's read bandwidth, {} GB/s{}, measured by {}; small squares: each rung's rate at the FLOP per byte it requests from global memory (its loads, before any cache), under the L2 roof if every request came from L2{}.",
                charts::rate(l2),
                p.l1_gbs.map_or(String::new(), |g| format!("; dotted: the L1 caches', {} GB/s", charts::rate(g))),
                device_lesson(),
                if p.l1_gbs.is_some() { ", and always under the L1 roof" } else { "" }
            ));
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
            l2_gbs: p.l2_gbs,
            l1_gbs: p.l1_gbs,
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
            "DRAM traffic counted with a last-level cache of {}: {}.\n",
            cache_words(&cache),
            cache.source
        );
        let l2 = p.l2_gbs.filter(|g| *g > 0.0);
        let l1 = p.l1_gbs.filter(|g| *g > 0.0);
        let _ = writeln!(
            s,
            "| rung | requested FLOP/byte | DRAM MB, counted | DRAM FLOP/byte (x) | GFLOP/s (% of peak) | roof there, GFLOP/s | served by caches |{}\n|---|--:|--:|--:|--:|--:|--:|{}",
            match (l1, l2) {
                (Some(_), Some(_)) => " L1 / L2 roofs at the requests, GFLOP/s |",
                (None, Some(_)) => " L2 roof at the requests, GFLOP/s |",
                _ => "",
            },
            if l2.is_some() { "--:|" } else { "" }
        );
        // Rungs faster than the L1 could feed their requests: the model of their loads is wrong.
        let mut above_l1: Vec<String> = Vec::new();
        let mut counted = Vec::new();
        let mut above = Vec::new();
        // Rungs faster than the L2 could feed their requests: a cache nearer the lanes (L1,
        // the texture cache) served part of them, at least this share.
        let mut nearer: Vec<String> = Vec::new();
        for pt in &points {
            let x = pt.traffic.intensity(pt.shape);
            let roof = (p.bandwidth_gbs * x).min(p.gflops);
            // The label comes from the counted intensity against the ridge, never from
            // where the dot is.
            let bound = if x < p.ridge() {
                "memory"
            } else if matrix {
                "matrix unit"
            } else {
                "FP32"
            };
            if pt.row.gflops > roof {
                above.push(format!("{} {}", pt.lesson.key, pt.lesson.title));
            }
            let l2_cell = match l2 {
                Some(g) => {
                    let at = (g * pt.requested).min(p.gflops);
                    if pt.row.gflops > at && at < p.gflops {
                        nearer.push(format!(
                            "{} {} ({})",
                            pt.lesson.key,
                            pt.lesson.title,
                            pct(100.0 * (1.0 - at / pt.row.gflops))
                        ));
                    }
                    match l1 {
                        Some(g1) => {
                            let at1 = (g1 * pt.requested).min(p.gflops);
                            if pt.row.gflops > at1 {
                                above_l1.push(format!("{} {}", pt.lesson.key, pt.lesson.title));
                            }
                            format!(" {} / {} |", gflops(at1), gflops(at))
                        }
                        None => format!(" {} |", gflops(at)),
                    }
                }
                None => String::new(),
            };
            let _ = writeln!(
                s,
                "| {} {}{} | {} | {} | {} | {} ({}) | {} ({bound}) | {} |{l2_cell}",
                pt.lesson.key,
                pt.lesson.title,
                if many_runs {
                    format!(" ({})", file.runs.letter(pt.row.group()))
                } else {
                    String::new()
                },
                charts::axis_number_1(pt.requested),
                charts::axis_number_1(pt.traffic.bytes / 1e6),
                charts::axis_number_1(x),
                gflops(pt.row.gflops),
                pct(100.0 * pt.row.gflops / p.gflops),
                gflops(roof),
                if x > pt.requested {
                    pct(100.0 * (1.0 - pt.requested / x))
                } else {
                    NONE.to_string()
                }
            );
            counted.push(format!(
                "{}: requested, {}{}; DRAM, {}",
                pt.lesson.key,
                intensity::rule(pt.lesson.key),
                if pt.defines.is_empty() {
                    String::new()
                } else if pt.assumed {
                    format!(", with `{}` (assumed)", pt.defines)
                } else {
                    format!(", with `{}`", pt.defines)
                },
                pt.traffic.rule
            ));
        }
        match l2 {
            Some(g) => {
                let _ = writeln!(
                    s,
                    "\nThe requested intensity's roof is the L2 cache's read bandwidth, {} GB/s, measured by {} with reads that skip L1: the most the L2 could feed a rung if every byte it requests came from there, as a tile staged in local memory requests each byte once per work-group. {}A cache nearer the lanes (L1, the texture cache) serves repeats and lets a rung pass it{}. How each rung's bytes are counted: {}.",
                    gflops(g),
                    device_lesson(),
                    match l1 {
                        Some(g1) => format!("Every request passes through a compute unit's L1, whose read bandwidth, {} GB/s for all of them together (measured alike, on a buffer every L1 holds), no rung can pass at its requests{}. ", gflops(g1), if above_l1.is_empty() { String::new() } else { format!(": {} does, so its requests are counted wrong", above_l1.join(", ")) }),
                        None => String::new(),
                    },
                    if nearer.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "; here they served at least this share of the requests of {}",
                            nearer.join(", ")
                        )
                    },
                    counted.join("; ")
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "\nThe requested intensity has no roof here: {} measures the L2 cache's bandwidth on NVIDIA GPUs only, and none is recorded for this device. How each rung's bytes are counted: {}.",
                    device_lesson(),
                    counted.join("; ")
                );
            }
        }
        if !above.is_empty() {
            let _ = writeln!(
                s,
                "\nAbove its roof: the traffic model overcounts for {}.",
                above.join(", ")
            );
        }
        let mut notes = Vec::new();
        let top = self.tuned_lessons();
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

/// The cache, in words: "50 MiB", "8 MiB (assumed)".
fn cache_words(cache: &traffic::Cache) -> String {
    format!(
        "{} MiB{}",
        charts::axis_number_1(cache.bytes / (1024.0 * 1024.0)),
        if cache.assumed { " (assumed)" } else { "" }
    )
}
