//! The growth chart: live manifests, data files, delete files and deletion vectors per snapshot
//! (left axis) and records (right axis), in commit order, so that no line runs backwards when a
//! job replays checkpoint ids; under it one lane per Flink job with its checkpoint ids.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::jobs::JobSpan;
use crate::analysis::{GrowthPoint, GrowthSeries, XAxis};
use crate::model::{CountSource, Totals};

use super::coincide::{self, Drawn};
use super::lanes::{self, Frame};
use super::legend::{Item, Swatch};
use super::look::{text_width, Look};
use super::{palette, Dress};

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

/// Commit order, 1-based: the x of every point of every chart drawn over snapshots.
pub(crate) fn commit_x(series: &GrowthSeries) -> Vec<f64> {
    series.points.iter().map(|p| p.index as f64 + 1.0).collect()
}

/// The x range around `xs`, half a step past each end.
pub(crate) fn x_range(xs: &[f64]) -> (f64, f64) {
    match (xs.first(), xs.last()) {
        (Some(a), Some(b)) => (a.min(*b) - 0.5, a.max(*b) + 0.5),
        _ => (0.0, 1.0),
    }
}

/// The top of the left axis (files and manifests) and of the right one (records).
fn tops(series: &GrowthSeries) -> (f64, f64) {
    let totals = || series.points.iter().map(GrowthPoint::totals);
    let left = totals().flat_map(|c| SERIES.iter().filter_map(move |(_, _, f)| f(&c))).max().unwrap_or(1).max(1) as f64 * 1.1;
    let right = totals().filter_map(|c| c.records).max().unwrap_or(1).max(1) as f64 * 1.1;
    (left, right)
}

/// How near, as a share of the plot's height, the records line must pass a series' point to lie
/// on it: 1.5 % is 4–6 px of a plot 260–420 px high, where a 2 px line hides a 1 px one.
const ON_LINE: f64 = 0.015;

/// The series the records line lies on (scaled to the right axis, it passes within `ON_LINE` of
/// that series' points at half of its own or more, as when every file holds the same rows), with
/// how many points of how many: (series, shared, of).
fn records_on(series: &GrowthSeries, drawn: &[Drawn]) -> Option<(usize, usize, usize)> {
    let (left, right) = tops(series);
    let totals: Vec<Totals> = series.points.iter().map(GrowthPoint::totals).collect();
    let of = totals.iter().filter(|t| t.records.is_some()).count();
    let shared = |count: Count| {
        totals.iter().filter(|t| matches!((count(t), t.records), (Some(v), Some(r)) if (v as f64 / left - r as f64 / right).abs() <= ON_LINE)).count()
    };
    drawn
        .iter()
        .filter_map(|d| SERIES.get(d.k).map(|s| (d.k, shared(s.2))))
        .filter(|&(_, n)| of > 0 && 2 * n >= of)
        .max_by_key(|&(_, n)| n)
        .map(|(k, n)| (k, n, of))
}

/// Which series are drawn (two always, the rest when not all zero), which lie on which, and the
/// series the records line lies on. The line records lie on, and those it lies in or on, are drawn
/// 3 px wider: the records line shows inside them.
fn drawn_series(series: &GrowthSeries) -> (Vec<Drawn>, Option<(usize, usize, usize)>) {
    let values: Vec<Vec<Option<u64>>> = SERIES.iter().map(|s| series.points.iter().map(|p| (s.2)(&p.totals())).collect()).collect();
    let keep = |k: usize| k < 2 || values.get(k).is_some_and(|v| v.iter().any(|c| c.unwrap_or(0) != 0));
    let mut drawn = coincide::drawn(&values, keep);
    let on = records_on(series, &drawn);
    // The records' partner and every series of its chain.
    let chain = on.and_then(|(k, _, _)| drawn.iter().find(|d| d.k == k)).map(|d| d.root);
    for d in drawn.iter_mut().filter(|d| Some(d.root) == chain) {
        d.width += 3;
    }
    (drawn, on)
}

