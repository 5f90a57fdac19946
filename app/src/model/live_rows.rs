//! Which rows of a snapshot's live data files its delete files remove, by the spec's rules:
//! a position delete or deletion vector applies to the data file it names when the delete's data
//! sequence number is at least the data file's; an equality delete applies to data files of the
//! same partition (every partition when its spec is unpartitioned) with a strictly lower data
//! sequence number. Also records what each delete hit, for "what deletes hit".

use std::collections::{BTreeMap, HashMap};

use roaring::RoaringTreemap;
use serde::Serialize;

use super::history::LiveFile;
use crate::decode::job::KeyRows;

/// Where rows of data files are read to: the analysis that counts keys implements it, so the
/// loader that reads the files never depends on what is counted.
pub trait RowSink {
    /// Rows of a live data file: each row's key (the key columns in the order asked for, encoded
    /// by `decode::parquet_columns::encode_key`), and whether it is live after deletes.
    fn batch(&mut self, file: &LiveFile<'_>, keys: &KeyRows, live: &[bool]) -> Result<(), String>;
}

/// What one delete file (or vector) removes from one data file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeleteHit {
    pub delete_file: String,
    /// `position_deletes`, `deletion_vector` or `equality_deletes`.
    pub kind: &'static str,
    pub data_file: String,
    /// Rows the delete names in that file (position deletes, vectors) or matched there (equality).
    pub rows: u64,
    /// False where the delete names a file it cannot apply to: not live in this snapshot, or
    /// written after the delete (a higher data sequence number).
    pub applies: bool,
}

struct EqualitySet {
    field_ids: Vec<i32>,
    /// (spec id, partition tuple) of the delete; None for an unpartitioned delete (applies everywhere).
    scope: Option<(i32, String)>,
    /// Encoded key → the highest data sequence number of a delete naming it, with the delete file.
    keys: HashMap<Vec<u8>, (i64, u32)>,
}

#[derive(Default)]
pub struct DeleteIndex {
    /// Live data files: path → data sequence number.
    data_seq: HashMap<String, i64>,
    positions: HashMap<String, RoaringTreemap>,
    equality: Vec<EqualitySet>,
    /// Equality delete files by index, for hits.
    equality_files: Vec<String>,
    /// (equality file index, data file) → rows matched.
    equality_hits: BTreeMap<(u32, String), u64>,
    pub hits: Vec<DeleteHit>,
}

fn seq(f: &LiveFile<'_>) -> i64 {
    // Format v1 has no sequence numbers and no deletes: 0 orders nothing.
    f.data_sequence_number.unwrap_or(0)
}

fn scope(f: &LiveFile<'_>) -> Option<(i32, String)> {
    (!f.file.partition.is_empty()).then(|| (f.partition_spec_id, format!("{:?}", f.file.partition)))
}

