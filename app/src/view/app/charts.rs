//! The four charts of an opened table, one at a time behind tabs.

use std::rc::Rc;

use leptos::prelude::*;

use crate::model::time::rfc3339_ms;
use crate::view::chart::deletes::draw_deletes;
use crate::view::chart::growth::draw_growth;
use crate::view::chart::partitions::draw_partitions;
use crate::view::chart::projection::draw_projection;
use crate::view::chart::timeline::draw_timeline;
use crate::view::chart::Stamp;

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

#[component]
pub fn Charts(opened: Opened) -> impl IntoView {
    let tab = RwSignal::new(Tab::Growth);
    let stamp = Stamp {
        table: opened.name.clone(),
        snapshot: opened.report.table.current_snapshot_id.map(|s| s.to_string()).unwrap_or_else(|| "none".into()),
        generated_at: rfc3339_ms(js_sys::Date::now() as i64),
    };
    let stem = format!("icescope-{}-{}", opened.name.replace(['/', ' ', '\\'], "_"), stamp.snapshot);
    // The job each finding blames: the replaying one, or the one that started second.
    let flagged: Vec<(String, &'static str)> = opened
        .report
        .findings
        .iter()
        .filter_map(|f| match f.kind {
            "savepoint_replayed" => f.job_ids.first().map(|j| (j.clone(), "REPLAY")),
            "concurrent_writers" => f.job_ids.get(1).map(|j| (j.clone(), "CONCURRENT")),
            _ => None,
        })
        .collect();
    view! {
        <nav class="tabs">
            {TABS.iter().map(|&(t, label, id)| view! {
                <button class="tab" class:active=move || tab.get() == t data-testid=id on:click=move |_| tab.set(t)>{label}</button>
            }).collect_view()}
        </nav>
        {move || {
            let (s, o) = (stamp.clone(), opened.clone());
            let (testid, suffix, draw): (&'static str, &str, DrawFn) = match tab.get() {
                Tab::Growth => ("growth-chart", "growth", Rc::new(move |a| draw_growth(a, &o.series, &s))),
                Tab::Jobs => { let f = flagged.clone(); ("jobs-chart", "jobs", Rc::new(move |a| draw_timeline(a, &o.jobs, &f, &s))) }
                Tab::Partitions => ("partitions-chart", "partitions", Rc::new(move |a| draw_partitions(a, &o.partitions, &o.partition_timeline, &s))),
                Tab::Deletes => ("deletes-chart", "deletes", Rc::new(move |a| draw_deletes(a, &o.series, &s))),
                Tab::Projection => ("projection-chart", "projection", Rc::new(move |a| {
                    let now = o.series.points.iter().rev().find_map(|p| p.counts.as_ref());
                    draw_projection(a, o.report.projection.as_ref(), now, o.report.snapshots.len(), &s)
                })),
            };
            let height = match testid {
                "jobs-chart" => (160 + 70 * opened.jobs.len() as u32).clamp(260, 520),
                "partitions-chart" => 760,
                _ => super::chart_canvas::HEIGHT,
            };
            view! { <ChartCanvas testid=testid file_stem=format!("{stem}-{suffix}") draw=draw height=height/> }
        }}
    }
}
