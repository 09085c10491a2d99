//! A lesson's page, `NN_name.md`: its versions per device and size, and a chart of % of peak;
//! lesson 10's also compares it with the peers of its own run.

use std::fmt::Write as _;

use anyhow::Result;

use super::data::Way;
use super::*;

impl Book<'_> {
    pub(super) fn lesson_page(&mut self, lesson: &Lesson) -> Result<String> {
        let mut s = String::from(NOTE);
        let name = lesson.name();
        let files = self.files.clone();
        let mut any = false;
        for file in &files {
            for machine in file.machines() {
                let rows: Vec<&Row> = file
                    .latest
                    .iter()
                    .filter(|r| r.peer.is_none() && r.lesson == name && r.machine() == machine)
                    .collect();
                if rows.is_empty() {
                    continue;
                }
                any = true;
                s.push_str(&self.lesson_block(lesson, file, &machine, &rows)?);
            }
        }
        if lesson.peers.contains(&lab::lesson::Peer::Clblast) {
            s.push_str(&self.beside_gpu_peers(lesson, &files));
        }
        if !any {
            let _ = writeln!(s, "\n*No measurement of this lesson is recorded yet: run `cargo run --release -p lab-bench -- ladder`, then `cargo run --release -p lab-bench -- results`.*");
        }
        Ok(s)
    }

    fn lesson_block(
        &mut self,
        lesson: &Lesson,
        file: &File,
        machine: &str,
        rows: &[&Row],
    ) -> Result<String> {
        let mut s = String::new();
        let prev = previous(lesson);
        let first = rows
            .iter()
            .find(|r| r.is_reference())
            .copied()
            .unwrap_or(rows[0]);
        // The previous rung's row to compare with: the same run's at that size, else the
        // latest.
        let prev_row = |r: &Row| -> Option<(Row, bool)> {
            let p = prev?.name();
            let same = |x: &&Row| x.is_reference() && x.lesson == p && x.shape() == r.shape();
            if let Some(x) = file
                .by_run
                .iter()
                .filter(same)
                .rfind(|x| x.group() == r.group())
            {
                return Some((x.clone(), false));
            }
            file.latest.iter().rfind(same).map(|x| (x.clone(), true))
        };
        let shown_runs: BTreeSet<&str> = rows.iter().map(|r| r.group()).collect();
        let defines = rows.iter().any(|r| !r.defines.is_empty());
        let _ = writeln!(s, "\n{}\n", machine_heading(first, file));
        let _ = writeln!(
            s,
            "Runs: {}.\n",
            file.runs
                .legend(&shown_runs.iter().copied().collect::<Vec<_>>())
        );
        // At most six columns, so the table fits the page: the run and the defines go under
        // it when they are one for all rows, else the run joins the version's cell.
        let one_run = shown_runs.len() == 1;
        let prev_title = prev.map_or(String::new(), |p| format!(" vs lesson {} |", p.key));
        let _ = writeln!(
            s,
            "| size | version | median ms (fastest – slowest) | GFLOP/s (end to end) | % of peak |{prev_title}"
        );
        let _ = writeln!(
            s,
            "|---|---|--:|--:|--:|{}",
            if prev.is_some() { "--:|" } else { "" }
        );
        let mut crossed = false;
        let mut above_cpu_peak = false;
        let order = version_order(rows);
        // Each version's defines, with the sizes that used them.
        let mut defines_of: Vec<(String, String, Vec<String>)> = Vec::new();
        for shape in sorted_shapes(rows.iter().copied()) {
            for v in &order {
                let Some(r) = rows.iter().find(|r| r.shape() == shape && &r.variant == v) else {
                    continue;
                };
                if defines && !r.defines.is_empty() {
                    match defines_of
                        .iter_mut()
                        .find(|(v, d, _)| *v == r.variant && *d == r.defines)
                    {
                        Some((_, _, sizes)) => sizes.push(r.size()),
                        None => {
                            defines_of.push((r.variant.clone(), r.defines.clone(), vec![r.size()]))
                        }
                    }
                }
                let peak = self.peaks.of(r);
                above_cpu_peak |= peak
                    .as_ref()
                    .is_some_and(|p| p.kind == "CPU" && r.gflops > p.gflops);
                let speedup = match prev_row(r) {
                    Some((p, other_run)) => {
                        crossed |= other_run;
                        format!(
                            "{}{}",
                            ratio(r.gflops / p.gflops),
                            if other_run { "\u{a0}†" } else { "" }
                        )
                    }
                    None => NONE.into(),
                };
                let ms = |t: f64| lab::report::ms(t).trim_end_matches(" ms").to_string();
                let _ = writeln!(
                    s,
                    "| {} | {}{} | {}{} | {}{} | {} |{}",
                    r.size(),
                    cell(&r.variant),
                    if one_run {
                        String::new()
                    } else {
                        format!(" ({})", file.runs.letter(r.group()))
                    },
                    ms(r.device_ms),
                    match (r.best_ms, r.worst_ms) {
                        (Some(b), Some(w)) => format!(" ({}\u{a0}–\u{a0}{})", ms(b), ms(w)),
                        _ => String::new(),
                    },
                    gflops(r.gflops),
                    if r.host_gflops == r.gflops {
                        String::new()
                    } else {
                        format!(" ({})", gflops(r.host_gflops))
                    },
                    self.peaks.share(r),
                    if prev.is_some() {
                        format!(" {speedup} |")
                    } else {
                        String::new()
                    }
                );
            }
        }
        let mut under = Vec::new();
        if one_run {
            under.push(format!(
                "Every row is from run **{}**.",
                file.runs
                    .letter(shown_runs.iter().next().copied().unwrap_or_default())
            ));
        } else {
            under.push("The letter after each version is its run.".to_string());
        }
        if !defines_of.is_empty() {
            let all_sizes = sorted_shapes(rows.iter().copied()).len();
            let list: Vec<String> = defines_of
                .iter()
                .map(|(v, d, sizes)| {
                    let at = if sizes.len() == all_sizes
                        || defines_of.iter().filter(|x| x.0 == *v).count() == 1
                    {
                        String::new()
                    } else {
                        format!(" at {}", sizes.join(", "))
                    };
                    format!("{}{at}: `{d}`", cell(v))
                })
                .collect();
            under.push(format!(
                "Defines, where the rows recorded them: {}.",
                list.join("; ")
            ));
        }
        let _ = writeln!(s, "\n{}", under.join(" "));
        let mut notes = Vec::new();
        if crossed {
            notes.push(format!(
                "† lesson {}'s row at that size is from another run of this file: the two were not measured together.",
                prev.map_or("", |p| p.key)
            ));
        }
        if above_cpu_peak {
            notes.push(above_cpu_peak_note());
        }
        let why = self.peaks.why_none(rows);
        if !why.is_empty() {
            notes.push(format!("No % of peak: {}.", why.join("; ")));
        }
        if rows.iter().all(|r| r.best_ms.is_none()) {
            notes.push("These rows were recorded before the fastest and slowest repetitions were, hence the dashes.".into());
        }
        if !notes.is_empty() {
            let _ = writeln!(s, "\n{}", notes.join(" "));
        }
        s.push_str(&self.of_peak_chart(lesson, file, machine, rows)?);
        Ok(s)
    }

    /// The chart of a lesson's versions and the previous rung, as % of the device's peak, at
    /// each size.
    fn of_peak_chart(
        &mut self,
        lesson: &Lesson,
        file: &File,
        machine: &str,
        rows: &[&Row],
    ) -> Result<String> {
        let with_peak: Vec<(&Row, Peak)> = rows
            .iter()
            .filter_map(|r| self.peaks.of(r).map(|p| (*r, p)))
            .collect();
        if with_peak.is_empty() {
            // Said under the table already: the unit's ceiling is not recorded.
            if rows.iter().all(|r| self.peaks.unmeasured(r).is_some()) {
                return Ok(String::new());
            }
            return Ok(format!(
                "\n*No % of peak chart for this device: {}.*\n",
                self.peaks.why_none(rows).join("; ")
            ));
        }
        let prev = previous(lesson);
        let prev_rows: Vec<(&Row, Peak)> = prev
            .map(|p| {
                file.latest
                    .iter()
                    .filter(|r| r.is_reference() && r.lesson == p.name() && r.machine() == machine)
                    .filter_map(|r| self.peaks.of(r).map(|pk| (r, pk)))
                    .collect()
            })
            .unwrap_or_default();
        let all: Vec<&Row> = with_peak
            .iter()
            .chain(&prev_rows)
            .map(|(r, _)| *r)
            .collect();
        let groups_used: Vec<&str> = {
            let g: BTreeSet<&str> = all.iter().map(|r| r.group()).collect();
            g.into_iter().collect()
        };
        let many_runs = groups_used.len() > 1;
        let order = version_order(&with_peak.iter().map(|(r, _)| *r).collect::<Vec<_>>());
        let mut groups = Vec::new();
        for shape in sorted_shapes(with_peak.iter().map(|(r, _)| *r)) {
            let mut bars = Vec::new();
            for (i, v) in order.iter().enumerate() {
                if let Some((r, p)) = with_peak
                    .iter()
                    .find(|(r, _)| r.shape() == shape && &r.variant == v)
                {
                    bars.push(of_peak_bar(
                        r,
                        p,
                        v.clone(),
                        charts::PALETTE[i % 9],
                        many_runs.then(|| file.runs.letter(r.group())),
                    ));
                }
            }
            if let (Some(pl), Some((r, p))) =
                (prev, prev_rows.iter().find(|(r, _)| r.shape() == shape))
            {
                bars.push(of_peak_bar(
                    r,
                    p,
                    format!("lesson {} (reference)", pl.key),
                    charts::PEER,
                    many_runs.then(|| file.runs.letter(r.group())),
                ));
            }
            groups.push(Group {
                title: data::size_label(shape.0, shape.1, shape.2),
                bars,
            });
        }
        let first = with_peak[0].0;
        let mut peaks: Vec<&Peak> = Vec::new();
        for (_, p) in with_peak.iter().chain(&prev_rows) {
            if !peaks.contains(&p) {
                peaks.push(p);
            }
        }
        let peak_line = if peaks.len() == 1 {
            format!(
                "100 % = {} {} GFLOP/s{} (results/peak.csv)",
                super::ceiling::words(peaks[0]),
                charts::rate(peaks[0].gflops),
                if super::ceiling::of(peaks[0]).is_some() {
                    String::new()
                } else {
                    format!(", measured {}", peaks[0].date)
                }
            )
        } else {
            "each bar against the peak of its own device and thread count (results/peak.csv)"
                .to_string()
        };
        let mut heading = vec![
            format!(
                "Lesson {} at each size, as % of the {}",
                lesson.key,
                super::ceiling::words(peaks[0])
            ),
            format!(
                "{}{} · results/{}",
                first.machine_words(),
                if first.driver.is_empty() {
                    String::new()
                } else {
                    format!(" · driver {}", first.driver)
                },
                file.name
            ),
            format!("measured {} · {peak_line}", dates(&all)),
        ];
        if many_runs {
            heading.push(format!(
                "runs (letter after each value): {}",
                file.runs.short_legend(&groups_used)
            ));
        }
        let mut footer = Vec::new();
        if prev.is_some() && prev_rows.is_empty() {
            footer.push(format!(
                "Lesson {}'s rows ran elsewhere or have no recorded peak on this device, so they are not shown.",
                prev.map_or("", |p| p.key)
            ));
        }
        if all.iter().any(|r| r.rate_range().is_some()) {
            footer.push("Whiskers: the fastest and the slowest repetition.".into());
        }
        // Against the whole of the peak where the best version comes near half of it.
        let best = groups
            .iter()
            .flat_map(|g| &g.bars)
            .map(|b| b.value)
            .fold(0.0, f64::max);
        let panel = Panel {
            x_max: (best > 45.0).then_some(100.0),
            heading,
            groups,
            axis: format!(
                "% of the device's {} (median device time)",
                super::ceiling::words(peaks[0])
            ),
            limit: None,
            footer,
        };
        let svg = charts::bars(&[panel])?;
        let name = figure_name(&format!("of-peak-{}-", lesson.name()), file, machine);
        self.figures.push((name.clone(), svg));
        Ok(format!(
            "\n![Lesson {} on {}: GFLOP/s of each version{} at each size, as % of the device's {}]({})\n",
            lesson.key,
            first.machine_words(),
            prev.map_or(String::new(), |p| format!(" and of lesson {}", p.key)),
            super::ceiling::words(peaks[0]),
            format_args!("figures/{name}")
        ))
    }

    /// A lesson that declares a GPU peer, beside cuBLAS and CLBlast, per size, from one run of
    /// each device.
    pub(super) fn beside_gpu_peers(&self, lesson: &Lesson, files: &[File]) -> String {
        let mut s = String::new();
        let name = lesson.name();
        let top = format!("lesson {}", lesson.key);
        let mut any = false;
        for file in files {
            // Every run with the lesson's reference and a GPU peer on the same device, newest
            // first: the peers vary from run to run (cuBLAS at 1024 most), and one run alone
            // would hide it.
            let mut groups: Vec<String> = Vec::new();
            for r in file
                .by_run
                .iter()
                .filter(|r| r.is_reference() && r.lesson == name)
            {
                if !groups.iter().any(|g| g == r.group()) {
                    groups.push(r.group().to_string());
                }
            }
            let chosen: Vec<_> = groups
                .iter()
                .rev()
                .filter_map(|g| {
                    let ours: Vec<&Row> = file
                        .by_run
                        .iter()
                        .filter(|r| r.group() == g && r.is_reference() && r.lesson == name)
                        .collect();
                    let device = ours.first()?.device.clone();
                    let peers: Vec<&Row> = file
                        .by_run
                        .iter()
                        .filter(|r| {
                            r.group() == g
                                && r.device == device
                                && matches!(r.peer, Some(Peer::Cublas) | Some(Peer::Clblast))
                        })
                        .collect();
                    (!peers.is_empty()).then_some((g.clone(), ours, peers))
                })
                .collect();
            for (g, ours, peers) in chosen {
                if !any {
                    let _ = writeln!(
                    s,
                    "\n### Lesson {} beside cuBLAS and CLBlast\n\nEach table below comes from one run: the rows were measured together, on one device; the newest run comes first. GFLOP/s from the median time: {top} by profiling events, every call on new inputs, each checked (in runs from 2026-11-30T23:30Z on, each timed launch right behind an untimed one on the call before's inputs, so that the GPU is not idle when it starts: `research/protocol-11/`); cuBLAS by CUDA events, *warm* over back-to-back calls on the same inputs, *fresh* on new inputs for every call, each checked, as the lessons are timed; CLBlast by the host clock, *warm* over batches of back-to-back calls on the same inputs, *fresh* one call on new inputs from an idle queue. The ÷ columns give {top}'s rate over the peer's, its *fresh* figure where the run has one (like with like, though the peers' clocks include a launch that {top}'s profiling events leave out, which weighs at small sizes): above 100 % means {top} is faster.",
                    lesson.key
                );
                    any = true;
                }
                // One column per peer and way of timing it that the run holds.
                let cols: Vec<(Peer, Way)> = [Peer::Cublas, Peer::Clblast]
                    .into_iter()
                    .flat_map(|p| Way::ALL.into_iter().map(move |w| (p, w)))
                    .filter(|&(p, w)| peers.iter().any(|r| r.peer == Some(p) && r.way() == w))
                    .collect();
                let title = |&(p, w): &(Peer, Way)| {
                    let ways = cols.iter().filter(|c| c.0 == p).count();
                    if ways > 1 || w != Way::Warm {
                        format!("{} {}", p.title(), w.word())
                    } else {
                        p.title().to_string()
                    }
                };
                let first = ours[0];
                let _ = writeln!(
                    s,
                    "\n**{}**{}: `results/{}`, run {} = {}\n",
                    first.device,
                    driver_words(first),
                    file.name,
                    file.runs.letter(&g),
                    file.runs.describe(&g)
                );
                let mut header = format!("| size | {top} |");
                let mut line = String::from("|---|--:|");
                for c in &cols {
                    let _ = write!(header, " {} |", title(c));
                    line.push_str("--:|");
                }
                // One ratio per peer: against its fresh figure where the run has one (like
                // with like), else against the way it was timed.
                let ratios: Vec<(Peer, Way)> = [Peer::Cublas, Peer::Clblast]
                    .into_iter()
                    .filter_map(|p| {
                        let mine: Vec<&(Peer, Way)> = cols.iter().filter(|c| c.0 == p).collect();
                        mine.iter()
                            .find(|c| c.1 == Way::Fresh)
                            .or(mine.first())
                            .map(|c| **c)
                    })
                    .collect();
                for c in &ratios {
                    let _ = write!(header, " ÷ {} |", title(c));
                    line.push_str("--:|");
                }
                let _ = writeln!(s, "{header}\n{line}");
                for shape in sorted_shapes(ours.iter().copied()) {
                    let Some(r) = ours.iter().find(|r| r.shape() == shape) else {
                        continue;
                    };
                    // The last measurement of the column at this size, as the note on
                    // repeats below says.
                    let of = |&(p, w): &(Peer, Way)| {
                        peers
                            .iter()
                            .rev()
                            .find(|x| x.peer == Some(p) && x.way() == w && x.shape() == shape)
                    };
                    let mut cells = format!("| {} | {} |", r.size(), gflops(r.gflops));
                    for c in &cols {
                        let _ = write!(
                            cells,
                            " {} |",
                            of(c).map_or(NONE.into(), |x| gflops(x.gflops))
                        );
                    }
                    for c in &ratios {
                        let _ = write!(
                            cells,
                            " {} |",
                            of(c).map_or(NONE.into(), |x| pct(100.0 * r.gflops / x.gflops))
                        );
                    }
                    let _ = writeln!(s, "{cells}");
                }
                // Things measured more than once in the run: say what the table leaves out.
                let mut repeats = Vec::new();
                for x in ours.iter().chain(&peers) {
                    let all: Vec<&Row> = file
                        .rows
                        .iter()
                        .filter(|y| y.group() == g && y.key() == x.key())
                        .collect();
                    if all.len() > 1 {
                        let earlier: Vec<String> = all[..all.len() - 1]
                            .iter()
                            .map(|y| gflops(y.gflops))
                            .collect();
                        repeats.push(format!(
                            "{} at {}: {} earlier",
                            x.name(),
                            x.size(),
                            earlier.join(", ")
                        ));
                    }
                }
                if !repeats.is_empty() {
                    let _ = writeln!(
                    s,
                    "\nMeasured more than once in this run; the table shows the last measurement, and the earlier ones gave (GFLOP/s): {}.",
                    repeats.join("; ")
                );
                }
            }
        }
        s
    }
}

