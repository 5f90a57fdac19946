//! Every credential this process has been given or vended, held so that text a server sends back
//! (an error body that quotes the request: "invalid token …", a 403 page echoing headers) is shown
//! only with them removed. Held where each arrives — the catalog's auth, its token, the settings it
//! vends, the S3 keys that sign — and removed from every `HttpError` message as it is shown.

use std::sync::Mutex;

/// How many are held at most (a catalog vending a key per prefix of thousands of tables must not
/// grow this without bound); past it the oldest go first.
const MAX_HELD: usize = 512;
/// Shorter values are not secrets worth the false hits ("true", a region).
const MIN_LEN: usize = 6;
const SHOWN: &str = "••••••";

static HELD: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Holds `secret`, and the forms it travels in (percent-encoded in a form body or a query).
pub fn hold(secret: &str) {
    if secret.chars().count() < MIN_LEN {
        return;
    }
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    for form in [secret.to_string(), super::http::encode(secret)] {
        if !held.contains(&form) {
            if held.len() >= MAX_HELD {
                held.remove(0);
            }
            held.push(form);
        }
    }
}

/// `text` with every held credential replaced by `••••••`, longest first (so that a secret that
/// contains another is removed whole).
pub fn scrub(text: &str) -> String {
    let held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if held.is_empty() {
        return text.to_string();
    }
    let mut by_length: Vec<&String> = held.iter().filter(|s| text.contains(s.as_str())).collect();
    by_length.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_string();
    for s in by_length {
        out = out.replace(s.as_str(), SHOWN);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_secret_is_removed_in_every_form_it_travels_in() {
        hold("s3cr3t/with+slash=");
        hold("tok"); // too short to hold
        let echoed = "invalid_client: client_secret=s3cr3t%2Fwith%2Bslash%3D rejected; header said s3cr3t/with+slash= tok";
        let shown = scrub(echoed);
        assert!(!shown.contains("s3cr3t"), "{shown}");
        assert!(shown.ends_with("•••••• tok"), "{shown}");
    }
}
