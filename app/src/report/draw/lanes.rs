//! One lane per Flink job under a chart whose x is commit order: the job's commits as ticks on a
//! bar, its checkpoint ids written on the bar, and what it overlaps. Two jobs over the same
//! checkpoint ids are two lanes, side by side in time, never one painted over the other.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::job_overlaps::{job_overlaps, replayed_checkpoint};
use crate::analysis::jobs::JobSpan;
use crate::analysis::GrowthSeries;
use crate::model::flink::END_OF_INPUT_CHECKPOINT;

use super::look::{text_width, Look};
use super::palette;

/// More jobs than this get one summary line: a lane each would push the plot off the picture.
pub const MAX_LANES: usize = 8;

const LANE_PX: f64 = 44.0;
const TEXT_PX: f64 = 13.0;
const ID_PX: f64 = 12.0;

/// The lanes' height: nothing for fewer than one job.
pub fn height(jobs: &[JobSpan], look: &Look) -> u32 {
    match jobs.len() {
        0 => 0,
        n => look.len(LANE_PX * n.min(MAX_LANES) as f64 + 8.0),
    }
}

/// The plot's horizontal layout, so that the lanes share its x axis to the pixel.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    pub x: (f64, f64),
    pub margin: u32,
    pub left: u32,
    pub right: u32,
}

pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    series: &GrowthSeries,
    jobs: &[JobSpan],
    frame: Frame,
    look: &Look,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let shown = &jobs[..jobs.len().min(MAX_LANES)];
    if shown.is_empty() {
        return Ok(());
    }
    let n = shown.len() as f64;
    let mut chart = ChartBuilder::on(area)
        .margin_top(look.len(8.0))
        .margin_left(frame.margin + frame.left)
        .margin_right(frame.margin + frame.right)
        .build_cartesian_2d(frame.x.0..frame.x.1, 0.0..n)?;
    // Pairs among the lanes drawn only: a day of restarts is thousands of jobs.
    let overlaps = job_overlaps(shown);
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let per_x = plot_w / (frame.x.1 - frame.x.0).max(1e-9);
    let x_of = |i: usize| i as f64 + 1.0;
    for (k, job) in shown.iter().enumerate() {
        let top = n - k as f64;
        let colour = look.job(k);
        let (Some(&first), Some(&last)) = (job.snapshot_indexes.first(), job.snapshot_indexes.last()) else { continue };
        let (a, b) = (x_of(first) - 0.4, x_of(last) + 0.4);
        let bar = (top - 0.92, top - 0.5);
        chart.draw_series(std::iter::once(Rectangle::new([(a, bar.0), (b, bar.1)], colour.mix(if look.dark { 0.35 } else { 0.22 }).filled())))?;
        chart.draw_series(std::iter::once(Rectangle::new([(a, bar.0), (b, bar.1)], colour.stroke_width(1))))?;
        let replayed = |i: usize| {
            series.points.get(i).and_then(|p| p.checkpoint_id).is_some_and(|c| c != END_OF_INPUT_CHECKPOINT && replayed_checkpoint(&overlaps, jobs, k, c))
        };
        let red = look.series(palette::POSITION_DELETES);
        // A tick a commit, one a column (of twice the page's pixels) for each colour: a day's
        // 17,280 ticks over 700 columns looked the same as 1,400 and made the picture 1.7 MB.
        let mut ticked = std::collections::HashSet::new();
        let ticks = job.snapshot_indexes.iter().filter(|&&i| ticked.insert((((x_of(i) - frame.x.0) * per_x * 2.0).floor() as i64, replayed(i))));
        chart.draw_series(ticks.map(|&i| {
            let c = if replayed(i) { red } else { colour };
            PathElement::new(vec![(x_of(i), bar.0), (x_of(i), bar.0 + 0.1)], c.stroke_width(2))
        }))?;
        // The replayed stretch, outlined: the picture's point on a replay.
        let again: Vec<usize> = job.snapshot_indexes.iter().copied().filter(|&i| replayed(i)).collect();
        if let (Some(&lo), Some(&hi)) = (again.first(), again.last()) {
            chart.draw_series(std::iter::once(Rectangle::new([(x_of(lo) - 0.45, bar.0 - 0.03), (x_of(hi) + 0.45, bar.1 + 0.03)], red.stroke_width(2))))?;
        }
        // Checkpoint ids on the bar, thinned so that none touches the next.
        let id_font = look.font(ID_PX, look.ink()).pos(Pos::new(HPos::Center, VPos::Center));
        let mut right_edge = f64::NEG_INFINITY;
        let mut ids = Vec::new();
        for &i in &job.snapshot_indexes {
            let Some(c) = series.points.get(i).and_then(|p| p.checkpoint_id) else { continue };
            let text = if c == END_OF_INPUT_CHECKPOINT { "end".to_string() } else { c.to_string() };
            let px = (x_of(i) - frame.x.0) * per_x;
            let half = text_width(&text, look.px(ID_PX)) / 2.0;
            if px - half > right_edge + look.px(6.0) && px - half >= -1.0 && px + half <= plot_w + 1.0 {
                right_edge = px + half;
                ids.push(Text::new(text, (x_of(i), bar.0 + (bar.1 - bar.0) * 0.62), id_font.clone()));
            }
        }
        chart.draw_series(ids)?;
        // The lane's words above its bar, from the bar's left end, or ending at its right end when
        // they would leave the plot.
        let mine: Vec<_> = overlaps.iter().filter(|o| o.job == k).collect();
        let words = crate::report::chart::lane_label(job, &mine, jobs);
        let px = look.px(TEXT_PX);
        let width = text_width(&words, px);
        let start = (a - frame.x.0) * per_x;
        let bad = !mine.is_empty();
        let font = look.font(TEXT_PX, if bad { red } else { look.ink() });
        let (at, anchor, words) = if start + width <= plot_w {
            (a, HPos::Left, words)
        } else if (b - frame.x.0) * per_x - width >= 0.0 {
            (b, HPos::Right, words)
        } else {
            (frame.x.0, HPos::Left, super::look::fit(&words, px, plot_w))
        };
        chart.draw_series(std::iter::once(Text::new(words, (at, top - 0.08), font.pos(Pos::new(anchor, VPos::Top)))))?;
    }
    if jobs.len() > shown.len() {
        let more = crate::report::chart::more_jobs(jobs.len() - shown.len());
        area.draw(&Text::new(more, (look.len(12.0) as i32, 0), look.font(12.0, look.faint())))?;
    }
    Ok(())
}
