//! Which metadata file is the table's current one, among the files of a table folder.

use super::files::FileSet;
use super::resolve::{last_component, PathIndex};

/// True for `*.metadata.json`, `*.gz.metadata.json` and `*.metadata.json.gz`.
pub fn is_metadata_file(path: &str) -> bool {
    let name = last_component(path).unwrap_or("");
    name.ends_with(".metadata.json") || name.ends_with(".metadata.json.gz")
}

/// The version a metadata file name encodes: `v12.metadata.json` or `00012-<uuid>.metadata.json`.
pub fn metadata_version(path: &str) -> Option<u64> {
    let name = last_component(path)?;
    let digits: String = name.trim_start_matches('v').chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// Files the loader reads into memory from a dropped folder: metadata, never data (a table folder
/// may hold gigabytes of Parquet beside it).
pub fn is_table_metadata(path: &str) -> bool {
    let name = last_component(path).unwrap_or("");
    !name.starts_with('.') && (is_metadata_file(path) || name.ends_with(".avro") || name == "version-hint.text")
}

/// The folder whose metadata files are the table's, and those files. A folder named `metadata`
/// wins over a stray `*.metadata.json` elsewhere (under `data/`, say); among several, the
/// shallowest, then the first by name.
pub fn candidates(index: &PathIndex) -> Option<(String, Vec<String>)> {
    let all: Vec<&str> = index.paths().filter(|p| is_metadata_file(p)).collect();
    let dir_of = |p: &str| p.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default();
    let in_metadata = |d: &str| d == "metadata" || d.ends_with("/metadata");
    let dir = all.iter().map(|p| dir_of(p)).min_by_key(|d| (!in_metadata(d), d.matches('/').count(), d.clone()))?;
    let files = all.into_iter().filter(|p| dir_of(p) == dir).map(str::to_string).collect();
    Some((dir, files))
}

/// What a metadata file's first bytes say about its age, and its name's version.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MetadataVersion {
    pub path: String,
    pub name_version: Option<u64>,
    pub last_sequence_number: Option<i64>,
    pub last_updated_ms: Option<i64>,
}

/// The metadata files a source lists, each with what its first bytes say, and the one picked:
/// the newest by content (see `choose_by_content`), with why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MetadataPick {
    pub path: String,
    pub why: String,
    /// Oldest first.
    pub versions: Vec<MetadataVersion>,
    /// Newer files that did not read, each with why, when an older one was opened instead.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<(String, String)>,
    /// The candidate `version-hint.text` names: the file Iceberg's HadoopCatalog loads as current.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hinted: Option<String>,
}

impl MetadataPick {
    /// The other candidates, newest by content first: where to turn when the picked one fails.
    pub fn fallbacks(&self) -> Vec<String> {
        let mut rest: Vec<&MetadataVersion> = self.versions.iter().filter(|v| v.path != self.path).collect();
        rest.sort_by_key(|v| std::cmp::Reverse((v.last_sequence_number, v.last_updated_ms, v.name_version, v.path.clone())));
        rest.into_iter().map(|v| v.path.clone()).collect()
    }

    /// Files newer by name than the pick whose first bytes state no age while the pick's do,
    /// newest by name first: cut short before those fields (a writer that crashed, a copy that
    /// stopped, a file of 0 bytes) far more often than written by a writer that puts them late.
    /// By content they cannot be placed, so the pick passed them over; they are tried before it.
    pub fn undated_newer(&self) -> Vec<String> {
        let undated = |v: &MetadataVersion| v.last_sequence_number.is_none() && v.last_updated_ms.is_none();
        let Some(picked) = self.versions.iter().find(|v| v.path == self.path).filter(|v| !undated(v)) else { return Vec::new() };
        let mut newer: Vec<&MetadataVersion> =
            self.versions.iter().filter(|v| undated(v) && v.name_version.is_some() && v.name_version > picked.name_version).collect();
        newer.sort_by_key(|v| std::cmp::Reverse((v.name_version, v.path.clone())));
        newer.into_iter().map(|v| v.path.clone()).collect()
    }

