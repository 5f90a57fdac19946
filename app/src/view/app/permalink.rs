//! The view as a link: the URL's fragment names the source (a bundled example, a location, or a
//! catalog table with the catalog's non-secret settings) and the view (chart tab, compared snapshots). Never a
//! credential: the fragment is built from an allow-list of keys, and a link that opens a catalog
//! fills the form and asks for the secret. A fragment is not sent to any server.

use web_sys::UrlSearchParams;

/// Every key a link may carry. Secrets (token, client secret, S3 keys) are not among them.
pub const KEYS: [&str; 15] = [
    "example",
    "url",
    "catalog",
    "warehouse",
    "table",
    "auth",
    "client_id",
    "scope",
    "token_uri",
    "s3_endpoint",
    "s3_region",
    "s3_path_style",
    "tab",
    "from",
    "to",
];

fn params() -> Option<UrlSearchParams> {
    let hash = web_sys::window()?.location().hash().ok()?;
    UrlSearchParams::new_with_str(hash.trim_start_matches('#')).ok()
}

/// A value the page was opened with (or has set since).
pub fn get(key: &str) -> Option<String> {
    params()?.get(key).filter(|v| !v.is_empty())
}

/// Sets (or with None, removes) keys in the fragment, in place: no reload, no history entry.
pub fn set(pairs: &[(&str, Option<&str>)]) {
    let Some(p) = params() else { return };
    for (k, v) in pairs {
        debug_assert!(KEYS.contains(k), "{k} is not a permalink key");
        if !KEYS.contains(k) {
            continue;
        }
        match v {
            Some(v) if !v.is_empty() => p.set(k, v),
            _ => p.delete(k),
        }
    }
    // Keys no build of icescope writes are dropped rather than carried along.
    let mut kept = Vec::new();
    for k in KEYS {
        if let Some(v) = p.get(k) {
            kept.push((k, v));
        }
    }
    let clean = UrlSearchParams::new().ok();
    let text = match clean {
        Some(c) => {
            for (k, v) in &kept {
                c.append(k, v);
            }
            String::from(c.to_string())
        }
        None => String::new(),
    };
    let Some(w) = web_sys::window() else { return };
    let url = if text.is_empty() { w.location().pathname().unwrap_or_default() + &w.location().search().unwrap_or_default() } else { format!("#{text}") };
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
    }
}

/// Forgets the source and the view (back to the gallery).
pub fn clear() {
    set(&KEYS.map(|k| (k, None)));
}
