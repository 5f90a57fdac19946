//! The charts of an opened table, one at a time behind tabs. The tab a person chose stays while
//! the table loads; the visible chart redraws as the report updates.

use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, DrawingBackend};
use wasm_bindgen::JsCast;

use crate::view::chart::deletes::draw_deletes;
use crate::view::chart::growth::draw_growth;
use crate::view::chart::partitions::draw_partitions;
use crate::view::chart::projection::draw_projection;
use crate::view::chart::timeline::draw_timeline;

use crate::view::chart::{Drawn, Stamp};

use super::chart_canvas::ChartCanvas;
use super::Opened;
use crate::analysis::findings::FindingKind;

#[derive(Clone, Copy, PartialEq)]
pub enum Tab {
    Growth,
    Jobs,
    Partitions,
    Deletes,
    Projection,
}

/// (tab, label, test id of the tab, test id of the chart, file name suffix)
const TABS: [(Tab, &str, &str, &str, &str); 5] = [
    (Tab::Growth, "Growth", "tab-growth", "growth-chart", "growth"),
    (Tab::Jobs, "Flink jobs", "tab-jobs", "jobs-chart", "jobs"),
    (Tab::Partitions, "Partitions", "tab-partitions", "partitions-chart", "partitions"),
    (Tab::Deletes, "Delete debt", "tab-deletes", "deletes-chart", "deletes"),
    (Tab::Projection, "A day from now", "tab-projection", "projection-chart", "projection"),
];

/// The job each finding blames: the replaying one, or the one that started second.
fn flagged(o: &Opened) -> Vec<(String, &'static str)> {
    o.report
        .findings
        .iter()
        .filter_map(|f| match f.kind {
            FindingKind::SavepointReplayed => f.job_ids.first().map(|j| (j.clone(), "REPLAY")),
            FindingKind::ConcurrentWriters => f.job_ids.get(1).map(|j| (j.clone(), "CONCURRENT")),
            _ => None,
        })
        .collect()
}

/// One tab's chart on any backend: the page's canvas, or SVG for a download.
pub fn draw<DB: DrawingBackend>(tab: Tab, a: &DrawingArea<DB, Shift>, o: &Opened, s: &Stamp) -> Drawn {
    match tab {
        Tab::Growth => draw_growth(a, &o.series, s),
        Tab::Jobs => draw_timeline(a, &o.jobs, &maintenance(o), &flagged(o), &shape_events(o), s),
        Tab::Partitions => draw_partitions(a, &o.partitions, &o.partition_timeline, s),
        Tab::Deletes => draw_deletes(a, &o.series, s),
        Tab::Projection => {
            let now = o.series.points.iter().rev().map(|p| p.totals()).find(|t| t.has_core());
            draw_projection(a, o.report.projection.as_ref(), now.as_ref(), o.report.snapshots.len(), s)
        }
    }
}

pub fn height(tab: Tab, o: &Opened) -> u32 {
    match tab {
        Tab::Jobs => (160 + 70 * o.jobs.len().min(64) as u32).clamp(260, 520),
        Tab::Partitions => 760,
        _ => super::chart_canvas::HEIGHT,
    }
}

#[component]
pub fn Charts() -> impl IntoView {
    let linked = super::permalink::get("tab").and_then(|t| TABS.iter().find(|x| x.4 == t).map(|x| x.0));
    let tab = RwSignal::new(linked.unwrap_or(Tab::Growth));
    Effect::new(move |_| {
        let t = tab.get();
        let suffix = TABS.iter().find(|x| x.0 == t).map(|x| x.4);
        super::permalink::set(&[("tab", suffix.filter(|s| *s != "growth"))]);
    });
    // Arrow keys move between tabs, as the WAI-ARIA tabs pattern has it; only the chosen tab is
    // in the Tab order.
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let i = TABS.iter().position(|t| t.0 == tab.get_untracked()).unwrap_or(0);
        let next = match ev.key().as_str() {
            "ArrowRight" => (i + 1) % TABS.len(),
            "ArrowLeft" => (i + TABS.len() - 1) % TABS.len(),
            "Home" => 0,
            "End" => TABS.len() - 1,
            _ => return,
        };
        ev.prevent_default();
        tab.set(TABS[next].0);
        let focus = web_sys::window().and_then(|w| w.document()).and_then(|d| d.query_selector(&format!("[data-testid=\"{}\"]", TABS[next].2)).ok().flatten());
        if let Some(el) = focus.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = el.focus();
        }
    };
    view! {
        <nav class="tabs" role="tablist" aria-label="charts" on:keydown=on_key>
            {TABS.iter().map(|&(t, label, id, chart, _)| view! {
                <button class="tab" role="tab" class:active=move || tab.get() == t aria-selected=move || (tab.get() == t).to_string()
                    tabindex=move || if tab.get() == t { "0" } else { "-1" } aria-controls=chart
                    data-testid=id on:click=move |_| tab.set(t)>{label}</button>
            }).collect_view()}
        </nav>
        {move || {
            let t = tab.get();
            let (_, _, _, testid, suffix) = TABS.iter().copied().find(|x| x.0 == t).unwrap_or(TABS[0]);
            view! { <ChartCanvas testid=testid suffix=suffix tab=t/> }
        }}
    }
}

/// The first commit of each schema after the first: where the table's shape changed.
fn shape_events(o: &Opened) -> Vec<(i64, String)> {
    o.report
        .shape
        .schemas
        .iter()
        .filter(|v| v.change.is_some())
        .filter_map(|v| {
            let c = v.change.as_ref()?;
            let (_, t, _) = v.first_used.as_ref()?;
            Some((*t, crate::report::diff::schema_marker(c)))
        })
        .collect()
}

/// Commit times of Flink's in-job maintenance, for their lane on the job timeline.
fn maintenance(o: &super::Opened) -> Vec<i64> {
    o.report.snapshots.iter().filter(|s| s.writer == crate::model::Writer::FlinkMaintenance).map(|s| s.timestamp_ms).collect()
}
