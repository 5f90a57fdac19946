//! Dropped files and folders, and the two pickers, all turned into one in-memory file set.

use super::tasks::spawn;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::source::browser::dropped::{add_file, file_list, read_entry};
use crate::source::Fetch;

use super::files::{PickedFiles, TableFiles};
use super::loader::open_table;
use super::{marks, AppState};

#[component]
pub fn DropZone() -> impl IntoView {
    let state = expect_context::<AppState>();
    let hovering = RwSignal::new(false);
    let on_drop = move |ev: web_sys::DragEvent| {
        ev.prevent_default();
        hovering.set(false);
        marks::restart();
        // Entries must be taken while the event is being dispatched; reading them may wait.
        let Some(dt) = ev.data_transfer() else { return };
        let items = dt.items();
        // One folder dropped, where the browser hands it over as a handle: opened as "Choose
        // folder…" opens one (metadata/ only), not walked whole first (a day's 86,503 files).
        let one_handle = if items.length() == 1 { items.get(0).and_then(|item| super::folder_handle::dropped_handle(&item)) } else { None };
        let mut entries = Vec::new();
        let mut files = Vec::new();
        for i in 0..items.length() {
            let Some(item) = items.get(i) else { continue };
            // A folder only comes as an entry; files built by a script come without one.
            match item.webkit_get_as_entry() {
                Ok(Some(entry)) => entries.push(entry),
                _ => files.extend(item.get_as_file().ok().flatten()),
            }
        }
        if entries.is_empty() && files.is_empty() {
            files = file_list(dt.files());
        }
        spawn(async move {
            if let Some(root) = match one_handle {
                Some(h) => super::folder_handle::dropped_folder(h).await,
                None => None,
            } {
                return super::folder_handle::open_root(state, root).await;
            }
            let mut set = PickedFiles::default();
            for entry in entries {
                if let Err(e) = read_entry(&entry, &mut set).await {
                    state.error(format!("{}: {}", entry.full_path(), e));
                }
            }
            for f in files {
                add_file(&mut set, f.name(), f);
            }
            open_set(state, set).await;
        });
    };
    let on_pick = move |ev: web_sys::Event| {
        let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
        marks::restart();
        let list = input.files();
        spawn(async move {
            let mut set = PickedFiles::default();
            // A table folder with its data can hold 100,000 files: listing them in one go froze
            // the page for seconds, so the list is walked in slices with the page served between.
            let mut last_yield = marks::now_ms();
            // Not in web-sys's File bindings; every engine with folder pickers has it. One key for
            // all files: made per file, it was a string sent to JS 100,000 times.
            let key = wasm_bindgen::JsValue::from_str("webkitRelativePath");
            for i in 0..list.as_ref().map(|l| l.length()).unwrap_or(0) {
                let Some(f) = list.as_ref().and_then(|l| l.get(i)) else { continue };
                let rel = js_sys::Reflect::get(&f, &key).ok().and_then(|v| v.as_string()).unwrap_or_default();
                let path = if rel.is_empty() { f.name() } else { rel };
                add_file(&mut set, path, f);
                // The clock is a call into the page too: looked at every 64 files.
                if i % 64 == 63 && marks::now_ms() - last_yield > 20.0 {
                    super::loader::yield_to_page().await;
                    last_yield = marks::now_ms();
                }
            }
            // Cleared once listed, so that choosing the same folder again is a change.
            input.set_value("");
            open_set(state, set).await;
        });
    };
    let folder_input = NodeRef::<leptos::html::Input>::new();
    Effect::new(move |_| {
        if let Some(input) = folder_input.get() {
            let _ = input.set_attribute("webkitdirectory", "");
        }
    });
    view! {
        <section class="dropzone" class:hover=move || hovering.get() class:compact=move || state.shell.with(|o| o.is_some()) data-testid="dropzone"
            on:dragover=move |ev: web_sys::DragEvent| { ev.prevent_default(); hovering.set(true); }
            on:dragleave=move |_| hovering.set(false)
            on:drop=on_drop>
            <p><strong>"Drop a table folder here"</strong>" (the folder holding "<code>"metadata/"</code>"), or a "<code>"*.metadata.json"</code>"."</p>
            <p class="pickers">
                <label class="button" on:click=move |ev| super::folder_handle::on_click(state, &ev)>"Choose folder…"
                    <input type="file" data-testid="folder-input" node_ref=folder_input multiple on:change=on_pick/>
                </label>
                <label class="button">"Choose files…"
                    <input type="file" data-testid="file-input" multiple accept=".json,.gz,.avro,.text" on:change=on_pick/>
                </label>
                <span class="hint">"Drop a table folder anywhere here. Files stay in this tab: nothing is uploaded."</span>
            </p>
        </section>
    }
}

pub(super) async fn open_set(state: AppState, mut set: PickedFiles) {
    set.shrink_to_fit();
    if savepoints_only(state, &set) {
        return;
    }
    if set.is_empty() {
        return state
            .error("none of the dropped files is table metadata (*.metadata.json, *.avro): drop the table's folder, the one that holds metadata/".into());
    }
    state.errors.set(Vec::new());
    state.vended.set(None);
    // Named by the folder holding the metadata files: which of them is opened is decided (by
    // content) when the table opens.
    let name = set
        .listing()
        .and_then(crate::source::metadata_pick::candidates)
        .and_then(|(_, files)| files.first().map(|m| table_name_of(m)))
        .unwrap_or_else(|| "dropped files".into());
    open_table(state, name, TableFiles::Picked(set), None).await;
}

/// Savepoint folders among the files go to the table's Before you resume panel: with the table, or
/// alone for the table already open (then nothing else happens).
fn savepoints_only(state: AppState, set: &PickedFiles) -> bool {
    let table_open = state.shell.with_untracked(Option::is_some);
    (!set.is_empty() || table_open) && super::resume_panel::with_the_table(state, set) && set.is_empty()
}

/// `wh/db/events/metadata/00012-….metadata.json` → `db/events`: the folder names a person knows.
pub(super) fn table_name_of(metadata_path: &str) -> String {
    let parts = crate::source::resolve::table_names(metadata_path);
    if parts.is_empty() {
        "table".to_string()
    } else {
        parts.join("/")
    }
}
