//! Partitions: live data files per partition in the current snapshot, one-row files highlighted.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::partitions::{PartitionStat, PartitionTimeline};

use super::legend::{Item, Swatch};
use super::look::{text_width, Look};
use super::{palette, Dress};

/// At most this many partitions are drawn (the newest); the table below the chart lists all.
pub const MAX_BARS: usize = 60;

/// The bars' share of the picture; the map of files over time takes the rest.
pub fn plot_height(width: u32, look: &Look) -> u32 {
    (f64::from(width) * 0.5).clamp(look.px(420.0), 640.0) as u32
}

pub fn legend_items(parts: &[PartitionStat], look: &Look) -> Vec<Item> {
    let mut items = vec![Item::new("data files", Swatch::Block(muted(look)))];
    if parts.iter().any(|p| p.one_row_files > 0) {
        items.push(Item::new("of which one-row files (late data?)", Swatch::Block(one_row(look))));
    }
    items
}

/// The bars of ordinary files stay quiet so that the one-row files are what the eye finds first.
fn muted(look: &Look) -> RGBColor {
    if look.dark {
        RGBColor(90, 110, 100)
    } else {
        RGBColor(178, 200, 186)
    }
}

fn one_row(look: &Look) -> RGBColor {
    look.series(palette::POSITION_DELETES)
}

pub fn draw_partitions<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    parts: &[PartitionStat],
    timeline: &PartitionTimeline,
    wait: Option<&crate::model::FilesWait>,
    dress: &Dress<'_>,
) -> super::Drawn {
    super::drawn(draw(root, parts, timeline, wait, dress))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    parts: &[PartitionStat],
    timeline: &PartitionTimeline,
    wait: Option<&crate::model::FilesWait>,
    dress: &Dress<'_>,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let look = &dress.look;
    let shown = &parts[parts.len().saturating_sub(MAX_BARS)..];
    let caption = crate::report::chart::partitions_caption(&dress.stamp.table, shown.len(), parts.len(), wait);
    let waiting = wait.filter(|_| parts.is_empty());
    let legend = if waiting.is_some() { Vec::new() } else { legend_items(parts, look) };
    let frame = super::frame(root, dress, &caption, &legend)?;
    let (_, h) = frame.dim_in_pixel();
    let (main, lower) = frame.split_vertically(h * 11 / 20);
    draw_timeline(&lower, timeline, look)?;
    if let Some(w) = waiting {
        // Empty axes would read as a table without partitions: the space says what it waits for.
        let (mw, mh) = main.dim_in_pixel();
        let font = look.font(15.0, look.faint()).pos(Pos::new(HPos::Center, VPos::Center));
        main.draw(&Text::new(crate::report::chart::partitions_waiting(w), (mw as i32 / 2, mh as i32 / 2), font))?;
        return Ok(0);
    }
    let n = shown.len().max(1);
    // Headroom above the tallest bar for its note.
    let y_max = shown.iter().map(|p| p.data_files).max().unwrap_or(1).max(1) as f64 * 1.3;
    let mut chart = ChartBuilder::on(&main)
        .margin(look.len(12.0))
        .x_label_area_size(look.len(40.0))
        .y_label_area_size(look.len(56.0))
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), 0.0..y_max)?;
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let per_bar = plot_w / n as f64;
    // Partition names at least their own width apart.
    let widest = shown.iter().map(|p| text_width(&short(&p.label), look.px(12.0))).fold(0.0, f64::max) + look.px(8.0);
    let step = ((widest / per_bar).ceil() as usize).max(1);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(look.background())
        .bold_line_style(look.bold_grid())
        .axis_style(look.faint())
        .x_labels(n.min(60))
        .x_label_formatter(&|x| {
            let i = x.round() as usize;
            if (x - x.round()).abs() < 1e-6 && i < shown.len() && i.is_multiple_of(step) {
                short(&shown[i].label)
            } else {
                String::new()
            }
        })
        .y_labels(6)
        .y_desc("live data files")
        .y_label_formatter(&|y| super::whole(*y).map(|v| v.to_string()).unwrap_or_default())
        .label_style(look.font(12.0, look.ink()))
        .axis_desc_style(look.font(13.0, look.ink()))
        .draw()?;
    let bar = |i: usize, top: u64| [(i as f64 - 0.38, 0.0), (i as f64 + 0.38, top as f64)];
    chart.draw_series(shown.iter().enumerate().map(|(i, p)| Rectangle::new(bar(i, p.data_files), muted(look).filled())))?;
    let late = || shown.iter().enumerate().filter(|(_, p)| p.one_row_files > 0);
    chart.draw_series(late().map(|(i, p)| Rectangle::new(bar(i, p.one_row_files), one_row(look).filled())))?;
    chart.draw_series(late().map(|(i, p)| Rectangle::new(bar(i, p.data_files), one_row(look).stroke_width(2))))?;
    // Notes over bars: every one-row bar's first, then the rest where they fit beside each other.
    let mut taken: Vec<(f64, f64)> = Vec::new();
    let px = look.px(12.0);
    let mut notes = Vec::new();
    let ordered = late().map(|(i, p)| (i, p, true)).chain(shown.iter().enumerate().filter(|(_, p)| p.one_row_files == 0).map(|(i, p)| (i, p, false)));
    for (i, p, bad) in ordered {
        // Only where the late-data finding's rule holds (`PartitionStat::max_lateness_ms`).
        let text =
            if bad { crate::report::chart::late_bar(p.one_row_files, p.max_lateness_ms) } else { crate::report::chart::partition_bar(p.data_files, p.rows) };
        let centre = (i as f64 + 0.5) * per_bar;
        let half = text_width(&text, px) / 2.0;
        let (lo, hi) = ((centre - half).max(0.0), (centre + half).min(plot_w));
        if taken.iter().any(|&(a, b)| lo < b + look.px(6.0) && a < hi + look.px(6.0)) {
            continue;
        }
        taken.push((lo, hi));
        // Kept inside the plot: a note on the first or last bar is shifted, not cut.
        let x = (lo + half) / per_bar - 0.5;
        let colour = if bad { one_row(look) } else { look.faint() };
        let font = look.font(12.0, colour).pos(Pos::new(HPos::Center, VPos::Bottom));
        notes.push(Text::new(text, (x, p.data_files as f64 + y_max * 0.015), font));
    }
    chart.draw_series(notes)?;
    root.present()?;
    Ok(shown.len())
}

