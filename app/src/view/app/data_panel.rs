//! "Count duplicates": the open snapshot's key columns read from the data files (ranged reads
//! through the table's own source), deletes applied, duplicates split by the Flink job that added
//! each copy, and what each delete hit. The counting is `analysis::duplicates`; the reading is
//! `load::data_scan`; this file only starts it, shows progress, cancels and draws the result.

use std::sync::Arc;

use super::tasks::spawn;
use leptos::prelude::*;

use crate::analysis::duplicates::{DuplicateReport, DEFAULT_KEY_BUDGET};
use crate::report::format::thousands;
use crate::session::ScanProgress;

use super::loader::{released, session};
use super::AppState;

#[derive(Clone, Debug, Default, PartialEq)]
struct Scan {
    running: bool,
    progress: ScanProgress,
    result: Option<Result<Arc<DuplicateReport>, String>>,
}

#[component]
pub fn DuplicatesPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let exported = state.part(|o| o.report.load.as_ref().is_some_and(|l| l.mode == crate::analysis::inspect::LoadMode::SparkExport));
    let exported = move || exported.get() == Some(true);
    let keys = RwSignal::new(String::new());
    let scan = RwSignal::new(Scan::default());
    let cancel = RwSignal::new(false);
    let start = move |_| {
        if scan.with_untracked(|s| s.running) {
            return;
        }
        cancel.set(false);
        scan.set(Scan { running: true, ..Scan::default() });
        let named: Vec<String> = keys.get_untracked().split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect();
        spawn(async move {
            let result = count(state, named, scan, cancel).await;
            scan.update(|s| {
                s.running = false;
                s.result = Some(result.map(Arc::new));
            });
        });
    };
    view! {
        <details class="duplicates" data-testid="duplicates-panel">
            <summary>"Duplicate keys, counted from the data files"</summary>
            <p class="hint">"Reads only the key columns of the current snapshot's live data files (ranged reads: footers, then the key columns' chunks), applies position deletes, deletion vectors and equality deletes, and splits each duplicated key's copies by the Flink job that added them."</p>
            <label>"key columns "
                <input type="text" placeholder="the schema's identifier fields" data-testid="duplicate-keys"
                    prop:value=move || keys.get() on:input=move |ev| keys.set(event_target_value(&ev))/>
            </label>
            " "
            {move || exported().then(|| view! { <p class="hint" data-testid="data-not-here">{crate::report::load::DATA_NOT_HERE}</p> })}
            <button data-testid="count-duplicates" disabled=move || exported() || scan.with(|s| s.running) on:click=start>"Count duplicates"</button>
            {move || scan.with(|s| s.running).then(|| view! {
                <button class="link" data-testid="cancel-duplicates" on:click=move |_| cancel.set(true)>"cancel"</button>
            })}
            {move || scan.with(|s| s.running).then(|| {
                let p = scan.with(|s| s.progress);
                view! { <p class="hint" data-testid="duplicates-progress">{format!("{} of {} files, {} bytes fetched", p.files_done, p.files_total, thousands(p.bytes_fetched))}</p> }
            })}
            {move || scan.with(|s| s.result.clone()).map(|r| match r {
                Err(e) => view! { <p class="error" data-testid="duplicates-error">{e}</p> }.into_any(),
                Ok(r) => view! { <DuplicatesResult report=r/> }.into_any(),
            })}
        </details>
    }
}

#[component]
fn DuplicatesResult(report: Arc<DuplicateReport>) -> impl IntoView {
    let r = report;
    let same = |v: &str| v.to_string();
    let head = crate::report::duplicates::summary(&r, &same);
    let fetched = crate::report::duplicates::fetched(&r);
    view! {
        <div data-testid="duplicates-result">
            <p data-testid="duplicates-summary">{head}</p>
            {r.estimate.clone().map(|e| view! { <p class="hint">{e}</p> })}
            <ul>{r.by_jobs.iter().map(|s| view! { <li class="mono" data-testid="duplicates-split">{crate::report::duplicates::split(s, &same)}</li> }).collect_view()}</ul>
            <p class="hint">{fetched}</p>
            {(!r.delete_hits.is_empty()).then(|| view! {
                <details>
                    <summary>{format!("What deletes hit ({})", r.delete_hits.len())}</summary>
                    <ul>{r.delete_hits.iter().take(200).map(|h| view! {
                        <li class="mono">{crate::report::duplicates::hit(h, &same)}</li>
                    }).collect_view()}</ul>
                </details>
            })}
        </div>
    }
}

/// Runs the scan over the open table's own files, with the session held for it.
async fn count(state: AppState, named: Vec<String>, scan: RwSignal<Scan>, cancel: RwSignal<bool>) -> Result<DuplicateReport, String> {
    let shared = session(state).ok_or("the table is no longer open")?;
    let Some(s) = shared.try_lock() else {
        return Err("the table is still loading: count once reading has finished".into());
    };
    let mut progress = |p: ScanProgress| scan.update(|s| s.progress = p);
    let stop = || cancel.get_untracked();
    let result = s.count_duplicates(&named, DEFAULT_KEY_BUDGET, &mut progress, &stop).await;
    drop(s);
    released(state);
    result
}
