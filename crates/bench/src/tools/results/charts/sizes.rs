//! Speed against size: one line per rung and peer of a results file, as Nugteren's myGEMM
//! tutorial draws them, so that a rung's fall or rise with the size shows beside the
//! libraries'.

use super::*;

/// One line: a rung or a peer, its GFLOP/s at each square size it was measured at.
pub struct Series {
    pub name: String,
    pub points: Vec<(usize, f64)>,
    pub peer: bool,
}

/// A log-log chart of GFLOP/s against the size, a line and a labelled end per series.
pub fn chart(heading_lines: &[String], series: &[Series]) -> Result<String> {
    let width = WIDTH;
    let left = 16.0;
    let max_w = width as f64 - 2.0 * left;
    let heading_lines = wrap_heading(heading_lines, max_w);
    let head_h = heading_height(&heading_lines);
    let plot_h = 420.0;
    let col_w = (max_w / 2.0).floor();
    let legend_rows = series.len().div_ceil(2);
    let legend_h = legend_rows as f64 * 19.0;
    let height = (14.0 + head_h + 8.0 + plot_h + 10.0 + legend_h + 12.0).ceil() as u32;
    let xs = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0 as f64));
    let x_lo = xs.clone().fold(f64::INFINITY, f64::min) / 1.3;
    let x_hi = xs.fold(0.0, f64::max) * 1.3;
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let y_lo = log_floor(ys.clone().fold(f64::INFINITY, f64::min)) * 0.999;
    let y_hi = ys.fold(0.0, f64::max) * 2.0;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let used = heading(&root, &heading_lines, left, 14.0)?;
        let plot_top = 14.0 + used + 8.0;
        let area = root
            .clone()
            .shrink((4, plot_top as i32), (width as i32 - 20, plot_h as i32));
        let decades = (y_hi / y_lo).log10().floor() as usize + 1;
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d((x_lo..x_hi).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(err)?;
        let sizes: Vec<f64> = {
            let mut v: Vec<usize> = series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0))
                .collect();
            v.sort_unstable();
            v.dedup();
            // 1023 beside 1024: one label, the larger.
            let mut kept: Vec<f64> = Vec::new();
            for x in v.into_iter().rev().map(|x| x as f64) {
                if kept.last().is_none_or(|k| k / x > 1.02) {
                    kept.push(x);
                }
            }
            kept.reverse();
            kept
        };
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(2)
            .x_label_formatter(&|_| String::new())
            .y_labels(decades)
            .bold_line_style(GRID.stroke_width(1))
            .light_line_style(FAINT.stroke_width(1))
            .axis_style(MUTED.stroke_width(1))
            .label_style(font(12.0, MUTED))
            .y_label_formatter(&|v| axis_number(*v))
            .x_desc("size of the product (M = N = K)")
            .y_desc("GFLOP/s (median device time)")
            .axis_desc_style(font(12.5, INK))
            .draw()
            .map_err(err)?;
        // The measured sizes, labelled under the axis, each with a faint vertical line.
        for &x in &sizes {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, y_lo), (x, y_hi)],
                    GRID.stroke_width(1),
                )))
                .map_err(err)?;
            let (px, py) = chart.backend_coord(&(x, y_lo));
            text(
                &root,
                &format!("{}³", x as usize),
                (px as f64, py as f64 + 8.0),
                &anchored(font(12.0, MUTED), HPos::Center, VPos::Top),
            )?;
        }
        for (i, s) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let pts: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (x as f64, y)).collect();
            if s.peer {
                chart
                    .draw_series(std::iter::once(DashedPathElement::new(
                        pts.clone(),
                        5,
                        3,
                        color.stroke_width(2),
                    )))
                    .map_err(err)?;
            } else {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        pts.clone(),
                        color.stroke_width(2),
                    )))
                    .map_err(err)?;
            }
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
                .map_err(err)?;
        }
        // The legend: two columns of a short line in the series' colour and its name.
        let legend_top = plot_top + plot_h + 10.0;
        for (i, s) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let x = left + (i % 2) as f64 * col_w;
            let y = legend_top + (i / 2) as f64 * 19.0 + 8.0;
            root.draw(&PathElement::new(
                vec![(x as i32, y as i32), ((x + 22.0) as i32, y as i32)],
                color.stroke_width(if s.peer { 1 } else { 3 }),
            ))
            .map_err(err)?;
            text(
                &root,
                &format!(
                    "{}{}",
                    s.name,
                    if s.peer { " (dashed: a peer)" } else { "" }
                ),
                (x + 30.0, y),
                &anchored(font(12.5, INK), HPos::Left, VPos::Center),
            )?;
        }
    }
    Ok(svg)
}
