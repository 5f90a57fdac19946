//! TableHistory: what the table's metadata, manifest lists and manifests say, per snapshot.
//!
//! Built from decoded values only. Every snapshot starts with the totals its summary states;
//! manifest lists and manifests read later (see `reading`) make them exact where they are read.
//! A list or manifest shared by many snapshots is decoded and counted once, and only the lists and
//! manifests of the snapshots shown in detail are kept whole.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde::Serialize;

use crate::decode::{DataContent, Manifest, ManifestEntry, ManifestFile, ManifestStatus, Snapshot, TableMetadata};

use super::flink::FlinkCommit;
use super::totals::{disagreements, CountSource, Disagreement, KindDelta, Totals};

/// What kind of failure a gap is, kept apart from its message: a person fixes a 403, a CORS
/// rule, a missing file and a damaged one differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GapKind {
    /// No such file among the table's files, or 404.
    Missing,
    /// The server answered with this HTTP status.
    HttpStatus(u16),
    /// The browser hid the answer: no CORS headers for this page's origin.
    Cors,
    /// Nothing answered at the host.
    Unreachable,
    /// Read, but the bytes are not a valid file of its kind.
    Decode,
    /// Valid, but it contradicts itself or the files it names (counts, lengths, duplicates).
    Inconsistent,
    /// Any other failure to read (disk, refusal, transport).
    Unreadable,
}

/// A failure delivered with the bytes it replaces.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub kind: GapKind,
    pub message: String,
}

impl Fault {
    pub fn new(kind: GapKind, message: impl Into<String>) -> Fault {
        Fault { kind, message: message.into() }
    }
}

/// Why part of the history is unknown: a file that could not be read or decoded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    /// The path as the metadata wrote it.
    pub file: String,
    pub kind: GapKind,
    pub message: String,
    /// The snapshots that need this file (filled in by `TableHistory::gaps`).
    #[serde(default)]
    pub snapshot_ids: Vec<crate::decode::SnapshotId>,
}

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
    by_adder: HashMap<i64, Arc<[i32]>>,
    sets: std::collections::HashSet<Arc<[i32]>>,
    /// Leaf field ids the adder's files physically carry, from Parquet footers read: where known
    /// they replace the manifests' metric keys (a writer may skip metrics for a column it writes).
    footers: HashMap<i64, BTreeSet<i32>>,
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

/// How much of a snapshot is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Want {
    /// Its summary is enough.
    Summary,
    /// Its manifest list's counts (a sample across the history, or a summary without totals).
    List,
    /// Its manifests, counted.
    Manifests,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotState {
    pub snapshot: Snapshot,
    pub flink: Option<FlinkCommit>,
    /// What the writer stated in the summary.
    pub summary: super::totals::PackedTotals,
    /// From the manifest list's rows, once read.
    pub listed: Option<Box<Totals>>,
    /// Counted from the manifests, once all are read.
    pub counted: Option<Box<LiveCounts>>,
    pub want: Want,
    /// Shown in detail (current, selected, the last few): its list and manifests are kept whole.
    pub detail: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ListSlot {
    Pending,
    Unavailable(Gap),
    Loaded(Arc<Vec<ManifestFile>>),
    /// Read and counted; no snapshot shown in detail needs its rows any more.
    Released,
}

#[derive(Debug, Clone)]
pub(crate) enum ManifestSlot {
    Pending,
    /// With the lists that name it, for the gap's "needed by".
    Unavailable(Gap, Vec<String>),
    Loaded {
        digest: Arc<ManifestDigest>,
        manifest: Option<Arc<Manifest>>,
    },
}

#[derive(Debug, Clone)]
pub struct TableHistory {
    /// The path of the metadata file this history was read from.
    pub metadata_file: String,
    pub metadata: TableMetadata,
    /// In commit order: by sequence number, then commit time (v1 has no sequence numbers).
    pub snapshots: Vec<SnapshotState>,
    /// Sizes of metadata files that could be found: the current one and those in the metadata log.
    pub metadata_sizes: Vec<MetadataSize>,
    pub(crate) lists: HashMap<String, ListSlot>,
    pub(crate) manifests: HashMap<String, ManifestSlot>,
    pub(crate) written: WrittenColumns,
    /// Every data and delete file a live entry of a manifest read but not kept names, once (a kept
    /// manifest's are read from it): what the snapshots reference, for the orphan-file census
    /// (complete only when every manifest was read).
    pub(crate) referenced: std::collections::HashSet<Box<str>>,
    /// Snapshot indexes by the manifest list path they name (several snapshots may share one).
    pub(crate) by_list: super::list_index::ListIndex,
    /// (id as Avro's signed long writes it, first index with it), sorted by id: half a hash map's
    /// size for a day of commits.
    by_avro_id: Vec<(i64, u32)>,
    /// Delete files per kind (position, equality, DV) carried along the parent chain from summaries.
    kinds: Vec<Option<(u64, u64, u64)>>,
    pub(crate) reading: super::reading::ReadState,
    /// Set when Spark read the manifests (an export folder): see `model::spark`.
    pub(crate) exported: Option<super::spark::Exported>,
    /// Manifests read whole although their length is not the one their list states.
    length_mismatches: Vec<LengthMismatch>,
}

/// A manifest whose size differs from its list's `manifest_length` but that holds every entry the
/// list counts: read and counted, and said (a copy that re-encoded it, or a writer's bug).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LengthMismatch {
    pub file: String,
    pub bytes: u64,
    pub stated: u64,
    pub entries: u64,
}