/// Non-append commits, with what each is labelled: runs of one operation share a label.
fn markers(series: &GrowthSeries) -> Vec<(usize, Option<String>)> {
    let mut out: Vec<(usize, Option<String>)> = Vec::new();
    let mut run: Option<(usize, String, usize)> = None;
    let flush = |run: &mut Option<(usize, String, usize)>, out: &mut Vec<(usize, Option<String>)>| {
        if let Some((at, label, n)) = run.take() {
            if let Some(m) = out.iter_mut().find(|m| m.0 == at) {
                m.1 = Some(if n > 1 { format!("{label} ×{n}") } else { label });
            }
        }
    };
    for (i, p) in series.points.iter().enumerate() {
        let mut label = if p.operation != crate::decode::Operation::Append { p.operation.to_string() } else { String::new() };
        if p.expired_before > 0 {
            label = format!("{} expired{}{label}", p.expired_before, if label.is_empty() { "" } else { " · " });
        }
        if label.is_empty() {
            flush(&mut run, &mut out);
            continue;
        }
        out.push((i, None));
        match &mut run {
            Some((_, l, n)) if *l == label => *n += 1,
            _ => {
                flush(&mut run, &mut out);
                run = Some((i, label, 1));
            }
        }
    }
    flush(&mut run, &mut out);
    out
}

/// What the legend lists: each drawn series (one that coincides with another said so), records,
/// and the marks of non-append commits.
pub fn legend_items(series: &GrowthSeries, look: &Look) -> Vec<Item> {
    let (drawn, records_on) = drawn_series(series);
    let mut items: Vec<Item> = drawn
        .into_iter()
        .filter_map(|d| {
            let (name, colour, _) = SERIES.get(d.k)?;
            Some(match d.same.and_then(|(j, n, of)| SERIES.get(j).map(|s| (s, n, of))) {
                Some(((other, oc, _), n, of)) => {
                    Item::new(crate::report::chart::coinciding(name, other, n, of), Swatch::Pair(look.series(*oc), look.series(*colour)))
                }
                None => Item::new(*name, Swatch::Line(look.series(*colour))),
            })
        })
        .collect();
    if series.points.iter().any(|p| p.totals().records.is_some()) {
        let records = look.series(palette::RECORDS);
        items.push(match records_on.and_then(|(k, n, of)| SERIES.get(k).map(|s| (s, n, of))) {
            Some(((name, colour, _), n, of)) => {
                Item::new(crate::report::chart::records_legend(Some((name, n, of))), Swatch::Pair(look.series(*colour), records))
            }
            None => Item::new(crate::report::chart::records_legend(None), Swatch::Thin(records)),
        });
    }
    if !markers(series).is_empty() {
        items.push(Item::new("a commit that is not an append", Swatch::Mark(look.faint())));
    }
    items
}

pub fn caption(series: &GrowthSeries, table: &str) -> String {
    let base = crate::report::chart::growth_caption(table, series.axis == XAxis::CheckpointId);
    match crate::report::load::chart_sources_note(series) {
        Some(note) => format!("{base}. {note}"),
        None => base,
    }
}

/// The plot's height below the title and legend, for a picture this wide.
pub fn plot_height(series: &GrowthSeries, jobs: &[JobSpan], width: u32, look: &Look) -> u32 {
    let main = (f64::from(width) * 0.36).clamp(look.px(260.0), 420.0) as u32 + look.len(60.0);
    main + lanes::height(jobs, look) + if has_sizes(series) { look.len(96.0) } else { 0 }
}

fn has_sizes(series: &GrowthSeries) -> bool {
    series.points.iter().filter(|p| p.metadata_json_bytes.is_some()).count() >= 2
}

