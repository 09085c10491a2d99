//! `ladder.md`: every rung and the peers per results file, with a linear chart per file.

use std::fmt::Write as _;

use anyhow::Result;

use super::*;

impl Book<'_> {
    pub(super) fn ladder_page(&mut self) -> Result<String> {
        let mut s = String::from(NOTE);
        let files = self.files.clone();
        for file in &files {
            s.push_str(&self.ladder_file(file)?);
        }
        if files.is_empty() {
            s.push_str("\n*No ladder run is recorded yet: run `cargo run --release -p lab-bench -- ladder`.*\n");
        }
        Ok(s)
    }

    pub(super) fn ladder_file(&mut self, file: &File) -> Result<String> {
        let mut s = String::new();
        let rows: Vec<&Row> = file
            .latest
            .iter()
            .filter(|r| r.is_reference() || r.peer.is_some())
            .collect();
        let mut sizes: Vec<usize> = rows
            .iter()
            .filter(|r| r.is_square() && r.m.is_power_of_two())
            .map(|r| r.m)
            .collect();
        sizes.sort_unstable();
        sizes.dedup();
        if sizes.is_empty() {
            return Ok(s);
        }
        let machines = file.machines();
        let main = rows.iter().find(|r| !r.cpu).copied().unwrap_or(rows[0]);
        let _ = writeln!(
            s,
            "\n### {} (`results/{}`)\n",
            main.machine_words(),
            file.name
        );
        let mut about = Vec::new();
        if !main.cpu {
            about.push(format!(
                "OpenCL{} rows ran on {}{}.",
                if rows.iter().any(|r| r.peer == Some(Peer::Cublas)) {
                    " and cuBLAS"
                } else {
                    ""
                },
                main.device,
                driver_words(main)
            ));
        }
        for m in machines
            .iter()
            .filter(|m| rows.iter().any(|r| r.cpu && r.machine() == *m))
        {
            let cpu_rows: Vec<&Row> = rows
                .iter()
                .filter(|r| r.cpu && r.machine() == m)
                .copied()
                .collect();
            let threads: BTreeSet<String> = cpu_rows
                .iter()
                .filter(|r| r.peer.is_none())
                .filter_map(|r| r.threads.map(|t| t.to_string()))
                .collect();
            // The one-thread lessons (01 and 02): named only where the table has them.
            let serial: BTreeSet<&str> = cpu_rows
                .iter()
                .filter(|r| r.peer.is_none())
                .filter_map(|r| lab::ladder::find(&r.lesson))
                .filter(|l| l.cpu().is_some_and(|c| c.serial))
                .map(|l| l.key)
                .collect();
            let serial: Vec<&str> = serial.into_iter().collect();
            let single_note = match serial.as_slice() {
                [] => String::new(),
                [one] => {
                    format!(" (lesson {one} uses one of them, and its % of peak is of one core)")
                }
                many => format!(
                    " (lessons {} use one of them, and their % of peak is of one core)",
                    many.join(" and ")
                ),
            };
            about.push(format!(
                "The CPU rows ran on the host CPU, {}{}.",
                m,
                if threads.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", with {} threads available{single_note}",
                        threads.into_iter().collect::<Vec<_>>().join(" and ")
                    )
                }
            ));
        }
        let shown: Vec<&str> = {
            let g: BTreeSet<&str> = rows
                .iter()
                .filter(|r| r.is_square() && sizes.contains(&r.m))
                .map(|r| r.group())
                .collect();
            g.into_iter().collect()
        };
        let many_runs = shown.len() > 1;
        if many_runs {
            about.push(format!(
                "Runs in this file: {}. Each cell is the latest measurement of that row at that size, and its letter names the run it came from: only cells of one run were measured together.",
                file.runs.legend(&shown)
            ));
        } else {
            about.push(format!(
                "Every cell comes from one run: {}.",
                file.runs.legend(&shown)
            ));
        }
        about.push("GFLOP/s from the median device time.".into());
        let _ = writeln!(s, "{}\n", about.join(" "));
        let mut header = String::from("| rung |");
        let mut line = String::from("|---|");
        for sz in &sizes {
            let _ = write!(header, " {sz}³ |");
            line.push_str("--:|");
        }
        header.push_str(" of peak |");
        line.push_str("--:|");
        let _ = writeln!(s, "{header}\n{line}");
        let mut no_peak: Vec<&Row> = Vec::new();
        let mut above_cpu_peak = false;
        for (name, group) in ladder_rows(&rows) {
            let mut cells = String::new();
            let mut largest: Option<&Row> = None;
            for &sz in &sizes {
                let hit = group.iter().find(|r| r.is_square() && r.m == sz).copied();
                let text = hit.map_or(NONE.into(), |r| {
                    if many_runs {
                        format!(
                            "{} <sup>{}</sup>",
                            gflops(r.gflops),
                            file.runs.letter(r.group())
                        )
                    } else {
                        gflops(r.gflops)
                    }
                });
                let _ = write!(cells, " {text} |");
                if hit.is_some() {
                    largest = hit;
                }
            }
            let of_peak = match largest {
                Some(r) => match self.peaks.of(r) {
                    Some(p) => {
                        above_cpu_peak |= p.kind == "CPU" && r.gflops > p.gflops;
                        format!("{} at\u{a0}{}", pct(100.0 * r.gflops / p.gflops), r.size())
                    }
                    None => {
                        no_peak.push(r);
                        self.peaks.share(r)
                    }
                },
                None => NONE.into(),
            };
            let _ = writeln!(s, "| {} |{cells} {of_peak} |", cell(&name));
        }
        if above_cpu_peak {
            let _ = writeln!(s, "\n{}", above_cpu_peak_note());
        }
        let why = self.peaks.why_none(&no_peak);
        if !why.is_empty() {
            let _ = writeln!(s, "\nNo % of peak: {}.", why.join("; "));
        }
        if let Some(figure) = self.ladder_chart(file, &rows, &machines)? {
            let _ = writeln!(
                s,
                "\n![GFLOP/s of every rung and peer on {}, linear axis, one panel per device]({figure})",
                main.machine_words()
            );
        }
        if let Some(figure) = self.sizes_chart(file, &rows)? {
            let _ = writeln!(
                s,
                "\n![GFLOP/s of every rung and peer in results/{} against the size of the product, log-log]({figure})",
                file.name
            );
        }
        // Each tuned lesson's winners on this device.
        for lesson in ladder::ALL.iter() {
            let tuned = self.tuned_rows(&main.device, &lesson.name());
            if tuned.is_empty() {
                continue;
            }
            let _ = writeln!(s, "\nLesson {}'s configurations on this device, by the shape they were tuned at (`results/tuned.csv`; the latest per shape):\n", lesson.key);
            let _ = writeln!(
                s,
                "| tuned at | defines | GFLOP/s when tuned | date |\n|--:|---|--:|---|"
            );
            for r in tuned {
                let _ = writeln!(
                    s,
                    "| {} | `{}` | {} | {} |",
                    data::size_label(r.size.m, r.size.n, r.size.k),
                    r.defines,
                    gflops(r.gflops),
                    r.date
                );
            }
        }
        Ok(s)
    }

    /// One panel per machine of the file, each at the size most of its rows share.
    fn ladder_chart(
        &mut self,
        file: &File,
        rows: &[&Row],
        machines: &[String],
    ) -> Result<Option<String>> {
        let mut panels = Vec::new();
        for m in machines {
            let mine: Vec<&Row> = rows.iter().filter(|r| r.machine() == m).copied().collect();
            let Some(size) = common_size(&mine) else {
                continue;
            };
            let at: Vec<&Row> = mine
                .iter()
                .filter(|r| r.is_square() && r.m == size)
                .copied()
                .collect();
            let used: Vec<&str> = {
                let g: BTreeSet<&str> = at.iter().map(|r| r.group()).collect();
                g.into_iter().collect()
            };
            let many_runs = used.len() > 1;
            let mut bars = Vec::new();
            for (name, group) in ladder_rows(&at) {
                let r = group[0];
                let color = if r.peer.is_some() {
                    charts::PEER
                } else if r.cpu {
                    charts::CPU_RUNG
                } else {
                    charts::RUNG
                };
                bars.push(Bar {
                    label: name,
                    value: r.gflops,
                    range: r.rate_range(),
                    text: format!(
                        "{}{}",
                        charts::rate(r.gflops),
                        if many_runs {
                            format!(" ({})", file.runs.letter(r.group()))
                        } else {
                            String::new()
                        }
                    ),
                    color,
                });
            }
            // The ceiling, where the rungs of this panel share one exact peak; rungs on a
            // unit whose ceiling is not recorded have none to share, and are said so below.
            let rung_peaks: Vec<Option<Peak>> = at
                .iter()
                .filter(|r| r.peer.is_none() && self.peaks.unmeasured(r).is_none())
                .map(|r| self.peaks.of(r))
                .collect();
            let unroofed: Vec<String> = at
                .iter()
                .filter_map(|r| Some((r.rung()?, self.peaks.unmeasured(r)?)))
                .map(|(l, u)| format!("lesson {} runs on the {}", l.key, u.words()))
                .collect();
            let limit = match rung_peaks.first() {
                Some(Some(p)) if rung_peaks.iter().all(|q| q.as_ref() == Some(p)) => Some((
                    p.gflops,
                    if super::ceiling::of(p).is_some() {
                        format!("FP32 ceiling {} GFLOP/s", charts::rate(p.gflops))
                    } else {
                        format!("FP32 peak {} GFLOP/s ({})", charts::rate(p.gflops), p.date)
                    },
                )),
                _ => None,
            };
            let first = at.iter().find(|r| r.peer.is_none()).unwrap_or(&at[0]);
            let mut heading = vec![
                format!("GFLOP/s at {size}³, linear axis"),
                format!(
                    "{}{}",
                    first.machine_words(),
                    if first.driver.is_empty() {
                        String::new()
                    } else {
                        format!(" · driver {}", first.driver)
                    }
                ),
                format!("measured {} · results/{}", dates(&at), file.name),
            ];
            if many_runs {
                heading.push(format!(
                    "runs (letter after each value): {}; compare values of one run only",
                    file.runs.short_legend(&used)
                ));
            }
            let mut footer = Vec::new();
            let missing: Vec<String> = ladder_rows(&mine)
                .into_iter()
                .filter(|(_, g)| !g.iter().any(|r| r.is_square() && r.m == size))
                .map(|(n, _)| n)
                .collect();
            if !missing.is_empty() {
                footer.push(format!("Not measured at {size}³: {}.", missing.join(", ")));
            }
            if at.iter().any(|r| r.rate_range().is_some()) {
                footer.push("Whiskers: the fastest and the slowest repetition.".into());
            }
            if limit.is_none() {
                footer.push("No peak line: no recorded peak matches this device exactly.".into());
            }
            if !unroofed.is_empty() {
                footer.push(format!(
                    "The peak line is the FP32 lanes': {}, whose ceiling is not measured.",
                    unroofed.join(", ")
                ));
            }
            panels.push(Panel {
                heading,
                groups: vec![Group {
                    title: String::new(),
                    bars,
                }],
                axis: "GFLOP/s (median device time)".into(),
                limit,
                x_max: None,
                footer,
            });
        }
        if panels.is_empty() {
            return Ok(None);
        }
        let svg = charts::bars(&panels)?;
        let name = format!("ladder-{}.svg", file.stem());
        self.figures.push((name.clone(), svg));
        Ok(Some(format!("figures/{name}")))
    }

    /// Speed against size, one line per rung and peer measured at two or more sizes that are
    /// powers of two (the odd sizes of lessons 08 and 09 are the tables' business).
    fn sizes_chart(&mut self, file: &File, rows: &[&Row]) -> Result<Option<String>> {
        let mut series = Vec::new();
        for (name, group) in ladder_rows(rows) {
            let mut points: Vec<(usize, f64)> = group
                .iter()
                .filter(|r| r.is_square() && r.m.is_power_of_two())
                .map(|r| (r.m, r.gflops))
                .collect();
            points.sort_by_key(|p| p.0);
            points.dedup_by_key(|p| p.0);
            if points.len() >= 2 {
                let runs: BTreeSet<String> =
                    group.iter().map(|r| file.runs.letter(r.group())).collect();
                series.push(charts::sizes::Series {
                    name: format!(
                        "{name} ({})",
                        runs.into_iter().collect::<Vec<_>>().join(", ")
                    ),
                    points,
                    peer: group[0].peer.is_some(),
                });
            }
        }
        if series.len() < 2 {
            return Ok(None);
        }
        let heading = vec![
            "GFLOP/s against the size of the product, every rung and peer".to_string(),
            format!("results/{} · measured {}", file.name, dates(rows)),
            format!(
                "the letters after each name: its runs ({})",
                file.runs.short_legend(&[])
            ),
        ];
        let svg = charts::sizes::chart(&heading, &series)?;
        let name = format!("sizes-{}.svg", file.stem());
        self.figures.push((name.clone(), svg));
        Ok(Some(format!("figures/{name}")))
    }

    /// results/tuned.csv's rows of a lesson for a device, the latest per shape.
    fn tuned_rows(&self, device: &str, lesson: &str) -> Vec<TunedRow> {
        // Cubes first, by side, then the other shapes.
        let mut by_size: std::collections::BTreeMap<(bool, usize, usize, usize), TunedRow> =
            Default::default();
        for r in self
            .tuned
            .iter()
            .filter(|r| r.device == device && r.lesson == lesson)
        {
            let at = r.size;
            by_size.insert((!at.is_cube(), at.m, at.n, at.k), r.clone());
        }
        by_size.into_values().collect()
    }
}

type LadderOrder = (u8, String, Option<usize>, String);

/// Where a row sits in the ladder: rungs in ladder order (CPU rungs come first by their
/// numbers), then the peers, matrixmultiply with more threads first.
fn ladder_order(r: &Row) -> LadderOrder {
    match r.peer {
        None => (0, r.lesson.clone(), None, String::new()),
        Some(p) => (
            1 + p as u8,
            p.key().to_string(),
            r.threads.map(|t| usize::MAX - t),
            r.variant.clone(),
        ),
    }
}

/// A ladder's rows by name, in [`ladder_order`].
pub(super) fn ladder_rows<'r>(rows: &[&'r Row]) -> Vec<(String, Vec<&'r Row>)> {
    let mut names: Vec<(LadderOrder, String)> = Vec::new();
    for r in rows {
        let order = ladder_order(r);
        if !names.iter().any(|(o, _)| o == &order) {
            names.push((order, r.name()));
        }
    }
    names.sort();
    names
        .into_iter()
        .map(|(order, name)| {
            let group = rows
                .iter()
                .filter(|r| ladder_order(r) == order)
                .copied()
                .collect();
            (name, group)
        })
        .collect()
}