/// Mismatches kept, at most: the rest are counted by the finding from this many.
const MAX_MISMATCHES: usize = 1_000;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetadataSize {
    pub file: String,
    pub timestamp_ms: i64,
    pub bytes: u64,
}

/// A live data or delete file of one snapshot, with the snapshot that added it.
#[derive(Debug, Clone, Copy)]
pub struct LiveFile<'a> {
    pub file: &'a crate::decode::DataFile,
    /// The adding snapshot, inherited from the manifest list where the entry leaves it out.
    pub added_snapshot_id: Option<i64>,
    /// The data sequence number, inherited from the manifest list for entries added without one
    /// (v2+); None in v1 tables.
    pub data_sequence_number: Option<i64>,
    pub partition_spec_id: i32,
}

fn avro_index(by_avro_id: &[(i64, u32)], id: i64) -> Option<usize> {
    by_avro_id.binary_search_by_key(&id, |&(x, _)| x).ok().map(|at| by_avro_id[at].1 as usize)
}

/// The path under which a v1 snapshot's inline manifest list is kept.
pub(crate) fn inline_list_path(index: usize) -> String {
    format!("inline manifests of snapshot #{index}")
}

impl TableHistory {
    /// Takes the snapshots out of `metadata` (a day of checkpoints is tens of megabytes of
    /// summaries: they are kept once, here, in commit order).
    pub fn new(metadata_file: &str, mut metadata: TableMetadata) -> Self {
        let mut order: Vec<(usize, Snapshot)> = std::mem::take(&mut metadata.snapshots).into_iter().enumerate().collect();
        order.sort_by_key(|(i, s)| (s.sequence_number, s.timestamp_ms, *i));
        let mut snapshots: Vec<SnapshotState> = Vec::with_capacity(order.len());
        for (_, s) in order {
            // Consecutive commits of one job share its ids: 17,280 copies were a megabyte.
            let flink = FlinkCommit::from_summary(&s.summary).map(|f| match snapshots.last().and_then(|p: &SnapshotState| p.flink.as_ref()) {
                Some(prev) => f.sharing(prev),
                None => f,
            });
            snapshots.push(SnapshotState {
                flink,
                summary: super::totals::PackedTotals::pack(&Totals::from_summary(&s.summary)),
                snapshot: s,
                listed: None,
                counted: None,
                want: Want::Summary,
                detail: false,
            });
        }
        let by_list = super::list_index::ListIndex::new(&snapshots);
        let mut by_avro_id: Vec<(i64, u32)> = Vec::with_capacity(snapshots.len());
        for (i, s) in snapshots.iter().enumerate() {
            // Avro's signed long: an unsigned id above i64::MAX reads back as its two's complement.
            if let Ok(i) = u32::try_from(i) {
                by_avro_id.push((s.snapshot.snapshot_id.0 as u64 as i64, i));
            }
        }
        // The first snapshot with an id wins, as the map's `or_insert` did: a stable sort keeps order.
        by_avro_id.sort_by_key(|&(id, _)| id);
        by_avro_id.dedup_by_key(|&mut (id, _)| id);
        let mut h = TableHistory {
            metadata_file: metadata_file.to_string(),
            metadata,
            snapshots,
            metadata_sizes: Vec::new(),
            lists: HashMap::new(),
            manifests: HashMap::new(),
            written: WrittenColumns::default(),
            referenced: Default::default(),
            by_list,
            by_avro_id,
            kinds: Vec::new(),
            reading: Default::default(),
            exported: None,
            length_mismatches: Vec::new(),
        };
        h.refresh_kinds();
        h
    }

