//! A manifest digested as it streams: its live counts, the Puffin files its deletion vectors sit
//! in, the columns each adding snapshot wrote, and (where asked) its entries. Pure, from one file's
//! bytes: the decoder worker runs it (`job::Job::Manifest`), so that a day of manifests is decoded
//! off the page; the model absorbs what comes back.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::{DataContent, DecodeError, Manifest, ManifestEntry, ManifestStatus};

/// The live (added or existing) contents of one manifest, counted once however many snapshots share it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestCounts {
    pub data_files: u64,
    pub position_delete_files: u64,
    pub equality_delete_files: u64,
    pub deletion_vectors: u64,
    pub records: u64,
    pub position_deletes: u64,
    pub equality_deletes: u64,
    pub files_size: u64,
}

impl ManifestCounts {
    /// Counts one entry; a negative count or a sum past 2^64 is an error, not a zero.
    pub(crate) fn add(&mut self, e: &ManifestEntry) -> Result<(), String> {
        if !e.status.is_live() {
            return Ok(());
        }
        let add = |acc: &mut u64, v: i64, what: &str, path: &str| -> Result<(), String> {
            let v = u64::try_from(v).map_err(|_| format!("{what} {v} is negative (data file {path})"))?;
            *acc = acc.checked_add(v).ok_or_else(|| format!("{what} sum overflows 2^64 at data file {path}"))?;
            Ok(())
        };
        let f = &e.data_file;
        // Bounded by the entries decoded, themselves bounded by the bytes present.
        let one = |acc: &mut u64| *acc = acc.saturating_add(1);
        match f.content {
            DataContent::Data => {
                one(&mut self.data_files);
                add(&mut self.records, f.record_count, "record_count", &f.file_path)?;
            }
            DataContent::PositionDeletes => {
                if f.is_deletion_vector() { one(&mut self.deletion_vectors) } else { one(&mut self.position_delete_files) }
                add(&mut self.position_deletes, f.record_count, "record_count", &f.file_path)?;
            }
            DataContent::EqualityDeletes => {
                one(&mut self.equality_delete_files);
                add(&mut self.equality_deletes, f.record_count, "record_count", &f.file_path)?;
            }
            DataContent::Unknown(v) => {
                return Err(format!(
                    "field `content`: {v} is not a content this reader knows (0 data, 1 position deletes, 2 equality deletes), for file {}: the manifest's files are not counted",
                    f.file_path
                ))
            }
        }
        // A deletion vector is one blob of a Puffin file others share: its size is the blob's
        // (`content_size_in_bytes`), as Iceberg's `total-files-size` counts it, not the file's.
        match f.v3.as_ref().and_then(|v| v.content_size_in_bytes).filter(|_| f.is_deletion_vector()) {
            Some(blob) => add(&mut self.files_size, blob, "content_size_in_bytes", &f.file_path),
            None => add(&mut self.files_size, f.file_size_in_bytes, "file_size_in_bytes", &f.file_path),
        }
    }

    /// Live files of every content.
    pub fn files(&self) -> u64 {
        self.data_files.saturating_add(self.position_delete_files).saturating_add(self.equality_delete_files).saturating_add(self.deletion_vectors)
    }
}

/// What is kept of every manifest read: its counts. Which columns each adding snapshot wrote is
/// merged into the history's one map instead: a merged manifest repeats every earlier commit's
/// files, and a set per adder per manifest took 250 MB over a day of merge appends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestDigest {
    pub counts: ManifestCounts,
    /// The Puffin files its live deletion vectors sit in: several vectors share one, and a scan
    /// opens each file once however many manifests name it.
    pub vector_files: Box<[Box<str>]>,
}

/// (adding snapshot id as Avro stores it, field ids its data files report metrics for).
pub type Written = HashMap<i64, BTreeSet<i32>>;

/// A digest built entry by entry, as a manifest streams in: its entries need not be kept.
#[derive(Default)]
pub struct DigestBuilder {
    counts: ManifestCounts,
    written: HashMap<i64, BTreeSet<i32>>,
    error: Option<String>,
    inherited: Option<i64>,
    vector_files: BTreeSet<Box<str>>,
    /// Entries seen, to name the one an error is about.
    seen: usize,
}