    /// The versions with `newest` added as the one open: a folder followed by its
    /// `version-hint.text` (no listing), the file read already telling its age.
    /// `between`: the versions stepped over to reach it, oldest first, their age not read.
    pub fn with_newest(mut self, newest: &str, last_sequence_number: i64, last_updated_ms: i64, between: Vec<String>) -> MetadataPick {
        self.versions.retain(|v| v.path != newest && !between.contains(&v.path));
        for path in between {
            self.versions.push(MetadataVersion { name_version: metadata_version(&path), path, last_sequence_number: None, last_updated_ms: None });
        }
        self.versions.push(MetadataVersion {
            path: newest.to_string(),
            name_version: metadata_version(newest),
            last_sequence_number: Some(last_sequence_number),
            last_updated_ms: Some(last_updated_ms),
        });
        self.path = newest.to_string();
        self.why = "the version version-hint.text states, or the newest after it by name, as Iceberg's HadoopTableOperations reads it".into();
        self.unreadable.clear();
        self
    }

    /// Records that `opened` was opened because every newer candidate in `failed` did not read.
    pub fn fell_back(&mut self, opened: &str, failed: Vec<(String, String)>) {
        let name = |p: &str| last_component(p).unwrap_or(p).to_string();
        self.why = format!(
            "the newest metadata file that reads: {} newer {} not ({}); the table is shown as {} left it",
            failed.len(),
            if failed.len() == 1 { "one does" } else { "ones do" },
            // A load error names its file already; one that does not is named here.
            failed.iter().map(|(p, e)| if e.starts_with(p.as_str()) { e.clone() } else { format!("{}: {e}", name(p)) }).collect::<Vec<_>>().join("; "),
            name(opened)
        );
        self.path = opened.to_string();
        self.unreadable = failed;
    }
}

/// Bytes read from the start of each candidate: writers put `last-sequence-number` and
/// `last-updated-ms` among the first fields (Java within 300 bytes); a day of snapshots makes the
/// whole file 15 MB, and a folder may keep a hundred of them.
pub const HEAD_BYTES: usize = 64 * 1024;

/// `last-sequence-number` and `last-updated-ms` from the start of a metadata file (gzip inflated
/// as far as the bytes go). Absent where a writer puts them later than the bytes given.
pub fn peek(head: &[u8]) -> (Option<i64>, Option<i64>) {
    let text: std::borrow::Cow<'_, [u8]> = if head.starts_with(&[0x1f, 0x8b]) {
        use std::io::Read;
        let mut out = Vec::new();
        // A cut stream ends in an error; what was inflated before it is kept.
        let _ = flate2::read::GzDecoder::new(head).take(HEAD_BYTES as u64 * 4).read_to_end(&mut out);
        out.into()
    } else {
        head.into()
    };
    let text = String::from_utf8_lossy(&text);
    let field = |key: &str| -> Option<i64> {
        let at = text.find(&format!("\"{key}\""))? + key.len() + 2;
        let rest = text[at..].trim_start().strip_prefix(':')?.trim_start();
        let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '-')).unwrap_or(rest.len());
        rest[..end].parse().ok()
    };
    (field("last-sequence-number"), field("last-updated-ms"))
}

/// Bytes read from the end of the newest-named candidate: Java writes `metadata-log` last, and a
/// hundred entries take about 20 KB.
pub const TAIL_BYTES: u64 = 64 * 1024;

/// The metadata files a metadata file's `metadata-log` names, by file name, with their
/// `timestamp-ms`, from its last bytes: each is older than the file that logs it, so it cannot
/// be the newest and its head need not be read (a day of commits keeps a hundred of them, and
/// each read is a round trip). Empty where the log is not in these bytes (other writers put it
/// earlier; a gzip file is not read this way).
pub fn logged_in_tail(tail: &[u8]) -> Vec<(String, i64)> {
    #[derive(serde::Deserialize)]
    struct Entry {
        #[serde(rename = "metadata-file")]
        file: String,
        #[serde(rename = "timestamp-ms")]
        timestamp_ms: i64,
    }
    let key = b"\"metadata-log\"";
    let Some(at) = tail.windows(key.len()).rposition(|w| w == key) else { return Vec::new() };
    let rest = &tail[at + key.len()..];
    let Some(open) = rest.iter().position(|b| !b.is_ascii_whitespace()).filter(|&i| rest[i] == b':') else { return Vec::new() };
    let rest = &rest[open + 1..];
    let entries = serde_json::Deserializer::from_slice(rest).into_iter::<Vec<Entry>>().next();
    match entries {
        Some(Ok(list)) => list.into_iter().filter_map(|e| Some((last_component(&e.file)?.to_string(), e.timestamp_ms))).collect(),
        _ => Vec::new(),
    }
}

