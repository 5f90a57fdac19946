//! The view as a link: the URL's fragment names the source (a bundled example, a location, or a
//! catalog table with the catalog's non-secret settings), the view (chart tab, compared snapshots)
//! and the reader's Spark catalog name. Never a credential: the fragment is built from an
//! allow-list of keys (`session::link::KEYS`), and a link that opens a catalog fills the form and
//! asks for the secret. A fragment is not sent to any server. Read and written by
//! `session::link`, tested natively; here only the address bar.

use crate::session::link;

/// The address bar's fragment, without its `#`.
pub fn fragment() -> String {
    web_sys::window().and_then(|w| w.location().hash().ok()).map(|h| h.trim_start_matches('#').to_string()).unwrap_or_default()
}

/// A value the page was opened with (or has set since).
pub fn get(key: &str) -> Option<String> {
    link::get(&fragment(), key)
}

/// Sets (or with None, removes) keys in the fragment, in place: no reload, no history entry.
pub fn set(pairs: &[(&str, Option<&str>)]) {
    debug_assert!(pairs.iter().all(|(k, _)| link::KEYS.contains(k)), "{pairs:?}: not all permalink keys");
    replace(&link::with(&fragment(), pairs));
}

/// Forgets the source and the view (back to the gallery); the reader's settings stay.
pub fn clear() {
    replace(&link::cleared(&fragment()));
}

fn replace(text: &str) {
    let Some(w) = web_sys::window() else { return };
    let url = if text.is_empty() { w.location().pathname().unwrap_or_default() + &w.location().search().unwrap_or_default() } else { format!("#{text}") };
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}
