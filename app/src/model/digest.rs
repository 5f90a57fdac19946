//! What is kept of each manifest read (its counts, the Puffin files its vectors sit in, the
//! columns each adding snapshot wrote) and a snapshot's live counts summed from them.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde::Serialize;

use crate::decode::{DataContent, ManifestEntry, ManifestStatus};

use super::totals::{CountSource, Totals};

/// The live (added or existing) contents of one manifest, counted once however many snapshots share it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
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

    pub(crate) fn add_to(&self, c: &mut LiveCounts) -> Option<()> {
        c.data_files = c.data_files.checked_add(self.data_files)?;
        c.position_delete_files = c.position_delete_files.checked_add(self.position_delete_files)?;
        c.equality_delete_files = c.equality_delete_files.checked_add(self.equality_delete_files)?;
        c.deletion_vectors = c.deletion_vectors.checked_add(self.deletion_vectors)?;
        c.records = c.records.checked_add(self.records)?;
        c.position_deletes = c.position_deletes.checked_add(self.position_deletes)?;
        c.equality_deletes = c.equality_deletes.checked_add(self.equality_deletes)?;
        c.files_size = c.files_size.checked_add(self.files_size)?;
        Some(())
    }
}

/// What is kept of every manifest read: its counts. Which columns each adding snapshot wrote is
/// merged into the history's one map instead: a merged manifest repeats every earlier commit's
/// files, and a set per adder per manifest took 250 MB over a day of merge appends.
#[derive(Debug, Clone, PartialEq)]
pub struct ManifestDigest {
    pub counts: ManifestCounts,
    /// The Puffin files its live deletion vectors sit in: several vectors share one, and a scan
    /// opens each file once however many manifests name it.
    pub vector_files: Box<[Box<str>]>,
}

/// (adding snapshot id as Avro stores it, field ids its data files report metrics for).
pub(crate) type Written = HashMap<i64, BTreeSet<i32>>;

/// Columns written per adding snapshot over every manifest read; identical sets shared.
#[derive(Debug, Default, Clone)]
pub(crate) struct WrittenColumns {
    pub(crate) by_adder: HashMap<i64, Arc<[i32]>>,
    sets: std::collections::HashSet<Arc<[i32]>>,
    /// Leaf field ids the adder's files physically carry, from Parquet footers read: where known
    /// they replace the manifests' metric keys (a writer may skip metrics for a column it writes).
    pub(crate) footers: HashMap<i64, BTreeSet<i32>>,
}

impl WrittenColumns {
    pub(crate) fn merge(&mut self, written: Written) {
        for (id, fields) in written {
            let known = self.by_adder.get(&id);
            if known.is_some_and(|k| fields.iter().all(|f| k.binary_search(f).is_ok())) {
                continue;
            }
            let mut all: BTreeSet<i32> = known.map(|k| k.iter().copied().collect()).unwrap_or_default();
            all.extend(fields);
            let v: Arc<[i32]> = all.into_iter().collect::<Vec<_>>().into();
            let shared = match self.sets.get(&v) {
                Some(s) => s.clone(),
                None => {
                    self.sets.insert(v.clone());
                    v
                }
            };
            self.by_adder.insert(id, shared);
        }
    }
}

/// A digest built entry by entry, as a manifest streams in: its entries need not be kept.
#[derive(Default)]
pub(crate) struct DigestBuilder {
    counts: ManifestCounts,
    written: HashMap<i64, BTreeSet<i32>>,
    error: Option<String>,
    inherited: Option<i64>,
    vector_files: BTreeSet<Box<str>>,
    /// Entries seen, to name the one an error is about.
    seen: usize,
}

impl DigestBuilder {
    pub(crate) fn new(inherited_snapshot: Option<i64>) -> Self {
        DigestBuilder { inherited: inherited_snapshot, ..Default::default() }
    }

    pub(crate) fn add(&mut self, e: &ManifestEntry) {
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

    pub(crate) fn finish(self) -> Result<(ManifestDigest, Written), String> {
        match self.error {
            Some(e) => Err(e),
            None => Ok((ManifestDigest { counts: self.counts, vector_files: self.vector_files.into_iter().collect() }, self.written)),
        }
    }
}

/// The live contents of a snapshot, summed over the manifests of its manifest list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LiveCounts {
    pub manifests: u64,
    pub manifest_bytes: u64,
    pub data_files: u64,
    pub position_delete_files: u64,
    pub equality_delete_files: u64,
    pub deletion_vectors: u64,
    /// Distinct Puffin files holding the live deletion vectors.
    pub deletion_vector_files: u64,
    pub records: u64,
    pub position_deletes: u64,
    pub equality_deletes: u64,
    pub files_size: u64,
}

impl LiveCounts {
    pub fn delete_files(&self) -> u64 {
        self.position_delete_files.saturating_add(self.equality_delete_files).saturating_add(self.deletion_vectors)
    }

    pub fn totals(&self) -> Totals {
        Totals {
            manifests: Some(self.manifests),
            manifest_bytes: Some(self.manifest_bytes),
            data_files: Some(self.data_files),
            delete_files: self.position_delete_files.checked_add(self.equality_delete_files).and_then(|s| s.checked_add(self.deletion_vectors)),
            position_delete_files: Some(self.position_delete_files),
            equality_delete_files: Some(self.equality_delete_files),
            deletion_vectors: Some(self.deletion_vectors),
            deletion_vector_files: Some(self.deletion_vector_files),
            records: Some(self.records),
            position_deletes: Some(self.position_deletes),
            equality_deletes: Some(self.equality_deletes),
            files_size: Some(self.files_size),
            source: Some(CountSource::Manifests),
        }
    }
}
