//! Which metadata file is the table's current one, among the files of a table folder.

use super::files::FileSet;
use super::resolve::{components, PathIndex};

/// True for `*.metadata.json`, `*.gz.metadata.json` and `*.metadata.json.gz`.
pub fn is_metadata_file(path: &str) -> bool {
    let name = components(path).last().copied().unwrap_or("");
    name.ends_with(".metadata.json") || name.ends_with(".metadata.json.gz")
}

/// The version a metadata file name encodes: `v12.metadata.json` or `00012-<uuid>.metadata.json`.
pub fn metadata_version(path: &str) -> Option<u64> {
    let name = components(path).last().copied()?;
    let digits: String = name.trim_start_matches('v').chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// Files the loader reads into memory from a dropped folder: metadata, never data (a table folder
/// may hold gigabytes of Parquet beside it).
pub fn is_table_metadata(path: &str) -> bool {
    let name = components(path).last().copied().unwrap_or("");
    !name.starts_with('.') && (is_metadata_file(path) || name.ends_with(".avro") || name == "version-hint.text")
}

/// The folder whose metadata files are the table's, and those files. A folder named `metadata`
/// wins over a stray `*.metadata.json` elsewhere (under `data/`, say); among several, the
/// shallowest, then the first by name.
pub fn candidates(index: &PathIndex) -> Option<(String, Vec<String>)> {
    let all: Vec<&str> = index.paths().filter(|p| is_metadata_file(p)).collect();
    let dir_of = |p: &str| p.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default();
    let in_metadata = |d: &str| d == "metadata" || d.ends_with("/metadata");
    let dir = all
        .iter()
        .map(|p| dir_of(p))
        .min_by_key(|d| (!in_metadata(d), d.matches('/').count(), d.clone()))?;
    let files = all.into_iter().filter(|p| dir_of(p) == dir).map(str::to_string).collect();
    Some((dir, files))
}

/// The hinted file if `version-hint.text` names one of them, else the highest version.
pub fn choose(candidates: &[String], hint: Option<&[u8]>) -> Option<String> {
    if let Some(hint) = hint {
        let hint = String::from_utf8_lossy(hint).trim().to_string();
        let hinted = candidates.iter().find(|p| {
            let name = components(p).last().copied().unwrap_or("");
            name == hint || metadata_version(p).map(|v| v.to_string()) == Some(hint.clone()) && name.starts_with('v')
        });
        if let Some(p) = hinted {
            return Some(p.clone());
        }
    }
    candidates.iter().max_by_key(|p| (metadata_version(p), p.to_string())).cloned()
}

/// The newest metadata file of a synchronous file set (see `choose`).
pub fn newest_metadata(files: &dyn FileSet) -> Option<String> {
    let (dir, candidates) = candidates(files.index())?;
    let hint_path = if dir.is_empty() { "version-hint.text".to_string() } else { format!("{dir}/version-hint.text") };
    let hint = files.read_path(&hint_path).ok();
    choose(&candidates, hint.as_deref())
}