    pub fn has_flink_commits(&self) -> bool {
        self.snapshots.iter().any(|s| s.flink.is_some())
    }

    /// The decoded manifest at a path the manifest lists name, where it is kept whole.
    pub fn manifest(&self, path: &str) -> Option<&Manifest> {
        match self.manifests.get(path) {
            Some(ManifestSlot::Loaded { manifest: Some(m), .. }) => Some(m),
            _ => None,
        }
    }

    /// Live counts of snapshot `index` counted from its manifests, or None while any file they
    /// depend on is unread or unavailable.
    pub fn counts(&self, index: usize) -> Option<LiveCounts> {
        self.snapshots.get(index)?.counted.as_deref().cloned()
    }

    /// The best numbers known for snapshot `index`: counted from manifests, else from its manifest
    /// list, else what its summary states; delete kinds carried from the summaries where needed.
    pub fn totals(&self, index: usize) -> Totals {
        let Some(s) = self.snapshots.get(index) else { return Totals::default() };
        let mut t = match (&s.counted, &s.listed) {
            (Some(c), _) => c.totals().or(&s.summary.unpack()),
            (None, Some(l)) => (**l).clone().or(&s.summary.unpack()),
            (None, None) => s.summary.unpack(),
        };
        if t.position_delete_files.is_none() {
            if let Some(Some((p, e, d))) = self.kinds.get(index) {
                if t.delete_files.is_none_or(|total| p.checked_add(*e).and_then(|x| x.checked_add(*d)) == Some(total)) {
                    t.position_delete_files = Some(*p);
                    t.equality_delete_files = Some(*e);
                    t.deletion_vectors = Some(*d);
                }
            }
        }
        // No vector, no Puffin file holding one: whatever the source, that count is known.
        if t.deletion_vectors == Some(0) && t.deletion_vector_files.is_none() {
            t.deletion_vector_files = Some(0);
        }
        t
    }

