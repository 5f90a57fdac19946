//! The bundled example tables, opened with a click and no network beyond the app's own origin.

use super::tasks::spawn;
use leptos::prelude::*;
use serde::Deserialize;

use crate::source::PathIndex;

use super::files::{fetch_bytes, ServedFiles, TableFiles};
use super::loader::open_table;
use super::AppState;

#[derive(Clone, Debug, Deserialize, PartialEq)]
pub struct Example {
    pub name: String,
    pub title: String,
    pub caption: String,
    #[serde(default)]
    pub writer: String,
    pub metadata: String,
    pub files: Vec<String>,
    /// Where the files are served, relative to the app; `examples/<name>` when absent.
    #[serde(default)]
    pub base: Option<String>,
    /// File sizes by path, where the index lists them: the metadata.json growth series.
    #[serde(default)]
    pub sizes: std::collections::HashMap<String, u64>,
}

#[derive(Deserialize)]
struct Index {
    examples: Vec<Example>,
}

async fn load_index(url: &'static str) -> Result<Vec<Example>, String> {
    let bytes = fetch_bytes(url).await.map_err(|e| e.to_string())?;
    serde_json::from_slice::<Index>(&bytes).map(|i| i.examples).map_err(|e| format!("{url}: {e}"))
}

/// The lab's tables (real Flink and Spark runs, each a failure from the runbook), then the examples.
const SECTIONS: [(&str, &str, &str); 2] = [
    ("fixtures/index.json", "Flink lab tables", "Real Flink 2 and Spark runs against an Iceberg REST catalog and S3, each reproducing one streaming failure."),
    ("examples/index.json", "Example tables", "Written by PyIceberg and bundled with the app."),
];

#[component]
pub fn Gallery() -> impl IntoView {
    view! {
        <section class="gallery" data-testid="gallery">
            {SECTIONS.iter().map(|&(url, title, hint)| view! { <GallerySection url=url title=title hint=hint/> }).collect_view()}
        </section>
    }
}

#[component]
fn GallerySection(url: &'static str, title: &'static str, hint: &'static str) -> impl IntoView {
    let state = expect_context::<AppState>();
    let examples = LocalResource::new(move || load_index(url));
    view! {
        <h2>{title}</h2>
        <p class="hint">{hint}</p>
        <Suspense fallback=|| view! { <p class="hint">"Loading…"</p> }>
            {move || examples.get().map(|r| match r {
                Err(e) => view! { <p class="error" data-testid="load-error">{e}</p> }.into_any(),
                Ok(list) => {
                    // A link to an example opens it once its section's index is in.
                    if let Some(name) = super::permalink::get("example") {
                        if state.shell.get_untracked().is_none() && !OPENED_FROM_LINK.with(|o| o.replace(true)) {
                            if let Some(ex) = list.iter().find(|e| e.name == name) {
                                open_from_link(state, ex.clone());
                            } else {
                                OPENED_FROM_LINK.with(|o| o.set(false));
                            }
                        }
                    }
                    view! {
                    <div class="cards">
                        {list.into_iter().map(|ex| {
                            let ex2 = ex.clone();
                            view! {
                                <button class="card" data-testid="example-card" data-example=ex.name.clone()
                                    on:click=move |_| open_example(state, ex2.clone())>
                                    <span class="card-title">{ex.title.clone()}</span>
                                    <span class="card-writer">{ex.writer.clone()}</span>
                                    <span class="card-caption">{ex.caption.clone()}</span>
                                </button>
                            }
                        }).collect_view()}
                    </div>
                    }.into_any()
                }
            })}
        </Suspense>
    }
}

thread_local! {
    /// The link's example has been opened: going back to the gallery must not open it again.
    static OPENED_FROM_LINK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Keeps the link's view keys (tab, compared snapshots) while opening its example.
fn open_from_link(state: AppState, ex: Example) {
    let keep: Vec<(&str, Option<String>)> = ["tab", "from", "to"].into_iter().map(|k| (k, super::permalink::get(k))).collect();
    open_example(state, ex);
    super::permalink::set(&keep.iter().map(|(k, v)| (*k, v.as_deref())).collect::<Vec<_>>());
}

fn open_example(state: AppState, ex: Example) {
    super::permalink::clear();
    super::permalink::set(&[("example", Some(&ex.name))]);
    super::marks::restart();
    state.errors.set(Vec::new());
    state.vended.set(None);
    let base = ex.base.clone().unwrap_or_else(|| format!("examples/{}", ex.name));
    let files = TableFiles::Served(ServedFiles { base, index: PathIndex::new(ex.files.clone()), sizes: ex.sizes.clone() });
    spawn(open_table(state, ex.title.clone(), files, Some(ex.metadata.clone())));
}
