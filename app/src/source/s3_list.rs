//! Listing a prefix of an S3-compatible bucket: signed `ListObjectsV2` requests, paged with
//! continuation tokens, bounded. The orphan-file census needs every object under a table's
//! location, with its size and `LastModified`.

use super::http::{encode, Request};
use super::s3::{sign_request, S3Config};

/// Keys per page asked for (S3's own maximum).
pub const PAGE_SIZE: usize = 1000;
/// Pages followed at most (a page size of 1 must not mean endless requests either).
pub const MAX_PAGES: usize = 10_000;
/// Objects listed at most. The census keeps each one's path, size and time (`source::listing`):
/// about 270 bytes an object with Flink's data-file names, orphan entry included
/// (`tests/orphans_large.rs` measures it), so this bound is about 1.1 GB; a listing past it stops
/// and says so instead of aborting.
pub const MAX_OBJECTS: usize = 4_000_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedObject {
    pub key: String,
    pub size: Option<u64>,
    /// `LastModified`, ms since the epoch.
    pub modified_ms: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListPage {
    pub objects: Vec<ListedObject>,
    pub truncated: bool,
    pub next_token: Option<String>,
}

impl S3Config {
    /// `GET /bucket?list-type=2&prefix=…` (or on the bucket's host), signed when keys are known.
    pub fn list_request(&self, bucket: &str, prefix: &str, token: Option<&str>, page_size: usize, now_ms: u64) -> Result<Request, String> {
        // The bucket's root URL: the object URL of an empty key.
        let base = self.object_url(bucket, "")?;
        // Parameters in SigV4's canonical (sorted) order, every value percent-encoded.
        let mut q = Vec::new();
        if let Some(t) = token {
            q.push(format!("continuation-token={}", encode(t)));
        }
        q.push("list-type=2".to_string());
        q.push(format!("max-keys={page_size}"));
        q.push(format!("prefix={}", encode(prefix)));
        let url = format!("{base}?{}", q.join("&"));
        match (&self.access_key_id, &self.secret_access_key) {
            (Some(ak), Some(sk)) => {
                sign_request(Request::get(url), ak, sk, self.session_token.as_deref(), self.region.as_deref().unwrap_or("us-east-1"), "s3", now_ms)
            }
            _ => Ok(Request::get(url)),
        }
    }
}

/// A `ListBucketResult` as S3 writes it; elements the census does not need are skipped.
#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ListBucketResult {
    #[serde(default)]
    contents: Vec<Contents>,
    is_truncated: Option<String>,
    next_continuation_token: Option<String>,
    encoding_type: Option<String>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Contents {
    key: Option<String>,
    size: Option<String>,
    last_modified: Option<String>,
}

/// S3's `<Error>` document.
#[derive(serde::Deserialize)]
#[serde(rename_all = "PascalCase")]
pub(crate) struct S3Error {
    pub code: Option<String>,
    pub message: Option<String>,
}

/// The root element's name, or None when the bytes are not an XML document.
fn root_name(text: &str) -> Option<String> {
    let mut reader = quick_xml::Reader::from_str(text);
    loop {
        match reader.read_event().ok()? {
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                return Some(String::from_utf8_lossy(e.local_name().as_ref()).into_owned())
            }
            quick_xml::events::Event::Eof => return None,
            _ => {}
        }
    }
}

/// One `ListBucketResult` page. Only the elements the census needs are read; anything else in the
/// document is skipped. A page that is not a listing (an error document) is an error.
pub fn parse_list(xml: &[u8]) -> Result<ListPage, String> {
    let text = std::str::from_utf8(xml).map_err(|e| format!("ListObjectsV2 answer is not UTF-8: {e}"))?;
    if root_name(text).as_deref() != Some("ListBucketResult") {
        let code = quick_xml::de::from_str::<S3Error>(text).ok().and_then(|e| e.code).unwrap_or_else(|| text.chars().take(200).collect());
        return Err(format!("ListObjectsV2 answered with no listing: {code}"));
    }
    let doc: ListBucketResult = quick_xml::de::from_str(text).map_err(|e| format!("ListObjectsV2: {e}"))?;
    // With `encoding-type=url` (botocore asks for it; icescope does not) keys come percent-encoded.
    let url_encoded = doc.encoding_type.as_deref().is_some_and(|e| e.trim() == "url");
    let mut page = ListPage::default();
    for c in doc.contents {
        let key = c.key.ok_or("ListObjectsV2: <Contents> without <Key>")?;
        let key = if url_encoded { url_decode(&key)? } else { key };
        let size = c.size.and_then(|s| s.trim().parse::<u64>().ok());
        let modified_ms = c.last_modified.and_then(|t| iso8601_ms(t.trim()));
        page.objects.push(ListedObject { key, size, modified_ms });
    }
    page.truncated = doc.is_truncated.is_some_and(|v| v.trim() == "true");
    page.next_token = doc.next_continuation_token.filter(|t| !t.is_empty());
    Ok(page)
}

