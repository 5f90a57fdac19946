//! Loading a table's history from a file set: metadata, then manifest lists, then manifests.
//!
//! The steps are exposed as `pending` / `deliver` so that the browser can fetch in parallel and
//! redraw as files arrive, while the native CLI simply loops.

use std::fmt;

use crate::decode::{DecodeError, Manifest, ManifestContent, ManifestFile, ManifestList, TableMetadata};
use crate::source::{FileSet, SourceError};

use super::history::{Gap, ListState, ManifestState, TableHistory};

#[derive(Debug, Clone, PartialEq)]
pub enum LoadError {
    Source(SourceError),
    Decode(DecodeError),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Source(e) => e.fmt(f),
            LoadError::Decode(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<SourceError> for LoadError {
    fn from(e: SourceError) -> Self {
        LoadError::Source(e)
    }
}

impl From<DecodeError> for LoadError {
    fn from(e: DecodeError) -> Self {
        LoadError::Decode(e)
    }
}

/// A file the history still needs, by the path the metadata wrote.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Need {
    ManifestList { snapshot_index: usize, path: String },
    Manifest { path: String },
}

impl Need {
    pub fn path(&self) -> &str {
        match self {
            Need::ManifestList { path, .. } | Need::Manifest { path } => path,
        }
    }
}

impl TableHistory {
    pub fn from_metadata_bytes(metadata_file: &str, bytes: &[u8]) -> Result<TableHistory, LoadError> {
        Ok(TableHistory::new(metadata_file, TableMetadata::from_bytes(metadata_file, bytes)?))
    }

    /// What to fetch next: manifest lists first, since they name the manifests.
    pub fn pending(&self) -> Vec<Need> {
        let lists: Vec<Need> = self
            .snapshots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.list == ListState::Pending)
            .filter_map(|(i, s)| s.snapshot.manifest_list.clone().map(|path| Need::ManifestList { snapshot_index: i, path }))
            .collect();
        let mut manifests: Vec<Need> = self
            .manifests
            .iter()
            .filter(|(_, st)| **st == ManifestState::Pending)
            .map(|(p, _)| Need::Manifest { path: p.clone() })
            .collect();
        manifests.sort_by(|a, b| a.path().cmp(b.path()));
        lists.into_iter().chain(manifests).collect()
    }

    /// Hands over the bytes (or the failure) of a needed file; decoding happens here.
    pub fn deliver(&mut self, need: &Need, bytes: Result<Vec<u8>, LoadError>) {
        let path = need.path();
        let gap = |e: LoadError| Gap { file: path.to_string(), message: e.to_string(), snapshot_ids: Vec::new() };
        match need {
            Need::ManifestList { snapshot_index, .. } => {
                let state = match bytes.and_then(|b| ManifestList::from_bytes(path, &b).map_err(LoadError::from)) {
                    Ok(list) => ListState::Loaded(list.manifests),
                    Err(e) => ListState::Unavailable(gap(e)),
                };
                self.set_list(*snapshot_index, state);
            }
            Need::Manifest { .. } => {
                let result = bytes.and_then(|b| Manifest::from_bytes(path, &b).map_err(LoadError::from)).map_err(gap);
                self.set_manifest(path, result);
            }
        }
    }

    /// Sizes of the current metadata file and of every metadata-log file that can be found,
    /// oldest first: the metadata.json growth series.
    pub fn record_metadata_sizes(&mut self, current_bytes: u64, size_of: impl Fn(&str) -> Option<u64>) {
        let mut sizes: Vec<super::MetadataSize> = self
            .metadata
            .metadata_log
            .iter()
            .filter_map(|e| size_of(&e.metadata_file).map(|bytes| super::MetadataSize { file: e.metadata_file.clone(), timestamp_ms: e.timestamp_ms, bytes }))
            .collect();
        sizes.push(super::MetadataSize { file: self.metadata_file.clone(), timestamp_ms: self.metadata.last_updated_ms, bytes: current_bytes });
        sizes.sort_by_key(|s| s.timestamp_ms);
        self.metadata_sizes = sizes;
    }

    /// v1 snapshots may list their manifests inline rather than in a manifest list.
    pub fn adopt_inline_manifests(&mut self) {
        for i in 0..self.snapshots.len() {
            let s = &self.snapshots[i].snapshot;
            if s.manifest_list.is_none() && self.snapshots[i].list == ListState::Pending {
                let list = s
                    .manifests
                    .iter()
                    .map(|p| ManifestFile {
                        manifest_path: p.clone(),
                        manifest_length: 0,
                        partition_spec_id: 0,
                        content: ManifestContent::Data,
                        sequence_number: 0,
                        min_sequence_number: 0,
                        added_snapshot_id: None,
                        added_files_count: None,
                        existing_files_count: None,
                        deleted_files_count: None,
                        added_rows_count: None,
                        existing_rows_count: None,
                        deleted_rows_count: None,
                        first_row_id: None,
                    })
                    .collect();
                self.set_list(i, ListState::Loaded(list));
            }
        }
    }
}

/// Reads a whole table synchronously. Only the metadata file itself is fatal; every other
/// unreadable file becomes a gap in the history.
pub fn load_table(files: &dyn FileSet, metadata_path: &str) -> Result<TableHistory, LoadError> {
    let bytes = files.read_path(metadata_path)?;
    let mut history = TableHistory::from_metadata_bytes(metadata_path, &bytes)?;
    history.adopt_inline_manifests();
    history.record_metadata_sizes(bytes.len() as u64, |reference| {
        let path = files.index().resolve(reference)?;
        files.size_of(path)
    });
    loop {
        let needs = history.pending();
        if needs.is_empty() {
            return Ok(history);
        }
        for need in needs {
            let bytes = files.read_reference(need.path()).map(|(_, b)| b).map_err(LoadError::from);
            history.deliver(&need, bytes);
        }
    }
}