    /// Every place where a summary's totals and the files read disagree.
    pub fn disagreements(&self) -> Vec<Disagreement> {
        self.snapshots
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                let counted = s.counted.as_ref().map(|c| c.totals()).or_else(|| s.listed.as_deref().cloned());
                counted.map(|c| disagreements(i, &s.summary.unpack(), &c)).unwrap_or_default()
            })
            .collect()
    }

    /// Field ids that each adding snapshot's data files report metrics for, over every manifest read.
    pub fn written_field_ids(&self) -> HashMap<i64, BTreeSet<i32>> {
        let mut out: HashMap<i64, BTreeSet<i32>> = self.written.by_adder.iter().map(|(id, f)| (*id, f.iter().copied().collect())).collect();
        for (id, f) in &self.written.footers {
            out.insert(*id, f.clone());
        }
        out
    }

    /// The columns a data file added by `adder` (as Avro stores the id) physically carries, read
    /// from its Parquet footer: from now on the written-columns findings use them for that adder.
    pub fn record_footer_columns(&mut self, adder: i64, field_ids: impl IntoIterator<Item = i32>) {
        self.written.footers.entry(adder).or_default().extend(field_ids);
    }

    /// Whether the written columns of `adder` come from Parquet footers rather than manifest metrics.
    pub fn written_from_footers(&self, adder: i64) -> bool {
        self.written.footers.contains_key(&adder)
    }

    /// Records a manifest read although its length disagrees with its list (see `LengthMismatch`).
    pub fn note_length_mismatch(&mut self, m: LengthMismatch) {
        if self.length_mismatches.len() < MAX_MISMATCHES && !self.length_mismatches.iter().any(|x| x.file == m.file) {
            self.length_mismatches.push(m);
        }
    }

    pub fn length_mismatches(&self) -> &[LengthMismatch] {
        &self.length_mismatches
    }

    /// Snapshot `index`'s manifest list rows, while they are kept (read, and needed in detail).
    pub fn list_of(&self, index: usize) -> Option<&Arc<Vec<ManifestFile>>> {
        let s = self.snapshots.get(index)?;
        let path = s.snapshot.manifest_list.clone().unwrap_or_else(|| inline_list_path(index));
        match self.lists.get(&path) {
            Some(ListSlot::Loaded(l)) => Some(l),
            _ => None,
        }
    }

    /// The live files of snapshot `index`: empty unless it is shown in detail and all is read.
    pub fn live_files(&self, index: usize) -> Vec<LiveFile<'_>> {
        if let Some(files) = self.exported_live_files(index) {
            return files;
        }
        let Some(list) = self.list_of(index) else { return Vec::new() };
        // Sized first: a doubling vector of 50,000 files left a quarter of it unused at the peak.
        let live = list.iter().filter_map(|m| self.manifest(&m.manifest_path)).map(|m| m.entries.iter().filter(|e| e.status.is_live()).count()).sum();
        let mut out = Vec::with_capacity(live);
        for m in list.iter() {
            let Some(manifest) = self.manifest(&m.manifest_path) else { continue };
            for e in manifest.entries.iter().filter(|e| e.status.is_live()) {
                out.push(LiveFile {
                    file: &e.data_file,
                    added_snapshot_id: e.snapshot_id.or(m.added_snapshot_id),
                    data_sequence_number: e
                        .sequence_number
                        .or((e.status == ManifestStatus::Added && self.metadata.format_version >= 2).then_some(m.sequence_number)),
                    partition_spec_id: manifest.partition_spec_id.unwrap_or(m.partition_spec_id),
                });
            }
        }
        out
    }

    /// Whether the live files of snapshot `index` are all at hand.
    pub fn has_files(&self, index: usize) -> bool {
        self.snapshots.get(index).is_some_and(|s| s.detail && s.counted.is_some()) && self.list_of(index).is_some()
    }

    /// Index of the snapshot with this id (as Avro's signed long writes it).
    pub fn index_of_avro_id(&self, id: i64) -> Option<usize> {
        avro_index(&self.by_avro_id, id)
    }

    /// The current snapshot's index, or the last in commit order when none is marked current.
    pub fn current_index(&self) -> Option<usize> {
        let current = self.metadata.current_snapshot_id;
        current.and_then(|id| self.snapshots.iter().position(|s| s.snapshot.snapshot_id == id)).or_else(|| self.snapshots.len().checked_sub(1))
    }

    /// The data and delete files (DV Puffin files included) named by a live entry of any manifest
    /// read, as the manifests wrote their paths.
    /// A path may come twice (named by a kept manifest and by one that was not kept).
    pub fn referenced_files(&self) -> impl Iterator<Item = &str> + '_ {
        let kept = self.manifests.values().filter_map(|m| match m {
            ManifestSlot::Loaded { manifest: Some(m), .. } => Some(m),
            _ => None,
        });
        let named = kept.flat_map(|m| m.entries.iter().filter(|e| e.status.is_live()).map(|e| &*e.data_file.file_path));
        self.referenced.iter().map(|p| &**p).chain(named)
    }

    /// Every manifest path named by a manifest list read (whether or not it could be read).
    pub fn manifest_paths(&self) -> impl Iterator<Item = &str> + '_ {
        self.manifests.keys().map(|p| p.as_str())
    }

    /// Whether every snapshot's manifest list and every manifest they name were read: only then
    /// does `referenced_files` hold every file any snapshot references. None when they were;
    /// otherwise why not.
    pub fn all_files_known(&self) -> Option<String> {
        if self.reading.mode != Some(super::ReadMode::All) {
            return Some("only some snapshots' manifests were read (read the full history)".into());
        }
        if !self.is_settled() {
            return Some("the full history is still being read".into());
        }
        let lists = self.lists.values().filter(|l| matches!(l, ListSlot::Unavailable(_))).count();
        let manifests = self.manifests.values().filter(|m| matches!(m, ManifestSlot::Unavailable(..) | ManifestSlot::Pending)).count();
        (lists + manifests > 0)
            .then(|| format!("{lists} manifest list(s) and {manifests} manifest(s) could not be read: a file only they name would pass for an orphan"))
    }

    /// Every file that could not be read, with the message and the snapshots that need it; the
    /// rest of the history stands.
    pub fn gaps(&self) -> Vec<Gap> {
        let ids = |lists: &mut dyn Iterator<Item = &String>| {
            let mut v: Vec<usize> = lists.flat_map(|l| self.by_list.get(&self.snapshots, l)).collect();
            v.sort_unstable();
            v.dedup();
            v.into_iter().map(|i| self.snapshots[i].snapshot.snapshot_id).collect::<Vec<_>>()
        };
        let mut lists: Vec<Gap> = self
            .lists
            .iter()
            .filter_map(|(path, l)| match l {
                ListSlot::Unavailable(g) => Some(Gap { snapshot_ids: ids(&mut std::iter::once(path)), ..g.clone() }),
                _ => None,
            })
            .collect();
        // Lists that were read and counted, but whose rows contradict their manifests.
        for (path, messages) in &self.reading.list_warnings {
            lists.push(Gap { file: path.clone(), kind: GapKind::Inconsistent, message: messages.join("; "), snapshot_ids: ids(&mut std::iter::once(path)) });
        }
        lists.sort_by(|a, b| a.snapshot_ids.cmp(&b.snapshot_ids).then(a.file.cmp(&b.file)));
        let mut manifests: Vec<Gap> = self
            .manifests
            .values()
            .filter_map(|m| match m {
                ManifestSlot::Unavailable(g, users) => Some(Gap { snapshot_ids: ids(&mut users.iter()), ..g.clone() }),
                _ => None,
            })
            .collect();
        manifests.sort_by(|a, b| a.file.cmp(&b.file));
        let exported = self.exported.iter().flat_map(|x| x.gaps.iter().cloned());
        lists.into_iter().chain(manifests).chain(exported).collect()
    }

    /// Re-derives the delete files per kind along parent chains: a snapshot's kinds are its parent's
    /// plus the added and removed counts its summary states, anchored where manifests were counted,
    /// at the first snapshot, and wherever the summary says no delete file is live.
    pub(crate) fn refresh_kinds(&mut self) {
        let mut kinds: Vec<Option<(u64, u64, u64)>> = Vec::with_capacity(self.snapshots.len());
        for (i, s) in self.snapshots.iter().enumerate() {
            let k = if let Some(c) = &s.counted {
                Some((c.position_delete_files, c.equality_delete_files, c.deletion_vectors))
            } else if s.summary.unpack().delete_files == Some(0) || s.listed.as_ref().and_then(|l| l.delete_files) == Some(0) {
                Some((0, 0, 0))
            } else {
                let base = match s.snapshot.parent_snapshot_id {
                    None => Some((0, 0, 0)),
                    Some(p) => avro_index(&self.by_avro_id, p.0 as u64 as i64).filter(|&pi| pi < i).and_then(|pi| kinds[pi]),
                };
                let d = KindDelta::of(&s.snapshot.summary);
                let step = |b: u64, (add, rem): (u64, u64)| b.checked_add(add)?.checked_sub(rem);
                base.and_then(|(p, e, v)| Some((step(p, d.pos)?, step(e, d.eq)?, step(v, d.dv)?)))
            };
            kinds.push(k);
        }
        self.kinds = kinds;
    }
}

