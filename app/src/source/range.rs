//! Reading part of a file: a Parquet footer, a column chunk, one deletion vector in a Puffin file.
//! The request is planned here (an HTTP `Range` header) and the answer checked here, so the CLI's
//! transport and the browser's agree on what a server that ignores `Range` means.

use super::files::SourceError;

/// What a ranged read returned.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RangeRead {
    /// The bytes asked for (fewer where the file ends first).
    pub bytes: Vec<u8>,
    /// The whole object's size, where the source said (a folder, a `File`, `Content-Range`).
    pub object_size: Option<u64>,
    /// Bytes transferred to get them: more than `bytes.len()` when a server ignored `Range` and
    /// sent the whole file (HTTP 200), which is then cut to the range asked for.
    pub transferred: u64,
}

/// Bytes fetched against bytes the files hold: the point of ranged reads. A server that ignores
/// `Range` sends whole files, and fetches more than the files hold: `whole_answers` says so.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Fetched {
    pub files: u64,
    pub requests: u64,
    pub bytes_fetched: u64,
    pub bytes_in_files: u64,
    /// Ranged requests answered with the whole file (HTTP 200 to a `Range`).
    pub whole_answers: u64,
}

impl Fetched {
    /// Counts one ranged read.
    pub fn add(&mut self, r: &RangeRead) {
        self.requests += 1;
        self.bytes_fetched = self.bytes_fetched.saturating_add(r.transferred);
        if r.transferred > r.bytes.len() as u64 {
            self.whole_answers += 1;
        }
    }

    /// Adds another file's reads.
    pub fn merge(&mut self, other: &Fetched) {
        self.requests += other.requests;
        self.bytes_fetched = self.bytes_fetched.saturating_add(other.bytes_fetched);
        self.whole_answers += other.whole_answers;
    }
}

/// Which bytes: `offset..offset+len`, or the last `len` (an HTTP suffix range, which also
/// tells the object's size without a HEAD request).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ByteRange {
    At { offset: u64, len: u64 },
    Tail { len: u64 },
}

impl ByteRange {
    /// The `Range` header value (RFC 9110 §14.1.2); None for an empty range, which needs no request.
    pub fn header(self) -> Option<String> {
        match self {
            ByteRange::At { len: 0, .. } | ByteRange::Tail { len: 0 } => None,
            ByteRange::At { offset, len } => Some(format!("bytes={offset}-{}", offset.saturating_add(len - 1))),
            ByteRange::Tail { len } => Some(format!("bytes=-{len}")),
        }
    }

    /// The part of a whole file this range names.
    pub fn cut(self, whole: &[u8]) -> Vec<u8> {
        let size = whole.len() as u64;
        let (start, end) = match self {
            ByteRange::At { offset, len } => (offset.min(size), offset.saturating_add(len).min(size)),
            ByteRange::Tail { len } => (size.saturating_sub(len), size),
        };
        whole[start as usize..end as usize].to_vec()
    }
}

/// Reads a range out of a whole file (a source that cannot read part of one, or a server that
/// answered 200 to a ranged GET).
pub fn from_whole(range: ByteRange, whole: Vec<u8>) -> RangeRead {
    let transferred = whole.len() as u64;
    RangeRead { bytes: range.cut(&whole), object_size: Some(transferred), transferred }
}

