//! A table folder on the local disk (native CLI and tests only). Symbolic links and special files
//! inside it are not part of the table: only regular files below the folder are listed and read.

use std::path::{Path, PathBuf};

use super::files::{FileSet, SourceError};
use super::resolve::PathIndex;

pub struct LocalFolder {
    root: PathBuf,
    index: PathIndex,
}

impl LocalFolder {
    /// Lists every file below `root` (hidden `.crc` checksums included: they are harmless).
    pub fn open(root: &Path) -> Result<Self, SourceError> {
        let mut index = PathIndex::default();
        walk(root, root, &mut index)?;
        index.shrink_to_fit();
        Ok(LocalFolder { root: root.to_path_buf(), index })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
}

/// Each folder's entries in name order, straight into the index: a list of every path first,
/// then sorted, held a table's 86,000 paths twice over.
fn walk(root: &Path, dir: &Path, out: &mut PathIndex) -> Result<(), SourceError> {
    let io = |e: std::io::Error| SourceError::Io { path: dir.display().to_string(), message: e.to_string() };
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        // Links are not followed (a loop, `/usr` or `/dev/zero` must not be read as the table), and
        // only regular files are listed (a FIFO would block the read forever).
        let kind = entry.file_type().map_err(io)?;
        if kind.is_dir() || kind.is_file() {
            entries.push((entry.file_name(), kind.is_dir()));
        }
    }
    entries.sort();
    for (name, is_dir) in entries {
        let path = dir.join(name);
        if is_dir {
            walk(root, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.insert(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}

impl FileSet for LocalFolder {
    fn index(&self) -> &PathIndex {
        &self.index
    }

    fn read_path(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        std::fs::read(self.root.join(path)).map_err(|e| SourceError::Io { path: path.to_string(), message: e.to_string() })
    }

    fn read_head(&self, path: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        use std::io::Read;
        let io = |e: std::io::Error| SourceError::Io { path: path.to_string(), message: e.to_string() };
        let mut out = Vec::new();
        std::fs::File::open(self.root.join(path)).map_err(io)?.take(n as u64).read_to_end(&mut out).map_err(io)?;
        Ok(out)
    }

    /// Seek and read: a footer costs its own bytes, not the file's.
    fn read_range(&self, path: &str, range: super::range::ByteRange) -> Result<super::range::RangeRead, SourceError> {
        use super::range::ByteRange;
        use std::io::{Read, Seek, SeekFrom};
        let io = |e: std::io::Error| SourceError::Io { path: path.to_string(), message: e.to_string() };
        let mut file = std::fs::File::open(self.root.join(path)).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        let (offset, len) = match range {
            ByteRange::At { offset, len } => (offset.min(size), len.min(size.saturating_sub(offset))),
            ByteRange::Tail { len } => (size.saturating_sub(len), len.min(size)),
        };
        file.seek(SeekFrom::Start(offset)).map_err(io)?;
        let mut bytes = Vec::new();
        file.take(len).read_to_end(&mut bytes).map_err(io)?;
        Ok(super::range::RangeRead { transferred: bytes.len() as u64, bytes, object_size: Some(size) })
    }

    fn size_of(&self, path: &str) -> Option<u64> {
        std::fs::metadata(self.root.join(path)).ok().map(|m| m.len())
    }

    fn modified_ms(&self, path: &str) -> Option<i64> {
        let t = std::fs::metadata(self.root.join(path)).ok()?.modified().ok()?;
        i64::try_from(t.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis()).ok()
    }
}