/// Files per partition (rows) at each snapshot (columns), more opaque for more: a cell lighting up in an
/// old row late in time is late data arriving.
fn draw_timeline<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, t: &PartitionTimeline, look: &Look) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let rows = &t.partitions[t.partitions.len().saturating_sub(MAX_BARS)..];
    let skip = t.partitions.len() - rows.len();
    let (n_rows, n_cols) = (rows.len().max(1), t.snapshots.len().max(1));
    let max = t.snapshots.iter().flat_map(|(_, v)| v.iter().copied()).max().unwrap_or(1).max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption("data files per partition at each snapshot (the stronger the colour, the more files)", look.font(13.0, look.faint()))
        .margin_left(look.len(12.0))
        .margin_right(look.len(12.0))
        .x_label_area_size(look.len(26.0))
        .y_label_area_size(look.len(64.0))
        .build_cartesian_2d(0.0..n_cols as f64, 0.0..n_rows as f64)?;
    chart.configure_mesh().disable_mesh().axis_style(look.faint()).x_labels(0).y_labels(0).draw()?;
    // Labels at the middle of each row and column, which tick labels cannot do.
    let font = look.font(12.0, look.ink());
    let (w, h) = area.dim_in_pixel();
    // Row labels 16 px apart at least, column labels 48.
    let step = ((n_rows as f64 * look.px(16.0) / f64::from(h.max(1))).ceil() as usize).max(1);
    chart.draw_series(rows.iter().enumerate().filter(|(r, _)| r % step == 0).map(|(r, l)| {
        Text::new(short(l), (-look.px(6.0) * n_cols as f64 / f64::from(w.max(1)), r as f64 + 0.5), font.clone().pos(Pos::new(HPos::Right, VPos::Center)))
    }))?;
    let cstep = ((n_cols as f64 * look.px(48.0) / f64::from(w.max(1))).ceil() as usize).max(1);
    chart.draw_series(
        t.snapshots
            .iter()
            .enumerate()
            .filter(|(c, _)| c % cstep == 0)
            .map(|(c, (i, _))| Text::new(format!("#{}", i + 1), (c as f64 + 0.5, 0.0), font.clone().pos(Pos::new(HPos::Center, VPos::Top)))),
    )?;
    chart.draw_series(t.snapshots.iter().enumerate().flat_map(|(c, (_, files))| {
        files.get(skip..).unwrap_or(&[]).iter().enumerate().filter(|(_, &f)| f > 0).map(move |(r, &f)| {
            let shade = 0.15 + 0.85 * (f as f64 / max);
            Rectangle::new([(c as f64 + 0.05, r as f64 + 0.08), (c as f64 + 0.95, r as f64 + 0.92)], look.series(palette::DATA_FILES).mix(shade).filled())
        })
    }))?;
    Ok(())
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
