//! Partitions: live data files per partition in the current snapshot, one-row files highlighted.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::partitions::{PartitionStat, PartitionTimeline};

use super::palette;
use super::Stamp;

/// At most this many partitions are drawn (the newest); the table below the chart lists all.
pub const MAX_BARS: usize = 60;

pub fn draw_partitions<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    parts: &[PartitionStat],
    timeline: &PartitionTimeline,
    stamp: &Stamp,
) -> super::Drawn {
    super::drawn(draw(root, parts, timeline, stamp))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    parts: &[PartitionStat],
    timeline: &PartitionTimeline,
    stamp: &Stamp,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let frame = super::frame(root, stamp)?;
    let (_, h) = frame.dim_in_pixel();
    let (main, lower) = frame.split_vertically(h * 11 / 20);
    draw_timeline(&lower, timeline)?;
    let shown = &parts[parts.len().saturating_sub(MAX_BARS)..];
    let n = shown.len().max(1);
    // Headroom above the tallest bar: its label stays clear of the legend in the top left corner.
    let y_max = shown.iter().map(|p| p.data_files).max().unwrap_or(1).max(1) as f64 * 1.45;
    let caption = if shown.len() < parts.len() {
        format!("{} — data files per partition (newest {} of {})", stamp.table, shown.len(), parts.len())
    } else {
        format!("{} — data files per partition, current snapshot", stamp.table)
    };
    let mut chart = ChartBuilder::on(&main)
        .caption(caption, ("sans-serif", 20).into_font().color(&palette::INK))
        .margin(14)
        .x_label_area_size(70)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), 0.0..y_max)?;
    let step = (n / 16).max(1);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(RGBColor(238, 240, 243))
        .x_labels(n.min(40))
        .x_label_formatter(&|x| {
            let i = x.round() as usize;
            if (x - x.round()).abs() < 1e-6 && i < shown.len() && i.is_multiple_of(step) {
                short(&shown[i].label)
            } else {
                String::new()
            }
        })
        .y_desc("live data files")
        .y_label_formatter(&|y| if (y - y.round()).abs() < 1e-6 { format!("{}", y.round() as i64) } else { String::new() })
        .label_style(("sans-serif", 12).into_font().color(&palette::INK))
        .axis_desc_style(("sans-serif", 14).into_font().color(&palette::INK))
        .draw()?;
    chart
        .draw_series(
            shown
                .iter()
                .enumerate()
                .map(|(i, p)| Rectangle::new([(i as f64 - 0.38, 0.0), (i as f64 + 0.38, p.data_files as f64)], palette::DATA_FILES.mix(0.75).filled())),
        )?
        .label("data files")
        .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 22, y + 6)], palette::DATA_FILES.mix(0.75).filled()));
    chart
        .draw_series(
            shown
                .iter()
                .enumerate()
                .filter(|(_, p)| p.one_row_files > 0)
                .map(|(i, p)| Rectangle::new([(i as f64 - 0.38, 0.0), (i as f64 + 0.38, p.one_row_files as f64)], palette::EQUALITY_DELETES.filled())),
        )?
        .label("of which one-row files (late data?)")
        .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 22, y + 6)], palette::EQUALITY_DELETES.filled()));
    if shown.len() <= 24 {
        let font = ("sans-serif", 12).into_font().color(&palette::INK).pos(Pos::new(HPos::Center, VPos::Bottom));
        chart.draw_series(shown.iter().enumerate().map(|(i, p)| {
            let mut text = format!("{} files · {} rows", p.data_files, crate::analysis::findings::thousands(p.rows));
            // Only where the late-data finding's rule holds (`PartitionStat::max_lateness_ms`).
            if let Some(l) = p.max_lateness_ms.filter(|_| p.one_row_files > 0) {
                text = format!("{} one-row · {} late", p.one_row_files, lateness(l));
            }
            Text::new(text, (i as f64, p.data_files as f64 + y_max * 0.01), font.clone())
        }))?;
    }
    super::draw_legend(chart.configure_series_labels())?;
    root.present()?;
    Ok(shown.len())
}

/// Files per partition (rows) at each snapshot (columns), darker for more: a cell lighting up in an
/// old row late in time is late data arriving.
fn draw_timeline<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, t: &PartitionTimeline) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let rows = &t.partitions[t.partitions.len().saturating_sub(MAX_BARS)..];
    let skip = t.partitions.len() - rows.len();
    let (n_rows, n_cols) = (rows.len().max(1), t.snapshots.len().max(1));
    let max = t.snapshots.iter().flat_map(|(_, v)| v.iter().copied()).max().unwrap_or(1).max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption("data files per partition at each snapshot (darker = more files)", ("sans-serif", 14).into_font().color(&palette::FAINT))
        .margin_left(14)
        .margin_right(14)
        .x_label_area_size(28)
        .y_label_area_size(90)
        .build_cartesian_2d(0.0..n_cols as f64, 0.0..n_rows as f64)?;
    chart.configure_mesh().disable_mesh().x_labels(0).y_labels(0).draw()?;
    // Labels at the middle of each row and column, which tick labels cannot do.
    let font = ("sans-serif", 11).into_font().color(&palette::INK);
    let step = (n_rows / 12).max(1);
    chart.draw_series(
        rows.iter()
            .enumerate()
            .filter(|(r, _)| r % step == 0)
            .map(|(r, l)| Text::new(short(l), (-0.01 * n_cols as f64, r as f64 + 0.5), font.clone().pos(Pos::new(HPos::Right, VPos::Center)))),
    )?;
    let cstep = (n_cols / 12).max(1);
    chart.draw_series(
        t.snapshots
            .iter()
            .enumerate()
            .filter(|(c, _)| c % cstep == 0)
            .map(|(c, (i, _))| Text::new(format!("#{}", i + 1), (c as f64 + 0.5, 0.0), font.clone().pos(Pos::new(HPos::Center, VPos::Top)))),
    )?;
    chart.draw_series(t.snapshots.iter().enumerate().flat_map(|(c, (_, files))| {
        files[skip..].iter().enumerate().filter(|(_, &f)| f > 0).map(move |(r, &f)| {
            let shade = 0.15 + 0.85 * (f as f64 / max);
            Rectangle::new([(c as f64 + 0.05, r as f64 + 0.08), (c as f64 + 0.95, r as f64 + 0.92)], palette::DATA_FILES.mix(shade).filled())
        })
    }))?;
    Ok(())
}

fn lateness(ms: i64) -> String {
    match ms / 3_600_000 {
        h if h >= 48 => format!("{} d", h / 24),
        h => format!("{h} h"),
    }
}

/// `ts_day=2026-08-01` → `08-01`: axis labels must stay readable at 60 bars.
fn short(label: &str) -> String {
    let v = label.rsplit('=').next().unwrap_or(label);
    if v.len() == 10 && v.as_bytes()[4] == b'-' {
        v[5..].to_string()
    } else {
        v.chars().take(12).collect()
    }
}
