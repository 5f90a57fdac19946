//! HTTP as data: requests built and responses read by pure code, sent by a transport (ureq in the
//! CLI, fetch in the browser). Errors say which URL and what a person can do about it.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: &'static str,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

impl Request {
    pub fn get(url: impl Into<String>) -> Request {
        Request { method: "GET", url: url.into(), headers: Vec::new(), body: None }
    }

    pub fn post_form(url: impl Into<String>, form: &[(&str, &str)]) -> Request {
        let body: String = form.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect::<Vec<_>>().join("&");
        Request {
            method: "POST",
            url: url.into(),
            headers: vec![("Content-Type".into(), "application/x-www-form-urlencoded".into())],
            body: Some(body.into_bytes()),
        }
    }

    pub fn post_json(url: impl Into<String>, json: &serde_json::Value) -> Request {
        Request {
            method: "POST",
            url: url.into(),
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: Some(json.to_string().into_bytes()),
        }
    }

    pub fn header(mut self, name: &str, value: impl Into<String>) -> Request {
        self.headers.push((name.to_string(), value.into()));
        self
    }
}

#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
    /// `Content-Range`: a ranged GET's bytes and the object's size.
    pub content_range: Option<String>,
    /// `ETag`: a catalog's tag for the table metadata it answered, sent back as `If-None-Match`
    /// by a watch (304 when nothing changed).
    pub etag: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum HttpErrorKind {
    /// Nothing listens there, or the name does not resolve.
    Unreachable,
    /// The browser refused to read the response: the server sends no CORS headers for this origin.
    Cors,
    Status(u16),
    /// A redirect, answered and not followed: its target may be a host the user did not name, and
    /// following would carry the request (and its token) there. The status is None in the browser,
    /// which does not show a redirect it was told not to follow.
    Redirect(Option<u16>),
    Malformed,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct HttpError {
    pub url: String,
    pub kind: HttpErrorKind,
    pub message: String,
}

impl HttpError {
    pub fn status(url: &str, status: u16, body: &[u8]) -> HttpError {
        HttpError { url: url.to_string(), kind: HttpErrorKind::Status(status), message: server_message(body) }
    }

    /// A redirect from `url`; `location` is the header as the server sent it (relative or not).
    pub fn redirect(url: &str, status: Option<u16>, location: Option<&str>) -> HttpError {
        let message = location.map(|l| redirect_target(url, l)).unwrap_or_default();
        HttpError { url: url.to_string(), kind: HttpErrorKind::Redirect(status), message }
    }
}

/// Responses above this are refused, in the CLI and the browser: metadata files are megabytes, and
/// a server that sends without end must not fill the memory before anything says so.
pub const MAX_BODY: u64 = 512 << 20;

/// The error for a response past `MAX_BODY`: declared so by its `Content-Length`, or read that far.
pub fn too_large(url: &str, declared: Option<u64>) -> HttpError {
    let what = match declared {
        Some(n) => format!("the response declares {n} bytes"),
        None => "the response went on past that".to_string(),
    };
    HttpError { url: url.to_string(), kind: HttpErrorKind::Other, message: format!("{what}; icescope reads at most {} MiB of one response", MAX_BODY >> 20) }
}

/// Whether a status is a redirect a client would follow to its `Location`.
pub fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Where a redirect points, as an absolute URL without its query or fragment (a redirect to a
/// presigned URL carries a signature there), cut to a length a message can hold.
fn redirect_target(base: &str, location: &str) -> String {
    let absolute = match url::Url::parse(base).and_then(|b| b.join(location)) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => location.split(['?', '#']).next().unwrap_or_default().to_string(),
    };
    let shown: Vec<char> = absolute.chars().filter(|c| !c.is_control()).collect();
    let mut cut: String = shown.iter().take(300).collect();
    if shown.len() > 300 {
        cut.push('…');
    }
    cut
}

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A server's own words may quote the request back: shown without any credential held.
        let message = super::secrets::scrub(&self.message);
        let this = HttpError { url: self.url.clone(), kind: self.kind.clone(), message };
        this.show(f)
    }
}

