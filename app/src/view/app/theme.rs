//! Light, dark or the system's choice, and a projector mode with large type: set on the root
//! element (the stylesheet does the rest) and remembered in this browser — a preference, nothing
//! about any table or catalog.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

const KEY: &str = "icescope.theme";

fn root() -> Option<web_sys::Element> {
    web_sys::window()?.document()?.document_element()
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

/// (theme: "auto" | "dark" | "light", projector)
fn saved() -> (String, bool) {
    let raw = storage().and_then(|s| s.get_item(KEY).ok().flatten()).unwrap_or_default();
    let (theme, projector) = raw.split_once(',').unwrap_or((raw.as_str(), ""));
    let theme = if matches!(theme, "dark" | "light") { theme } else { "auto" };
    (theme.to_string(), projector == "projector")
}

fn apply(theme: &str, projector: bool) {
    if let Some(r) = root() {
        let _ = if theme == "auto" { r.remove_attribute("data-theme") } else { r.set_attribute("data-theme", theme) };
        let _ = if projector { r.set_attribute("data-projector", "") } else { r.remove_attribute("data-projector") };
    }
    if let Some(s) = storage() {
        let _ = s.set_item(KEY, &format!("{theme},{}", if projector { "projector" } else { "" }));
    }
}

/// The page's theme and projector mode, for the charts to draw in: `dark` is what the page shows
/// (the toggle's choice, or the system's on "auto"), kept current when the system changes.
#[derive(Clone, Copy)]
pub struct Comfort {
    theme: RwSignal<String>,
    projector: RwSignal<bool>,
    system_dark: RwSignal<bool>,
}

impl Comfort {
    pub fn new() -> Comfort {
        let (t, p) = saved();
        let query = web_sys::window().and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten());
        let system_dark = RwSignal::new(query.as_ref().is_some_and(|q| q.matches()));
        if let Some(q) = query {
            let on_change = wasm_bindgen::closure::Closure::<dyn Fn(web_sys::MediaQueryListEvent)>::new(move |e: web_sys::MediaQueryListEvent| {
                system_dark.set(e.matches())
            });
            let _ = q.add_event_listener_with_callback("change", on_change.as_ref().unchecked_ref());
            // The page's lifetime: the app is never unmounted.
            on_change.forget();
        }
        Comfort { theme: RwSignal::new(t), projector: RwSignal::new(p), system_dark }
    }

    pub fn dark(&self) -> bool {
        match self.theme.get().as_str() {
            "dark" => true,
            "light" => false,
            _ => self.system_dark.get(),
        }
    }

    pub fn projector(&self) -> bool {
        self.projector.get()
    }
}

#[component]
pub fn ThemeControls() -> impl IntoView {
    let comfort = expect_context::<Comfort>();
    let (theme, projector) = (comfort.theme, comfort.projector);
    Effect::new(move |_| apply(&theme.get(), projector.get()));
    let next = move |_| {
        theme.update(|t| {
            *t = match t.as_str() {
                "auto" => "dark",
                "dark" => "light",
                _ => "auto",
            }
            .to_string()
        })
    };
    view! {
        <span class="theme-controls">
            <button data-testid="theme" title="light, dark, or as the system prefers" on:click=next>
                {move || format!("theme: {}", theme.get())}
            </button>
            <button data-testid="projector" aria-pressed=move || projector.get().to_string() title="large type for a projector"
                on:click=move |_| projector.update(|p| *p = !*p)>"projector"</button>
        </span>
    }
}
