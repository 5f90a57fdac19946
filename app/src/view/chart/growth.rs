//! The growth chart: live manifests, data files, delete files and deletion vectors per snapshot
//! (left axis) and records (right axis), on checkpoint ids when Flink wrote the table.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::analysis::{GrowthPoint, GrowthSeries, XAxis};
use crate::model::{CountSource, Totals};

use super::palette::{self, job_band};
use super::Stamp;

type Count = fn(&Totals) -> Option<u64>;

const SERIES: [(&str, RGBColor, Count); 5] = [
    ("manifests", palette::MANIFESTS, |c| c.manifests),
    ("data files", palette::DATA_FILES, |c| c.data_files),
    ("position-delete files", palette::POSITION_DELETES, |c| c.position_delete_files),
    ("equality-delete files", palette::EQUALITY_DELETES, |c| c.equality_delete_files),
    ("deletion vectors", palette::DELETION_VECTORS, |c| c.deletion_vectors),
];

/// Above this many snapshots, dots mark only the snapshots whose files were counted.
const DOTS_UP_TO: usize = 400;

/// True where the numbers were counted from files rather than taken from the summary.
pub(crate) fn is_counted(t: &Totals) -> bool {
    t.source.is_some_and(|s| s >= CountSource::ManifestList)
}

/// Draws the chart and returns how many x positions it drew.
pub fn draw_growth<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, series: &GrowthSeries, stamp: &Stamp) -> super::Drawn {
    super::drawn(draw(root, series, stamp))
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, series: &GrowthSeries, stamp: &Stamp) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let frame = super::frame(root, stamp)?;
    let has_sizes = series.points.iter().filter(|p| p.metadata_json_bytes.is_some()).count() >= 2;
    let (main, strip) = if has_sizes {
        let (_, h) = frame.dim_in_pixel();
        let (a, b) = frame.split_vertically(h * 3 / 4);
        (a, Some(b))
    } else {
        (frame, None)
    };

    let xs = series.x_values();
    // Unpacked one point at a time: a day of commits is 17,280 of them.
    let totals = || series.points.iter().map(GrowthPoint::totals);
    let x_min = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let x_max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (x_min, x_max) = if xs.is_empty() { (0.0, 1.0) } else { (x_min - 0.5, x_max + 0.5) };
    let y_max = totals().flat_map(|c| SERIES.iter().filter_map(move |(_, _, f)| f(&c))).max().unwrap_or(1).max(1) as f64 * 1.1;
    let r_max = totals().filter_map(|c| c.records).max().unwrap_or(1).max(1) as f64 * 1.1;
    let all_dots = series.points.len() <= DOTS_UP_TO;

    let x_desc = match series.axis {
        XAxis::CheckpointId => "Flink checkpoint id (flink.max-committed-checkpoint-id)",
        XAxis::CommitOrder => "snapshot, in commit order",
    };
    let mut chart = ChartBuilder::on(&main)
        .caption(format!("{} — live contents per snapshot", stamp.table), ("sans-serif", 20).into_font().color(&palette::INK))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .right_y_label_area_size(78)
        .build_cartesian_2d(x_min..x_max, 0.0..y_max)?
        .set_secondary_coord(x_min..x_max, 0.0..r_max);

    for (lo, hi, colour, label) in job_bands(series, &xs) {
        chart
            .draw_series(std::iter::once(Rectangle::new([(lo, 0.0), (hi, y_max)], colour.mix(0.55).filled())))?
            .label(label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 22, y + 6)], colour.filled()));
    }

    chart
        .configure_mesh()
        .light_line_style(RGBColor(238, 240, 243))
        .bold_line_style(RGBColor(220, 223, 228))
        .x_desc(x_desc)
        .y_desc("live files / manifests")
        .x_label_formatter(&|x| format_x(*x, series.axis))
        .y_label_formatter(&|y| format_count(*y))
        .label_style(("sans-serif", 13).into_font().color(&palette::INK))
        .axis_desc_style(("sans-serif", 14).into_font().color(&palette::INK))
        .draw()?;
    chart
        .configure_secondary_axes()
        .y_desc("live records")
        .y_label_formatter(&|y| format_count(*y))
        .label_style(("sans-serif", 13).into_font().color(&palette::RECORDS))
        .axis_desc_style(("sans-serif", 14).into_font().color(&palette::RECORDS))
        .draw()?;

    // Commits that are not appends (deletes, overwrites, rewrites) and expired stretches explain
    // most drops in a line.
    for (p, &x) in series.points.iter().zip(&xs) {
        let mut label = if p.operation != crate::decode::Operation::Append { p.operation.to_string() } else { String::new() };
        if p.expired_before > 0 {
            label = format!("{} expired{}{label}", p.expired_before, if label.is_empty() { "" } else { " · " });
        }
        if label.is_empty() {
            continue;
        }
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, 0.0), (x, y_max)], palette::FAINT.mix(0.6).stroke_width(1))))?;
        chart.draw_series(std::iter::once(Text::new(
            label,
            (x, y_max * 0.985),
            ("sans-serif", 12).into_font().color(&palette::FAINT).transform(FontTransform::Rotate90),
        )))?;
    }
    for (name, colour, count) in SERIES {
        if totals().all(|c| count(&c).unwrap_or(0) == 0) && name != "manifests" && name != "data files" {
            continue;
        }
        let runs = runs_of_known(series, &xs, count);
        for (i, run) in runs.iter().enumerate() {
            let line = chart.draw_series(LineSeries::new(run.iter().copied(), colour.stroke_width(2)))?;
            if i == 0 {
                line.label(name).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], colour.stroke_width(3)));
            }
            if all_dots {
                chart.draw_series(run.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
            }
        }
        if !all_dots {
            let dots = totals().zip(&xs).filter(|(t, _)| is_counted(t)).filter_map(|(t, &x)| count(&t).map(|v| (x, v as f64)));
            chart.draw_series(dots.map(|p| Circle::new(p, 3, colour.filled())))?;
        }
    }
    for (i, run) in runs_of_known(series, &xs, |c| c.records).into_iter().enumerate() {
        let line = chart.draw_secondary_series(LineSeries::new(run, palette::RECORDS.stroke_width(1)))?;
        if i == 0 {
            line.label("records (right axis)").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 22, y)], palette::RECORDS.stroke_width(1)));
        }
    }

    super::draw_legend(chart.configure_series_labels())?;
    if let Some(note) = crate::report::load::chart_sources_note(series) {
        // Under the caption, right-aligned: about 6.2 px per character at 12 px.
        let (w, _) = main.dim_in_pixel();
        let x = (w as i32 - 96 - (note.chars().count() as f64 * 6.2) as i32).max(80);
        main.draw(&Text::new(note, (x, 40), ("sans-serif", 12).into_font().color(&palette::FAINT)))?;
    }
    if let Some(strip) = strip {
        draw_metadata_strip(&strip, series, &xs, (x_min, x_max))?;
    }
    root.present()?;
    Ok(xs.len())
}