impl HttpError {
    fn show(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            HttpErrorKind::Status(s) => {
                let reason = match reason(*s) {
                    "" => String::new(),
                    r => format!(" {r}"),
                };
                write!(f, "{}: HTTP {s}{reason}{}", self.url, if self.message.is_empty() { String::new() } else { format!(": {}", self.message) })
            }
            HttpErrorKind::Unreachable => write!(f, "{}: connection refused or host not found ({})", self.url, self.message),
            HttpErrorKind::Cors => write!(f, "{}: {}", self.url, self.message),
            HttpErrorKind::Redirect(s) => {
                let status = s.map(|s| format!("HTTP {s} ")).unwrap_or_default();
                let (to, advice) = match self.message.as_str() {
                    "" => (String::new(), "point icescope at the address it redirects to"),
                    m => (format!(" to {m}"), "open that address yourself if you trust it"),
                };
                write!(f, "{}: {status}redirect{to}; not followed: icescope sends requests only to the hosts you named ({advice})", self.url)
            }
            HttpErrorKind::Malformed => write!(f, "{}: malformed response: {}", self.url, self.message),
            HttpErrorKind::Other => write!(f, "{}: {}", self.url, self.message),
        }
    }
}

impl std::error::Error for HttpError {}

fn reason(s: u16) -> &'static str {
    match s {
        // The Iceberg REST spec's answer for an expired token; no IANA phrase.
        419 => "Authentication Timeout",
        s => http::StatusCode::from_u16(s).ok().and_then(|c| c.canonical_reason()).unwrap_or(""),
    }
}

/// The message an Iceberg REST error (`{"error": {"message", "type"}}`) or an S3 error
/// (`<Error><Code>…</Code><Message>…</Message>`) carries, kept short.
fn server_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        let e = &v["error"];
        let msg = e["message"].as_str().or_else(|| v["message"].as_str()).or_else(|| v["error_description"].as_str()).or_else(|| v["error"].as_str());
        if let Some(m) = msg {
            return match e["type"].as_str() {
                Some(t) => format!("{t}: {m}"),
                None => m.to_string(),
            };
        }
    }
    if let Ok(super::s3_list::S3Error { code: Some(code), message }) = quick_xml::de::from_str(&text) {
        return match message {
            Some(m) => format!("{code}: {m}"),
            None => code,
        };
    }
    text.chars().take(200).collect::<String>().trim().to_string()
}

/// Only RFC 3986's unreserved characters go unescaped: what form values, path segments and
/// SigV4's canonical query all ask for.
const ESCAPED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~');

/// Percent-encoding for form values and URL path segments (RFC 3986 unreserved kept).
pub fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, ESCAPED).to_string()
}

/// Everything before the path: `https://host:port`.
pub fn origin(url: &str) -> &str {
    let start = url.find("://").map(|i| i + 3).unwrap_or(0);
    match url[start..].find('/') {
        Some(j) => &url[..start + j],
        None => url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redirect_names_its_target_without_query_whatever_form_the_location_takes() {
        let base = "http://127.0.0.1:9000/wh/t/metadata/v3.metadata.json?x=1";
        let to = |l: &str| HttpError::redirect(base, Some(302), Some(l)).message;
        assert_eq!(to("http://10.0.0.9:81/a/b?X-Amz-Signature=s3cr3t#f"), "http://10.0.0.9:81/a/b");
        assert_eq!(to("//evil.example/x"), "http://evil.example/x");
        assert_eq!(to("/other/y"), "http://127.0.0.1:9000/other/y");
        assert_eq!(to("v4.metadata.json"), "http://127.0.0.1:9000/wh/t/metadata/v4.metadata.json");
        assert_eq!(HttpError::redirect("http://h:1", Some(301), Some("z")).message, "http://h:1/z");
        assert_eq!(to(&format!("http://h/{}", "a".repeat(400))).chars().count(), 301);
        let shown = HttpError::redirect(base, None, None).to_string();
        assert_eq!(
            shown,
            format!("{base}: redirect; not followed: icescope sends requests only to the hosts you named (point icescope at the address it redirects to)")
        );
        assert!(HttpError::redirect(base, Some(307), Some("http://o/p")).to_string().contains(": HTTP 307 redirect to http://o/p; not followed"));
    }

    #[test]
    fn server_messages_are_read_from_rest_and_s3_errors() {
        assert_eq!(
            server_message(br#"{"error":{"message":"Table does not exist: ns.t","type":"NoSuchTableException","code":404}}"#),
            "NoSuchTableException: Table does not exist: ns.t"
        );
        assert_eq!(
            server_message(b"<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code><Message>Access Denied.</Message></Error>"),
            "AccessDenied: Access Denied."
        );
        assert_eq!(origin("http://127.0.0.1:8181/v1/config?warehouse=w"), "http://127.0.0.1:8181");
        assert_eq!(encode("a b/ü"), "a%20b%2F%C3%BC");
    }
}
