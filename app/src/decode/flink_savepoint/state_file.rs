//! Which file of a savepoint folder a state handle points at, or why it is not read. A savepoint
//! is a stranger's file: its handles may name any path (`/etc/…`, `../../`), and only a file of the
//! folder the `_metadata` sits in is ever opened.

use super::handles::StreamHandle;

/// Flink's default `state.storage.fs.memory-threshold` keeps states under 20 KiB inline; a state
/// file above this is not read.
pub const MAX_STATE_FILE_BYTES: u64 = 64 << 20;

/// The name of the file inside the savepoint's folder (`folder_name`: that folder's last path
/// component) that `handle` reads, or why it is not read.
pub fn file_in_folder(folder_name: &str, handle: &StreamHandle) -> Result<String, String> {
    match handle {
        // Savepoints write a file name relative to their own folder.
        StreamHandle::RelativeFile { relative_path, .. } => {
            plain(relative_path).ok_or_else(|| format!("the relative path {relative_path:?} leaves the savepoint folder"))
        }
        // Checkpoints write the full path of a file in `chk-N/`: read it only when that folder is this one.
        StreamHandle::File { path, .. } => {
            let p = path.split_once("://").map_or(path.as_str(), |(_, rest)| rest);
            let p = p.strip_prefix("file:").unwrap_or(p);
            let mut parts = p.rsplitn(3, '/');
            let name = parts.next().unwrap_or("");
            let parent = parts.next().unwrap_or("");
            match plain(name) {
                Some(n) if !folder_name.is_empty() && parent == folder_name => Ok(n),
                _ => Err(format!("the state file {path:?} lies outside the savepoint folder: not read")),
            }
        }
        StreamHandle::Inline { .. } => Err("inline state needs no file".into()),
        StreamHandle::KeyGroups => Err("a keyed handle is not read".into()),
    }
}

fn plain(name: &str) -> Option<String> {
    let ok = !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\\', '\0', ':']);
    ok.then(|| name.to_string())
}
