//! A folder opened once, its files opened relative to that opening (native, unix): a savepoint
//! folder is a stranger's, and Flink removes and writes `chk-*` folders while one reads them. A
//! folder swapped for a link, or for another folder, after it was listed is refused, not
//! followed; a member that is a link, a FIFO or a device is refused without blocking on it.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{fstat, openat, statat, AtFlags, FileType, Mode, OFlags, CWD};

use super::files::{file_too_large, SourceError, MAX_WHOLE_FILE};

/// What a folder was when it was listed: its device and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
}

impl Identity {
    /// The identity of `path` itself (a link is not followed), as a listing sees it.
    pub fn of(path: &Path) -> Option<Identity> {
        use std::os::unix::fs::MetadataExt;
        std::fs::symlink_metadata(path).ok().map(|m| Identity { dev: m.dev(), ino: m.ino() })
    }
}

pub struct OpenedFolder {
    dir: OwnedFd,
    /// The folder as messages and the caller's paths name it: a file is asked for as `{shown}/{name}`.
    shown: String,
}

impl OpenedFolder {
    /// Opens `path` as a folder. `listed`: what a listing saw there (then a link is refused and the
    /// folder must still be the one listed); None: a folder the user named, links followed.
    pub fn open(path: &Path, listed: Option<Identity>) -> Result<OpenedFolder, SourceError> {
        let shown = path.display().to_string();
        let io = |message: String| SourceError::Io { path: shown.clone(), message };
        let mut flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        if listed.is_some() {
            flags |= OFlags::NOFOLLOW;
        }
        let dir = openat(CWD, path, flags, Mode::empty()).map_err(|e| {
            io(match (e, listed) {
                (rustix::io::Errno::NOENT, Some(_)) => {
                    "was there when its folder was listed and is gone now (Flink removes subsumed checkpoints): not read".to_string()
                }
                (rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR, Some(_)) => {
                    "is no longer the folder that was listed (now a link or a file): not read".to_string()
                }
                (e, _) => format!("cannot be opened as a folder: {e}"),
            })
        })?;
        if let Some(was) = listed {
            let now = fstat(&dir).map_err(|e| io(format!("cannot be examined: {e}")))?;
            if (now.st_dev as u64, now.st_ino as u64) != (was.dev, was.ino) {
                return Err(io("is no longer the folder that was listed (replaced while it was read): not read".into()));
            }
        }
        Ok(OpenedFolder { dir, shown })
    }

    /// The plain name inside this folder that `reference` (`{shown}/{name}`) asks for.
    fn name<'r>(&self, reference: &'r str) -> Result<&'r str, SourceError> {
        // The working folder's files are also asked for by their bare name.
        let bare = (self.shown == ".").then_some(reference);
        let name = reference.strip_prefix(self.shown.as_str()).and_then(|r| r.strip_prefix('/')).or(bare);
        match name {
            Some(n) if !n.is_empty() && n != "." && n != ".." && !n.contains(['/', '\0']) => Ok(n),
            _ => Err(SourceError::Io { path: reference.to_string(), message: format!("is not a file of the folder {}: not read", self.shown) }),
        }
    }

    /// The file `reference` names, opened without following a link or blocking on a FIFO, and
    /// checked to be a regular file by what was opened (not by its name).
    fn open_file(&self, reference: &str) -> Result<(std::fs::File, u64), SourceError> {
        let io = |message: String| SourceError::Io { path: reference.to_string(), message };
        let name = self.name(reference)?;
        let fd = openat(&self.dir, name, OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC, Mode::empty()).map_err(|e| {
            io(match e {
                rustix::io::Errno::LOOP => "is a symbolic link: not read".to_string(),
                e => e.to_string(),
            })
        })?;
        let st = fstat(&fd).map_err(|e| io(e.to_string()))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(io("is not a plain file: not read".into()));
        }
        Ok((std::fs::File::from(fd), st.st_size as u64))
    }
}

impl super::Fetch for OpenedFolder {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let (file, size) = self.open_file(reference)?;
        if size > MAX_WHOLE_FILE {
            return Err(file_too_large(reference, size));
        }
        read_at_most(file, reference, MAX_WHOLE_FILE as usize)
    }

    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        let (file, _) = self.open_file(reference)?;
        read_at_most(file, reference, n)
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        let name = self.name(reference).ok()?;
        let st = statat(&self.dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        (FileType::from_raw_mode(st.st_mode) == FileType::RegularFile).then_some(st.st_size as u64)
    }
}

fn read_at_most(file: std::fs::File, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
    let mut out = Vec::new();
    file.take(n as u64).read_to_end(&mut out).map_err(|e| SourceError::Io { path: reference.to_string(), message: e.to_string() })?;
    Ok(out)
}