/// The newest by content: the highest `last-sequence-number`, then `last-updated-ms`, then the
/// name's version. With the reason, naming `version-hint.text` where it points elsewhere.
pub fn choose_by_content(versions: &[MetadataVersion], hint: Option<&[u8]>) -> Option<(String, String)> {
    let best = versions.iter().max_by_key(|v| (v.last_sequence_number, v.last_updated_ms, v.name_version, v.path.clone()))?;
    let name = |p: &str| last_component(p).unwrap_or("").to_string();
    let mut why = if versions.len() == 1 {
        "the only metadata file".to_string()
    } else if best.last_updated_ms.is_some() || best.last_sequence_number.is_some() {
        format!(
            "the newest of {} metadata files by content (last-sequence-number {}, last-updated-ms {})",
            versions.len(),
            best.last_sequence_number.map(|v| v.to_string()).unwrap_or_else(|| "absent".into()),
            best.last_updated_ms.map(|v| v.to_string()).unwrap_or_else(|| "absent".into())
        )
    } else {
        format!("the highest version by name of {} metadata files (their first bytes state no age)", versions.len())
    };
    let highest_name = versions.iter().max_by_key(|v| (v.name_version, v.path.clone()));
    if let Some(h) = highest_name.filter(|h| h.path != best.path && h.name_version.is_some()) {
        let older = if h.last_sequence_number.is_some() || h.last_updated_ms.is_some() { "is older" } else { "its first bytes state no age" };
        why += &format!("; {} has a higher version in its name but {older}", name(&h.path));
    }
    if let Some(hinted) = hint.and_then(|h| hinted(versions.iter().map(|v| v.path.as_str()), h)).filter(|p| *p != best.path) {
        why += &format!("; version-hint.text names {}, which is older", name(hinted));
    }
    Some((best.path.clone(), why))
}

/// The candidate `version-hint.text` names: by file name, or by the version of a `v<N>` name.
pub fn hinted<'a>(mut candidates: impl Iterator<Item = &'a str>, hint: &[u8]) -> Option<&'a str> {
    let hint = String::from_utf8_lossy(hint).trim().to_string();
    candidates.find(|p| {
        let name = last_component(p).unwrap_or("");
        name == hint || metadata_version(p).map(|v| v.to_string()) == Some(hint.clone()) && name.starts_with('v')
    })
}

/// The newest metadata file of a synchronous file set, by content (see `choose_by_content`).
pub fn newest_metadata(files: &dyn FileSet) -> Option<String> {
    let (dir, candidates) = candidates(files.metadata_index())?;
    let hint_path = if dir.is_empty() { "version-hint.text".to_string() } else { format!("{dir}/version-hint.text") };
    let hint = files.read_path(&hint_path).ok();
    let versions: Vec<MetadataVersion> = candidates
        .into_iter()
        .map(|path| {
            let (last_sequence_number, last_updated_ms) = files.read_head(&path, HEAD_BYTES).map(|h| peek(&h)).unwrap_or((None, None));
            MetadataVersion { name_version: metadata_version(&path), path, last_sequence_number, last_updated_ms }
        })
        .collect();
    choose_by_content(&versions, hint.as_deref()).map(|(p, _)| p)
}

/// The table's current metadata file among the files a source lists: the newest by content. The
/// candidates the newest-named one's `metadata-log` names are older than it and are not opened.
pub async fn pick<F: super::Fetch>(files: &F) -> Option<MetadataPick> {
    use super::range::ByteRange;
    use futures::stream::{self, StreamExt};
    let index = files.listing()?;
    let (dir, candidates) = candidates(index)?;
    let hint_path = if dir.is_empty() { "version-hint.text".to_string() } else { format!("{dir}/version-hint.text") };
    let hint = if index.contains(&hint_path) { files.fetch(&hint_path).await.ok() } else { None };
    let top = candidates.iter().max_by_key(|p| (metadata_version(p), p.as_str())).cloned();
    let logged: std::collections::HashMap<String, i64> = match &top {
        Some(t) if candidates.len() > 2 => {
            files.fetch_range(t, ByteRange::Tail { len: TAIL_BYTES }).await.map(|r| logged_in_tail(&r.bytes)).unwrap_or_default().into_iter().collect()
        }
        _ => Default::default(),
    };
    let heads = stream::iter(candidates)
        .map(|path| {
            let known = (Some(&path) != top.as_ref()).then(|| last_component(&path).and_then(|n| logged.get(n).copied())).flatten();
            async move {
                let (seq, updated) = match known {
                    Some(ts) => (None, Some(ts)),
                    None => files.fetch_head(&path, HEAD_BYTES).await.map(|h| peek(&h)).unwrap_or((None, None)),
                };
                MetadataVersion { name_version: metadata_version(&path), path, last_sequence_number: seq, last_updated_ms: updated }
            }
        })
        .buffered(super::InFlight::BROWSER.reads);
    let mut versions: Vec<MetadataVersion> = heads.collect().await;
    let (path, why) = choose_by_content(&versions, hint.as_deref())?;
    // By time first: files known from the log carry their time, not their sequence number.
    versions.sort_by_key(|v| (v.last_updated_ms, v.last_sequence_number, v.name_version));
    let hinted = hint.as_deref().and_then(|h| hinted(versions.iter().map(|v| v.path.as_str()), h)).map(str::to_string);
    Some(MetadataPick { path, why, versions, unreadable: Vec::new(), hinted })
}