/// Draws the chart and returns how many x positions it drew.
pub fn draw_growth<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    series: &GrowthSeries,
    jobs: &[JobSpan],
    newest: bool,
    dress: &Dress<'_>,
) -> super::Drawn {
    super::drawn(draw(root, series, jobs, newest, dress))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    series: &GrowthSeries,
    jobs: &[JobSpan],
    newest: bool,
    dress: &Dress<'_>,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let look = &dress.look;
    let frame = super::frame(root, dress, &caption(series, &dress.stamp.table), &legend_items(series, look))?;
    let (_, h) = frame.dim_in_pixel();
    let strip_h = if has_sizes(series) { look.len(96.0) } else { 0 };
    let lanes_h = lanes::height(jobs, look);
    let (main, below) = frame.split_vertically(h.saturating_sub(strip_h + lanes_h));
    let (lane_area, strip) = below.split_vertically(lanes_h);

    let xs = commit_x(series);
    let totals = || series.points.iter().map(GrowthPoint::totals);
    let (x_min, x_max) = x_range(&xs);
    let (y_max, r_max) = tops(series);
    let all_dots = series.points.len() <= DOTS_UP_TO;
    let lay = Frame { x: (x_min, x_max), margin: look.len(12.0), left: look.len(62.0), right: look.len(66.0) };

    let marks = markers(series);
    // The marks' labels sit in a row of their own over the plot, where no line runs.
    let label_row = if marks.iter().any(|m| m.1.is_some()) { look.len(20.0) } else { 0 };
    let mut chart = ChartBuilder::on(&main)
        .margin(lay.margin)
        .margin_top(lay.margin + label_row)
        .x_label_area_size(look.len(48.0))
        .y_label_area_size(lay.left)
        .right_y_label_area_size(lay.right)
        .build_cartesian_2d(x_min..x_max, 0.0..y_max)?
        .set_secondary_coord(x_min..x_max, 0.0..r_max);
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let n = xs.len().max(1);
    // Ticks at least 56 px apart: "#17280" at 12 px is about 40.
    let x_labels = ((plot_w / look.px(56.0)) as usize).clamp(2, n.max(2));
    chart
        .configure_mesh()
        .light_line_style(look.background())
        .bold_line_style(look.bold_grid())
        .axis_style(look.faint())
        .x_labels(x_labels)
        .y_labels(((f64::from(main.dim_in_pixel().1) / look.px(40.0)) as usize).clamp(3, 10))
        .x_desc("snapshot, in commit order")
        .y_desc("live files / manifests")
        .x_label_formatter(&|x| super::whole(*x).filter(|&i| i >= 1 && i as usize <= n).map(|i| format!("#{i}")).unwrap_or_default())
        .y_label_formatter(&|y| format_count(*y))
        .label_style(look.font(12.0, look.ink()))
        .axis_desc_style(look.font(13.0, look.ink()))
        .draw()?;
    chart
        .configure_secondary_axes()
        .y_desc("live records")
        .axis_style(look.faint())
        .y_labels(((f64::from(main.dim_in_pixel().1) / look.px(40.0)) as usize).clamp(3, 10))
        .y_label_formatter(&|y| format_count(*y))
        .label_style(look.font(12.0, look.series(palette::RECORDS)))
        .axis_desc_style(look.font(13.0, look.series(palette::RECORDS)))
        .draw()?;

    // Commits that are not appends (deletes, overwrites, rewrites) and expired stretches explain
    // most drops in a line: each gets a faint mark, and labels are thinned so none touches another.
    let (bx, by) = main.get_base_pixel();
    let mut right_edge = f64::NEG_INFINITY;
    let label_px = look.px(12.0);
    for (i, label) in marks {
        let Some(&x) = xs.get(i) else { continue };
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, 0.0), (x, y_max)], look.faint().mix(0.5).stroke_width(1))))?;
        let Some(label) = label else { continue };
        let (px, py) = chart.backend_coord(&(x, y_max));
        let half = text_width(&label, label_px) / 2.0;
        let (w, _) = main.dim_in_pixel();
        // Kept on the picture: a label at either end is shifted in, not cut.
        let centre = (f64::from(px - bx)).clamp(half + 2.0, f64::from(w) - half - 2.0);
        if centre - half < right_edge + look.px(8.0) {
            continue;
        }
        right_edge = centre + half;
        let font = look.font(12.0, look.faint()).pos(Pos::new(HPos::Center, VPos::Bottom));
        main.draw(&Text::new(label, (centre.round() as i32, py - by - 3), font))?;
    }
    // Columns of half a pixel: sharp on a screen of twice the page's pixels.
    let columns = (plot_w * 2.0) as usize;
    let runs = |count: Count| runs_of_known(series, &xs, count);
    let thin = |run: &[(f64, f64)]| super::thin::to_columns(run, (x_min, x_max), columns);
    // Thickest first: a series lying on another is drawn inside it.
    let (mut order, records_on) = drawn_series(series);
    order.sort_by_key(|d| std::cmp::Reverse(d.width));
    for d in order {
        let Some(&(_, colour, count)) = SERIES.get(d.k) else { continue };
        let colour = look.series(colour);
        for run in runs(count) {
            chart.draw_series(LineSeries::new(thin(&run), colour.stroke_width(d.width)))?;
            if all_dots {
                chart.draw_series(run.iter().map(|&p| Circle::new(p, 2 + d.width / 2, colour.filled())))?;
            }
        }
        if !all_dots {
            let dots = totals().zip(&xs).filter(|(t, _)| is_counted(t)).filter_map(|(t, &x)| count(&t).map(|v| (x, v as f64)));
            chart.draw_series(dots.map(|p| Circle::new(p, 3, colour.filled())))?;
        }
    }
    // Inside a line 5 px wide, a 1 px grey line is lost at ticket size: 2 px there.
    let records_width = if records_on.is_some() { 2 } else { 1 };
    for run in runs(|c| c.records) {
        chart.draw_secondary_series(LineSeries::new(thin(&run), look.series(palette::RECORDS).stroke_width(records_width)))?;
    }
    // Watched: the newest commit's points are ringed, where the next one will appear beside.
    if let (true, Some(last), Some(&x)) = (newest, series.points.last(), xs.last()) {
        let t = last.totals();
        for (_, colour, count) in SERIES {
            if let Some(v) = count(&t).filter(|&v| v > 0) {
                chart.draw_series(std::iter::once(Circle::new((x, v as f64), look.len(7.0) as i32, look.series(colour).stroke_width(2))))?;
            }
        }
    }
    lanes::draw(&lane_area, series, jobs, lay, look)?;
    if strip_h > 0 {
        draw_metadata_strip(&strip, series, &xs, lay, look)?;
    }
    root.present()?;
    Ok(xs.len())
}

