//! One chart of one table, as the app's tabs, its downloads and `icescope chart` all draw it: what
//! it is drawn from, how tall it is at a width, and the SVG of it. The browser and the CLI call
//! these same functions, so a ticket's picture is the same drawing wherever it was made.

use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend, IntoDrawingArea, SVGBackend};

use crate::analysis::inspect::Inspect;
use crate::analysis::jobs::JobSpan;
use crate::analysis::partitions::{PartitionStat, PartitionTimeline};
use crate::analysis::GrowthSeries;
pub use crate::report::chart::ChartKind;

use super::backend::Measured;
use super::look::Look;
use super::{chrome_height, Drawn, Dress, Stamp};

/// What the charts are drawn from: the analysis of one table.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    pub series: &'a GrowthSeries,
    pub jobs: &'a [JobSpan],
    pub partitions: &'a [PartitionStat],
    pub timeline: &'a PartitionTimeline,
    pub report: &'a Inspect,
    /// The table is watched: the newest snapshot is ringed on the growth chart.
    pub live: bool,
}

/// The analysis the charts read, owned: what the CLI makes of a table, as the app's loader does.
pub struct Analysed {
    pub series: GrowthSeries,
    pub jobs: Vec<JobSpan>,
    pub partitions: Vec<PartitionStat>,
    pub timeline: PartitionTimeline,
    pub report: Inspect,
}

/// Snapshots the partition map covers, as in the app.
pub const TIMELINE_SNAPSHOTS: usize = 200;

impl Analysed {
    pub fn of(history: &crate::model::TableHistory, report: Inspect) -> Analysed {
        Analysed {
            series: GrowthSeries::of(history),
            jobs: crate::analysis::jobs::job_spans(history),
            partitions: crate::analysis::partitions::partition_stats(history),
            timeline: crate::analysis::partitions::partition_timeline(history, TIMELINE_SNAPSHOTS),
            report,
        }
    }

    pub fn inputs(&self) -> Inputs<'_> {
        Inputs { series: &self.series, jobs: &self.jobs, partitions: &self.partitions, timeline: &self.timeline, report: &self.report, live: false }
    }
}

fn dress<'a>(kind: ChartKind, inputs: &Inputs<'_>, stamp: &'a Stamp, look: Look) -> Dress<'a> {
    Dress { stamp, look, title: crate::report::chart::title(kind, &inputs.report.findings) }
}

/// The chart's height at this width, in the same pixels.
pub fn height(kind: ChartKind, inputs: &Inputs<'_>, stamp: &Stamp, width: u32, look: Look) -> u32 {
    let d = dress(kind, inputs, stamp, look);
    let table = &stamp.table;
    let (caption, legend, plot) = match kind {
        ChartKind::Growth => (
            super::growth::caption(inputs.series, table),
            super::growth::legend_items(inputs.series, &look),
            super::growth::plot_height(inputs.series, inputs.jobs, width, &look),
        ),
        ChartKind::Deletes => (
            crate::report::chart::deletes_caption(table),
            super::deletes::legend_items(inputs.series, &look),
            super::deletes::plot_height(inputs.jobs, width, &look),
        ),
        ChartKind::Partitions => {
            let shown = inputs.partitions.len().min(super::partitions::MAX_BARS);
            (
                crate::report::chart::partitions_caption(table, shown, inputs.partitions.len(), inputs.report.files_wait.as_ref()),
                super::partitions::legend_items(inputs.partitions, &look),
                super::partitions::plot_height(width, &look),
            )
        }
        ChartKind::Jobs => {
            let lanes = inputs.jobs.len().min(64) + usize::from(!maintenance(inputs.report).is_empty());
            (crate::report::chart::jobs_caption(table), Vec::new(), look.len(110.0 + 58.0 * lanes.max(1) as f64))
        }
        ChartKind::Projection => {
            let caption =
                inputs.report.projection.as_ref().map(|p| crate::report::chart::projection_caption(table, p.interval_ms)).unwrap_or_else(|| table.clone());
            let rows = if inputs.report.projection.as_ref().is_some_and(|p| p.day.metadata_json_bytes.is_some()) { 5.0 } else { 4.0 };
            (caption, Vec::new(), look.len(90.0 + 64.0 * rows))
        }
    };
    chrome_height(width, &d, &caption, &legend) + plot
}

/// Draws one chart on any backend: the page's canvas, or SVG for a download or the CLI.
pub fn draw<DB: DrawingBackend>(kind: ChartKind, area: &DrawingArea<DB, Shift>, inputs: &Inputs<'_>, stamp: &Stamp, look: Look) -> Drawn {
    let d = dress(kind, inputs, stamp, look);
    match kind {
        ChartKind::Growth => super::growth::draw_growth(area, inputs.series, inputs.jobs, inputs.live, &d),
        ChartKind::Jobs => {
            super::timeline::draw_timeline(area, inputs.jobs, &maintenance(inputs.report), &flagged(inputs.report), &shape_events(inputs.report), &d)
        }
        ChartKind::Partitions => super::partitions::draw_partitions(area, inputs.partitions, inputs.timeline, inputs.report.files_wait.as_ref(), &d),
        ChartKind::Deletes => super::deletes::draw_deletes(area, inputs.series, inputs.jobs, &d),
        ChartKind::Projection => super::projection::draw_projection(area, inputs.report.projection.as_ref(), &d),
    }
}

/// The chart as an SVG document `width` pixels wide, its height as `height` gives it.
pub fn svg(kind: ChartKind, inputs: &Inputs<'_>, stamp: &Stamp, look: Look, width: u32) -> Result<String, String> {
    let h = height(kind, inputs, stamp, width, look);
    let mut out = String::new();
    let drawn = {
        let root = Measured::svg(SVGBackend::with_string(&mut out, (width, h))).into_drawing_area();
        draw(kind, &root, inputs, stamp, look)
    };
    drawn.map(|_| out)
}

/// The job each finding blames: the replaying one, or the one that started second.
fn flagged(report: &Inspect) -> Vec<(String, &'static str)> {
    report
        .findings
        .iter()
        .filter_map(|f| match f.kind {
            crate::analysis::findings::FindingKind::SavepointReplayed => f.job_ids.first().map(|j| (j.clone(), "REPLAY")),
            crate::analysis::findings::FindingKind::ConcurrentWriters => f.job_ids.get(1).map(|j| (j.clone(), "CONCURRENT")),
            _ => None,
        })
        .collect()
}

/// The first commit of each schema after the first: where the table's shape changed.
fn shape_events(report: &Inspect) -> Vec<(i64, String)> {
    report
        .shape
        .schemas
        .iter()
        .filter_map(|v| {
            let c = v.change.as_ref()?;
            let (_, t, _) = v.first_used.as_ref()?;
            Some((*t, crate::report::diff::schema_marker(c)))
        })
        .collect()
}

/// Commit times of Flink's in-job maintenance, for their lane on the job timeline.
fn maintenance(report: &Inspect) -> Vec<i64> {
    report.snapshots.iter().filter(|s| s.writer == crate::model::Writer::FlinkMaintenance).map(|s| s.timestamp_ms).collect()
}
