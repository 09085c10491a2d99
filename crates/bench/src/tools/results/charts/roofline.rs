//! The roofline chart: the roofs, the ridge, every rung as a dot, the peers as levels.

use super::*;

// ---------------------------------------------------------------------------------------
// The roofline

/// A rung on the roofline.
pub struct Dot {
    /// Written beside the dot: `04`.
    pub label: String,
    /// Written in the legend: `04 First OpenCL kernel (a)`.
    pub name: String,
    /// FLOP per byte.
    pub x: f64,
    /// GFLOP/s.
    pub y: f64,
    /// Drawn hollow: its position rests on assumed defines.
    pub hollow: bool,
    pub color: RGBColor,
    /// The FLOP per byte the kernel requests from global memory, where an L2 roof is drawn:
    /// a small square at the same rate, joined to the dot.
    pub requested: Option<f64>,
}

/// A peer's speed, drawn as a horizontal line (its tiling is not known).
pub struct Level {
    pub label: String,
    pub y: f64,
}

pub struct Roofline {
    pub heading: Vec<String>,
    pub peak_gflops: f64,
    /// What the flat roof is, before its rate: "FP32 peak", or the matrix unit's.
    pub roof: String,
    pub bandwidth_gbs: f64,
    /// The L2 cache's measured read bandwidth, GB/s: a dashed roof against the requested
    /// intensity, where it was measured.
    pub l2_gbs: Option<f64>,
    /// The L1 caches' measured read bandwidth, GB/s: a dotted roof against the requested
    /// intensity, where it was measured.
    pub l1_gbs: Option<f64>,
    pub dots: Vec<Dot>,
    pub levels: Vec<Level>,
    pub footer: Vec<String>,
}

/// A rectangle in pixels: left, top, right, bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect(pub f64, pub f64, pub f64, pub f64);

impl Rect {
    pub(super) fn overlaps(&self, o: &Rect) -> bool {
        self.0 < o.2 && o.0 < self.2 && self.1 < o.3 && o.1 < self.3
    }

    fn contains(&self, (x, y): (f64, f64)) -> bool {
        self.0 <= x && x <= self.2 && self.1 <= y && y <= self.3
    }

    pub(super) fn inside(&self, o: &Rect) -> bool {
        self.0 >= o.0 && self.2 <= o.2 && self.1 >= o.1 && self.3 <= o.3
    }

    fn grow(&self, d: f64) -> Rect {
        Rect(self.0 - d, self.1 - d, self.2 + d, self.3 + d)
    }

    /// The point of the rectangle nearest to `p`.
    fn nearest(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (x.clamp(self.0, self.2), y.clamp(self.1, self.3))
    }
}

/// What labels must not cover: other labels, marks, and lines (as points along them).
#[derive(Default)]
pub struct Obstacles {
    rects: Vec<Rect>,
    points: Vec<(f64, f64)>,
}

impl Obstacles {
    pub fn rect(&mut self, r: Rect) {
        self.rects.push(r);
    }

    /// A line, as points every 2 pixels.
    pub fn line(&mut self, a: (f64, f64), b: (f64, f64)) {
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let steps = (len / 2.0).ceil().max(1.0) as usize;
        for i in 0..=steps {
            let t = i as f64 / steps as f64;
            self.points
                .push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
        }
    }

    fn free(&self, r: &Rect) -> bool {
        let g = r.grow(2.0);
        !self.rects.iter().any(|o| o.overlaps(&g)) && !self.points.iter().any(|p| g.contains(*p))
    }