/// Checks an HTTP answer to a ranged GET. 206 must carry the bytes asked for (`Content-Range`
/// gives the object's size); 200 means the server ignored `Range` and sent the whole file, which
/// is cut to the range (and counted as transferred, so the report can say so); 416 means the
/// range starts past the end of the object, an empty read.
pub fn from_http(path: &str, range: ByteRange, status: u16, content_range: Option<&str>, body: Vec<u8>) -> Result<RangeRead, SourceError> {
    let io = |message: String| SourceError::Io { path: path.to_string(), message };
    match status {
        200 => Ok(from_whole(range, body)),
        // A browser hides `Content-Range` from another origin unless its CORS rule exposes it:
        // then the bytes stand if they fit the range, and the object's size stays unknown.
        206 if content_range.is_none() => {
            let asked = match range {
                ByteRange::At { len, .. } | ByteRange::Tail { len } => len,
            };
            if body.len() as u64 > asked {
                return Err(io(format!("HTTP 206 sent {} bytes for a range of {asked}", body.len())));
            }
            Ok(RangeRead { transferred: body.len() as u64, bytes: body, object_size: None })
        }
        206 => {
            let (start, end, total) = content_range
                .and_then(parse_content_range)
                .ok_or_else(|| io(format!("HTTP 206 with an unreadable Content-Range ({:?})", content_range.unwrap_or("none"))))?;
            let want_start = match range {
                ByteRange::At { offset, .. } => Some(offset),
                ByteRange::Tail { len } => total.map(|t| t.saturating_sub(len)),
            };
            if want_start.is_some_and(|w| w != start) || end.checked_sub(start).and_then(|d| d.checked_add(1)) != Some(body.len() as u64) {
                return Err(io(format!("HTTP 206 Content-Range {start}-{end} does not match the {} bytes sent for {range:?}", body.len())));
            }
            Ok(RangeRead { transferred: body.len() as u64, bytes: body, object_size: total })
        }
        416 => Ok(RangeRead { bytes: Vec::new(), object_size: content_range.and_then(parse_unsatisfied), transferred: 0 }),
        s => Err(io(format!("HTTP {s} to a ranged GET"))),
    }
}

/// `bytes 0-99/1234` → (0, 99, Some(1234)); `bytes 0-99/*` → (0, 99, None).
pub fn parse_content_range(v: &str) -> Option<(u64, u64, Option<u64>)> {
    let rest = v.trim().strip_prefix("bytes")?.trim_start();
    let (span, total) = rest.split_once('/')?;
    let (a, b) = span.split_once('-')?;
    let (a, b): (u64, u64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    let total = if total.trim() == "*" { None } else { Some(total.trim().parse().ok()?) };
    (a <= b && total.is_none_or(|t| b < t)).then_some((a, b, total))
}

/// `bytes */1234` (a 416's `Content-Range`) → 1234.
fn parse_unsatisfied(v: &str) -> Option<u64> {
    v.trim().strip_prefix("bytes")?.trim_start().strip_prefix("*/")?.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_asked_for_and_checked() {
        assert_eq!(ByteRange::At { offset: 10, len: 5 }.header().as_deref(), Some("bytes=10-14"));
        assert_eq!(ByteRange::Tail { len: 8 }.header().as_deref(), Some("bytes=-8"));
        assert_eq!(ByteRange::At { offset: 10, len: 0 }.header(), None);
        assert_eq!(parse_content_range("bytes 0-99/1234"), Some((0, 99, Some(1234))));
        assert_eq!(parse_content_range("bytes 5-4/10"), None);
        assert_eq!(parse_content_range("bytes 0-10/10"), None, "end past the object");
        let whole: Vec<u8> = (0..20).collect();
        // A server that ignores Range: the range is cut out, the whole transfer counted.
        let r = from_http("f", ByteRange::Tail { len: 3 }, 200, None, whole.clone()).unwrap();
        assert_eq!((r.bytes, r.object_size, r.transferred), (vec![17, 18, 19], Some(20), 20));
        let r = from_http("f", ByteRange::Tail { len: 3 }, 206, Some("bytes 17-19/20"), vec![17, 18, 19]).unwrap();
        assert_eq!((r.object_size, r.transferred), (Some(20), 3));
        assert!(from_http("f", ByteRange::At { offset: 2, len: 3 }, 206, Some("bytes 0-2/20"), vec![0, 1, 2]).is_err(), "wrong start");
        assert!(from_http("f", ByteRange::At { offset: 2, len: 3 }, 206, Some("bytes x"), vec![2, 3, 4]).is_err());
        let hidden = from_http("f", ByteRange::At { offset: 2, len: 3 }, 206, None, vec![2, 3, 4]).unwrap();
        assert_eq!(hidden.object_size, None, "Content-Range not exposed by CORS: size unknown");
        assert!(from_http("f", ByteRange::At { offset: 2, len: 3 }, 206, None, vec![0; 4]).is_err());
        assert_eq!(ByteRange::At { offset: 18, len: 5 }.cut(&whole), vec![18, 19]);
        assert_eq!(ByteRange::At { offset: 30, len: 5 }.cut(&whole), Vec::<u8>::new());
    }
}
