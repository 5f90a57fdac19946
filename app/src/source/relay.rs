//! The protocol between the app and `icescope serve`'s relay, both sides' one copy. The relay is
//! not a forwarding proxy: the page asks it for operations (the catalog's listing, open a table,
//! read one file the table names) and the relay runs them with the CLI's own code
//! (`remote::connect`, `RemoteFiles`), so every credential — typed, OAuth token, vended S3 keys —
//! stays in the serve process, and which host a read may go to is decided by `ObjectAccess`, the
//! same allowlist the CLI keeps. The page names files, never hosts.

use serde::{Deserialize, Serialize};

/// The per-run token, on every relay request. A header, not a query parameter: it stays out of
/// logs and `Referer`, and a page on another origin cannot set it on a simple request.
pub const TOKEN_HEADER: &str = "X-Icescope-Relay";
/// The URL fragment key the printed address carries the token in (a fragment is never sent).
pub const FRAGMENT_KEY: &str = "relay";
/// Query strings above this are refused: a reference is a path, not a payload.
pub const MAX_QUERY: usize = 8 * 1024;

pub const HELLO: &str = "/relay/hello";
pub const CATALOG: &str = "/relay/catalog";
pub const OPEN: &str = "/relay/open";
pub const FILE: &str = "/relay/file";

/// What `/relay/hello` answers: what the relay was started with, without a secret.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    pub catalog: Option<String>,
    pub warehouse: Option<String>,
    /// `none`, `token`, `oauth2` or `sigv4`: how the relay authenticates (shown, never the secret).
    pub auth: String,
}

/// What `/relay/catalog` answers: the listing as the CLI's `catalog` command reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Listing {
    pub namespaces: Vec<(Vec<String>, Vec<String>)>,
    pub incomplete: Vec<String>,
}

/// What `/relay/open?table=NS.NAME` answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Opened {
    /// Names the open table in `/relay/file` requests.
    pub id: u32,
    pub metadata_location: String,
    /// What the catalog vended, secrets masked by the relay (`rest_catalog::masked`):
    /// (where, key, value).
    pub vended: Vec<(String, String, String)>,
}

/// A relay error's body: the message and, where a request to the catalog or a store failed, that
/// error as the CLI saw it (so that a missing manifest is a gap of the same kind in the page).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failed {
    pub message: String,
    pub error: Option<super::http::HttpError>,
}

/// `/relay/open?location=…`: a metadata file by its location (`s3://…`, `https://…`), read
/// with the object store settings serve was started with.
pub fn open_location_path(location: &str) -> String {
    format!("{OPEN}?location={}", super::http::encode(location))
}

/// `/relay/open?table=…`
pub fn open_path(table: &str) -> String {
    format!("{OPEN}?table={}", super::http::encode(table))
}

/// `/relay/file?table=ID&ref=…`
pub fn file_path(id: u32, reference: &str) -> String {
    format!("{FILE}?table={id}&ref={}", super::http::encode(reference))
}

/// A query string's value for `key`, percent-decoded; None where absent or not UTF-8.
pub fn query_value(query: &str, key: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == key).then(|| percent_encoding::percent_decode_str(v).decode_utf8().ok().map(|s| s.into_owned()))?
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_any_reference() {
        let r = "s3://wh/ns/t/metadata/snap-1 &x=%2F#?.avro";
        let p = file_path(7, r);
        let (_, q) = p.split_once('?').unwrap();
        assert_eq!(query_value(q, "ref").as_deref(), Some(r));
        assert_eq!(query_value(q, "table").as_deref(), Some("7"));
        assert_eq!(query_value(q, "nope"), None);
        assert_eq!(query_value("ref=%FF", "ref"), None, "not UTF-8");
        assert_eq!(query_value(open_path("a.b c").split_once('?').unwrap().1, "table").as_deref(), Some("a.b c"));
    }
}
