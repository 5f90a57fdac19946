//! Slope and projection: each series now and after one more day at the observed checkpoint
//! interval, side by side, on a log scale so snapshots and megabytes share one picture.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::projection::Projection;

use super::look::{fit, text_width};
use super::{palette, Dress};

pub fn draw_projection<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, projection: Option<&Projection>, dress: &Dress<'_>) -> super::Drawn {
    super::drawn(draw(root, projection, dress))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    projection: Option<&Projection>,
    dress: &Dress<'_>,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let look = &dress.look;
    let caption = match projection {
        Some(p) => crate::report::chart::projection_caption(&dress.stamp.table, p.interval_ms),
        None => dress.stamp.table.clone(),
    };
    let main = super::frame(root, dress, &caption, &[])?;
    let Some(p) = projection else {
        let (w, _) = main.dim_in_pixel();
        let text = crate::report::chart::NO_PROJECTION;
        let width = f64::from(w) - look.px(40.0);
        let text = if text_width(text, look.px(15.0)) <= width { text.to_string() } else { fit(text, look.px(15.0), width) };
        main.draw(&Text::new(text, (look.len(20.0) as i32, look.len(30.0) as i32), look.font(15.0, look.faint())))?;
        root.present()?;
        return Ok(0);
    };
    // Every number and label comes worded from the report, as the sentence says them.
    let rows = crate::report::projection::rows(p);
    let top = rows.iter().map(|r| r.after.max(r.now).max(r.swing.map_or(0.0, |w| w.1)).max(r.up_to.unwrap_or(0.0))).fold(10.0, f64::max) * 3.0;
    let n = rows.len();
    let mut chart = ChartBuilder::on(&main)
        .margin(look.len(12.0))
        .margin_right(look.len(24.0))
        .x_label_area_size(look.len(44.0))
        .y_label_area_size(look.len(124.0))
        .build_cartesian_2d((1.0..top).log_scale(), -0.5..(n as f64 - 0.5))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(look.background())
        .bold_line_style(look.bold_grid())
        .axis_style(look.faint())
        .y_labels(n)
        .y_label_formatter(&|y| {
            let i = y.round() as usize;
            if (y - y.round()).abs() < 1e-6 && i < n {
                rows[n - 1 - i].label.to_string()
            } else {
                String::new()
            }
        })
        .x_desc("log scale")
        .x_label_formatter(&|x| super::growth::format_count(*x))
        .label_style(look.font(12.0, look.ink()))
        .axis_desc_style(look.font(13.0, look.ink()))
        .draw()?;
    let font = look.font(12.0, look.ink()).pos(Pos::new(HPos::Left, VPos::Center));
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let plot_x0 = chart.plotting_area().get_base_pixel().0;
    for (k, row) in rows.iter().enumerate() {
        let y = (n - 1 - k) as f64;
        let (a, b) = (row.now, row.after);
        chart.draw_series(std::iter::once(Rectangle::new([(1.0, y + 0.04), (a.max(1.0), y + 0.34)], look.series(palette::MANIFESTS).filled())))?;
        let day = look.series(palette::POSITION_DELETES);
        // Where merging makes the count swing, the day's bar spans the fewest to the most (fainter
        // up to the bracket's most), and a mark stands at the day's end.
        let (from, to) = row.swing.map_or((1.0, b.max(1.0)), |(lo, hi)| (lo.max(1.0), hi.max(1.0)));
        chart.draw_series(std::iter::once(Rectangle::new([(from, y - 0.34), (to, y - 0.04)], day.mix(0.8).filled())))?;
        if let Some(up) = row.up_to.filter(|&u| u > to) {
            chart.draw_series(std::iter::once(Rectangle::new([(to, y - 0.34), (up, y - 0.04)], day.mix(0.35).filled())))?;
        }
        if row.swing.is_some() {
            chart
                .draw_series(std::iter::once(PathElement::new(vec![(b.max(1.0), y - 0.40), (b.max(1.0), y + 0.02)], look.ink().stroke_width(look.len(2.0)))))?;
        }
        let label_end = row.up_to.unwrap_or(to).max(to);
        for (text, v, at) in [(row.now_text.clone(), a, y + 0.19), (row.after_text.clone(), label_end, y - 0.19)] {
            // After the bar's end where it fits, else inside the bar, ending at its end.
            let (end, _) = chart.backend_coord(&(v.max(1.0) * 1.08, at));
            let fits = f64::from(end - plot_x0) + text_width(&text, look.px(12.0)) <= plot_w;
            let placed = if fits {
                Text::new(text, (v.max(1.0) * 1.08, at), font.clone())
            } else {
                Text::new(text, (v.max(1.0) / 1.05, at), look.font(12.0, look.background()).pos(Pos::new(HPos::Right, VPos::Center)))
            };
            chart.draw_series(std::iter::once(placed))?;
        }
    }
    root.present()?;
    Ok(n)
}
