//! The book's charts, drawn with plotters into SVG: dark ink on an opaque white card, so
//! that they read in every theme of the book; labels placed where they overlap nothing.

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub mod roofline;
pub mod sizes;

pub use roofline::{roofline, Dot, Level, Roofline};
#[cfg(test)]
use roofline::{Obstacles, Rect};

const INK: RGBColor = RGBColor(0x1a, 0x1a, 0x1a);
const MUTED: RGBColor = RGBColor(0x4a, 0x4a, 0x4a);
const GRID: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
const FAINT: RGBColor = RGBColor(0xee, 0xee, 0xee);
const ROOF: RGBColor = RGBColor(0x33, 0x33, 0x33);
const FONT: &str = "sans-serif";

/// Colours for series on white, distinct and dark enough for text beside them.
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(0x1f, 0x5f, 0xa8),
    RGBColor(0xd9, 0x5f, 0x02),
    RGBColor(0x1b, 0x8a, 0x5a),
    RGBColor(0x75, 0x4f, 0xb0),
    RGBColor(0xb0, 0x2a, 0x4a),
    RGBColor(0x0e, 0x7c, 0x8c),
    RGBColor(0x8c, 0x6d, 0x1f),
    RGBColor(0xc2, 0x3b, 0x9e),
    RGBColor(0x4d, 0x7a, 0x16),
    RGBColor(0x5b, 0x5b, 0x5b),
];
/// Bars of the course's OpenCL rungs, its CPU rungs, and the peers.
pub const RUNG: RGBColor = RGBColor(0x1f, 0x5f, 0xa8);
pub const CPU_RUNG: RGBColor = RGBColor(0x1b, 0x8a, 0x5a);
pub const PEER: RGBColor = RGBColor(0x8a, 0x8a, 0x8a);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("drawing a chart: {e:?}")
}

/// A text style of `px` pixels (plotters writes the size divided by 1.24).
fn font(px: f64, color: RGBColor) -> TextStyle<'static> {
    (FONT, px * 1.24).into_font().color(&color)
}

fn bold(px: f64, color: RGBColor) -> TextStyle<'static> {
    (FONT, px * 1.24, FontStyle::Bold).into_font().color(&color)
}

/// A generous estimate of a text's width in pixels (wide sans-serif fonts, digits included).
pub fn text_width(text: &str, px: f64) -> f64 {
    text.chars().count() as f64 * 0.62 * px
}

fn anchored(style: TextStyle<'static>, h: HPos, v: VPos) -> TextStyle<'static> {
    style.pos(Pos::new(h, v))
}

fn text(area: &Area, s: &str, (x, y): (f64, f64), style: &TextStyle) -> Result<()> {
    area.draw(&Text::new(
        s.to_string(),
        (x as i32, y as i32),
        style.clone(),
    ))
    .map_err(err)
}

/// The lines above a chart: the first bold, the rest smaller. Returns the height used.
fn heading(area: &Area, lines: &[String], x: f64, y: f64) -> Result<f64> {
    let mut at = y;
    for (i, line) in lines.iter().enumerate() {
        let (px, style) = if i == 0 {
            (15.0, bold(15.0, INK))
        } else {
            (12.5, font(12.5, MUTED))
        };
        text(area, line, (x, at), &anchored(style, HPos::Left, VPos::Top))?;
        at += px + 6.0;
    }
    Ok(at - y)
}

fn heading_height(lines: &[String]) -> f64 {
    lines
        .iter()
        .enumerate()
        .map(|(i, _)| if i == 0 { 21.0 } else { 18.5 })
        .sum()
}

/// An estimate of a text's width for wrapping lines (average sans-serif text).
fn line_width(text: &str, px: f64) -> f64 {
    text.chars().count() as f64 * 0.54 * px
}

/// A rate for a label: whole numbers from 100 up, one decimal below.
pub fn rate(x: f64) -> String {
    if x >= 100.0 {
        grouped(x, 0)
    } else {
        format!("{x:.1}")
    }
}

/// Splits a line into lines of at most `max_w` pixels: between its ` · `-separated parts
/// where it can, else at spaces.
pub fn wrap(line: &str, px: f64, max_w: f64) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for part in line.split(" · ") {
        let candidate = if current.is_empty() {
            part.to_string()
        } else {
            format!("{current} · {part}")
        };
        if line_width(&candidate, px) <= max_w {
            current = candidate;
            continue;
        }
        if !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        // The part alone, word by word.
        for word in part.split(' ') {
            let candidate = if current.is_empty() {
                word.to_string()
            } else {
                format!("{current} {word}")
            };
            if !current.is_empty() && line_width(&candidate, px) > max_w {
                out.push(std::mem::take(&mut current));
                current = word.to_string();
            } else {
                current = candidate;
            }
        }
    }
    if !current.is_empty() || out.is_empty() {
        out.push(current);
    }
    out
}

