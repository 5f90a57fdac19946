//! The charts of an opened table, one at a time behind tabs. The tab a person chose stays while
//! the table loads; the visible chart redraws as the report updates.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::report::draw::picture::{ChartKind, Inputs};

use super::chart_canvas::ChartCanvas;
use super::Answer;

pub type Tab = ChartKind;

/// (tab, label, test id of the tab, test id of the chart); the file name suffix is the kind's name.
const TABS: [(Tab, &str, &str, &str); 5] = [
    (Tab::Growth, "Growth", "tab-growth", "growth-chart"),
    (Tab::Jobs, "Flink jobs", "tab-jobs", "jobs-chart"),
    (Tab::Partitions, "Partitions", "tab-partitions", "partitions-chart"),
    (Tab::Deletes, "Delete debt", "tab-deletes", "deletes-chart"),
    (Tab::Projection, "A day from now", "tab-projection", "projection-chart"),
];

/// What the charts are drawn from, out of the opened table.
pub fn inputs(o: &Answer) -> Inputs<'_> {
    Inputs { series: &o.series, jobs: &o.jobs, partitions: &o.partitions, timeline: &o.partition_timeline, report: &o.report, live: o.live.is_some() }
}

#[component]
pub fn Charts() -> impl IntoView {
    let linked = super::permalink::get("tab").and_then(|t| ChartKind::named(&t));
    let tab = RwSignal::new(linked.unwrap_or(Tab::Growth));
    Effect::new(move |_| {
        let t = tab.get();
        super::permalink::set(&[("tab", Some(t.name()).filter(|s| *s != "growth"))]);
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
            {TABS.iter().map(|&(t, label, id, chart)| view! {
                <button class="tab" role="tab" class:active=move || tab.get() == t aria-selected=move || (tab.get() == t).to_string()
                    tabindex=move || if tab.get() == t { "0" } else { "-1" } aria-controls=chart
                    data-testid=id on:click=move |_| tab.set(t)>{label}</button>
            }).collect_view()}
        </nav>
        {move || {
            let t = tab.get();
            let (_, _, _, testid) = TABS.iter().copied().find(|x| x.0 == t).unwrap_or(TABS[0]);
            view! { <ChartCanvas testid=testid tab=t/> }
        }}
    }
}
