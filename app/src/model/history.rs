//! TableHistory: what the table's metadata, manifest lists and manifests say, per snapshot.
//!
//! Built from decoded values only. Every snapshot starts with the totals its summary states;
//! manifest lists and manifests read later (see `reading`) make them exact where they are read.
//! A list or manifest shared by many snapshots is decoded and counted once, and only the lists and
//! manifests of the snapshots shown in detail are kept whole.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde::Serialize;

use crate::decode::{Manifest, ManifestFile, ManifestStatus, Snapshot, TableMetadata};

use super::digest::{LiveCounts, ManifestDigest, WrittenColumns};

use super::flink::FlinkCommit;

mod advance;
use super::totals::{disagreements, Disagreement, KindDelta, Totals};

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
const INLINE_LIST: &str = "inline manifests of snapshot #";

pub(crate) fn inline_list_path(index: usize) -> String {
    format!("{INLINE_LIST}{index}")
}

/// Whether a list path is one `inline_list_path` made (keyed by an index, not a file).
pub(crate) fn is_inline_list_path(path: &str) -> bool {
    path.starts_with(INLINE_LIST)
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
