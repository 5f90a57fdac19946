//! "Check footers": the current snapshot's live Parquet files, each footer read with ranged reads
//! through the table's own source (`load::data_scan::read_footers`, as `icescope footers`), checked
//! against its manifest entry (`analysis::footers`), and the Puffin footers its deletion vectors
//! point into (`analysis::vector_footers`). Mismatches join the findings; the columns the files
//! really carry feed the schema findings.

use super::tasks::spawn;
use leptos::prelude::*;

use crate::analysis::vector_footers::VectorCheck;
use crate::report::format::thousands;

use super::loader::{publish, released, session};
use super::AppState;

#[derive(Clone, Debug, Default, PartialEq)]
struct Check {
    running: bool,
    done: usize,
    total: usize,
    error: Option<String>,
}

#[component]
pub fn FootersPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let exported = state.part(|o| o.report.load.as_ref().is_some_and(|l| l.mode == crate::analysis::inspect::LoadMode::SparkExport));
    let exported = move || exported.get() == Some(true);
    let check = RwSignal::new(Check::default());
    let cancel = RwSignal::new(false);
    let start = move |_| {
        if check.with_untracked(|c| c.running) {
            return;
        }
        cancel.set(false);
        check.set(Check { running: true, ..Check::default() });
        spawn(async move {
            let error = run(state, check, cancel).await.err();
            check.update(|c| {
                c.running = false;
                c.error = error;
            });
        });
    };
    let report = state.part(|o| o.footers.clone());
    let report = move || report.get().flatten();
    view! {
        <details class="footers" data-testid="footers-panel">
            <summary>"Parquet and Puffin footers against the manifests"</summary>
            <p class="hint">"Reads the footer of every live Parquet file of the current snapshot (ranged reads: the last 8 bytes, then the footer) and checks the manifest's record_count and file_size_in_bytes against it; on format v3 tables also the footer of each Puffin file its deletion vectors live in, where every vector's blob, data file and cardinality must be listed as the manifest says. A mismatch is a finding; the columns the files carry replace the manifests' metric keys in the schema findings."</p>
            {move || exported().then(|| view! { <p class="hint" data-testid="data-not-here">{crate::report::load::DATA_NOT_HERE}</p> })}
            <button data-testid="check-footers" disabled=move || exported() || check.with(|c| c.running) on:click=start>"Check footers"</button>
            {move || check.with(|c| c.running).then(|| view! {
                <button class="link" data-testid="cancel-footers" on:click=move |_| cancel.set(true)>"cancel"</button>
                <p class="hint" data-testid="footers-progress">{move || check.with(|c| format!("{} of {} footers read", c.done, c.total))}</p>
            })}
            {move || check.with(|c| c.error.clone()).map(|e| view! { <p class="error" data-testid="footers-error">{e}</p> })}
            {move || report().map(|r| {
                let head = crate::report::footers::summary_line(&r);
                let shown = r.files_checked.len().min(200);
                view! {
                    <div data-testid="footers-result" data-files=r.files.to_string() data-footers-read=r.footers_read.to_string()
                        data-record-mismatches=r.record_count_mismatches.to_string() data-size-mismatches=r.size_mismatches.to_string()
                        data-unreadable=r.unreadable.to_string() data-bytes-fetched=r.bytes_fetched.to_string() data-bytes-in-files=r.bytes_in_files.to_string()>
                        <p data-testid="footers-summary">{head}</p>
                        <table class="footers-table">
                            <thead><tr><th>"file"</th><th>"rows (manifest)"</th><th>"rows (footer)"</th><th>"bytes (manifest)"</th><th>"bytes (object)"</th><th>"row groups"</th><th>"codecs"</th><th>"created by"</th></tr></thead>
                            <tbody>{r.files_checked.iter().take(shown).map(|f| {
                                let bad = f.records_match == Some(false) || f.size_matches == Some(false) || f.error.is_some();
                                view! {
                                    <tr data-testid="footer-row" class=if bad { "mismatch" } else { "" } data-path=f.file_path.clone()
                                        data-manifest-rows=f.manifest_record_count.to_string() data-footer-rows=f.footer_rows.map(|r| r.to_string()).unwrap_or_default()>
                                        <td class="mono">{f.file_path.rsplit('/').next().unwrap_or_default().to_string()}</td>
                                        <td class="num">{thousands(f.manifest_record_count.max(0) as u64)}</td>
                                        <td class="num">{f.footer_rows.map(|r| thousands(r.max(0) as u64)).unwrap_or_else(|| f.error.clone().unwrap_or_default())}</td>
                                        <td class="num">{thousands(f.manifest_file_size.max(0) as u64)}</td>
                                        <td class="num">{f.object_size.map(thousands).unwrap_or_default()}</td>
                                        <td class="num">{f.row_groups.map(|g| g.to_string()).unwrap_or_default()}</td>
                                        <td>{f.codecs.join(", ")}</td>
                                        <td class="mono">{f.created_by.clone().unwrap_or_default()}</td>
                                    </tr>
                                }
                            }).collect_view()}</tbody>
                        </table>
                        {(r.files_checked.len() > shown).then(|| view! { <p class="hint">{format!("{} more files: export or use `icescope footers` for all", r.files_checked.len() - shown)}</p> })}
                        <VectorTable check=r.deletion_vectors.clone() />
                    </div>
                }
            })}
        </details>
    }
}

