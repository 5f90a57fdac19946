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
/// The open catalog table asked of its catalog again (a watch): `?table=ID`.
pub const RELOAD: &str = "/relay/reload";
/// Several whole files of one table in one request: a browser keeps six HTTP/1.1 connections
/// to an origin, so one file a request holds a day's 17,280 manifests to six round trips at a time.
pub const FILES: &str = "/relay/files";
/// Files a `/relay/files` request names, at most; the query stays under `MAX_QUERY` too.
pub const MAX_BATCH: usize = 32;

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

/// What `/relay/reload?table=ID` answers: the table's metadata file now (the same one when the
/// catalog answered 304 to the last answer's ETag).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reloaded {
    pub metadata_location: String,
}

/// `/relay/reload?table=ID`
pub fn reload_path(id: u32) -> String {
    format!("{RELOAD}?table={id}")
}

/// `/relay/file?table=ID&ref=…`
pub fn file_path(id: u32, reference: &str) -> String {
    format!("{FILE}?table={id}&ref={}", super::http::encode(reference))
}

/// `/relay/files?table=ID&ref=…&ref=…`
pub fn files_path(id: u32, references: &[&str]) -> String {
    let mut path = format!("{FILES}?table={id}");
    for r in references {
        path.push_str("&ref=");
        path.push_str(&super::http::encode(r));
    }
    path
}

/// Every value of `key`, percent-decoded, in order: at most `max + 1` (more is refused by the
/// caller without decoding them all); None if one is not UTF-8.
pub fn query_values(query: &str, key: &str, max: usize) -> Option<Vec<String>> {
    query
        .split('&')
        .filter_map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (k == key).then_some(v)
        })
        .take(max.saturating_add(1))
        .map(|v| percent_encoding::percent_decode_str(v).decode_utf8().ok().map(|s| s.into_owned()))
        .collect()
}

/// A `/relay/files` frame's status for a file the relay did not put in the batch (the batch had
/// reached its size): the page reads it on its own, with `/relay/file`.
pub const READ_ALONE: u16 = 413;

/// A `/relay/files` answer: per file, in the order asked, its status (200, or the status of the
/// relay's error), its length and its bytes (the file, or the `Failed` JSON).
pub fn frames(parts: &[(u16, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(parts.iter().map(|(_, b)| b.len() + 6).sum());
    for (status, body) in parts {
        frame(&mut out, *status, body);
    }
    out
}

/// One frame of a `/relay/files` answer, appended to `out`.
pub fn frame(out: &mut Vec<u8>, status: u16, body: &[u8]) {
    out.extend_from_slice(&status.to_be_bytes());
    out.extend_from_slice(&u32::try_from(body.len()).unwrap_or(u32::MAX).to_be_bytes());
    out.extend_from_slice(body);
}

/// The frames of a `/relay/files` answer: exactly `expected` of them, each length checked against
/// the bytes present, nothing left over.
pub fn unframe(body: &[u8], expected: usize) -> Result<Vec<(u16, &[u8])>, String> {
    let mut out = Vec::with_capacity(expected.min(MAX_BATCH));
    let mut rest = body;
    while !rest.is_empty() {
        if out.len() == expected {
            return Err(format!("{} bytes after the {expected} files asked for", rest.len()));
        }
        let (Some(status), Some(len)) = (rest.get(..2), rest.get(2..6)) else {
            return Err(format!("frame {} is cut short in its header", out.len()));
        };
        let status = u16::from_be_bytes([status[0], status[1]]);
        let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
        let Some(bytes) = 6usize.checked_add(len).and_then(|end| rest.get(6..end)) else {
            return Err(format!("frame {} declares {len} bytes; {} are present", out.len(), rest.len().saturating_sub(6)));
        };
        out.push((status, bytes));
        rest = &rest[6 + len..];
    }
    if out.len() != expected {
        return Err(format!("{} files answered of the {expected} asked for", out.len()));
    }
    Ok(out)
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
        let refs = ["s3://b/x&ref=y.avro", "ref=", "ü %2F"];
        let p = files_path(3, &refs);
        let (_, q) = p.split_once('?').unwrap();
        assert_eq!(query_values(q, "ref", 32), Some(refs.iter().map(|s| s.to_string()).collect()));
        assert_eq!(query_values(q, "ref", 1).map(|v| v.len()), Some(2), "one past the bound, then no more");
    }

    #[test]
    fn frames_round_trip_and_every_declared_length_is_checked() {
        let parts = vec![(200u16, b"abc".to_vec()), (502, Vec::new()), (200, vec![7u8; 70_000])];
        let body = frames(&parts);
        let back = unframe(&body, 3).unwrap();
        assert_eq!(back.iter().map(|(s, b)| (*s, b.to_vec())).collect::<Vec<_>>(), parts);
        assert!(unframe(&body, 2).unwrap_err().contains("after the 2 files"));
        assert!(unframe(&body, 4).unwrap_err().contains("3 files answered of the 4"));
        for cut in [1, 5, 8, body.len() - 1] {
            assert!(unframe(&body[..cut], 3).is_err(), "cut at {cut}");
        }
        let mut lying = frames(&[(200, b"ab".to_vec())]);
        lying[2..6].copy_from_slice(&u32::MAX.to_be_bytes());
        assert!(unframe(&lying, 1).unwrap_err().contains("declares 4294967295 bytes; 2 are present"));
    }
}
