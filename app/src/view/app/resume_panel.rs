//! *Before you resume*: savepoint folders picked or dropped here (or with the table), each read as
//! `icescope savepoint` reads it (`session::savepoint`), judged by the session against the open
//! version of the table, one card per savepoint, newest first, worded by `report::savepoint`.

use super::tasks::spawn;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::report::savepoint::{advice, behind_sentence, facts, kind, summary};
use crate::source::browser::savepoint_files::{relative_path, SavepointFiles};

use super::files::PickedFiles;
use super::loader::judge_savepoints;
use super::AppState;

#[component]
pub fn ResumePanel(catalog: RwSignal<String>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let report =
        state.part(|o| o.report.savepoints.as_ref().map(|j| (crate::report::savepoint::of(j, Some(&o.report.table.metadata_file)), o.report.findings.clone())));
    let report = move || report.get().flatten();
    let reading = RwSignal::new(false);
    let store_location = RwSignal::new(String::new());
    // Built after the table opened (below its first chart): its source is known by then.
    let on_store = super::loader::store_access(state).is_some();
    let hovering = RwSignal::new(false);
    let on_pick = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        let Some(list) = input.files() else { return };
        let files: Vec<(String, web_sys::File)> = (0..list.length()).filter_map(|i| list.get(i)).map(|f| (relative_path(&f), f)).collect();
        // Cleared so that choosing the same folder again is a change.
        input.set_value("");
        read_for_table(state, SavepointFiles::among(&files), reading);
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        // The page's drop zone would open the savepoints as a table.
        ev.stop_propagation();
        hovering.set(false);
        let Some(dt) = ev.data_transfer() else { return };
        let items = dt.items();
        // Entries must be taken while the event is being dispatched; reading them may wait. A
        // `_metadata` dropped alone (or built by a script) comes as a file without one.
        let mut entries = Vec::new();
        let mut loose = Vec::new();
        for item in (0..items.length()).filter_map(|i| items.get(i)) {
            match item.webkit_get_as_entry() {
                Ok(Some(e)) => entries.push(e),
                _ => loose.extend(item.get_as_file().ok().flatten().map(|f| (f.name(), f))),
            }
        }
        spawn(async move {
            let mut set = PickedFiles::default();
            for e in &entries {
                if let Err(m) = crate::source::browser::dropped::read_entry(e, &mut set).await {
                    state.error(format!("{}: {m}", e.full_path()));
                }
            }
            for (name, f) in loose {
                set.insert_other(name, f);
            }
            read_for_table(state, set.savepoint_files(), reading);
        });
    };
    let folder_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = folder_input.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    let rows = move || {
        report().map(|(r, findings)| {
            let cards = r
                .savepoints
                .iter()
                .map(|row| {
                    let v = row.verdict.clone();
                    let k = kind(&v);
                    let statement = v.statement.clone();
                    let advice = advice(&v, &|s| s.to_string());
                    let behind = behind_sentence(&v, &findings, &|s| s.to_string());
                    let is_behind = behind.is_some().to_string();
                    view! {
                        <article class=format!("savepoint {k}") data-testid="savepoint-row" data-kind=k
                            data-checkpoint=v.checkpoint_id.to_string() data-path=row.savepoint.path.clone()
                            data-rows-after=v.rows_committed_after.map(|n| n.to_string()).unwrap_or_default()
                            data-resume-writes=v.resume_writes.as_ref().and_then(|w| w.rows).map(|n| n.to_string()).unwrap_or_default()
                            data-behind=is_behind
                            data-job-id=v.job_id.clone().unwrap_or_default()
                            data-jobs-resumed=v.jobs_already_resumed.join(",")
                            data-rollback-target=v.rollback_target_snapshot_id.map(|s| s.to_string()).unwrap_or_default()>
                            <h4><span class="badge">{k.replace('_', " ")}</span>{format!("checkpoint {}", v.checkpoint_id)}
                                <span class="mono path">{row.savepoint.path.clone()}</span></h4>
                            {(!row.savepoint.taken_as.is_empty()).then(|| view! { <p class="hint" data-testid="savepoint-taken-as">{row.savepoint.taken_as.clone()}</p> })}
                            <dl class="facts">{facts(&v).into_iter().map(|(label, value)| view! {
                                <div><dt>{label}</dt><dd class="mono">{value}</dd></div>
                            }).collect_view()}</dl>
                            {behind.map(|b| view! { <p class="behind" data-testid="savepoint-behind"><strong>{b}</strong></p> })}
                            <p data-testid="savepoint-summary">{summary(&v, &|s| s.to_string())}</p>
                            {(!advice.is_empty()).then(|| view! { <p><strong>"What to do: "</strong>{advice}</p> })}
                            {statement.map(|s| view! {
                                <p class="hint" data-testid="savepoint-statement-question">"Only to resume from this savepoint again:"</p>
                                <pre class="statement" data-testid="savepoint-statement">{move || s.sql_in(&catalog.get())}</pre>
                            })}
                        </article>
                    }
                })
                .collect_view();
            let unreadable = r
                .unreadable
                .iter()
                .map(|u| view! { <p class="error mono" data-testid="savepoint-unreadable">{format!("{}: {}", u.path, u.error)}</p> })
                .collect_view();
            view! { {cards}{unreadable} }
        })
    };
    view! {
        <section class="resume" class:hover=move || hovering.get() data-testid="resume-panel"
            data-savepoints=move || report().map(|(r, _)| r.savepoints.len().to_string()).unwrap_or_default()
            data-state=move || if reading.get() { "reading" } else { "idle" }
            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); ev.stop_propagation(); hovering.set(true); }
            on:dragleave=move |_| hovering.set(false)
            on:drop=on_drop>
            <h3>"Before you resume"</h3>
            <p class="hint">"Give the Flink savepoint you mean to resume from (its folder, with "<code>"_metadata"</code>"), a folder of savepoints, or a checkpoint directory ("<code>"chk-*/_metadata"</code>"): each is read here, nothing is uploaded, and judged against the version of the table open above. A savepoint folder dropped with the table is read with it."</p>
            <p class="pickers">
                <label class="button">"Choose savepoint folder…"
                    <input type="file" data-testid="savepoint-input" node_ref=folder_input multiple on:change=on_pick/>
                </label>
                <span class="hint">"or drop savepoint folders on this panel"</span>
                {move || reading.get().then(|| view! { <span class="hint" data-testid="savepoint-reading">" reading…"</span> })}
            </p>
            // Only for a table read from a store: the savepoints are read with its settings.
            {on_store.then(|| view! {
                <form class="location-form" on:submit=move |ev: leptos::ev::SubmitEvent| {
                    ev.prevent_default();
                    read_from_store(state, store_location.get_untracked(), reading);
                }>
                    <label>"or read them from the table's store"
                        <input type="text" data-testid="savepoint-location" autocomplete="off" spellcheck="false" placeholder="s3://bucket/savepoints/"
                            prop:value=move || store_location.get() on:input=move |ev| store_location.set(event_target_value(&ev))/>
                    </label>
                    <button type="submit" data-testid="savepoint-location-read">"Read"</button>
                </form>
            })}
            {rows}
        </section>
    }
}

