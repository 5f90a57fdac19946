//! The walk for a workshop: metadata.json → snapshot → manifest list → manifest → file, one level
//! at a time with the spec's field names and ids; next and previous step through it (with the
//! projector mode's large type, from the back of a room). The loader computes the levels
//! (`analysis::walk`); this draws them.

use leptos::prelude::*;

use crate::analysis::walk::{Field, Walk};

use super::loader::{request, Ask};
use super::{Answer, AppState};

const LEVELS: [&str; 5] = ["metadata.json", "snapshot", "manifest list", "manifest", "file"];

fn fields(rows: &[Field]) -> impl IntoView {
    let rows = rows.to_vec();
    view! {
        <table class="kv walk-fields">
            <thead><tr><th>"field"</th><th>"id"</th><th>"value"</th></tr></thead>
            <tbody>{rows.into_iter().map(|f| view! {
                <tr data-field=f.name.to_string()><td class="mono">{f.name.to_string()}</td><td class="num">{f.id.map(|i| i.to_string()).unwrap_or_default()}</td><td class="mono">{f.value}</td></tr>
            }).collect_view()}</tbody>
        </table>
    }
}

fn value<'a>(row: &'a [Field], name: &str) -> &'a str {
    row.iter().find(|f| f.name == name).map(|f| f.value.as_str()).unwrap_or("")
}

/// The deepest level this walk can show: a file needs an open manifest, the list a read one.
fn deepest(w: &Walk) -> usize {
    if w.manifest.is_some() {
        4
    } else if w.manifests.is_some() {
        2
    } else {
        1
    }
}

/// The newest 200 snapshots, as the picker offers them: (index, label).
fn choices(o: &Answer) -> Vec<(usize, String)> {
    o.report.snapshots.iter().enumerate().rev().take(200).map(|(i, s)| (i, format!("{} · {} · {}", s.snapshot_id, s.committed_at, s.operation))).collect()
}