#[cfg(test)]
mod tests {
    use super::{logged_in_tail, MetadataPick, MetadataVersion};

    #[test]
    fn a_version_found_by_the_hint_joins_the_versions_with_those_stepped_over() {
        let v = |n: u64, ts: Option<i64>| MetadataVersion {
            path: format!("t/metadata/v{n}.metadata.json"),
            name_version: Some(n),
            last_sequence_number: ts,
            last_updated_ms: ts,
        };
        let pick = MetadataPick {
            path: v(2, None).path,
            why: "by content".into(),
            versions: vec![v(1, Some(1)), v(2, Some(2))],
            unreadable: vec![("x".into(), "y".into())],
            hinted: None,
        };
        let grown = pick.with_newest(&v(5, None).path, 5, 50, vec![v(3, None).path, v(4, None).path]);
        assert_eq!(grown.path, v(5, None).path);
        assert_eq!(
            grown.versions,
            [v(1, Some(1)), v(2, Some(2)), v(3, None), v(4, None), MetadataVersion { last_sequence_number: Some(5), last_updated_ms: Some(50), ..v(5, None) }]
        );
        assert!(grown.why.contains("version-hint.text") && grown.unreadable.is_empty());
        // Found again (a look that read the same file twice): still once.
        let again = grown.clone().with_newest(&v(5, None).path, 5, 50, vec![v(4, None).path]);
        assert_eq!(again.versions.len(), 5);
        assert_eq!(again.versions.iter().filter(|x| x.name_version == Some(4)).count(), 1);
    }

    #[test]
    fn only_files_newer_by_name_than_a_dated_pick_are_undated_suspects() {
        let v = |n: u64, ts: Option<i64>| MetadataVersion {
            path: format!("t/metadata/v{n}.metadata.json"),
            name_version: Some(n),
            last_sequence_number: ts,
            last_updated_ms: ts,
        };
        let pick = |at: u64, versions: Vec<MetadataVersion>| MetadataPick {
            path: v(at, None).path,
            why: String::new(),
            versions,
            unreadable: Vec::new(),
            hinted: None,
        };
        let p = pick(2, vec![v(1, None), v(2, Some(2)), v(3, None), v(4, None)]);
        assert_eq!(p.undated_newer(), [v(4, None).path, v(3, None).path], "newest by name first; v1 is older by name");
        // No file states its age: the pick is by name, and nothing is above it to suspect.
        assert!(pick(4, vec![v(3, None), v(4, None)]).undated_newer().is_empty());
    }

    #[test]
    fn the_log_is_read_from_a_tail_that_starts_anywhere() {
        let tail = br#"ms" : 3 } ], "metadata-log" : [ { "timestamp-ms" : 10, "metadata-file" : "s3://b/t/metadata/00001-a.metadata.json" }, { "timestamp-ms" : 20, "metadata-file" : "s3://b/t/metadata/00002-b.metadata.json" } ]
}"#;
        assert_eq!(logged_in_tail(tail), [("00001-a.metadata.json".to_string(), 10), ("00002-b.metadata.json".to_string(), 20)]);
        // Cut inside the log, or no log in these bytes: nothing is taken as known.
        assert!(logged_in_tail(&tail[..60]).is_empty());
        assert!(logged_in_tail(br#""snapshot-log": []}"#).is_empty());
        // The name inside a string value is escaped, so it is not the key.
        assert!(logged_in_tail(br#""comment": "\"metadata-log\": [{\"timestamp-ms\": 1, \"metadata-file\": \"x.metadata.json\"}]" }"#).is_empty());
    }
}
