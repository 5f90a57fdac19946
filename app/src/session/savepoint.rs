//! Which files of a savepoint folder are read, for the CLI and the app alike: each savepoint's
//! `_metadata`, and the state files its Iceberg committer's handles name, in that folder only
//! (`decode::flink_savepoint::state_file::file_in_folder`), each bounded before it is read.

use std::collections::{HashMap, HashSet};

use crate::analysis::savepoint::{self, SavepointRead, Savepoints};
use crate::decode::flink_savepoint::state_file::{file_in_folder, MAX_STATE_FILE_BYTES};
use crate::decode::flink_savepoint::{decode_checkpoint_metadata, MAX_METADATA_BYTES};
use crate::decode::DecodeError;
pub use crate::source::savepoint_paths::{folder_name, folder_of, metadata_among, MAX_SAVEPOINTS, METADATA};
use crate::source::{Fetch, SourceError};

/// State files one savepoint's committer may name (FlinkSink: one per subtask holding state).
const MAX_STATE_FILES: usize = 256;
/// The state files of one savepoint together: a committer's state is kilobytes, and a stranger's
/// savepoint naming 256 files of 64 MiB must not make a browser tab hold 16 GiB.
pub const MAX_STATE_BYTES: u64 = 256 << 20;

fn source_error(path: &str, e: SourceError) -> DecodeError {
    match e {
        SourceError::Io { message, .. } => DecodeError::new(path, "", message),
        other => DecodeError::new(path, "", other.to_string()),
    }
}

/// At most `max` bytes of `path`: a larger file is refused, by its size where the source knows it.
async fn bounded<F: Fetch>(files: &F, path: &str, max: u64, what: &str) -> Result<Vec<u8>, DecodeError> {
    let too_big = |size: String| DecodeError::new(path, "", format!("is {size} bytes, above the {max} icescope reads {what}"));
    if let Some(size) = files.size_hint(path).filter(|&s| s > max) {
        return Err(too_big(size.to_string()));
    }
    let bytes = files.fetch_head(path, max as usize + 1).await.map_err(|e| source_error(path, e))?;
    if bytes.len() as u64 > max {
        return Err(too_big(format!("more than {max}")));
    }
    Ok(bytes)
}

/// One savepoint: its `_metadata` at `metadata` (the path `files` reads and messages show) and
/// the state files its committer names, looked for beside it. `folder_name`: the savepoint
/// folder's own name (the caller may know it better than the path says, as `.` on a disk).
pub async fn read_savepoint<F: Fetch>(files: &F, metadata: &str, folder_name: &str) -> Result<SavepointRead, DecodeError> {
    let bytes = bounded(files, metadata, MAX_METADATA_BYTES, "as a _metadata").await?;
    let folder = folder_of(metadata);
    // The files the committers name, each fetched once however many handles name it, before the
    // one decode that reads them all.
    let decoded = decode_checkpoint_metadata(metadata, &bytes)?;
    let mut names: Vec<String> = Vec::new();
    let mut seen = HashSet::new();
    for h in savepoint::state_files_named(&decoded) {
        if let Ok(name) = file_in_folder(folder_name, h) {
            if seen.insert(name.clone()) {
                names.push(name);
            }
        }
    }
    drop(decoded);
    if names.len() > MAX_STATE_FILES {
        return Err(DecodeError::new(
            metadata,
            "state_file",
            format!("names {} state files, above the {MAX_STATE_FILES} icescope reads: not read", names.len()),
        ));
    }
    let mut state: HashMap<String, Vec<u8>> = HashMap::new();
    let mut total = 0u64;
    for name in names {
        let path = if folder.is_empty() { name.clone() } else { format!("{folder}/{name}") };
        let left = MAX_STATE_BYTES.saturating_sub(total);
        let b = if left < MAX_STATE_FILE_BYTES {
            bounded(files, &path, left, &format!("for the rest of this savepoint's state files ({MAX_STATE_BYTES} for them all)")).await?
        } else {
            bounded(files, &path, MAX_STATE_FILE_BYTES, "as a state file").await?
        };
        total += b.len() as u64;
        state.insert(name, b);
    }
    savepoint::read(metadata, &bytes, &mut |h| {
        let name = file_in_folder(folder_name, h).map_err(|m| DecodeError::new(metadata, "state_file", m))?;
        state.get(&name).map(Vec::as_slice).ok_or_else(|| DecodeError::new(metadata, "state_file", format!("{name} was not read")))
    })
}

/// Every savepoint named: those that do not read are kept with the error naming file and field.
pub async fn read_savepoints<F: Fetch>(files: &F, metadata: &[String]) -> Savepoints {
    let mut out = Savepoints::default();
    for m in metadata {
        match read_savepoint(files, m, folder_name(m)).await {
            Ok(r) => out.reads.push(r),
            Err(e) => out.unreadable.push((m.clone(), e.to_string())),
        }
    }
    out
}
