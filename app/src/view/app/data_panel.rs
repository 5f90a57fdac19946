//! "Count duplicates": the open snapshot's key columns read from the data files (ranged reads
//! through the table's own source), deletes applied, duplicates split by the Flink job that added
//! each copy, and what each delete hit. The counting is `analysis::duplicates`; the reading is
//! `load::data_scan`; this file only starts it, shows progress, cancels and draws the result.

use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::analysis::duplicates::{resolve_keys, DuplicateReport, KeyCounter, ScanTotals, DEFAULT_KEY_BUDGET};
use crate::analysis::findings::thousands;
use crate::load::data_scan::{scan_keys_with, ScanProgress};

use super::decoder::WorkerDecoder;
use super::loader::with_session;
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
    let exported = move || state.opened.with(|o| o.as_ref().and_then(|o| o.report.load.as_ref()).is_some_and(|l| l.mode == "spark_export"));
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
        spawn_local(async move {
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
            {move || exported().then(|| view! { <p class="hint" data-testid="data-not-here">"Spark read this table: its data files are not in an export folder. Open the table's own folder or catalog to read them."</p> })}
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
    let head = format!(
        "snapshot {}, key {}: {} live rows ({} in the files, {} deleted), {} distinct keys{}, {} keys present more than once{}",
        r.snapshot_id,
        r.key_columns.join(", "),
        thousands(r.rows),
        thousands(r.rows_in_files),
        thousands(r.rows_deleted),
        thousands(r.distinct_keys),
        if r.exact { "" } else { " (estimated)" },
        r.duplicated_keys.map(thousands).unwrap_or_else(|| "(not counted)".into()),
        if r.cancelled { " — cancelled: partial counts" } else { "" }
    );
    let fetched = format!("{} files read, {} bytes fetched of {} in them", r.files_read, thousands(r.bytes_fetched), thousands(r.bytes_in_files));
    view! {
        <div data-testid="duplicates-result">
            <p data-testid="duplicates-summary">{head}</p>
            {r.estimate.clone().map(|e| view! { <p class="hint">{e}</p> })}
            <ul>{r.by_jobs.iter().map(|s| {
                let jobs = s.copies_by_job.iter().map(|(j, n)| format!("{n}× by {j}")).collect::<Vec<_>>().join(", ");
                view! { <li class="mono" data-testid="duplicates-split">{format!("{} keys: {jobs}", thousands(s.keys))}</li> }
            }).collect_view()}</ul>
            <p class="hint">{fetched}</p>
            {(!r.delete_hits.is_empty()).then(|| view! {
                <details>
                    <summary>{format!("What deletes hit ({})", r.delete_hits.len())}</summary>
                    <ul>{r.delete_hits.iter().take(200).map(|h| view! {
                        <li class="mono">{format!("{} {} → {}: {} rows{}", h.kind, h.delete_file, h.data_file, thousands(h.rows), if h.applies { "" } else { " (does not apply)" })}</li>
                    }).collect_view()}</ul>
                </details>
            })}
        </div>
    }
}

/// Runs the scan over the open table's own files, with the loader's session borrowed for it.
async fn count(state: AppState, named: Vec<String>, scan: RwSignal<Scan>, cancel: RwSignal<bool>) -> Result<DuplicateReport, String> {
    let Some(session) = with_session(state) else {
        return Err("the table is still loading: count once reading has finished".into());
    };
    let (files, loader) = (&session.files, &session.loader);
    let h = &loader.history;
    let result = async {
        let index = h.current_index().ok_or("the table has no snapshots")?;
        if !h.has_files(index) {
            return Err("the current snapshot's manifests are not all read".to_string());
        }
        let keys = resolve_keys(h, (!named.is_empty()).then_some(named.as_slice()))?;
        let mut counter = KeyCounter::new(h, DEFAULT_KEY_BUDGET);
        let mut progress = |p: ScanProgress| scan.update(|s| s.progress = p);
        let stop = || cancel.get_untracked();
        let r = scan_keys_with(&**files, &WorkerDecoder, h, index, &keys, &mut counter, &mut progress, &stop).await?;
        let totals = ScanTotals {
            rows_in_files: r.rows_in_files,
            rows_deleted: r.rows_deleted,
            hits: r.hits,
            files_read: r.fetched.files,
            bytes_fetched: r.fetched.bytes_fetched,
            bytes_in_files: r.fetched.bytes_in_files,
            cancelled: r.cancelled,
        };
        Ok(counter.finish(h.snapshots[index].snapshot.snapshot_id, keys.into_iter().map(|(_, n)| n).collect(), totals))
    }
    .await;
    super::loader::return_session(state, session);
    result
}
