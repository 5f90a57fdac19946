//! An opened table: what it is, how complete the reading is, the growth chart and its snapshots.

use leptos::prelude::*;

use super::charts::Charts;
use super::findings_panel::FindingsPanel;
use super::snapshot_table::SnapshotTable;
use super::{AppState, Opened};

#[component]
pub fn TableView(opened: Opened) -> impl IntoView {
    let state = expect_context::<AppState>();
    let t = &opened.report.table;
    let (done, total) = opened.progress;
    let state_attr = if opened.loading { "loading" } else { "ready" };
    let gaps = opened.report.gaps.clone();
    let jobs = opened.series.job_ids();
    view! {
        <section class="table-view" data-testid="table-view" data-state=state_attr>
            <div class="table-head">
                <button class="link" data-testid="back" on:click=move |_| { state.opened.set(None); state.errors.set(Vec::new()); }>"← examples"</button>
                <h2 data-testid="table-name">{opened.name.clone()}</h2>
                <dl class="facts">
                    <div><dt>"snapshots"</dt><dd data-testid="snapshot-count">{opened.report.snapshots.len()}</dd></div>
                    <div><dt>"format"</dt><dd>{format!("v{}", t.format_version)}</dd></div>
                    <div><dt>"Flink jobs"</dt><dd>{if jobs.is_empty() { "none (no flink.job-id in any summary)".to_string() } else { jobs.len().to_string() }}</dd></div>
                    <div class="wide"><dt>"location"</dt><dd class="mono" data-testid="table-location">{t.location.clone()}</dd></div>
                    <div class="wide"><dt>"metadata file"</dt><dd class="mono">{t.metadata_file.clone()}</dd></div>
                </dl>
                <Show when=move || opened.loading>
                    <p class="progress" data-testid="progress">
                        <progress max=total value=done></progress>
                        {format!(" {done} of {total} metadata files read · {} KB", opened.bytes_read / 1024)}
                        <button data-testid="cancel" on:click=move |_| state.cancelled.set(state.generation.get_untracked())>"Cancel"</button>
                    </p>
                </Show>
                {opened.stopped.clone().map(|s| view! { <p class="hint" data-testid="stopped">{s}</p> })}
            </div>
            {(!gaps.is_empty()).then(|| view! {
                <details class="gaps" open>
                    <summary>{format!("{} file(s) could not be read — their snapshots show no counts", gaps.len())}</summary>
                    <ul>{gaps.into_iter().map(|g| {
                        let needed = g.snapshot_ids.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ");
                        view! { <li class="mono" data-testid="load-error">{g.message}<br/><span class="hint">{format!("needed by snapshot(s) {needed}")}</span></li> }
                    }).collect_view()}</ul>
                </details>
            })}
            {move || state.vended.get().map(|v| view! {
                <details class="vended" data-testid="vended">
                    <summary>{format!("What the catalog handed out ({} properties, secrets masked)", v.len())}</summary>
                    {if v.is_empty() { Some(view! { <p class="hint">"No table config and no storage credentials: reads use the object-store settings typed above."</p> }) } else { None }}
                    <table class="kv">{v.into_iter().map(|(scope, k, val)| view! { <tr><td>{scope}</td><td class="mono">{k}</td><td class="mono">{val}</td></tr> }).collect_view()}</table>
                </details>
            })}
            <AlertStrip opened=opened.clone()/>
            <Charts opened=opened.clone()/>
            <FindingsPanel opened=opened.clone()/>
            <SnapshotTable opened=opened.clone()/>
        </section>
    }
}

/// The critical and warning findings, above the charts: what the on-call engineer came for.
#[component]
fn AlertStrip(opened: Opened) -> impl IntoView {
    use crate::analysis::findings::Severity;
    let alerts: Vec<_> = opened.report.findings.iter().filter(|f| f.severity >= Severity::Warning).cloned().collect();
    (!alerts.is_empty()).then(|| view! {
        <ul class="alerts" data-testid="alerts">
            {alerts.into_iter().map(|f| {
                let sev = if f.severity == Severity::Critical { "critical" } else { "warning" };
                view! { <li class=sev><span class="badge">{sev}</span>{f.title}</li> }
            }).collect_view()}
            <li class="more"><a href="#findings">"details and statements below ↓"</a></li>
        </ul>
    })
}
