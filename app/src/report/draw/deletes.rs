//! Delete debt: live delete files per snapshot in commit order, and the files a full scan opens,
//! with the Flink jobs' lanes under it as on the growth chart.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::analysis::jobs::JobSpan;
use crate::analysis::GrowthSeries;
use crate::model::Totals;

use super::coincide::{self, Drawn};
use super::growth::{commit_x, format_count, is_counted, runs_of_known, x_range};
use super::lanes::{self, Frame};
use super::legend::{Item, Swatch};
use super::look::Look;
use super::{palette, Dress};

/// The top line: the same count as the delete-debt finding's "a full scan opens".
pub const SCAN_LINE: &str = "files a full scan opens (data, delete and Puffin files)";

type Count = fn(&Totals) -> Option<u64>;

const LINES: [(&str, RGBColor, Count); 4] = [
    (SCAN_LINE, palette::INK, |c| c.scan_files().map(|s| s.files)),
    ("position-delete files", palette::POSITION_DELETES, |c| c.position_delete_files),
    ("equality-delete files", palette::EQUALITY_DELETES, |c| c.equality_delete_files),
    ("deletion vectors", palette::DELETION_VECTORS, |c| c.deletion_vectors),
];

fn colour(c: RGBColor, look: &Look) -> RGBColor {
    if c == palette::INK {
        look.ink()
    } else {
        look.series(c)
    }
}

/// Every line is drawn (a zero line says there are none); those lying on another are drawn inside it.
fn drawn_lines(series: &GrowthSeries) -> Vec<Drawn> {
    let values: Vec<Vec<Option<u64>>> = LINES.iter().map(|l| series.points.iter().map(|p| (l.2)(&p.totals())).collect()).collect();
    coincide::drawn(&values, |_| true)
}

pub fn legend_items(series: &GrowthSeries, look: &Look) -> Vec<Item> {
    drawn_lines(series)
        .into_iter()
        .filter_map(|d| {
            let (name, c, _) = LINES.get(d.k)?;
            Some(match d.same.and_then(|(j, n, of)| LINES.get(j).map(|l| (l, n, of))) {
                Some(((other, oc, _), n, of)) => {
                    Item::new(crate::report::chart::coinciding(name, other, n, of), Swatch::Pair(colour(*oc, look), colour(*c, look)))
                }
                None => Item::new(*name, Swatch::Line(colour(*c, look))),
            })
        })
        .collect()
}

pub fn plot_height(jobs: &[JobSpan], width: u32, look: &Look) -> u32 {
    (f64::from(width) * 0.34).clamp(look.px(240.0), 400.0) as u32 + look.len(60.0) + lanes::height(jobs, look)
}

pub fn draw_deletes<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, series: &GrowthSeries, jobs: &[JobSpan], dress: &Dress<'_>) -> super::Drawn {
    super::drawn(draw(root, series, jobs, dress))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    series: &GrowthSeries,
    jobs: &[JobSpan],
    dress: &Dress<'_>,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let look = &dress.look;
    let frame = super::frame(root, dress, &crate::report::chart::deletes_caption(&dress.stamp.table), &legend_items(series, look))?;
    let (_, h) = frame.dim_in_pixel();
    let lanes_h = lanes::height(jobs, look);
    let (main, lane_area) = frame.split_vertically(h.saturating_sub(lanes_h));
    let xs = commit_x(series);
    let (x_min, x_max) = x_range(&xs);
    let pts = || xs.iter().copied().zip(series.points.iter().map(|p| p.totals()));
    let y_max = pts().filter_map(|(_, c)| c.scan_files().map(|s| s.files)).max().unwrap_or(1).max(1) as f64 * 1.1;
    let lay = Frame { x: (x_min, x_max), margin: look.len(12.0), left: look.len(62.0), right: look.len(16.0) };
    let mut chart = ChartBuilder::on(&main)
        .margin(lay.margin)
        .margin_right(lay.margin + lay.right)
        .x_label_area_size(look.len(48.0))
        .y_label_area_size(lay.left)
        .build_cartesian_2d(x_min..x_max, 0.0..y_max)?;
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let n = xs.len().max(1);
    chart
        .configure_mesh()
        .light_line_style(look.background())
        .bold_line_style(look.bold_grid())
        .axis_style(look.faint())
        .x_labels(((plot_w / look.px(56.0)) as usize).clamp(2, n.max(2)))
        .y_labels(((f64::from(main.dim_in_pixel().1) / look.px(40.0)) as usize).clamp(3, 10))
        .x_desc("snapshot, in commit order")
        .y_desc("live files")
        .x_label_formatter(&|x| super::whole(*x).filter(|&i| i >= 1 && i as usize <= n).map(|i| format!("#{i}")).unwrap_or_default())
        .y_label_formatter(&|y| format_count(*y))
        .label_style(look.font(12.0, look.ink()))
        .axis_desc_style(look.font(13.0, look.ink()))
        .draw()?;
    let few = xs.len() <= 400;
    let mut order = drawn_lines(series);
    order.sort_by_key(|d| std::cmp::Reverse(d.width));
    for d in order {
        let Some(&(_, c, f)) = LINES.get(d.k) else { continue };
        let c = colour(c, look);
        for run in runs_of_known(series, &xs, f) {
            chart.draw_series(LineSeries::new(run, c.stroke_width(d.width)))?;
        }
        let dots = pts().filter(|(_, t)| few || is_counted(t)).filter_map(|(x, t)| f(&t).map(|v| (x, v as f64)));
        chart.draw_series(dots.map(|p| Circle::new(p, 1 + d.width / 2, c.filled())))?;
    }
    lanes::draw(&lane_area, series, jobs, lay, look)?;
    root.present()?;
    Ok(xs.len())
}
