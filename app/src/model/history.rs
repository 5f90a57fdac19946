//! TableHistory: what the table's metadata, manifest lists and manifests say, per snapshot.

use std::collections::HashMap;

use serde::Serialize;

use crate::decode::{DataContent, Manifest, ManifestFile, Snapshot, TableMetadata};

use super::flink::FlinkCommit;

/// Why part of the history is unknown: a file that could not be read or decoded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Gap {
    /// The path as the metadata wrote it.
    pub file: String,
    pub message: String,
    /// The snapshots that need this file (filled in by `TableHistory::gaps`).
    #[serde(default)]
    pub snapshot_ids: Vec<crate::decode::SnapshotId>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ListState {
    Pending,
    /// Expired or unreadable: a stated gap, not a failure of the table.
    Unavailable(Gap),
    Loaded(Vec<ManifestFile>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ManifestState {
    Pending,
    Unavailable(Gap),
    Loaded(ManifestCounts),
}

/// The live (added or existing) contents of one manifest, counted once however many snapshots share it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ManifestCounts {
    pub data_files: u64,
    pub position_delete_files: u64,
    pub equality_delete_files: u64,
    pub deletion_vectors: u64,
    pub records: u64,
}

impl ManifestCounts {
    fn of(manifest: &Manifest) -> Self {
        let mut c = ManifestCounts::default();
        for e in manifest.entries.iter().filter(|e| e.status.is_live()) {
            let f = &e.data_file;
            match f.content {
                DataContent::Data => {
                    c.data_files += 1;
                    c.records += f.record_count.max(0) as u64;
                }
                DataContent::PositionDeletes if f.is_deletion_vector() => c.deletion_vectors += 1,
                DataContent::PositionDeletes => c.position_delete_files += 1,
                DataContent::EqualityDeletes => c.equality_delete_files += 1,
            }
        }
        c
    }
}

/// The live contents of a snapshot, summed over the manifests of its manifest list.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LiveCounts {
    pub manifests: u64,
    pub manifest_bytes: u64,
    pub data_files: u64,
    pub position_delete_files: u64,
    pub equality_delete_files: u64,
    pub deletion_vectors: u64,
    pub records: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotState {
    pub snapshot: Snapshot,
    pub flink: Option<FlinkCommit>,
    pub list: ListState,
}

#[derive(Debug, Clone)]
pub struct TableHistory {
    /// The path of the metadata file this history was read from.
    pub metadata_file: String,
    pub metadata: TableMetadata,
    /// In commit order: by sequence number, then commit time (v1 has no sequence numbers).
    pub snapshots: Vec<SnapshotState>,
    pub(crate) manifests: HashMap<String, ManifestState>,
    pub(crate) manifest_data: HashMap<String, Manifest>,
    /// Sizes of metadata files that could be found: the current one and those in the metadata log.
    pub metadata_sizes: Vec<MetadataSize>,
}

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

impl TableHistory {
    pub fn new(metadata_file: &str, metadata: TableMetadata) -> Self {
        let mut order: Vec<(usize, &Snapshot)> = metadata.snapshots.iter().enumerate().collect();
        order.sort_by_key(|(i, s)| (s.sequence_number, s.timestamp_ms, *i));
        let snapshots = order
            .into_iter()
            .map(|(_, s)| SnapshotState { snapshot: s.clone(), flink: FlinkCommit::from_summary(&s.summary), list: ListState::Pending })
            .collect();
        TableHistory {
            metadata_file: metadata_file.to_string(),
            metadata,
            snapshots,
            manifests: HashMap::new(),
            manifest_data: HashMap::new(),
            metadata_sizes: Vec::new(),
        }
    }

    pub fn has_flink_commits(&self) -> bool {
        self.snapshots.iter().any(|s| s.flink.is_some())
    }

    /// The decoded manifest at a path the manifest lists name, once loaded.
    pub fn manifest(&self, path: &str) -> Option<&Manifest> {
        self.manifest_data.get(path)
    }

    pub fn manifest_state(&self, path: &str) -> Option<&ManifestState> {
        self.manifests.get(path)
    }

    /// Live counts of snapshot `index`, or None while any file they depend on is pending or unavailable.
    pub fn counts(&self, index: usize) -> Option<LiveCounts> {
        let ListState::Loaded(list) = &self.snapshots.get(index)?.list else { return None };
        let mut c = LiveCounts { manifests: list.len() as u64, ..LiveCounts::default() };
        for m in list {
            c.manifest_bytes += m.manifest_length.max(0) as u64;
            let Some(ManifestState::Loaded(mc)) = self.manifests.get(&m.manifest_path) else { return None };
            c.data_files += mc.data_files;
            c.position_delete_files += mc.position_delete_files;
            c.equality_delete_files += mc.equality_delete_files;
            c.deletion_vectors += mc.deletion_vectors;
            c.records += mc.records;
        }
        Some(c)
    }

    /// The live files of snapshot `index` (empty while its manifests are not all loaded).
    pub fn live_files(&self, index: usize) -> Vec<LiveFile<'_>> {
        let Some(ListState::Loaded(list)) = self.snapshots.get(index).map(|s| &s.list) else { return Vec::new() };
        let mut out = Vec::new();
        for m in list {
            let Some(manifest) = self.manifest_data.get(&m.manifest_path) else { continue };
            for e in manifest.entries.iter().filter(|e| e.status.is_live()) {
                out.push(LiveFile {
                    file: &e.data_file,
                    added_snapshot_id: e.snapshot_id.or(m.added_snapshot_id),
                    data_sequence_number: e.sequence_number.or(
                        (e.status == crate::decode::ManifestStatus::Added && self.metadata.format_version >= 2).then_some(m.sequence_number),
                    ),
                    partition_spec_id: manifest.partition_spec_id.unwrap_or(m.partition_spec_id),
                });
            }
        }
        out
    }

    /// Index of the snapshot with this id (as Avro's signed long writes it).
    pub fn index_of_avro_id(&self, id: i64) -> Option<usize> {
        self.snapshots.iter().position(|s| s.snapshot.snapshot_id.matches_avro_long(id))
    }

    /// The current snapshot's index, or the last in commit order when none is marked current.
    pub fn current_index(&self) -> Option<usize> {
        let current = self.metadata.current_snapshot_id;
        current
            .and_then(|id| self.snapshots.iter().position(|s| s.snapshot.snapshot_id == id))
            .or_else(|| self.snapshots.len().checked_sub(1))
    }

    /// Every file that could not be read, with the message and the snapshots that need it; the
    /// rest of the history stands.
    pub fn gaps(&self) -> Vec<Gap> {
        let lists = self.snapshots.iter().filter_map(|s| match &s.list {
            ListState::Unavailable(g) => Some(Gap { snapshot_ids: vec![s.snapshot.snapshot_id], ..g.clone() }),
            _ => None,
        });
        let mut manifests: Vec<Gap> = self
            .manifests
            .iter()
            .filter_map(|(path, m)| match m {
                ManifestState::Unavailable(g) => {
                    let users = self
                        .snapshots
                        .iter()
                        .filter(|s| matches!(&s.list, ListState::Loaded(list) if list.iter().any(|mf| mf.manifest_path == *path)))
                        .map(|s| s.snapshot.snapshot_id)
                        .collect();
                    Some(Gap { snapshot_ids: users, ..g.clone() })
                }
                _ => None,
            })
            .collect();
        manifests.sort_by(|a, b| a.file.cmp(&b.file));
        lists.chain(manifests).collect()
    }

    /// (files settled, files known so far): for a progress bar while loading.
    pub fn progress(&self) -> (usize, usize) {
        let lists_done = self.snapshots.iter().filter(|s| s.list != ListState::Pending).count();
        let manifests_done = self.manifests.values().filter(|m| **m != ManifestState::Pending).count();
        (lists_done + manifests_done, self.snapshots.len() + self.manifests.len())
    }

    pub(crate) fn set_manifest(&mut self, path: &str, result: Result<Manifest, Gap>) {
        let state = match result {
            Ok(m) => {
                let counts = ManifestCounts::of(&m);
                self.manifest_data.insert(path.to_string(), m);
                ManifestState::Loaded(counts)
            }
            Err(g) => ManifestState::Unavailable(g),
        };
        self.manifests.insert(path.to_string(), state);
    }

    pub(crate) fn set_list(&mut self, index: usize, state: ListState) {
        if let ListState::Loaded(list) = &state {
            for m in list {
                self.manifests.entry(m.manifest_path.clone()).or_insert(ManifestState::Pending);
            }
        }
        if let Some(s) = self.snapshots.get_mut(index) {
            s.list = state;
        }
    }
}