/// A form-encoded key (`+` a space, `%XX` a byte), as S3's `EncodingType=url` writes it.
fn url_decode(s: &str) -> Result<String, String> {
    let spaced = s.replace('+', " ");
    percent_encoding::percent_decode_str(&spaced).decode_utf8().map(|k| k.into_owned()).map_err(|_| format!("ListObjectsV2: key {s} is not UTF-8 once decoded"))
}

/// `2026-12-01T17:30:05.123Z` (fraction optional) → ms since the epoch; None if not a UTC time.
pub fn iso8601_ms(t: &str) -> Option<i64> {
    let t = chrono::DateTime::parse_from_rfc3339(t).ok()?;
    (t.offset().local_minus_utc() == 0).then(|| t.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_and_entities() {
        assert_eq!(iso8601_ms("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(iso8601_ms("2000-03-01T00:00:01.5Z"), Some(951_868_801_500));
        assert_eq!(iso8601_ms("2026-13-01T00:00:00Z"), None);
        assert_eq!(iso8601_ms("2026-12-01T00:00:00+01:00"), None);
        assert_eq!(iso8601_ms("99999999999999999-12-01T00:00:00Z"), None);
    }

    #[test]
    fn keys_are_unescaped_and_cannot_pose_as_the_page_s_own_elements() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name>
<Contents><Key>t/a&amp;b&lt;c&#x41;&#66;&lt;IsTruncated&gt;true&lt;/IsTruncated&gt;</Key><Size>7</Size><LastModified>2026-12-01T17:30:05.123Z</LastModified></Contents>
<Contents><Key>t/b</Key><Size>x</Size></Contents>
<IsTruncated>false</IsTruncated></ListBucketResult>"#;
        let page = parse_list(xml).unwrap();
        assert_eq!(
            page.objects[0],
            ListedObject { key: "t/a&b<cAB<IsTruncated>true</IsTruncated>".into(), size: Some(7), modified_ms: Some(1_796_146_205_123) }
        );
        assert_eq!(page.objects[1], ListedObject { key: "t/b".into(), size: None, modified_ms: None });
        assert!(!page.truncated);
        assert!(parse_list(b"<ListBucketResult><Contents><Key>t/a</Key>").unwrap_err().starts_with("ListObjectsV2: "));
        assert!(parse_list(b"<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>").unwrap_err().contains("without <Key>"));
        assert!(parse_list(b"not xml").unwrap_err().contains("no listing: not xml"));
    }

    #[test]
    fn list_requests_are_signed_and_carry_the_token() {
        let c = S3Config::from_props(&super::super::s3::Props::from([
            ("s3.endpoint".into(), "http://127.0.0.1:8333".into()),
            ("s3.path-style-access".into(), "true".into()),
            ("s3.access-key-id".into(), "AKIDEXAMPLE".into()),
            ("s3.secret-access-key".into(), "wJalrXUtnFEMI".into()),
        ]));
        let r = c.list_request("wh", "ns/t/", Some("tok/+="), 2, 1_700_000_000_000).unwrap();
        assert_eq!(r.url, "http://127.0.0.1:8333/wh/?continuation-token=tok%2F%2B%3D&list-type=2&max-keys=2&prefix=ns%2Ft%2F");
        assert!(r.headers.iter().any(|(k, v)| k.eq_ignore_ascii_case("authorization") && v.starts_with("AWS4-HMAC-SHA256")));
    }
}
