//! A table folder on the local disk (native CLI and tests only). Symbolic links and special files
//! inside it are not part of the table: only regular files below the folder are listed and read.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::files::{FileSet, SourceError};
use super::resolve::PathIndex;

pub struct LocalFolder {
    root: PathBuf,
    /// Every file but those below the folder's own `data/`.
    index: PathIndex,
    /// Every file, `data/` included: listed the first time a command needs it (a data file read,
    /// the orphan census), not for `inspect`, which a day's 52,000 data files cost 0.4 s of.
    all: OnceLock<Result<PathIndex, SourceError>>,
}

impl LocalFolder {
    /// Lists the files below `root`, but for `data/` (hidden `.crc` checksums included: they are harmless).
    pub fn open(root: &Path) -> Result<Self, SourceError> {
        let mut index = PathIndex::default();
        walk(root, root, &mut index, Some(&root.join("data")))?;
        index.shrink_to_fit();
        Ok(LocalFolder { root: root.to_path_buf(), index, all: OnceLock::new() })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every file below the folder, or why `data/` could not be listed.
    pub fn complete_index(&self) -> Result<&PathIndex, &SourceError> {
        self.all
            .get_or_init(|| {
                let data = self.root.join("data");
                let mut all = PathIndex::new(self.index.paths().map(str::to_string));
                if std::fs::symlink_metadata(&data).is_ok_and(|m| m.is_dir()) {
                    walk(&self.root, &data, &mut all, None)?;
                }
                all.shrink_to_fit();
                Ok(all)
            })
            .as_ref()
    }
}

/// Each folder's entries in name order, straight into the index: a list of every path first,
/// then sorted, held a table's 86,000 paths twice over. `skip`: a folder left for later.
fn walk(root: &Path, dir: &Path, out: &mut PathIndex, skip: Option<&Path>) -> Result<(), SourceError> {
    let Ok(rel) = dir.strip_prefix(root) else { return Ok(()) };
    let mut prefix = rel.to_string_lossy().replace('\\', "/");
    if !prefix.is_empty() {
        prefix.push('/');
    }
    walk_below(dir, &prefix, out, skip)
}

/// `prefix`: `dir` relative to the root, with a trailing `/` (empty at the root); made once per
/// folder, not per file.
fn walk_below(dir: &Path, prefix: &str, out: &mut PathIndex, skip: Option<&Path>) -> Result<(), SourceError> {
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
        let name_text = name.to_string_lossy().replace('\\', "/");
        if is_dir {
            let path = dir.join(&name);
            if skip != Some(path.as_path()) {
                walk_below(&path, &format!("{prefix}{name_text}/"), out, skip)?;
            }
        } else {
            out.insert(format!("{prefix}{name_text}"));
        }
    }
    Ok(())
}

impl FileSet for LocalFolder {
    /// Every file; where `data/` cannot be listed, the rest (`complete_index` says why).
    fn index(&self) -> &PathIndex {
        self.complete_index().unwrap_or(&self.index)
    }

    fn metadata_index(&self) -> &PathIndex {
        &self.index
    }

    fn census_index(&self) -> Option<&PathIndex> {
        self.complete_index().ok()
    }

    fn read_path(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        use std::io::Read;
        let io = |e: std::io::Error| SourceError::Io { path: path.to_string(), message: e.to_string() };
        let file = std::fs::File::open(self.root.join(path)).map_err(io)?;
        let size = file.metadata().map_err(io)?.len();
        if size > super::files::MAX_WHOLE_FILE {
            return Err(super::files::file_too_large(path, size));
        }
        // A file that grows while it is read stops at the bound too.
        let mut out = Vec::with_capacity(size as usize);
        file.take(super::files::MAX_WHOLE_FILE + 1).read_to_end(&mut out).map_err(io)?;
        if out.len() as u64 > super::files::MAX_WHOLE_FILE {
            return Err(super::files::file_too_large(path, out.len() as u64));
        }
        Ok(out)
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

/// Files named by their path on the disk, each read only when it is a plain file (a symbolic
/// link, folder or device is refused): a savepoint's `_metadata` and the state files beside it.
pub struct PlainFiles;

impl PlainFiles {
    fn plain(path: &str) -> Result<std::fs::Metadata, SourceError> {
        let io = |message: String| SourceError::Io { path: path.to_string(), message };
        let meta = std::fs::symlink_metadata(path).map_err(|e| io(e.to_string()))?;
        if !meta.is_file() {
            return Err(io("is not a plain file: not read".into()));
        }
        Ok(meta)
    }
}

impl super::Fetch for PlainFiles {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let size = Self::plain(reference)?.len();
        if size > super::files::MAX_WHOLE_FILE {
            return Err(super::files::file_too_large(reference, size));
        }
        std::fs::read(reference).map_err(|e| SourceError::Io { path: reference.to_string(), message: e.to_string() })
    }

    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        use std::io::Read;
        Self::plain(reference)?;
        let io = |e: std::io::Error| SourceError::Io { path: reference.to_string(), message: e.to_string() };
        let mut out = Vec::new();
        std::fs::File::open(reference).map_err(io)?.take(n as u64).read_to_end(&mut out).map_err(io)?;
        Ok(out)
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        Self::plain(reference).ok().map(|m| m.len())
    }
}