/// The previous graded rung, if any.
fn previous(lesson: &Lesson) -> Option<&'static Lesson> {
    ladder::previous(lesson).filter(|p| p.graded())
}

/// Order of a file's rows within a size: the reference first, then the variants as they
/// were first recorded.
fn version_order(rows: &[&Row]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    if rows.iter().any(|r| r.variant == "reference") {
        out.push("reference".into());
    }
    for r in rows {
        if !out.contains(&r.variant) {
            out.push(r.variant.clone());
        }
    }
    out
}

/// A block's heading: the machine, its driver, its file.
fn machine_heading(first: &Row, file: &File) -> String {
    if first.cpu {
        format!(
            "**{}** (the host CPU; `results/{}`)",
            first.machine_words(),
            file.name
        )
    } else {
        format!(
            "**{}**{} (`results/{}`)",
            first.device,
            driver_words(first),
            file.name
        )
    }
}

/// A bar of the % of peak chart.
fn of_peak_bar(
    r: &Row,
    p: &Peak,
    label: String,
    color: plotters::style::RGBColor,
    run: Option<String>,
) -> Bar {
    let of = |g: f64| 100.0 * g / p.gflops;
    Bar {
        label,
        value: of(r.gflops),
        range: r.rate_range().map(|(lo, hi)| (of(lo), of(hi))),
        text: format!(
            "{:.1} %{}",
            of(r.gflops),
            run.map_or(String::new(), |l| format!(" ({l})"))
        ),
        color,
    }
}