/// The deletion vectors against their Puffin footers; nothing on a table without vectors.
#[component]
fn VectorTable(check: VectorCheck) -> impl IntoView {
    (check.vectors > 0 || check.puffin_files > 0).then(|| {
        let head = crate::report::footers::vectors_line(&check);
        let shown = check.vectors_checked.len().min(200);
        let more = check.vectors_checked.len() - shown;
        view! {
            <div data-testid="vectors-result" data-vectors=check.vectors.to_string() data-puffin-files=check.puffin_files.to_string()
                data-puffin-footers-read=check.puffin_footers_read.to_string() data-mismatches=check.mismatches.to_string() data-unchecked=check.unchecked.to_string()>
                <p data-testid="vectors-summary">{head}</p>
                <table class="footers-table">
                    <thead><tr><th>"Puffin file"</th><th>"offset"</th><th>"bytes"</th><th>"data file"</th><th>"cardinality (manifest)"</th><th>"cardinality (footer)"</th><th>"check"</th></tr></thead>
                    <tbody>{check.vectors_checked.into_iter().take(shown).map(|v| {
                        let name = |p: &str| p.rsplit('/').next().unwrap_or_default().to_string();
                        let verdict = match (v.matches, v.problem.clone()) {
                            (Some(true), _) => "matches".to_string(),
                            (_, Some(p)) => p,
                            _ => String::new(),
                        };
                        view! {
                            <tr data-testid="vector-row" class=if v.matches == Some(true) { "" } else { "mismatch" } data-path=v.puffin_path.clone()
                                data-manifest-cardinality=v.manifest_cardinality.to_string() data-footer-cardinality=v.footer_cardinality.map(|c| c.to_string()).unwrap_or_default()>
                                <td class="mono">{name(&v.puffin_path)}</td>
                                <td class="num">{v.content_offset.map(|o| o.to_string()).unwrap_or_default()}</td>
                                <td class="num">{v.content_size_in_bytes.map(|o| o.to_string()).unwrap_or_default()}</td>
                                <td class="mono">{v.referenced_data_file.as_deref().map(name).unwrap_or_default()}</td>
                                <td class="num">{thousands(v.manifest_cardinality.max(0) as u64)}</td>
                                <td class="num">{v.footer_cardinality.map(|c| thousands(c.max(0) as u64)).unwrap_or_default()}</td>
                                <td>{verdict}</td>
                            </tr>
                        }
                    }).collect_view()}</tbody>
                </table>
                {(more > 0).then(|| view! { <p class="hint">{format!("{more} more vectors: use `icescope footers` for all")}</p> })}
            </div>
        }
    })
}

/// Reads the footers with the session held, then publishes the report with them.
async fn run(state: AppState, check: RwSignal<Check>, cancel: RwSignal<bool>) -> Result<(), String> {
    let generation = state.generation.get_untracked();
    let shared = session(state).ok_or("the table is no longer open")?;
    let Some(mut s) = shared.try_lock() else {
        return Err("the table is still loading: check once reading has finished".into());
    };
    let mut progress = |done: usize, total: usize| check.update(|c| (c.done, c.total) = (done, total));
    let stop = || cancel.get_untracked();
    let result = s.read_footers(&mut progress, &stop).await;
    if result.is_ok() && state.generation.get_untracked() == generation {
        publish(state, &mut s, 0);
    }
    drop(s);
    released(state);
    result
}
