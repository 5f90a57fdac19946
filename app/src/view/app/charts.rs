//! The charts of an opened table, one at a time behind tabs. The tab a person chose stays while
//! the table loads; the visible chart redraws as the report updates.

use std::rc::Rc;

use leptos::prelude::*;

use crate::view::chart::deletes::draw_deletes;
use crate::view::chart::growth::draw_growth;
use crate::view::chart::partitions::draw_partitions;
use crate::view::chart::projection::draw_projection;
use crate::view::chart::timeline::draw_timeline;

use super::chart_canvas::{ChartCanvas, DrawFn};
use super::Opened;

#[derive(Clone, Copy, PartialEq)]
enum Tab {
    Growth,
    Jobs,
    Partitions,
    Deletes,
    Projection,
}

const TABS: [(Tab, &str, &str); 5] = [
    (Tab::Growth, "Growth", "tab-growth"),
    (Tab::Jobs, "Flink jobs", "tab-jobs"),
    (Tab::Partitions, "Partitions", "tab-partitions"),
    (Tab::Deletes, "Delete debt", "tab-deletes"),
    (Tab::Projection, "A day from now", "tab-projection"),
];

/// The job each finding blames: the replaying one, or the one that started second.
fn flagged(o: &Opened) -> Vec<(String, &'static str)> {
    o.report
        .findings
        .iter()
        .filter_map(|f| match f.kind {
            "savepoint_replayed" => f.job_ids.first().map(|j| (j.clone(), "REPLAY")),
            "concurrent_writers" => f.job_ids.get(1).map(|j| (j.clone(), "CONCURRENT")),
            _ => None,
        })
        .collect()
}

#[component]
pub fn Charts() -> impl IntoView {
    let tab = RwSignal::new(Tab::Growth);
    view! {
        <nav class="tabs" role="tablist">
            {TABS.iter().map(|&(t, label, id)| view! {
                <button class="tab" role="tab" class:active=move || tab.get() == t aria-selected=move || (tab.get() == t).to_string()
                    data-testid=id on:click=move |_| tab.set(t)>{label}</button>
            }).collect_view()}
        </nav>
        {move || {
            let (testid, suffix, draw, height): (&'static str, &'static str, DrawFn, fn(&Opened) -> u32) = match tab.get() {
                Tab::Growth => ("growth-chart", "growth", Rc::new(|a, o, s| draw_growth(a, &o.series, s)), |_| super::chart_canvas::HEIGHT),
                Tab::Jobs => (
                    "jobs-chart",
                    "jobs",
                    Rc::new(|a, o, s| draw_timeline(a, &o.jobs, &maintenance(o), &flagged(o), s)),
                    |o| (160 + 70 * o.jobs.len().min(64) as u32).clamp(260, 520),
                ),
                Tab::Partitions => ("partitions-chart", "partitions", Rc::new(|a, o, s| draw_partitions(a, &o.partitions, &o.partition_timeline, s)), |_| 760),
                Tab::Deletes => ("deletes-chart", "deletes", Rc::new(|a, o, s| draw_deletes(a, &o.series, s)), |_| super::chart_canvas::HEIGHT),
                Tab::Projection => (
                    "projection-chart",
                    "projection",
                    Rc::new(|a, o, s| {
                        let now = o.series.points.iter().rev().map(|p| &p.totals).find(|t| t.has_core());
                        draw_projection(a, o.report.projection.as_ref(), now, o.report.snapshots.len(), s)
                    }),
                    |_| super::chart_canvas::HEIGHT,
                ),
            };
            view! { <ChartCanvas testid=testid suffix=suffix draw=draw height=height/> }
        }}
    }
}

/// Commit times of Flink's in-job maintenance, for their lane on the job timeline.
fn maintenance(o: &super::Opened) -> Vec<i64> {
    o.report.snapshots.iter().filter(|s| s.writer == crate::model::Writer::FlinkMaintenance).map(|s| s.timestamp_ms).collect()
}
