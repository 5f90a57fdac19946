//! An opened table: what it is, how complete the reading is, the charts, findings and snapshots.
//! Built once per opened table; its parts follow `AppState::opened` and `progress` as they update.

use leptos::prelude::*;

use super::charts::Charts;
use super::findings_panel::FindingsPanel;
use super::loader::{request, Ask};
use super::snapshot_table::SnapshotTable;
use super::{Answer, AppState};

#[component]
pub fn TableView(name: String, generation: u64) -> impl IntoView {
    let state = expect_context::<AppState>();
    let catalog = state.spark_catalog;
    let rows_shown = RwSignal::new(super::snapshot_table::PAGE);
    let (walk_level, walk_entry, walk_open) = (RwSignal::new(0usize), RwSignal::new(0usize), RwSignal::new(false));
    let (link_from, link_to) = (super::permalink::get("from"), super::permalink::get("to"));
    // A link names both sides, or one: a lone `job:<id>` is that job's range (`analysis::diff::sides`).
    let linked = link_from.is_some() || link_to.is_some();
    let (default_from, default_to) = if linked { ("", "") } else { ("parent", "current") };
    let diff_from = RwSignal::new(link_from.unwrap_or_else(|| default_from.to_string()));
    let diff_to = RwSignal::new(link_to.unwrap_or_else(|| default_to.to_string()));
    // A link that names a comparison makes it as the table opens.
    if linked {
        request(state, Ask::Compare(diff_from.get_untracked(), diff_to.get_untracked()));
    }
    let progress = move || state.progress.get();
    // Each part reads a memo of what it shows: a publish that leaves it unchanged leaves its nodes
    // (an open <details>, a focused input, a scroll position) as they were.
    let facts = state.part(Facts::of);
    let gaps = state.part(|o| o.report.gaps.clone());
    let disagreements = state.part(|o| o.report.disagreements.clone());
    // After the first chart (or once loading ends, should no chart be drawn), and while a report
    // is open: the panels below are built once and follow their memos.
    let below = Memo::new(move |_| (state.charted.get() || !state.progress.with(|p| p.loading)) && state.opened.with(Option::is_some));
    // The control that opened the table (a gallery card, a picker) is gone from the page: focus
    // moves to the table's name, not to the body, so keyboard and screen-reader users stay here.
    let heading = NodeRef::<leptos::html::H2>::new();
    Effect::new(move |_| {
        if let Some(h) = heading.get() {
            let _ = h.focus();
        }
    });
    view! {
        <section class="table-view" data-testid="table-view" data-generation=generation.to_string()
            data-state=move || if progress().loading { "loading" } else { "ready" }>
            <div class="table-head">
                <button class="link" data-testid="back" on:click=move |_| state.close()>"← examples"</button>
                <h2 data-testid="table-name" tabindex="-1" node_ref=heading>{name}</h2>
                {move || facts.get().map(|f| view! {
                    <dl class="facts">
                        <div><dt>"snapshots"</dt><dd data-testid="snapshot-count">{f.snapshots}</dd></div>
                        <div><dt>"format"</dt><dd>{format!("v{}", f.format_version)}</dd></div>
                        <div><dt>"Flink jobs"</dt><dd>{if f.jobs == 0 { "none (no flink.job-id in any summary)".to_string() } else { f.jobs.to_string() }}</dd></div>
                        <div class="wide"><dt>"location"</dt><dd class="mono" data-testid="table-location">{f.location}</dd></div>
                        <div class="wide"><dt>"metadata file"</dt><dd class="mono">{metadata_picker(state, &f.metadata_file, f.pick.as_ref())}</dd></div>
                    </dl>
                })}
                <ReadStatus/>
                <super::live::LiveSwitch/>
            </div>
            {move || gaps.get().filter(|g| !g.is_empty()).map(|gaps| view! {
                    <details class="gaps" open>
                        <summary>{crate::report::load::gaps_heading(gaps.len())}</summary>
                        <ul>{gaps.into_iter().take(200).map(|g| {
                            let needed = crate::report::load::needed_by(&g.snapshot_ids, |s| s);
                            view! { <li class="mono" data-testid="load-error">{g.message}<br/><span class="hint">{needed}</span></li> }
                        }).collect_view()}</ul>
                    </details>
            })}
            {move || disagreements.get().filter(|d| !d.is_empty()).map(|d| view! {
                    <details class="gaps" open data-testid="disagreements">
                        <summary>{crate::report::load::disagreements_heading(d.len())}</summary>
                        <ul>{d.into_iter().take(50).map(|x| view! {
                            <li class="mono">{crate::report::load::disagreement_line(&x)}</li>
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
            <AlertStrip/>
            <super::live::LiveEvents/>
            <Charts/>
            {move || below.get().then(|| view! {
                <FindingsPanel catalog=catalog/>
                <super::resume_panel::ResumePanel catalog=catalog/>
                <super::compare::Compare from=diff_from to=diff_to/>
                <super::walk::WalkPanel level=walk_level entry=walk_entry open=walk_open/>
                <super::shape_panel::ShapePanel/>
            })}
            <super::data_panel::DuplicatesPanel/>
            <super::footers_panel::FootersPanel/>
            {move || below.get().then(|| view! { <SnapshotTable shown=rows_shown/> })}
        </section>
    }
}

/// The head of the table view: changes when the snapshot count, job count or metadata file does.
#[derive(Clone, PartialEq)]
struct Facts {
    snapshots: usize,
    format_version: u8,
    jobs: usize,
    location: String,
    metadata_file: String,
    pick: Option<crate::source::metadata_pick::MetadataPick>,
}

impl Facts {
    fn of(o: &Answer) -> Self {
        let t = &o.report.table;
        Facts {
            snapshots: o.report.snapshots.len(),
            format_version: t.format_version,
            jobs: o.series.job_ids().len(),
            location: t.location.clone(),
            metadata_file: t.metadata_file.clone(),
            pick: o.report.load.as_ref().and_then(|l| l.metadata_pick.clone()),
        }
    }
}

/// Files and bytes read against what the plan needs, the cancel button, and the full-history offer.
#[component]
fn ReadStatus() -> impl IntoView {
    let state = expect_context::<AppState>();
    let progress = move || state.progress.get();
    // Said once the lists are all read: before that, everything is still coming.
    let files_wait = state.part(|o| o.report.files_wait.filter(|_| o.charts_final));
    let counted = move || {
        state.opened.with(|o| {
            o.as_ref().and_then(|o| o.report.load.as_ref()).map(|l| {
                let hint = l.suggestion.as_ref().map(|s| format!(" {s}")).unwrap_or_default();
                format!("{}{hint}", crate::report::load::count_sources(l))
            })
        })
    };
    view! {
        <div class="read-status">
            <p class="hint" data-testid="count-sources">{counted}</p>
            {move || {
                let p = progress();
                p.loading.then(|| view! {
                    <p class="progress" data-testid="progress" data-files-done=p.read.files_done.to_string() data-files-queued=p.read.files_queued.to_string()>
                        <progress max=p.read.files_queued.max(1) value=p.read.files_done></progress>
                        {format!(" {}", crate::report::load::progress_line(&p.read))}
                        <button data-testid="cancel" on:click=move |_| state.cancelled.set(state.generation.get_untracked())>"Cancel"</button>
                    </p>
                })
            }}
            {move || progress().stopped.map(|s| view! { <p class="hint" data-testid="stopped">{s}</p> })}
            {move || files_wait.get().flatten().map(|w| view! { <p class="hint" data-testid="files-wait">{crate::report::load::files_wait(&w)}</p> })}
            {move || {
                let p = progress();
                match (p.all_snapshots, p.full_estimate) {
                    (false, Some((files, bytes, exact))) if files > 0 => Some(view! {
                        <p class="full-history">
                            <button data-testid="read-all" on:click=move |_| request(state, Ask::AllSnapshots)>"Read the full history"</button>
                            <span class="hint">{format!(" {}", crate::report::load::full_history_offer(files, bytes, exact))}</span>
                        </p>
                    }),
                    _ => None,
                }
            }}
        </div>
    }
}

/// The critical and warning findings, above the charts: what the on-call engineer came for.
#[component]
fn AlertStrip() -> impl IntoView {
    use crate::analysis::findings::Severity;
    let state = expect_context::<AppState>();
    move || {
        let alerts: Vec<_> = state
            .opened
            .with(|o| o.as_ref().map(|o| o.report.findings.iter().filter(|f| f.severity >= Severity::Warning).cloned().collect()).unwrap_or_default());
        (!alerts.is_empty()).then(|| {
            view! {
                <ul class="alerts" data-testid="alerts">
                    {alerts.into_iter().map(|f| {
                        let sev = crate::report::finding::severity_class(f.severity);
                        view! { <li class=sev><span class="badge">{sev}</span>{f.title}</li> }
                    }).collect_view()}
                    <li class="more"><a href="#findings">"details and statements below ↓"</a></li>
                </ul>
            }
        })
    }
}

/// The open metadata file; where the folder holds several, a picker over them (newest first):
/// choosing one reopens the table as that version left it.
fn metadata_picker(state: AppState, open: &str, pick: Option<&crate::source::metadata_pick::MetadataPick>) -> impl IntoView {
    let Some(pick) = pick.filter(|p| p.versions.len() > 1) else {
        return view! { <span data-testid="metadata-file">{open.to_string()}</span> }.into_any();
    };
    let options = pick
        .versions
        .iter()
        .rev()
        .map(|v| {
            let when = v.last_updated_ms.map(crate::model::time::rfc3339_ms).unwrap_or_else(|| "age unknown".into());
            let seq = v.last_sequence_number.map(|s| format!(", sequence {s}")).unwrap_or_default();
            let mark = if pick.unreadable.iter().any(|(p, _)| *p == v.path) {
                " (does not read)"
            } else if v.path != pick.path {
                ""
            } else if pick.unreadable.is_empty() {
                " (newest)"
            } else {
                " (newest that reads)"
            };
            let label = format!("{} — {when}{seq}{mark}", v.path);
            view! { <option value=v.path.clone() selected=v.path == open>{label}</option> }
        })
        .collect_view();
    view! {
        <select data-testid="metadata-picker" title=pick.why.clone()
            on:change=move |ev| super::loader::switch_metadata(state, event_target_value(&ev))>{options}</select>
        <span class="hint why" class:error=!pick.unreadable.is_empty() data-testid="metadata-why">{format!(" {}", pick.why)}</span>
    }
    .into_any()
}