    /// A place for a `w`×`h` label near `at`, inside `bounds`, clear of every obstacle: the
    /// nearest of the candidates around the point, ring by ring. Returns the rectangle
    /// (and records it as an obstacle), or `None` when nothing is free.
    pub fn place(&mut self, at: (f64, f64), w: f64, h: f64, bounds: &Rect) -> Option<Rect> {
        let (x, y) = at;
        for d in [
            7.0, 12.0, 18.0, 26.0, 36.0, 48.0, 62.0, 80.0, 100.0, 125.0, 155.0,
        ] {
            let e = d * 0.7;
            let candidates = [
                Rect(x + d, y - h / 2.0, x + d + w, y + h / 2.0),
                Rect(x - d - w, y - h / 2.0, x - d, y + h / 2.0),
                Rect(x + e, y - e - h, x + e + w, y - e),
                Rect(x + e, y + e, x + e + w, y + e + h),
                Rect(x - w / 2.0, y - d - h, x + w / 2.0, y - d),
                Rect(x - w / 2.0, y + d, x + w / 2.0, y + d + h),
                Rect(x - e - w, y - e - h, x - e, y - e),
                Rect(x - e - w, y + e, x - e, y + e + h),
            ];
            if let Some(r) = candidates.iter().find(|r| r.inside(bounds) && self.free(r)) {
                self.rects.push(*r);
                return Some(*r);
            }
        }
        None
    }
}