impl DeleteIndex {
    pub fn new(data: &[LiveFile<'_>]) -> Self {
        DeleteIndex { data_seq: data.iter().map(|f| (f.file.file_path.to_string(), seq(f))).collect(), ..Default::default() }
    }

    fn applies(&self, delete: &LiveFile<'_>, data_path: &str) -> bool {
        self.data_seq.get(data_path).is_some_and(|&d| seq(delete) >= d)
    }

    /// A position delete file's rows: (data file path, position), grouped by path.
    pub fn add_positions(&mut self, delete: &LiveFile<'_>, rows: impl IntoIterator<Item = (String, u64)>) {
        let mut by_file: BTreeMap<String, RoaringTreemap> = BTreeMap::new();
        for (path, pos) in rows {
            by_file.entry(path).or_default().insert(pos);
        }
        for (path, positions) in by_file {
            let applies = self.applies(delete, &path);
            self.hits.push(DeleteHit {
                delete_file: delete.file.file_path.to_string(),
                kind: "position_deletes",
                data_file: path.clone(),
                rows: positions.len(),
                applies,
            });
            if applies {
                *self.positions.entry(path).or_default() |= positions;
            }
        }
    }

    /// A deletion vector of the data file the manifest entry references.
    pub fn add_vector(&mut self, delete: &LiveFile<'_>, data_path: &str, positions: RoaringTreemap) {
        let applies = self.applies(delete, data_path);
        let name = format!("{} @ {}", delete.file.file_path, delete.file.v3.as_ref().and_then(|v| v.content_offset).unwrap_or(0));
        self.hits.push(DeleteHit { delete_file: name, kind: "deletion_vector", data_file: data_path.to_string(), rows: positions.len(), applies });
        if applies {
            *self.positions.entry(data_path.to_string()).or_default() |= positions;
        }
    }

    /// An equality delete file's keys, encoded over its `equality_ids` (in that order).
    pub fn add_equality(&mut self, delete: &LiveFile<'_>, keys: impl IntoIterator<Item = Vec<u8>>) {
        let field_ids = delete.file.equality_ids.to_vec();
        let sc = scope(delete);
        let file_index = self.equality_files.len() as u32;
        self.equality_files.push(delete.file.file_path.to_string());
        let s = seq(delete);
        let set = match self.equality.iter_mut().position(|e| e.field_ids == field_ids && e.scope == sc) {
            Some(i) => &mut self.equality[i],
            None => {
                self.equality.push(EqualitySet { field_ids, scope: sc, keys: HashMap::new() });
                let last = self.equality.len() - 1;
                &mut self.equality[last]
            }
        };
        for k in keys {
            let slot = set.keys.entry(k).or_insert((s, file_index));
            if s > slot.0 {
                *slot = (s, file_index);
            }
        }
    }

    /// Field id lists of the equality deletes that can apply to this data file.
    pub fn equality_fields_for(&self, data: &LiveFile<'_>) -> Vec<Vec<i32>> {
        let sc = scope(data);
        let mut out: Vec<Vec<i32>> = self.equality.iter().filter(|e| e.scope.is_none() || e.scope == sc).map(|e| e.field_ids.clone()).collect();
        out.sort();
        out.dedup();
        out
    }

    /// Positions deleted from a data file by position deletes and vectors that apply.
    pub fn deleted_positions(&self, data_path: &str) -> Option<&RoaringTreemap> {
        self.positions.get(data_path)
    }

    /// Whether an equality delete over `field_ids` removes a row of `data` with this encoded key.
    /// Counts the hit against the newest delete file naming the key.
    pub fn equality_deleted(&mut self, data: &LiveFile<'_>, field_ids: &[i32], key: &[u8]) -> bool {
        let (sc, s) = (scope(data), seq(data));
        let found = self
            .equality
            .iter()
            .filter(|e| e.field_ids == field_ids && (e.scope.is_none() || e.scope == sc))
            .filter_map(|e| e.keys.get(key))
            .filter(|(del_seq, _)| *del_seq > s)
            .max_by_key(|(del_seq, _)| *del_seq)
            .copied();
        if let Some((_, file)) = found {
            *self.equality_hits.entry((file, data.file.file_path.to_string())).or_default() += 1;
        }
        found.is_some()
    }

    /// Every hit: position deletes and vectors as read, equality deletes as matched during the scan.
    pub fn all_hits(&self) -> Vec<DeleteHit> {
        let mut out = self.hits.clone();
        out.extend(self.equality_hits.iter().map(|((f, data), rows)| DeleteHit {
            delete_file: self.equality_files.get(*f as usize).cloned().unwrap_or_default(),
            kind: "equality_deletes",
            data_file: data.clone(),
            rows: *rows,
            applies: true,
        }));
        out
    }
}

/// What a key scan read, and what its deletes hit.
#[derive(Debug, Clone, Default)]
pub struct ScanResult {
    pub fetched: crate::source::range::Fetched,
    /// Rows in the live data files, before deletes.
    pub rows_in_files: u64,
    /// Rows removed by position deletes, vectors and equality deletes.
    pub rows_deleted: u64,
    pub hits: Vec<DeleteHit>,
    pub cancelled: bool,
}
