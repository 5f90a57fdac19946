//! Delete debt: live delete files per snapshot against checkpoints, and the files a full scan opens.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::analysis::{GrowthSeries, XAxis};
use crate::model::Totals;

use super::palette;
use super::Stamp;

/// The top line: the same count as the delete-debt finding's "a full scan opens".
pub const SCAN_LINE: &str = "files a full scan opens (data, delete and Puffin files)";

pub fn draw_deletes<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, series: &GrowthSeries, stamp: &Stamp) -> super::Drawn {
    super::drawn(draw(root, series, stamp))
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, series: &GrowthSeries, stamp: &Stamp) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let main = super::frame(root, stamp)?;
    let xs = series.x_values();
    // Unpacked one point at a time: a day of commits is 17,280 of them.
    let pts = || xs.iter().copied().zip(series.points.iter().map(|p| p.totals()));
    let x_min = xs.iter().copied().fold(f64::INFINITY, f64::min) - 0.5;
    let x_max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max) + 0.5;
    let (x_min, x_max) = if xs.is_empty() { (0.0, 1.0) } else { (x_min, x_max) };
    let opened = |c: &Totals| c.scan_files().map(|s| s.files);
    let y_max = pts().filter_map(|(_, c)| opened(&c)).max().unwrap_or(1).max(1) as f64 * 1.1;
    let mut chart = ChartBuilder::on(&main)
        .caption(format!("{} — delete files and files a full scan opens", stamp.table), ("sans-serif", 20).into_font().color(&palette::INK))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(x_min..x_max, 0.0..y_max)?;
    chart
        .configure_mesh()
        .light_line_style(RGBColor(238, 240, 243))
        .x_desc(match series.axis {
            XAxis::CheckpointId => "Flink checkpoint id",
            XAxis::CommitOrder => "snapshot, in commit order",
        })
        .y_desc("live files")
        .x_label_formatter(&|x| if (x - x.round()).abs() < 1e-9 { format!("{}", x.round() as i64) } else { String::new() })
        .y_label_formatter(&|y| super::growth::format_count(*y))
        .label_style(("sans-serif", 13).into_font().color(&palette::INK))
        .axis_desc_style(("sans-serif", 14).into_font().color(&palette::INK))
        .draw()?;
    type Count = fn(&Totals) -> Option<u64>;
    let lines: [(&str, RGBColor, Count); 4] = [
        (SCAN_LINE, palette::INK, |c| c.scan_files().map(|s| s.files)),
        ("position-delete files", palette::POSITION_DELETES, |c| c.position_delete_files),
        ("equality-delete files", palette::EQUALITY_DELETES, |c| c.equality_delete_files),
        ("deletion vectors", palette::DELETION_VECTORS, |c| c.deletion_vectors),
    ];
    let few = xs.len() <= 400;
    for (name, colour, f) in lines {
        chart
            .draw_series(LineSeries::new(pts().filter_map(|(x, c)| f(&c).map(|v| (x, v as f64))), colour.stroke_width(2)))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], colour.stroke_width(3)));
        let dots = pts().filter(|(_, c)| few || super::growth::is_counted(c)).filter_map(|(x, c)| f(&c).map(|v| (x, v as f64)));
        chart.draw_series(dots.map(|p| Circle::new(p, 2, colour.filled())))?;
    }
    super::draw_legend(chart.configure_series_labels())?;
    root.present()?;
    Ok(xs.len())
}