/// A log-log roofline: the bandwidth roof, the FP32 roof, the ridge, every dot labelled
/// with its short label and named in the legend under the plot.
pub fn roofline(r: &Roofline) -> Result<String> {
    let width = WIDTH;
    let left = 16.0;
    let max_w = width as f64 - 2.0 * left;
    let heading_lines = wrap_heading(&r.heading, max_w);
    let footer = wrap_lines(&r.footer, 12.0, max_w);
    let head_h = heading_height(&heading_lines);
    let plot_h = 450.0;
    // The legend: two columns of marker and name.
    let col_w = (max_w / 2.0).floor();
    let legend: Vec<String> = r.dots.iter().map(|d| d.name.clone()).collect();
    let legend_rows = legend.len().div_ceil(2);
    let legend_h = legend_rows as f64 * 19.0;
    let footer_h = footer.len() as f64 * 18.0;
    let height =
        (14.0 + head_h + 8.0 + plot_h + 10.0 + legend_h + 8.0 + footer_h + 10.0).ceil() as u32;
    let ridge = r.peak_gflops / r.bandwidth_gbs;
    let xs = r
        .dots
        .iter()
        .flat_map(|d| [Some(d.x), d.requested])
        .flatten()
        .chain([ridge])
        .chain(
            [r.l2_gbs, r.l1_gbs]
                .into_iter()
                .flatten()
                .filter(|g| *g > 0.0)
                .map(|g| r.peak_gflops / g),
        );
    // Just below a decade, so that the decade itself is labelled.
    let x_lo = log_floor(xs.clone().fold(f64::INFINITY, f64::min) / 2.0) * 0.999;
    let x_hi = xs.fold(0.0, f64::max) * 5.0;
    let ys = r
        .dots
        .iter()
        .map(|d| d.y)
        .chain(r.levels.iter().map(|l| l.y))
        .chain([r.peak_gflops]);
    let y_lo = log_floor(ys.fold(f64::INFINITY, f64::min) / 2.0) * 0.999;
    let y_hi = r.peak_gflops * 2.5;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let used = heading(&root, &heading_lines, left, 14.0)?;
        let plot_top = 14.0 + used + 8.0;
        let area = root
            .clone()
            .shrink((4, plot_top as i32), (width as i32 - 20, plot_h as i32));
        let decades = |lo: f64, hi: f64| (hi / lo).log10().floor() as usize + 1;
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_labels(decades(x_lo, x_hi))
            .y_labels(decades(y_lo, y_hi))
            .bold_line_style(GRID.stroke_width(1))
            .light_line_style(FAINT.stroke_width(1))
            .axis_style(MUTED.stroke_width(1))
            .label_style(font(12.0, MUTED))
            .x_label_formatter(&|v| axis_number(*v))
            .y_label_formatter(&|v| axis_number(*v))
            .x_desc("DRAM intensity, counted from the blocking: FLOP per byte (see below)")
            .y_desc("GFLOP/s (median device time)")
            .axis_desc_style(font(12.5, INK))
            .draw()
            .map_err(err)?;
        let to_px = |x: f64, y: f64| {
            let (a, b) = chart.backend_coord(&(x, y));
            (a as f64, b as f64)
        };
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        let bounds = Rect(
            xr.start as f64 + 2.0,
            yr.start as f64 + 2.0,
            xr.end as f64 - 2.0,
            yr.end as f64 - 2.0,
        );
        let mut obstacles = Obstacles::default();
        // The roofs, clipped to the plot: memory from where it enters to the ridge, then flat.
        let x_enter = (y_lo / r.bandwidth_gbs).max(x_lo);
        let roof = [
            (x_enter, r.bandwidth_gbs * x_enter),
            (ridge, r.peak_gflops),
            (x_hi, r.peak_gflops),
        ];
        chart
            .plotting_area()
            .draw(&PathElement::new(roof.to_vec(), ROOF.stroke_width(2)))
            .map_err(err)?;
        for w in roof.windows(2) {
            obstacles.line(to_px(w[0].0, w[0].1), to_px(w[1].0, w[1].1));
        }
        // The caches' roofs, dashed (L2) and dotted (L1), up to where each meets the flat
        // roof; the requests under them.
        // The requests' squares and their links are obstacles before any label is placed.
        let squares = r.l2_gbs.or(r.l1_gbs).is_some();
        if squares {
            for d in &r.dots {
                let Some(q) = d.requested else { continue };
                let (dx, dy) = to_px(d.x, d.y);
                let (qx, qy) = to_px(q, d.y);
                obstacles.line((qx, qy), (dx, dy));
                obstacles.rect(Rect(qx - 4.0, qy - 4.0, qx + 4.0, qy + 4.0));
            }
        }
        let caches: Vec<(&str, f64, u32, f64, f64)> = [("L2", r.l2_gbs, 8), ("L1", r.l1_gbs, 3)]
            .into_iter()
            .filter_map(|(name, gbs, dash)| {
                let bw = gbs.filter(|g| *g > 0.0)?;
                Some((
                    name,
                    bw,
                    dash,
                    (y_lo / bw).max(x_lo),
                    (r.peak_gflops / bw).min(x_hi),
                ))
            })
            .collect();
        // Both lines first, so that neither label is placed across the other line.
        for &(_, bw, dash, x_in, x_top) in &caches {
            let (a, b) = (to_px(x_in, bw * x_in), to_px(x_top, bw * x_top));
            root.draw(&DashedPathElement::new(
                vec![(a.0 as i32, a.1 as i32), (b.0 as i32, b.1 as i32)],
                dash,
                4,
                ROOF.stroke_width(2),
            ))
            .map_err(err)?;
            obstacles.line(a, b);
        }
        for &(name, bw, _, x_in, x_top) in &caches {
            // The name alone fits between the lines; the footer gives the rates.
            let label = name.to_string();
            let w = text_width(&label, 12.5);
            // Above the line or below it, at one of a few points along it; else anywhere
            // free near its middle.
            // The side away from the other cache's line first: L1's (the left one) above
            // it, L2's below it.
            let spot_at = |t: f64, above: bool| {
                let x = (x_in.ln() + t * (x_top.ln() - x_in.ln())).exp();
                let (mx, my) = to_px(x, bw * x);
                if above {
                    Rect(mx - 6.0 - w, my - 24.0, mx - 6.0, my - 6.0)
                } else {
                    Rect(mx + 6.0, my + 6.0, mx + 6.0 + w, my + 24.0)
                }
            };
            let first = name == "L1";
            let mut spots = [first, !first]
                .into_iter()
                .flat_map(|above| (1..20).map(move |i| spot_at(f64::from(i) / 20.0, above)));
            let mid = {
                let x = (x_in * x_top).sqrt();
                to_px(x, bw * x)
            };
            let spot = spots
                .find(|r| r.inside(&bounds) && obstacles.free(r))
                .or_else(|| obstacles.place(mid, w, 18.0, &bounds));
            if let Some(rect) = spot {
                obstacles.rect(rect);
                text(
                    &root,
                    &label,
                    (rect.0, (rect.1 + rect.3) / 2.0),
                    &anchored(font(12.5, INK), HPos::Left, VPos::Center),
                )?;
            }
        }
        if squares {
            for d in &r.dots {
                let Some(q) = d.requested else { continue };
                let (dx, dy) = to_px(d.x, d.y);
                let (qx, qy) = to_px(q, d.y);
                root.draw(&PathElement::new(
                    vec![(qx as i32, qy as i32), (dx as i32, dy as i32)],
                    d.color.stroke_width(1),
                ))
                .map_err(err)?;
                let c = (qx as i32, qy as i32);
                root.draw(&Rectangle::new(
                    [(c.0 - 3, c.1 - 3), (c.0 + 3, c.1 + 3)],
                    d.color.filled(),
                ))
                .map_err(err)?;
            }
        }
        // The ridge.
        let (rx, ry) = to_px(ridge, r.peak_gflops);
        root.draw(&DashedPathElement::new(
            vec![(rx as i32, ry as i32), (rx as i32, yr.end)],
            4,
            4,
            MUTED.stroke_width(1),
        ))
        .map_err(err)?;
        obstacles.line((rx, ry), (rx, yr.end as f64));
        // The peers' levels.
        for l in &r.levels {
            let (a, y) = to_px(x_lo, l.y);
            let (b, _) = to_px(x_hi, l.y);
            root.draw(&DashedPathElement::new(
                vec![(a as i32, y as i32), (b as i32, y as i32)],
                7,
                4,
                PEER.stroke_width(1),
            ))
            .map_err(err)?;
            obstacles.line((a, y), (b, y));
        }
        // The dots, before any label, so that no label covers one.
        for d in &r.dots {
            let (x, y) = to_px(d.x, d.y);
            obstacles.rect(Rect(x - 6.0, y - 6.0, x + 6.0, y + 6.0));
        }
        // Fixed labels: the peak over the flat roof, the bandwidth above the slope, the
        // ridge at the foot of its line, the peers at the left of theirs.
        let px = 12.5;
        let h = px + 5.0;
        let mut fixed: Vec<(String, Rect)> = Vec::new();
        let peak = format!("{} {} GFLOP/s", r.roof, rate(r.peak_gflops));
        let w = text_width(&peak, px);
        let (_, py) = to_px(x_hi, r.peak_gflops);
        let rect = Rect(bounds.2 - w - 4.0, py - h - 4.0, bounds.2 - 4.0, py - 4.0);
        fixed.push((peak, rect));
        obstacles.rect(rect);
        for l in &r.levels {
            let w = text_width(&l.label, px);
            let (_, y) = to_px(x_lo, l.y);
            let above = Rect(bounds.0 + 4.0, y - h - 2.0, bounds.0 + 4.0 + w, y - 2.0);
            let below = Rect(bounds.0 + 4.0, y + 2.0, bounds.0 + 4.0 + w, y + h + 2.0);
            let rect = [above, below]
                .into_iter()
                .find(|r| r.inside(&bounds) && obstacles.free(r))
                .or_else(|| obstacles.place((bounds.0 + w / 2.0, y), w, h, &bounds));
            if let Some(rect) = rect {
                obstacles.rect(rect);
                fixed.push((l.label.clone(), rect));
            }
        }
        let ridge_label = format!("ridge {} FLOP/byte", axis_number_1(ridge));
        let w = text_width(&ridge_label, px);
        let right = Rect(rx + 5.0, bounds.3 - h - 2.0, rx + 5.0 + w, bounds.3 - 2.0);
        let left_of = Rect(rx - 5.0 - w, bounds.3 - h - 2.0, rx - 5.0, bounds.3 - 2.0);
        if let Some(rect) = [right, left_of]
            .into_iter()
            .find(|r| r.inside(&bounds) && obstacles.free(r))
            .or_else(|| obstacles.place((rx, bounds.3 - h), w, h, &bounds))
        {
            obstacles.rect(rect);
            fixed.push((ridge_label, rect));
        }
        // The dots' labels, placed one by one where they cover nothing, left to right.
        let mut order: Vec<usize> = (0..r.dots.len()).collect();
        order.sort_by(|&a, &b| r.dots[a].x.total_cmp(&r.dots[b].x));
        let mut labels = Vec::new();
        for &i in &order {
            let d = &r.dots[i];
            let at = to_px(d.x, d.y);
            let w = text_width(&d.label, px);
            let rect = obstacles
                .place(at, w, h, &bounds)
                .ok_or_else(|| anyhow!("no room for the label {:?} on the roofline", d.label))?;
            labels.push((at, rect, d.label.clone()));
        }
        // The bandwidth's label last: above the slanted roof, where the dots left room.
        let bw = format!("bandwidth {} GB/s", rate(r.bandwidth_gbs));
        let w = text_width(&bw, px);
        for t in [0.5, 0.35, 0.65, 0.2, 0.8] {
            let x = (x_enter.ln() + t * (ridge.ln() - x_enter.ln())).exp();
            let (mx, my) = to_px(x, r.bandwidth_gbs * x);
            let rect = Rect(mx - 6.0 - w, my - 6.0 - h, mx - 6.0, my - 6.0);
            if rect.inside(&bounds) && obstacles.free(&rect) {
                obstacles.rect(rect);
                fixed.push((bw, rect));
                break;
            }
        }
        for (s, rect) in &fixed {
            text(
                &root,
                s,
                (rect.0, (rect.1 + rect.3) / 2.0),
                &anchored(font(px, INK), HPos::Left, VPos::Center),
            )?;
        }
        for (at, rect, s) in &labels {
            let near = rect.nearest(*at);
            if ((near.0 - at.0).powi(2) + (near.1 - at.1).powi(2)).sqrt() > 10.0 {
                root.draw(&PathElement::new(
                    vec![(at.0 as i32, at.1 as i32), (near.0 as i32, near.1 as i32)],
                    MUTED.stroke_width(1),
                ))
                .map_err(err)?;
            }
            text(
                &root,
                s,
                (rect.0, (rect.1 + rect.3) / 2.0),
                &anchored(font(px, INK), HPos::Left, VPos::Center),
            )?;
        }
        let marker = |c: (i32, i32), d: &Dot| -> Result<()> {
            if d.hollow {
                root.draw(&Circle::new(c, 5, WHITE.filled())).map_err(err)?;
                root.draw(&Circle::new(c, 5, d.color.stroke_width(2)))
                    .map_err(err)
            } else {
                root.draw(&Circle::new(c, 5, d.color.filled())).map_err(err)
            }
        };
        for d in &r.dots {
            let (x, y) = to_px(d.x, d.y);
            marker((x as i32, y as i32), d)?;
        }
        // The legend, under the axis.
        let legend_top = plot_top + plot_h + 10.0;
        for (i, d) in r.dots.iter().enumerate() {
            let (row, col) = (i / 2, i % 2);
            let x = left + col as f64 * col_w;
            let y = legend_top + row as f64 * 19.0 + 8.0;
            marker((x as i32 + 6, y as i32), d)?;
            text(
                &root,
                &d.name,
                (x + 18.0, y),
                &anchored(font(12.5, INK), HPos::Left, VPos::Center),
            )?;
        }
        let mut y = legend_top + legend_h + 8.0;
        for line in &footer {
            text(
                &root,
                line,
                (left, y),
                &anchored(font(12.0, MUTED), HPos::Left, VPos::Top),
            )?;
            y += 18.0;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}