/// metadata.json size per commit, under the main chart on the same x axis: read on every load,
/// rewritten on every commit.
fn draw_metadata_strip<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    series: &GrowthSeries,
    xs: &[f64],
    (x_min, x_max): (f64, f64),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pts: Vec<(f64, f64)> = series.points.iter().zip(xs).filter_map(|(p, x)| p.metadata_json_bytes.map(|b| (*x, b as f64 / 1024.0))).collect();
    let k_max = pts.iter().map(|p| p.1).fold(1.0, f64::max) * 1.15;
    let mut chart = ChartBuilder::on(area)
        .margin_left(14)
        .margin_right(14)
        .x_label_area_size(6)
        .y_label_area_size(64)
        .right_y_label_area_size(78)
        .build_cartesian_2d(x_min..x_max, 0.0..k_max)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(3)
        .light_line_style(RGBColor(238, 240, 243))
        .y_desc("metadata.json KB")
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(("sans-serif", 12).into_font().color(&palette::INK))
        .axis_desc_style(("sans-serif", 12).into_font().color(&palette::INK))
        .draw()?;
    // Split where x goes back (a replaying job re-commits checkpoint ids), as the main lines are.
    let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for &p in &pts {
        if runs.last().and_then(|r| r.last()).is_some_and(|last| p.0 < last.0) {
            runs.push(Vec::new());
        }
        if let Some(r) = runs.last_mut() {
            r.push(p);
        }
    }
    for run in runs {
        chart.draw_series(LineSeries::new(run, palette::MANIFESTS.mix(0.8).stroke_width(2)))?;
    }
    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 2, palette::MANIFESTS.filled())))?;
    Ok(())
}

/// Consecutive snapshots whose counts are known, split where the writing job changes: a line must
/// not bridge a snapshot whose manifest list is gone (it would show numbers nobody read), nor jump
/// back when a replaying job re-commits checkpoint ids another job already used.
fn runs_of_known(series: &GrowthSeries, xs: &[f64], count: Count) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    let mut last_x = f64::NEG_INFINITY;
    for (p, &x) in series.points.iter().zip(xs) {
        if x < last_x {
            runs.push(Vec::new());
        }
        last_x = x;
        match count(&p.totals()) {
            Some(v) => runs.last_mut().map(|r| r.push((x, v as f64))).unwrap_or(()),
            None => runs.push(Vec::new()),
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}

/// Shaded x ranges, one colour per Flink job, so that a second or third job id is seen at once.
fn job_bands(series: &GrowthSeries, xs: &[f64]) -> Vec<(f64, f64, RGBColor, String)> {
    let jobs = series.job_ids();
    if jobs.len() < 2 {
        return Vec::new();
    }
    jobs.iter()
        .enumerate()
        .filter_map(|(j, job)| {
            let mine = series.points.iter().zip(xs).filter(|(p, _)| p.job_id.as_deref() == Some(job.as_str())).map(|(_, x)| *x);
            let (lo, hi) = mine.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
            let short: String = job.chars().take(8).collect();
            lo.is_finite().then(|| (lo - 0.4, hi + 0.4, job_band(j), format!("job {short}…")))
        })
        .collect()
}

fn format_x(x: f64, axis: XAxis) -> String {
    if (x - x.round()).abs() > 1e-9 {
        return String::new();
    }
    match axis {
        XAxis::CheckpointId => format!("{}", x.round() as i64),
        XAxis::CommitOrder => format!("#{}", x.round() as i64),
    }
}

/// 1234567 → 1.2M: axis labels must stay short at 1280 px.
pub fn format_count(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round() as i64)
    } else {
        String::new()
    }
}
