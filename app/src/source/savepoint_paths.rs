//! Where a Flink savepoint's files are among listed paths: each savepoint is a folder holding a
//! `_metadata`, its state files beside it. Paths only: reading them is `session::savepoint`.

/// Savepoints beyond this many in one folder are not read (a checkpoint directory keeps a few).
pub const MAX_SAVEPOINTS: usize = 1000;

pub const METADATA: &str = "_metadata";

/// The folder a path is in (`a/S1/_metadata` → `a/S1`; empty at the top).
pub fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The savepoints among listed files: each `_metadata`, except one below a folder that is itself a
/// savepoint (a savepoint folder is not looked into, as the CLI does not descend into one).
/// Sorted; more than `MAX_SAVEPOINTS` is an error saying so.
pub fn metadata_among<'a>(paths: impl IntoIterator<Item = &'a str>) -> Result<Vec<String>, String> {
    let mut found: Vec<&str> = paths.into_iter().filter(|p| p.rsplit('/').next() == Some(METADATA)).collect();
    found.sort_unstable();
    found.dedup();
    let folders: std::collections::HashSet<&str> = found.iter().map(|p| folder_of(p)).collect();
    let inside_another = |p: &str| {
        let mut d = folder_of(p);
        if !d.is_empty() && folders.contains("") {
            return true;
        }
        while let Some((up, _)) = d.rsplit_once('/') {
            if folders.contains(up) {
                return true;
            }
            d = up;
        }
        false
    };
    let out: Vec<String> = found.into_iter().filter(|p| !inside_another(p)).map(str::to_string).collect();
    if out.len() > MAX_SAVEPOINTS {
        return Err(format!("more than {MAX_SAVEPOINTS} savepoints among these files; give one folder"));
    }
    Ok(out)
}

/// The last folder name of the savepoint `metadata` is in: checkpoints name their state files by
/// full path, read only when it is this folder.
pub fn folder_name(metadata: &str) -> &str {
    folder_of(metadata).rsplit('/').next().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_savepoint_folder_is_not_looked_into() {
        let paths = ["t/metadata/v1.metadata.json", "sp/S1/_metadata", "sp/S1/x", "sp/S1/old/_metadata", "sp/job/chk-3/_metadata"];
        assert_eq!(metadata_among(paths).unwrap(), vec!["sp/S1/_metadata", "sp/job/chk-3/_metadata"]);
        assert_eq!(metadata_among(paths.into_iter().chain(["_metadata"])).unwrap(), vec!["_metadata"]);
        assert_eq!(folder_name("sp/job/chk-3/_metadata"), "chk-3");
        assert_eq!(folder_name("_metadata"), "");
    }
}
