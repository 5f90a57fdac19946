//! Which files of a savepoint folder are read, for the CLI and the app alike: each savepoint's
//! `_metadata`, and the state files its Iceberg committer's handles name, in that folder only
//! (`decode::flink_savepoint::state_file::file_in_folder`), each bounded before it is read.

use std::collections::HashMap;

use crate::analysis::savepoint::{self, SavepointRead, Savepoints};
use crate::decode::flink_savepoint::state_file::{file_in_folder, MAX_STATE_FILE_BYTES};
use crate::decode::flink_savepoint::MAX_METADATA_BYTES;
use crate::decode::DecodeError;
pub use crate::source::savepoint_paths::{folder_name, folder_of, metadata_among, MAX_SAVEPOINTS, METADATA};
use crate::source::{Fetch, SourceError};

/// State files one savepoint's committer may name (FlinkSink: one per subtask holding state).
const MAX_STATE_FILES: usize = 256;

fn source_error(path: &str, e: SourceError) -> DecodeError {
    match e {
        SourceError::Io { message, .. } => DecodeError::new(path, "", message),
        other => DecodeError::new(path, "", other.to_string()),
    }
}

/// At most `max` bytes of `path`: a larger file is refused, by its size where the source knows it.
async fn bounded<F: Fetch>(files: &F, path: &str, max: u64, what: &str) -> Result<Vec<u8>, DecodeError> {
    let too_big = |size: String| DecodeError::new(path, "", format!("is {size} bytes, above the {max} icescope reads as {what}"));
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
    let bytes = bounded(files, metadata, MAX_METADATA_BYTES, "a _metadata").await?;
    let folder = folder_of(metadata);
    let mut state: HashMap<String, Vec<u8>> = HashMap::new();
    // The decoder asks for state files synchronously: it is run again once each file it asked
    // for has been fetched (a _metadata decodes in well under a millisecond).
    loop {
        let mut wanted = None;
        let read = savepoint::read(metadata, &bytes, &mut |h| {
            let name = file_in_folder(folder_name, h).map_err(|m| DecodeError::new(metadata, "state_file", m))?;
            match state.get(&name) {
                Some(b) => Ok(b.clone()),
                None => {
                    wanted = Some(name.clone());
                    Err(DecodeError::new(metadata, "state_file", format!("{name} is not read yet")))
                }
            }
        });
        let Some(name) = wanted else { return read };
        if state.len() >= MAX_STATE_FILES {
            return Err(DecodeError::new(metadata, "state_file", format!("names more than {MAX_STATE_FILES} state files: not read")));
        }
        let path = if folder.is_empty() { name.clone() } else { format!("{folder}/{name}") };
        let b = bounded(files, &path, MAX_STATE_FILE_BYTES, "a state file").await?;
        state.insert(name, b);
    }
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
