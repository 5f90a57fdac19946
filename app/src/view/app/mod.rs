//! The browser app: a gallery of bundled examples, a drop zone, and the opened table.

mod catalog;
mod chart_canvas;
mod charts;
mod drop;
mod fetch;
mod findings_panel;
mod gallery;
mod loader;
mod snapshot_table;
mod table_view;

use leptos::prelude::*;

pub use loader::Opened;

/// Shared app state: what is open, and what went wrong while opening it.
#[derive(Clone, Copy)]
pub struct AppState {
    pub opened: RwSignal<Option<Opened>>,
    pub errors: RwSignal<Vec<String>>,
    /// Bumped by every open and by cancel: a loader whose generation is stale stops.
    pub generation: RwSignal<u64>,
    /// The generation whose loading the user cancelled.
    pub cancelled: RwSignal<u64>,
    /// What the catalog handed out for the open table (secrets masked): config, then per-prefix credentials.
    pub vended: RwSignal<Option<Vec<(String, String, String)>>>,
}

impl AppState {
    pub fn error(&self, message: String) {
        web_sys::console::warn_1(&message.clone().into());
        self.errors.update(|e| e.push(message));
    }
}

#[component]
pub fn App() -> impl IntoView {
    let state = AppState { opened: RwSignal::new(None), errors: RwSignal::new(Vec::new()), generation: RwSignal::new(0), cancelled: RwSignal::new(0), vended: RwSignal::new(None) };
    provide_context(state);
    view! {
        <header class="topbar">
            <a class="brand" href="./">"icescope"</a>
            <span class="tagline">"how a streaming writer grows an Iceberg table, checkpoint by checkpoint"</span>
        </header>
        <main>
            <drop::DropZone/>
            <Errors/>
            {move || match state.opened.get() {
                Some(opened) => view! { <table_view::TableView opened=opened/> }.into_any(),
                None => view! { <catalog::CatalogPanel/><gallery::Gallery/> }.into_any(),
            }}
        </main>
    }
}

#[component]
fn Errors() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <Show when=move || !state.errors.get().is_empty()>
            <section class="errors">
                <For each=move || state.errors.get().into_iter().enumerate() key=|(i, _)| *i let:item>
                    <p class="error" data-testid="load-error">{item.1}</p>
                </For>
                <button class="link" on:click=move |_| state.errors.set(Vec::new())>"dismiss"</button>
            </section>
        </Show>
    }
}

pub fn mount() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}
