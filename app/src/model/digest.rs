//! What the model keeps of the manifests read: the columns each adding snapshot wrote, merged over
//! every manifest, and a snapshot's live counts summed from the manifests' digests
//! (`decode::manifest_digest`).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use serde::Serialize;

pub(crate) use crate::decode::manifest_digest::{DigestBuilder, Written};
pub use crate::decode::manifest_digest::{ManifestCounts, ManifestDigest};

use super::totals::{CountSource, Totals};

impl ManifestCounts {
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