#[component]
pub fn WalkPanel(level: RwSignal<usize>, entry: RwSignal<usize>, open: RwSignal<bool>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let walk = state.part(|o| o.walk.clone());
    let choices = state.part(choices);
    let snapshot = move || walk.with(|w| w.as_ref().map_or(0, |w| w.snapshot_index));
    let max_level = move || walk.with(|w| w.as_ref().map_or(1, |w| deepest(w)));
    let body = move || {
        let Some(w) = walk.get() else { return view! { <p class="hint">"Nothing read yet."</p> }.into_any() };
        let snapshot = w.snapshot_index;
        {
            match level.get().min(deepest(&w)) {
            0 => view! {
                <p class="hint">{format!("The table's current state, in one JSON file ({}). Every snapshot below is listed in it.", w.metadata_file)}</p>
                {fields(&w.metadata)}
            }.into_any(),
            1 => view! {
                <p class="hint">"One snapshot as metadata.json records it: the manifest list names its manifests."</p>
                {fields(&w.snapshot)}
            }.into_any(),
            2 => match &w.manifests {
                None => view! { <p class="hint">"This snapshot's manifest list is not read yet."</p> }.into_any(),
                Some(rows) => {
                    let rows = rows.clone();
                    view! {
                        <p class="hint">{format!("{} — {} manifest(s){}: each row is a manifest_file struct (fields 500–520).",
                            w.manifest_list.clone().unwrap_or_default(), w.total_manifests,
                            if rows.len() < w.total_manifests { format!(", the first {} shown", rows.len()) } else { String::new() })}</p>
                        <table class="snapshots walk-list"><thead><tr><th>"manifest_path (500)"</th><th>"content (517)"</th><th>"added_snapshot_id (503)"</th>
                            <th>"added / existing / deleted files (504–506)"</th><th>"manifest_length (501)"</th><th></th></tr></thead>
                        <tbody>{rows.into_iter().map(|r| {
                            let path = value(&r, "manifest_path").to_string();
                            let open = path.clone();
                            view! { <tr data-testid="walk-manifest">
                                <td class="mono">{path}</td><td>{value(&r, "content").to_string()}</td><td class="mono">{value(&r, "added_snapshot_id").to_string()}</td>
                                <td class="num">{format!("{} / {} / {}", value(&r, "added_files_count"), value(&r, "existing_files_count"), value(&r, "deleted_files_count"))}</td>
                                <td class="num">{value(&r, "manifest_length").to_string()}</td>
                                <td><button class="link" data-testid="walk-open-manifest" on:click=move |_| {
                                    level.set(3);
                                    entry.set(0);
                                    request(state, Ask::Walk(snapshot, Some(open.clone())));
                                }>"open →"</button></td>
                            </tr> }
                        }).collect_view()}</tbody></table>
                    }.into_any()
                }
            },
            3 => match &w.manifest {
                None => view! { <p class="hint">"Open a manifest from the list."</p> }.into_any(),
                Some(m) => {
                    let entries = m.entries.clone();
                    view! {
                        <p class="hint">{format!("{} — {} entr{}: manifest_entry structs (fields 0–4) around a data_file (100–145).", m.path, m.total_entries, if m.total_entries == 1 { "y" } else { "ies" })}</p>
                        {fields(&m.header)}
                        <table class="snapshots walk-entries"><thead><tr><th>"status (0)"</th><th>"content (134)"</th><th>"file_path (100)"</th><th>"partition (102)"</th><th>"record_count (103)"</th><th></th></tr></thead>
                        <tbody>{entries.into_iter().enumerate().map(|(i, r)| view! { <tr data-testid="walk-entry">
                            <td>{value(&r, "status").to_string()}</td><td>{value(&r, "data_file.content").to_string()}</td><td class="mono">{value(&r, "data_file.file_path").to_string()}</td>
                            <td class="mono">{value(&r, "data_file.partition").to_string()}</td><td class="num">{value(&r, "data_file.record_count").to_string()}</td>
                            <td><button class="link" data-testid="walk-open-file" on:click=move |_| { entry.set(i); level.set(4); }>"fields →"</button></td>
                        </tr> }).collect_view()}</tbody></table>
                    }.into_any()
                }
            },
            _ => match w.manifest.as_ref().and_then(|m| m.entries.get(entry.get())) {
                None => view! { <p class="hint">"Choose a file in the manifest."</p> }.into_any(),
                Some(r) => view! {
                    <p class="hint">"One data or delete file as its manifest entry describes it. A deletion vector (v3) is a blob in a Puffin file: content_offset and content_size_in_bytes locate it, referenced_data_file names the data file it deletes from, record_count is its cardinality."</p>
                    {fields(r)}
                }.into_any(),
            },
        }
        }
    };
    view! {
        <details class="walk" data-testid="walk" prop:open=move || open.get()
            on:toggle=move |ev| open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())>
            <summary>"Walk the metadata: metadata.json → snapshot → manifest list → manifest → file"</summary>
            <div class="pickers">
                <label>"snapshot "
                    <select data-testid="walk-snapshot" on:change=move |ev| {
                        if let Ok(i) = event_target_value(&ev).parse::<usize>() {
                            level.set(1);
                            request(state, Ask::Walk(i, None));
                        }
                    }>
                        {move || choices.get().unwrap_or_default().into_iter().map(|(i, label)| view! { <option value=i.to_string() selected=i == snapshot()>{label}</option> }).collect_view()}
                    </select>
                </label>
                <button data-testid="walk-previous" on:click=move |_| level.update(|l| *l = (*l).min(max_level()).saturating_sub(1))>"← previous"</button>
                <button data-testid="walk-next" on:click=move |_| level.update(|l| *l = (*l + 1).min(max_level()))>"next →"</button>
            </div>
            <nav class="walk-crumbs" data-testid="walk-level" data-level=move || level.get().min(max_level()).to_string()>
                {LEVELS.iter().enumerate().map(|(i, name)| view! {
                    <button class="link" class:here=move || level.get().min(max_level()) == i prop:disabled=move || { i > max_level() }
                        on:click=move |_| level.set(i)>{*name}</button>
                }).collect_view()}
            </nav>
            {body}
        </details>
    }
}
