//! The built app (Trunk's `dist/`) as files: a path under the folder and nowhere else, with the
//! `Range` reads the app makes of the bundled examples (footers, key columns).

use std::path::{Component, Path, PathBuf};

use icescope::source::range::ByteRange;

/// A file's answer: status, content type, body, `Content-Range`.
pub struct Served {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    pub content_range: Option<String>,
    /// What the body holds of `budget::TOTAL_BYTES`, given back once it is sent.
    pub held: super::budget::Held,
}

impl Served {
    pub fn text(status: u16, message: &str) -> Served {
        Served { status, content_type: "text/plain; charset=utf-8", body: message.as_bytes().to_vec(), content_range: None, held: Default::default() }
    }
}

/// The file `url_path` names under `root`; a path without an extension that names no file is the
/// app's own page (client-side routes). `..`, absolute parts and undecodable paths are refused.
pub fn serve(root: &Path, url_path: &str, range: Option<&str>) -> Served {
    let Some(file) = resolve(root, url_path) else { return Served::text(404, "not found") };
    let Ok(bytes) = std::fs::read(&file) else { return Served::text(404, "not found") };
    let content_type = mime(&file);
    let Some(range) = range.and_then(parse_range) else {
        return Served { status: 200, content_type, body: bytes, content_range: None, held: Default::default() };
    };
    let size = bytes.len() as u64;
    let (start, end) = match range {
        ByteRange::At { offset, len } => (offset, offset.saturating_add(len).min(size)),
        ByteRange::Tail { len } => (size.saturating_sub(len), size),
    };
    if start >= size || start >= end {
        return Served { status: 416, content_type, body: Vec::new(), content_range: Some(format!("bytes */{size}")), held: Default::default() };
    }
    let body = bytes[start as usize..end as usize].to_vec();
    Served { status: 206, content_type, body, content_range: Some(format!("bytes {start}-{}/{size}", end - 1)), held: Default::default() }
}

fn resolve(root: &Path, url_path: &str) -> Option<PathBuf> {
    let decoded = percent_encoding::percent_decode_str(url_path).decode_utf8().ok()?;
    let rel = Path::new(decoded.trim_start_matches('/'));
    if decoded.contains('\0') || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let file = root.join(rel);
    if file.is_file() {
        return Some(file);
    }
    rel.extension().is_none().then(|| root.join("index.html")).filter(|f| f.is_file())
}

/// `bytes=a-b`, `bytes=a-` (to the end) or `bytes=-n`: one range, as the app asks.
pub fn parse_range(v: &str) -> Option<ByteRange> {
    let (a, b) = v.trim().strip_prefix("bytes=")?.split_once('-')?;
    match (a.trim(), b.trim()) {
        ("", n) => Some(ByteRange::Tail { len: n.parse().ok()? }),
        (a, "") => Some(ByteRange::At { offset: a.parse().ok()?, len: u64::MAX - a.parse::<u64>().ok()? }),
        (a, b) => {
            let (a, b): (u64, u64) = (a.parse().ok()?, b.parse().ok()?);
            (a <= b).then(|| ByteRange::At { offset: a, len: b - a + 1 })
        }
    }
}

fn mime(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "md" | "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_files_under_the_root_are_served_and_ranges_cut() {
        let dir = std::env::temp_dir().join(format!("icescope-dist-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a")).unwrap();
        std::fs::write(dir.join("index.html"), "<html>").unwrap();
        std::fs::write(dir.join("a/x.bin"), (0u8..20).collect::<Vec<_>>()).unwrap();
        assert_eq!(serve(&dir, "/a/x.bin", None).body.len(), 20);
        assert_eq!(serve(&dir, "/somewhere", None).body, b"<html>", "a client-side route");
        for bad in ["/../etc/passwd", "/a/../../x", "/%2e%2e/x", "/a/x.bin%00", "/missing.js"] {
            assert_eq!(serve(&dir, bad, None).status, 404, "{bad}");
        }
        let r = serve(&dir, "/a/x.bin", Some("bytes=-3"));
        assert_eq!((r.status, r.body, r.content_range.as_deref()), (206, vec![17, 18, 19], Some("bytes 17-19/20")));
        let r = serve(&dir, "/a/x.bin", Some("bytes=18-"));
        assert_eq!((r.status, r.body), (206, vec![18, 19]));
        assert_eq!(serve(&dir, "/a/x.bin", Some("bytes=30-40")).status, 416);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