impl DigestBuilder {
    pub fn new(inherited_snapshot: Option<i64>) -> Self {
        DigestBuilder { inherited: inherited_snapshot, ..Default::default() }
    }

    pub fn add(&mut self, e: &ManifestEntry) {
        if self.error.is_some() {
            return;
        }
        let index = self.seen;
        self.seen += 1;
        if let DataContent::Unknown(v) = e.data_file.content {
            self.error = Some(format!(
                "entry[{index}].data_file.content: unknown file content {v} (0 data, 1 position deletes, 2 equality deletes), file {}: the manifest's files are not counted",
                e.data_file.file_path
            ));
            return;
        }
        if let Err(m) = self.counts.add(e) {
            self.error = Some(m);
            return;
        }
        if e.status.is_live() && e.data_file.is_deletion_vector() && !self.vector_files.contains(&*e.data_file.file_path) {
            self.vector_files.insert(e.data_file.file_path.clone());
        }
        if e.status.is_live() && e.data_file.content == DataContent::Data {
            let adder = e.snapshot_id.or(if e.status == ManifestStatus::Added { self.inherited } else { None });
            if let Some(id) = adder {
                self.written.entry(id).or_default().extend(e.data_file.metric_field_ids.iter().copied());
            }
        }
    }

    pub fn finish(self) -> Result<(ManifestDigest, Written), String> {
        match self.error {
            Some(e) => Err(e),
            None => Ok((ManifestDigest { counts: self.counts, vector_files: self.vector_files.into_iter().collect() }, self.written)),
        }
    }
}

/// A manifest digested: what the model keeps of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Digested {
    pub digest: ManifestDigest,
    pub written: Written,
    /// Entries the manifest holds.
    pub entries: usize,
    /// Its entries, where asked for and no more than `keep_at_most` of them: a manifest is kept
    /// whole or not at all (half its files would pass for all of them).
    pub kept: Option<Manifest>,
}

/// Why a manifest gives no digest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum DigestFault {
    /// The bytes do not decode.
    Decode(DecodeError),
    /// They decode, but the counts cannot be trusted (a negative count, a sum past 2^64, an
    /// unknown content).
    Inconsistent(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DigestedManifest {
    pub result: Result<Digested, DigestFault>,
    /// The live files a manifest names whose entries are not kept (read up to an error, if any):
    /// the orphan census's referenced files. A kept manifest's are read from its entries.
    pub live_paths: Vec<Box<str>>,
}

/// Streams a manifest into its digest. `inherited`: the snapshot that added it (its list's
/// `added_snapshot_id`), for entries that leave theirs to inheritance.
pub fn digest_manifest(path: &str, bytes: &[u8], inherited: Option<i64>, keep_at_most: usize) -> DigestedManifest {
    let mut builder = DigestBuilder::new(inherited);
    let keep = keep_at_most > 0;
    let mut seen = 0usize;
    let mut live_paths = Vec::new();
    let live = |paths: &mut Vec<Box<str>>, e: &ManifestEntry| {
        if e.status.is_live() {
            paths.push(e.data_file.file_path.clone());
        }
    };
    let decoded = Manifest::stream(path, bytes, keep_at_most, |e| {
        builder.add(e);
        seen += 1;
        let kept = keep && seen <= keep_at_most;
        if !kept {
            live(&mut live_paths, e);
        }
        kept
    });
    let whole = decoded.is_ok() && seen <= keep_at_most;
    if keep && !whole {
        // It stopped being kept part-way (too many entries, or an error): the entries kept so far
        // are gone with it, so every path is streamed again. Rare, and no copy meanwhile.
        live_paths.clear();
        let _ = Manifest::stream(path, bytes, 0, |e| {
            live(&mut live_paths, e);
            false
        });
    }
    let result = match decoded {
        Err(e) => Err(DigestFault::Decode(e)),
        Ok(m) => match builder.finish() {
            Ok((digest, written)) => Ok(Digested { digest, written, entries: seen, kept: (keep && whole).then_some(m) }),
            Err(why) => {
                if keep && whole {
                    m.entries.iter().for_each(|e| live(&mut live_paths, e));
                }
                Err(DigestFault::Inconsistent(format!("{path}: {why}")))
            }
        },
    };
    DigestedManifest { result, live_paths }
}
