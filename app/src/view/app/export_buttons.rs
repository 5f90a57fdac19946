//! Export buttons beside the Markdown summary: each table (snapshots, the series behind each
//! chart, findings) as one CSV or Parquet download, made in the tab from what is on screen
//! (`analysis::export`), handed to the browser as a Blob behind an object URL.

use leptos::prelude::*;

use crate::analysis::export::{file, tables, Charted, Format, What};

use super::{Answer, AppState};

const TABLES: [(&str, &str); 6] = [
    ("snapshots", "snapshot table"),
    ("growth", "growth series"),
    ("deletes", "delete-debt series"),
    ("jobs", "job timeline"),
    ("partitions", "partitions"),
    ("findings", "findings"),
];

#[component]
pub fn ExportButtons(catalog: RwSignal<String>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let format = RwSignal::new(Format::Csv);
    let save = move |name: &'static str| {
        let typed = catalog.get_untracked();
        // Read at the click, not kept: the report being replaced is freed before the next is built.
        let made = state.opened.with_untracked(|o| {
            let o: &Answer = o.as_ref().ok_or_else(|| "nothing is open".to_string())?;
            let charted = Charted { growth: &o.series, jobs: &o.jobs, partitions: &o.partitions };
            let what = match name {
                "snapshots" => What::Snapshots,
                "findings" => What::Findings,
                _ => What::Series,
            };
            let stem = format!("icescope-{}", o.name.replace(['/', ' ', '\\'], "_"));
            // Statements name the catalog the person typed, as on screen.
            tables(&o.report, &charted, Some(&typed), what)
                .into_iter()
                .find(|t| t.name == name)
                .ok_or_else(|| format!("no {name} table"))
                .and_then(|t| file(&t, format.get_untracked()))
                .map(|(file_name, bytes)| (format!("{stem}-{file_name}"), bytes))
        });
        match made.and_then(|(file_name, bytes)| download_bytes(&bytes, format.get_untracked().mime(), &file_name)) {
            Ok(()) => {}
            Err(e) => state.error(format!("export failed: {e}")),
        }
    };
    view! {
        <div class="export" data-testid="export">
            <span class="hint">"Export "</span>
            <select data-testid="export-format" on:change=move |ev| format.set(Format::parse(&event_target_value(&ev)).unwrap_or(Format::Csv))>
                <option value="csv" selected=true>"CSV"</option>
                <option value="parquet">"Parquet"</option>
            </select>
            {TABLES.iter().map(|&(name, label)| view! {
                <button data-testid=format!("export-{name}") on:click=move |_| save(name)>{label}</button>
            }).collect_view()}
        </div>
    }
}

/// Downloads bytes as a file: a Blob behind an object URL, revoked once the click has been taken.
fn download_bytes(bytes: &[u8], mime: &str, name: &str) -> Result<(), String> {
    let js = |e: wasm_bindgen::JsValue| super::fetch::js_message(&e);
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).map_err(js)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js)?;
    super::chart_canvas::download(&url, name);
    set_timeout(move || _ = web_sys::Url::revoke_object_url(&url), std::time::Duration::from_secs(30));
    Ok(())
}