/// A heading's lines wrapped to a width (the first line is bold and larger).
fn wrap_heading(lines: &[String], max_w: f64) -> Vec<String> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            // The first line stays one line of the bold style: wrap it as if wider.
            out.push(l.clone());
        } else {
            out.extend(wrap(l, 12.5, max_w));
        }
    }
    out
}

fn wrap_lines(lines: &[String], px: f64, max_w: f64) -> Vec<String> {
    lines.iter().flat_map(|l| wrap(l, px, max_w)).collect()
}

/// The width of every chart: the book's text column, so that nothing is scaled down.
pub const WIDTH: u32 = 760;

/// A number with a thin space between thousands: `47 388`.
pub fn grouped(x: f64, decimals: usize) -> String {
    let s = format!("{x:.decimals$}");
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), format!(".{f}")),
        None => (s.clone(), String::new()),
    };
    let (sign, digits) = match int.strip_prefix('-') {
        Some(d) => ("-", d.to_string()),
        None => ("", int),
    };
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    format!("{sign}{out}{frac}")
}

/// An axis number: whole numbers grouped by thousands, small ones with their decimals.
pub fn axis_number(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 1.0 {
        grouped(v, 0)
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// A round upper end for a linear axis: 1, 2, 2.5 or 5 times a power of ten.
pub fn nice_ceiling(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    for m in [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0] {
        if m * p >= x * 0.999_999 {
            return m * p;
        }
    }
    10.0 * p
}

// ---------------------------------------------------------------------------------------
// Horizontal bars

/// One bar: its label on the left, its value, the fastest and slowest repetition where
/// recorded (drawn as a whisker), and the text written at its end.
#[derive(Clone)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub range: Option<(f64, f64)>,
    pub text: String,
    pub color: RGBColor,
}

/// Bars under one title (a size), or untitled.
#[derive(Clone)]
pub struct Group {
    pub title: String,
    pub bars: Vec<Bar>,
}

/// One panel: its heading lines, its bars, its axis, and a vertical reference line (a peak).
#[derive(Clone)]
pub struct Panel {
    pub heading: Vec<String>,
    pub groups: Vec<Group>,
    pub axis: String,
    pub limit: Option<(f64, String)>,
    /// The axis's end, if not the data's.
    pub x_max: Option<f64>,
    /// Lines under the axis.
    pub footer: Vec<String>,
}

const BAR_H: f64 = 18.0;
const BAR_GAP: f64 = 5.0;
const GROUP_GAP: f64 = 12.0;
const LABEL_PX: f64 = 12.5;

fn bars_height(p: &Panel) -> f64 {
    let n: usize = p.groups.iter().map(|g| g.bars.len()).sum();
    n as f64 * (BAR_H + BAR_GAP) + p.groups.len().saturating_sub(1) as f64 * GROUP_GAP
}

fn panel_height(p: &Panel) -> f64 {
    let limit = if p.limit.is_some() { 20.0 } else { 6.0 };
    16.0 + heading_height(&p.heading)
        + limit
        + bars_height(p)
        + 58.0
        + p.footer.len() as f64 * 18.0
        + 10.0
}

/// Horizontal bar charts on a linear axis, one panel under the other, [`WIDTH`] pixels
/// wide.
pub fn bars(panels: &[Panel]) -> Result<String> {
    let width = WIDTH;
    let max_w = width as f64 - 32.0;
    let wrapped: Vec<Panel> = panels
        .iter()
        .map(|p| Panel {
            heading: wrap_heading(&p.heading, max_w),
            footer: wrap_lines(&p.footer, 12.0, max_w),
            ..p.clone()
        })
        .collect();
    let panels = &wrapped;
    let heights: Vec<f64> = panels.iter().map(panel_height).collect();
    let total = heights.iter().sum::<f64>().ceil() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, total)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut top = 0.0;
        for (p, h) in panels.iter().zip(&heights) {
            bar_panel(&root, p, top, width as f64)?;
            top += h;
            if top < total as f64 - 1.0 {
                root.draw(&PathElement::new(
                    vec![(12, top as i32 - 4), (width as i32 - 12, top as i32 - 4)],
                    GRID.stroke_width(1),
                ))
                .map_err(err)?;
            }
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

fn bar_panel(root: &Area, p: &Panel, top: f64, width: f64) -> Result<()> {
    let left_pad = 16.0;
    let used = heading(root, &p.heading, left_pad, top + 14.0)?;
    let titled = p.groups.len() > 1 || p.groups.iter().any(|g| !g.title.is_empty());
    let title_w = if titled {
        p.groups
            .iter()
            .map(|g| text_width(&g.title, LABEL_PX))
            .fold(0.0, f64::max)
            + 14.0
    } else {
        0.0
    };
    let label_w = p
        .groups
        .iter()
        .flat_map(|g| &g.bars)
        .map(|b| text_width(&b.label, LABEL_PX))
        .fold(0.0, f64::max)
        + 12.0;
    let value_w = p
        .groups
        .iter()
        .flat_map(|g| &g.bars)
        .map(|b| text_width(&b.text, LABEL_PX))
        .fold(0.0, f64::max)
        + 14.0;
    let limit_h = if p.limit.is_some() { 20.0 } else { 6.0 };
    let plot_top = top + 14.0 + used + limit_h;
    let bars_h = bars_height(p);
    let x0 = left_pad + title_w + label_w;
    let x1 = width - 16.0 - value_w;
    let data_max = p
        .groups
        .iter()
        .flat_map(|g| &g.bars)
        .map(|b| b.range.map_or(b.value, |r| r.1.max(b.value)))
        .chain(p.limit.as_ref().map(|l| l.0))
        .fold(0.0, f64::max);
    let x_max = p.x_max.unwrap_or(0.0).max(nice_ceiling(data_max));
    let area = root.clone().shrink(
        (x0 as i32, plot_top as i32),
        ((x1 - x0) as i32, (bars_h + 48.0) as i32),
    );
    let mut chart = ChartBuilder::on(&area)
        .x_label_area_size(44)
        .build_cartesian_2d(0f64..x_max, 0f64..bars_h)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .disable_y_axis()
        .x_labels(6)
        .max_light_lines(0)
        .bold_line_style(GRID.stroke_width(1))
        .axis_style(MUTED.stroke_width(1))
        .x_label_style(font(12.0, MUTED))
        .x_label_formatter(&|v| axis_number(*v))
        .x_desc(p.axis.clone())
        .axis_desc_style(font(12.5, INK))
        .draw()
        .map_err(err)?;
    let px = |x: f64, y: f64| chart.backend_coord(&(x, y));
    // Bars from the top down.
    let mut at = 0.0;
    for (gi, g) in p.groups.iter().enumerate() {
        if gi > 0 {
            at += GROUP_GAP;
        }
        let group_top = at;
        for b in &g.bars {
            let (y_hi, y_lo) = (bars_h - at, bars_h - at - BAR_H);
            chart
                .plotting_area()
                .draw(&Rectangle::new(
                    [(0.0, y_lo), (b.value.max(0.0), y_hi)],
                    b.color.filled(),
                ))
                .map_err(err)?;
            let (_, yc) = px(0.0, (y_hi + y_lo) / 2.0);
            let mut end = px(b.value.max(0.0), 0.0).0 as f64;
            if let Some((lo, hi)) = b.range {
                let (l, h) = (px(lo, 0.0).0, px(hi, 0.0).0);
                let y = yc;
                let style = INK.stroke_width(1);
                root.draw(&PathElement::new(vec![(l, y), (h, y)], style))
                    .map_err(err)?;
                for x in [l, h] {
                    root.draw(&PathElement::new(vec![(x, y - 5), (x, y + 5)], style))
                        .map_err(err)?;
                }
                end = end.max(h as f64);
            }
            text(
                root,
                &b.label,
                (x0 - 8.0, yc as f64),
                &anchored(font(LABEL_PX, INK), HPos::Right, VPos::Center),
            )?;
            text(
                root,
                &b.text,
                (end + 6.0, yc as f64),
                &anchored(font(LABEL_PX, INK), HPos::Left, VPos::Center),
            )?;
            at += BAR_H + BAR_GAP;
        }
        if titled {
            let mid = bars_h - (group_top + (at - BAR_GAP - group_top) / 2.0);
            let (_, y) = px(0.0, mid);
            text(
                root,
                &g.title,
                (left_pad, y as f64),
                &anchored(bold(LABEL_PX, INK), HPos::Left, VPos::Center),
            )?;
        }
    }
    if let Some((v, label)) = &p.limit {
        let (x, y_top) = px(*v, bars_h);
        let (_, y_bottom) = px(*v, 0.0);
        root.draw(&DashedPathElement::new(
            vec![(x, y_top - 6), (x, y_bottom)],
            5,
            4,
            ROOF.stroke_width(1),
        ))
        .map_err(err)?;
        let w = text_width(label, 12.0);
        let (anchor, tx) = if x as f64 + w / 2.0 > width - 8.0 {
            (HPos::Right, x as f64)
        } else {
            (HPos::Center, x as f64)
        };
        text(
            root,
            label,
            (tx, y_top as f64 - 9.0),
            &anchored(font(12.0, INK), anchor, VPos::Bottom),
        )?;
    }
    let mut y = plot_top + bars_h + 52.0;
    for line in &p.footer {
        text(
            root,
            line,
            (left_pad, y),
            &anchored(font(12.0, MUTED), HPos::Left, VPos::Top),
        )?;
        y += 18.0;
    }
    Ok(())
}

/// The power of ten at or below `v`.
fn log_floor(v: f64) -> f64 {
    10f64.powf(v.log10().floor())
}

/// A number with one decimal below 100, none above.
pub fn axis_number_1(v: f64) -> String {
    if v >= 100.0 {
        grouped(v, 0)
    } else if v >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_well() {
        assert_eq!(grouped(47388.2, 0), "47\u{2009}388");
        assert_eq!(grouped(950.0, 0), "950");
        assert_eq!(grouped(1234567.891, 1), "1\u{2009}234\u{2009}567.9");
        assert_eq!(axis_number(0.1), "0.1");
        assert_eq!(axis_number(10000.0), "10\u{2009}000");
        assert_eq!(nice_ceiling(66309.8), 80000.0);
        assert_eq!(nice_ceiling(100.0), 100.0);
        assert_eq!(nice_ceiling(101.0), 120.0);
    }

    #[test]
    fn long_lines_wrap_between_parts_then_words() {
        let w = |s: &str| line_width(s, 10.0);
        let lines = wrap(
            "aaaa bbbb · cccc dddd · eeee",
            10.0,
            w("aaaa bbbb · cccc dddd"),
        );
        assert_eq!(lines, vec!["aaaa bbbb · cccc dddd", "eeee"]);
        let lines = wrap("aaaa bbbb cccc", 10.0, w("aaaa bbbb"));
        assert_eq!(lines, vec!["aaaa bbbb", "cccc"]);
        assert_eq!(wrap("", 10.0, 5.0), vec![""]);
    }

    #[test]
    fn labels_are_placed_clear_of_each_other_and_of_lines() {
        let bounds = Rect(0.0, 0.0, 400.0, 300.0);
        let mut o = Obstacles::default();
        o.line((0.0, 150.0), (400.0, 150.0));
        // Three dots on top of each other: three labels, none overlapping.
        let mut placed = Vec::new();
        for _ in 0..3 {
            o.rect(Rect(194.0, 94.0, 206.0, 106.0));
        }
        for _ in 0..3 {
            placed.push(o.place((200.0, 100.0), 60.0, 16.0, &bounds).unwrap());
        }
        for (i, a) in placed.iter().enumerate() {
            assert!(a.inside(&bounds));
            assert!(!(a.1 <= 150.0 && 150.0 <= a.3), "{a:?} crosses the line");
            for b in &placed[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} {b:?}");
            }
        }
        // Nothing fits in a box too small.
        let tiny = Rect(0.0, 0.0, 10.0, 10.0);
        assert!(o.place((5.0, 5.0), 60.0, 16.0, &tiny).is_none());
    }

    #[test]
    fn charts_are_opaque_svg_with_their_text() {
        let svg = bars(&[Panel {
            heading: vec!["Title".into(), "device · driver".into()],
            groups: vec![Group {
                title: String::new(),
                bars: vec![Bar {
                    label: "04 First OpenCL kernel".into(),
                    value: 10.0,
                    range: Some((9.0, 11.0)),
                    text: "10".into(),
                    color: RUNG,
                }],
            }],
            axis: "GFLOP/s".into(),
            limit: Some((20.0, "peak 20".into())),
            x_max: None,
            footer: vec!["results/x.csv".into()],
        }])
        .unwrap();
        assert!(svg.contains("<svg"));
        assert!(svg.contains("fill=\"#FFFFFF\""), "{svg}");
        assert!(svg.contains("04 First OpenCL kernel"));
        assert!(svg.contains("results/x.csv"));
        let svg = roofline(&Roofline {
            heading: vec!["Roofline".into()],
            peak_gflops: 1000.0,
            roof: "FP32 peak".into(),
            bandwidth_gbs: 100.0,
            l2_gbs: Some(400.0),
            l1_gbs: Some(1600.0),
            dots: vec![
                Dot {
                    label: "04".into(),
                    name: "04 naive".into(),
                    x: 0.25,
                    y: 20.0,
                    hollow: false,
                    color: PALETTE[0],
                    requested: Some(0.25),
                },
                Dot {
                    label: "06".into(),
                    name: "06 register tiles".into(),
                    x: 32.0,
                    y: 500.0,
                    hollow: true,
                    color: PALETTE[1],
                    requested: Some(16.0),
                },
            ],
            levels: vec![Level {
                label: "peer 800".into(),
                y: 800.0,
            }],
            footer: vec!["x: requested".into()],
        })
        .unwrap();
        assert!(svg.contains("ridge 10.0 FLOP/byte"), "{svg}");
        assert!(svg.contains("FP32 peak 1\u{2009}000 GFLOP/s"));
        // The L2 roof is named where it is measured.
        // The caches' roofs are named on the chart; their rates are the footer's.
        assert!(svg.contains(">\nL2\n<"), "{svg}");
        assert!(svg.contains(">\nL1\n<"), "{svg}");
    }
}