/// metadata.json size per commit, under the lanes on the same x axis: read on every load,
/// rewritten on every commit.
fn draw_metadata_strip<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    series: &GrowthSeries,
    xs: &[f64],
    lay: Frame,
    look: &Look,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let pts: Vec<(f64, f64)> = series.points.iter().zip(xs).filter_map(|(p, x)| p.metadata_json_bytes.map(|b| (*x, b as f64 / 1024.0))).collect();
    let k_max = pts.iter().map(|p| p.1).fold(1.0, f64::max) * 1.15;
    let mut chart = ChartBuilder::on(area)
        .margin_left(lay.margin)
        .margin_right(lay.margin + lay.right)
        .margin_top(look.len(6.0))
        .x_label_area_size(look.len(6.0))
        .y_label_area_size(lay.left)
        .build_cartesian_2d(lay.x.0..lay.x.1, 0.0..k_max)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(3)
        .light_line_style(look.background())
        .bold_line_style(look.bold_grid())
        .axis_style(look.faint())
        .y_desc("metadata KB")
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style(look.font(12.0, look.ink()))
        .axis_desc_style(look.font(12.0, look.ink()))
        .draw()?;
    let colour = look.series(palette::MANIFESTS);
    chart.draw_series(LineSeries::new(pts.iter().copied(), colour.mix(0.8).stroke_width(2)))?;
    chart.draw_series(pts.iter().map(|&p| Circle::new(p, 2, colour.filled())))?;
    Ok(())
}

/// Consecutive snapshots whose counts are known: a line must not bridge a snapshot whose manifest
/// list is gone (it would show numbers nobody read).
pub(crate) fn runs_of_known(series: &GrowthSeries, xs: &[f64], count: Count) -> Vec<Vec<(f64, f64)>> {
    let mut runs: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
    for (p, &x) in series.points.iter().zip(xs) {
        match count(&p.totals()) {
            Some(v) => runs.last_mut().map(|r| r.push((x, v as f64))).unwrap_or(()),
            None => runs.push(Vec::new()),
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}

/// 1234567 → 1.2M: axis labels must stay short at 800 px.
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