/// Why a list's manifests give no count.
pub(crate) enum NoCount {
    /// A manifest is unread or unavailable (its own gap says why).
    Missing,
    /// The counts are there but cannot be summed: the list itself is the problem.
    Invalid(String),
}

/// Sums digests into a snapshot's counts.
pub(crate) fn count_list(list: &[ManifestFile], manifests: &HashMap<String, ManifestSlot>) -> Result<LiveCounts, NoCount> {
    let mut c = LiveCounts { manifests: list.len() as u64, ..LiveCounts::default() };
    // Bounded by the entries of the manifests read; empty unless the table has deletion vectors.
    let mut vector_files: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for m in list {
        let len = u64::try_from(m.manifest_length)
            .map_err(|_| NoCount::Invalid(format!("manifest {}: manifest_length {} is negative", m.manifest_path, m.manifest_length)))?;
        c.manifest_bytes = c.manifest_bytes.checked_add(len).ok_or_else(|| NoCount::Invalid("the manifests' lengths sum past 2^64".into()))?;
        let Some(ManifestSlot::Loaded { digest, .. }) = manifests.get(&m.manifest_path) else { return Err(NoCount::Missing) };
        digest.counts.add_to(&mut c).ok_or_else(|| NoCount::Invalid(format!("its manifests' counts sum past 2^64 (at manifest {})", m.manifest_path)))?;
        vector_files.extend(digest.vector_files.iter().map(|p| &**p));
    }
    c.deletion_vector_files = vector_files.len() as u64;
    Ok(c)
}

