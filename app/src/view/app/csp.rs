//! Narrows the page's `connect-src` to the hosts of the catalog table being opened. The policy in
//! `index.html` must allow any `http:`/`https:` host, because the endpoints are typed at run time
//! and a policy can never be widened once set; a second policy added to the document can only
//! narrow it (a request must satisfy both). So once the first catalog table is opened, the browser
//! itself refuses every other host for the rest of the page's life: a forged reference that got
//! past the loader's own check (`ObjectAccess::plan`) still could not leave.

use std::cell::RefCell;

thread_local! {
    /// The origins the page has been narrowed to, once it has been.
    static NARROWED: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
}

/// An origin as a CSP host-source: `scheme://host[:port]`, or the one wildcard icescope adds.
fn is_source(o: &str) -> bool {
    let rest = o.strip_prefix("https://").or_else(|| o.strip_prefix("http://"));
    rest.is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '*')))
}

/// Whether a request to `origin` is still allowed.
pub fn allows(origin: &str) -> Result<(), String> {
    NARROWED.with(|n| match &*n.borrow() {
        Some(set) if !set.iter().any(|s| s == &origin.to_ascii_lowercase()) => Err(format!(
            "this page now talks only to {} (narrowed when the first catalog table was opened); reload icescope to connect to {origin}",
            set.join(", ")
        )),
        _ => Ok(()),
    })
}

/// Adds `connect-src 'self' <origins>` to the document, the first time; later, checks that the
/// origins are among those already allowed.
pub fn narrow(origins: &[String]) -> Result<(), String> {
    let mut wanted: Vec<String> = origins.iter().map(|o| o.to_ascii_lowercase()).filter(|o| is_source(o)).collect();
    wanted.sort();
    wanted.dedup();
    if NARROWED.with(|n| n.borrow().is_some()) {
        return wanted.iter().try_for_each(|o| allows(o));
    }
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let head = doc.head().ok_or("no <head>")?;
    let meta = doc.create_element("meta").map_err(|_| "cannot create <meta>")?;
    let policy = format!("connect-src 'self' {}", wanted.join(" "));
    let set = |k: &str, v: &str| meta.set_attribute(k, v).map_err(|_| "cannot set the policy".to_string());
    set("http-equiv", "Content-Security-Policy")?;
    set("content", policy.trim_end())?;
    set("data-testid", "narrowed-csp")?;
    head.append_child(&meta).map_err(|_| "cannot add the policy")?;
    NARROWED.with(|n| *n.borrow_mut() = Some(wanted));
    Ok(())
}