/// Savepoints on the store the open table was read from (`s3://bucket/savepoints/`), listed and
/// read with the table's settings and credentials: the same reads a dropped folder gets.
fn read_from_store(state: AppState, typed: String, reading: RwSignal<bool>) {
    let location = typed.trim().to_string();
    let Some(access) = super::loader::store_access(state) else {
        return state.error(
            "savepoints are read from a store only for a table opened from one (a location or a catalog); drop or choose the savepoint folder instead".into(),
        );
    };
    if crate::source::s3::parse_s3(&location).is_none() {
        return state.error(format!("`{location}`: a savepoint location is an s3:// folder (s3://bucket/savepoints/ or s3://bucket/savepoints/savepoint-…/)"));
    }
    let prefix = if location.ends_with('/') { location.clone() } else { format!("{location}/") };
    reading.set(true);
    spawn(async move {
        let generation = state.generation.get_untracked();
        let files = crate::source::remote::RemoteFiles::with_access(super::fetch::Browser, access, &prefix);
        let listed = files.listed(&prefix, crate::source::s3_list::PAGE_SIZE).await;
        let found = listed.map_err(|e| e.to_string()).and_then(|l| {
            let metadata = crate::source::savepoint_paths::metadata_among(l.index.paths())?;
            Ok((l, metadata))
        });
        match found {
            Err(e) => state.error(e),
            Ok((_, metadata)) if metadata.is_empty() => state.error(format!("{prefix}: no savepoint here (no _metadata under it)")),
            Ok((listed, metadata)) => {
                let read = crate::session::savepoint::read_savepoints(&listed, &metadata).await;
                if state.generation.get_untracked() == generation {
                    judge_savepoints(state, read);
                }
            }
        }
        reading.set(false);
    });
}

/// Reads the savepoints found and hands them to the open table's session; `reading` follows it.
fn read_for_table(state: AppState, found: Result<Option<SavepointFiles>, String>, reading: RwSignal<bool>) {
    match found {
        Err(e) => state.error(e),
        Ok(None) => state.error("no savepoint here: a savepoint folder holds a _metadata file (a checkpoint directory, chk-*/_metadata)".into()),
        Ok(Some(files)) => {
            reading.set(true);
            spawn(async move {
                read_and_judge(state, files).await;
                reading.set(false);
            });
        }
    }
}

async fn read_and_judge(state: AppState, files: SavepointFiles) {
    let generation = state.generation.get_untracked();
    let read = crate::session::savepoint::read_savepoints(&files, &files.metadata).await;
    // Another table opened meanwhile: these were given for the one before.
    if state.generation.get_untracked() == generation {
        judge_savepoints(state, read);
    }
}

/// Savepoint folders among files dropped or picked for a table: read once the table is opening,
/// judged against it. Whether there were any.
pub(super) fn with_the_table(state: AppState, set: &PickedFiles) -> bool {
    match set.savepoint_files() {
        Ok(Some(files)) => {
            // Spawned: it runs once the table's opening has taken its generation.
            spawn(read_and_judge(state, files));
            true
        }
        Ok(None) => false,
        Err(e) => {
            state.error(e);
            false
        }
    }
}
