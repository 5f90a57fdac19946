//! The browser app: a gallery of bundled examples, a drop zone, and the opened table.

mod catalog;
mod chart_canvas;
mod charts;
mod clipboard_image;
mod compare;
mod csp;
mod data_panel;
mod decoder;
mod drop;
mod export_buttons;
mod findings_panel;
mod folder_handle;
mod font_warmup;
mod footers_panel;
mod gallery;
#[cfg(feature = "heap-stats")]
mod heap_stats;
mod keep_place;
mod keys;
mod live;
mod loader;
mod marks;
mod open_location;
mod permalink;
mod relay_panel;
mod resume_panel;
mod shape_panel;
mod snapshot_table;
mod table_view;
mod tasks;
mod theme;
mod walk;

// The browser's sources live with the others (`source::browser`); the views name them as before.
use crate::source::browser::{fetch, files, handle};

use leptos::prelude::*;

pub use loader::{Answer, Ask, Progress};

/// Shared app state. `shell` changes only when a table is opened or closed, so the views built
/// for it (and the tab and inputs a person chose) survive while `opened` and `progress` update.
#[derive(Clone, Copy)]
pub struct AppState {
    /// The open table: (name, generation).
    pub shell: RwSignal<Option<(String, u64)>>,
    /// What the analysis says of it so far.
    pub opened: RwSignal<Option<Answer>>,
    pub progress: RwSignal<Progress>,
    pub errors: RwSignal<Vec<String>>,
    /// Bumped by every open: a loader whose generation is stale stops.
    pub generation: RwSignal<u64>,
    /// The generation whose loading the user cancelled.
    pub cancelled: RwSignal<u64>,
    /// What the user asked the loader for since: the full history, a snapshot in detail.
    pub requests: RwSignal<Vec<Ask>>,
    /// What the catalog handed out for the open table (secrets masked): config, then per-prefix credentials.
    pub vended: RwSignal<Option<Vec<(String, String, String)>>>,
    /// The open table's first chart is on screen: the findings and the snapshot table come after
    /// it (plotters measures each label with a forced layout of the whole page).
    pub charted: RwSignal<bool>,
    /// The open table's session (`loader::Current`): not a signal, nothing is drawn from it.
    pub session: StoredValue<Option<loader::Current>, LocalStorage>,
    /// The Spark catalog name the statements print: the reader's, so it outlives the table open
    /// (another version picked, another table) and travels in the link (`spark_catalog`).
    pub spark_catalog: RwSignal<String>,
    /// The link named a catalog that may not go into a statement: it was not used.
    pub spark_catalog_ignored: RwSignal<bool>,
}

impl AppState {
    pub fn error(&self, message: String) {
        web_sys::console::warn_1(&message.clone().into());
        self.errors.update(|e| e.push(message));
    }

    /// What one part of a view shows of the open report, as a memo: the part redraws only when
    /// that changes, not at every publish.
    pub fn part<T: PartialEq + Send + Sync + 'static>(&self, f: fn(&Answer) -> T) -> Memo<Option<T>> {
        let opened = self.opened;
        Memo::new(move |_| opened.with(|o| o.as_ref().map(f)))
    }

    fn new() -> Self {
        use crate::session::link::LinkCatalog;
        let (catalog, ignored) = match crate::session::link::spark_catalog(&permalink::fragment()) {
            LinkCatalog::Named(name) => (name, false),
            LinkCatalog::Unset => (crate::analysis::statement::PLACEHOLDER.to_string(), false),
            LinkCatalog::Ignored => {
                // Not carried on: a link copied from this page no longer holds it.
                permalink::set(&[("spark_catalog", None)]);
                (crate::analysis::statement::PLACEHOLDER.to_string(), true)
            }
        };
        AppState {
            shell: RwSignal::new(None),
            opened: RwSignal::new(None),
            progress: RwSignal::new(Progress::default()),
            errors: RwSignal::new(Vec::new()),
            generation: RwSignal::new(0),
            cancelled: RwSignal::new(0),
            requests: RwSignal::new(Vec::new()),
            vended: RwSignal::new(None),
            charted: RwSignal::new(false),
            session: StoredValue::new_local(None),
            spark_catalog: RwSignal::new(catalog),
            spark_catalog_ignored: RwSignal::new(ignored),
        }
    }

    pub fn close(&self) {
        permalink::clear();
        self.generation.update(|g| *g += 1);
        self.session.set_value(None);
        self.shell.set(None);
        self.opened.set(None);
        self.errors.set(Vec::new());
    }
}

#[component]
pub fn App() -> impl IntoView {
    // Before anything rewrites the fragment: `icescope serve`'s token is taken out of it.
    crate::source::browser::relay::take_token();
    let state = AppState::new();
    provide_context(state);
    provide_context(theme::Comfort::new());
    view! {
        <header class="topbar">
            <a class="brand" href="./">"icescope"</a>
            <span class="tagline">"how a streaming writer grows an Iceberg table, checkpoint by checkpoint"</span>
            <theme::ThemeControls/>
        </header>
        <main>
            <drop::DropZone/>
            <Errors/>
            {move || match state.shell.get() {
                Some((name, generation)) => view! { <table_view::TableView name=name generation=generation/> }.into_any(),
                None => view! { <relay_panel::CatalogOrRelay/><gallery::Gallery/> }.into_any(),
            }}
        </main>
        <font_warmup::FontWarmup/>
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
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        let file = crate::decode::decoding_file().map(|f| format!("while reading {f}: ")).unwrap_or_default();
        stopped_banner(&format!("{file}{info}"));
    }));
    leptos::mount::mount_to_body(App);
    decoder::warm_up();
}

/// After a panic the wasm instance is gone and the page would freeze silently: a banner, written
/// with the DOM API alone (no Leptos, no state), says so and what to do. The message is text.
pub fn stopped_banner(message: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(banner) = doc.create_element("div") else { return };
    banner.set_class_name("stopped-banner");
    let _ = banner.set_attribute("role", "alert");
    let _ = banner.set_attribute("data-testid", "stopped-banner");
    banner.set_text_content(Some(&format!(
        "icescope stopped: an internal error ended the app while it was working (nothing was sent anywhere). Reload the page to start again; if a file caused it, please report it with this message: {message}"
    )));
    if let Some(body) = doc.body() {
        let _ = body.prepend_with_node_1(&banner);
    }
}