/// Where a list row's own counts contradict the entries of the manifest it names.
pub(crate) fn row_disagreements(list: &[ManifestFile], manifests: &HashMap<String, ManifestSlot>) -> Vec<String> {
    let mut out = Vec::new();
    for m in list {
        let Some(ManifestSlot::Loaded { digest, .. }) = manifests.get(&m.manifest_path) else { continue };
        let c = &digest.counts;
        if let (Some(a), Some(e)) = (m.added_files_count, m.existing_files_count) {
            let stated = i128::from(a) + i128::from(e);
            if stated != i128::from(c.files()) {
                out.push(format!(
                    "manifest {}: the list says added_files_count {a} + existing_files_count {e} = {stated} live files, its entries hold {}",
                    m.manifest_path,
                    c.files()
                ));
            }
        }
        if m.content == crate::decode::ManifestContent::Data {
            if let (Some(a), Some(e)) = (m.added_rows_count, m.existing_rows_count) {
                let stated = i128::from(a) + i128::from(e);
                if stated != i128::from(c.records) {
                    out.push(format!(
                        "manifest {}: the list says added_rows_count {a} + existing_rows_count {e} = {stated} rows, its entries hold {}",
                        m.manifest_path, c.records
                    ));
                }
            }
        }
    }
    out
}

/// Totals from a manifest list's own rows: exact where the writer filled the counts (required
/// from v2 on), None where any row lacks them.
pub(crate) fn list_totals(list: &[ManifestFile]) -> Option<Totals> {
    use crate::decode::ManifestContent;
    let (mut data, mut deletes, mut records, mut bytes) = (0u64, 0u64, 0u64, 0u64);
    for m in list {
        let files = u64::try_from(m.added_files_count?).ok()?.checked_add(u64::try_from(m.existing_files_count?).ok()?)?;
        bytes = bytes.checked_add(u64::try_from(m.manifest_length).ok()?)?;
        match m.content {
            ManifestContent::Data => {
                data = data.checked_add(files)?;
                let rows = u64::try_from(m.added_rows_count?).ok()?.checked_add(u64::try_from(m.existing_rows_count?).ok()?)?;
                records = records.checked_add(rows)?;
            }
            ManifestContent::Deletes => deletes = deletes.checked_add(files)?,
            ManifestContent::Unknown(_) => return None,
        }
    }
    Some(Totals {
        manifests: Some(list.len() as u64),
        manifest_bytes: Some(bytes),
        data_files: Some(data),
        delete_files: Some(deletes),
        records: Some(records),
        source: Some(CountSource::ManifestList),
        ..Totals::default()
    })
}
