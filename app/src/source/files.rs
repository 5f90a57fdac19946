//! A set of files a table can be read from, addressed by the paths inside its metadata.

use std::collections::HashMap;
use std::fmt;

use super::resolve::PathIndex;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceError {
    /// No available file matches the path the metadata names.
    NotFound {
        reference: String,
    },
    Io {
        path: String,
        message: String,
    },
    /// A request that failed, with what kind of failure it was (status, CORS, unreachable).
    Http {
        path: String,
        error: super::http::HttpError,
    },
}

/// A file read whole (metadata.json, a manifest list or manifest, an export's part) above this is
/// refused before it is read, as a response is (`http::MAX_BODY`): a sparse or hostile file the
/// size of the disk would otherwise be read into memory before anything could say why.
pub const MAX_WHOLE_FILE: u64 = super::http::MAX_BODY;

/// The error for a file past `MAX_WHOLE_FILE`.
pub fn file_too_large(path: &str, size: u64) -> SourceError {
    SourceError::Io { path: path.to_string(), message: format!("is {size} bytes; icescope reads at most {} MiB of one file whole", MAX_WHOLE_FILE >> 20) }
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::NotFound { reference } => write!(f, "{reference}: file not found among the table's files"),
            // Transport messages usually start with the URL already: say it once.
            SourceError::Io { path, message } if message.starts_with(path.as_str()) => write!(f, "{message}"),
            SourceError::Io { path, message } => write!(f, "{path}: {message}"),
            SourceError::Http { path, error } => {
                let message = error.to_string();
                if message.starts_with(path.as_str()) {
                    write!(f, "{message}")
                } else {
                    write!(f, "{path}: {message}")
                }
            }
        }
    }
}

impl std::error::Error for SourceError {}

/// Files addressable by the references written inside metadata.
pub trait FileSet {
    /// Every file.
    fn index(&self) -> &PathIndex;
    /// The files a table's metadata is looked for among (metadata.json, lists, manifests): all of
    /// them unless listing some is costly, as a local table's `data/` tree is (86,000 files after a
    /// day of 5 s commits, which `inspect` never reads).
    fn metadata_index(&self) -> &PathIndex {
        self.index()
    }
    /// Every file, for the orphan census: None where the listing is known to be incomplete (a
    /// census from part of a folder would call every unlisted file missing).
    fn census_index(&self) -> Option<&PathIndex> {
        Some(self.index())
    }
    /// The path a reference names: looked for among the metadata, then among every file.
    fn resolve(&self, reference: &str) -> Option<&str> {
        self.metadata_index().resolve(reference).or_else(|| self.index().resolve(reference))
    }
    /// Bytes of an available path (one that `index()` lists).
    fn read_path(&self, path: &str) -> Result<Vec<u8>, SourceError>;
    fn size_of(&self, path: &str) -> Option<u64>;
    /// When the file was last modified (ms since the epoch), where the source knows it.
    fn modified_ms(&self, _path: &str) -> Option<i64> {
        None
    }
    /// At most the first `n` bytes of an available path.
    fn read_head(&self, path: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        let mut b = self.read_path(path)?;
        b.truncate(n);
        Ok(b)
    }

    /// Part of an available path; the default reads it whole and cuts.
    fn read_range(&self, path: &str, range: super::range::ByteRange) -> Result<super::range::RangeRead, SourceError> {
        self.read_path(path).map(|whole| super::range::from_whole(range, whole))
    }

    /// Bytes of the file a metadata reference points at, with the path it resolved to.
    fn read_reference(&self, reference: &str) -> Result<(String, Vec<u8>), SourceError> {
        let path = self.resolve(reference).ok_or_else(|| SourceError::NotFound { reference: reference.to_string() })?.to_string();
        let bytes = self.read_path(&path)?;
        Ok((path, bytes))
    }
}

/// Files held in memory: dropped in the browser, or fetched bundled examples.
#[derive(Debug, Default, Clone)]
pub struct MemoryFiles {
    index: PathIndex,
    bytes: HashMap<String, Vec<u8>>,
}

impl MemoryFiles {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, path: String, bytes: Vec<u8>) {
        if !self.bytes.contains_key(&path) {
            self.index.insert(path.clone());
        }
        self.bytes.insert(path, bytes);
    }

    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
}

impl FileSet for MemoryFiles {
    fn index(&self) -> &PathIndex {
        &self.index
    }

    fn read_path(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        self.bytes.get(path).cloned().ok_or_else(|| SourceError::NotFound { reference: path.to_string() })
    }

    fn size_of(&self, path: &str) -> Option<u64> {
        self.bytes.get(path).map(|b| b.len() as u64)
    }

    fn read_range(&self, path: &str, range: super::range::ByteRange) -> Result<super::range::RangeRead, SourceError> {
        let whole = self.bytes.get(path).ok_or_else(|| SourceError::NotFound { reference: path.to_string() })?;
        let bytes = range.cut(whole);
        Ok(super::range::RangeRead { transferred: bytes.len() as u64, bytes, object_size: Some(whole.len() as u64) })
    }
}
