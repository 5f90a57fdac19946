//! The bundled example tables, opened with a click and no network beyond the app's own origin.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Deserialize;

use crate::source::PathIndex;

use super::loader::{fetch_bytes, open_table, TableFiles};
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
}

#[derive(Deserialize)]
struct Index {
    examples: Vec<Example>,
}

async fn load_index() -> Result<Vec<Example>, String> {
    let bytes = fetch_bytes("examples/index.json").await.map_err(|e| e.to_string())?;
    serde_json::from_slice::<Index>(&bytes).map(|i| i.examples).map_err(|e| format!("examples/index.json: {e}"))
}

#[component]
pub fn Gallery() -> impl IntoView {
    let state = expect_context::<AppState>();
    let examples = LocalResource::new(load_index);
    view! {
        <section class="gallery" data-testid="gallery">
            <h2>"Example tables"</h2>
            <p class="hint">"Written by real engines and bundled with the app. Or drop a table folder above."</p>
            <Suspense fallback=|| view! { <p class="hint">"Loading examples…"</p> }>
                {move || examples.get().map(|r| match r {
                    Err(e) => view! { <p class="error" data-testid="load-error">{e}</p> }.into_any(),
                    Ok(list) => view! {
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
                    }.into_any(),
                })}
            </Suspense>
        </section>
    }
}

fn open_example(state: AppState, ex: Example) {
    state.errors.set(Vec::new());
    let files = TableFiles::Served { base: format!("examples/{}", ex.name), index: PathIndex::new(ex.files.clone()) };
    spawn_local(open_table(state, ex.title.clone(), files, Some(ex.metadata.clone())));
}
