//! Which metadata file is the table's current one, among the files of a table folder.

use super::files::FileSet;
use super::resolve::components;

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

/// The newest metadata file: the one `version-hint.text` names if present, else the highest version,
/// else the last by name. Several tables in one folder: the first table's folder (by path) wins.
pub fn newest_metadata(files: &dyn FileSet) -> Option<String> {
    let candidates: Vec<&String> = files.index().paths().iter().filter(|p| is_metadata_file(p)).collect();
    let dir_of = |p: &str| p.rsplit_once('/').map(|(d, _)| d.to_string()).unwrap_or_default();
    let first_dir = candidates.iter().map(|p| dir_of(p)).min()?;
    let in_dir: Vec<&String> = candidates.into_iter().filter(|p| dir_of(p) == first_dir).collect();
    let hint_path = if first_dir.is_empty() { "version-hint.text".to_string() } else { format!("{first_dir}/version-hint.text") };
    if let Ok(hint) = files.read_path(&hint_path) {
        let hint = String::from_utf8_lossy(&hint).trim().to_string();
        let hinted = in_dir.iter().find(|p| {
            let name = components(p).last().copied().unwrap_or("");
            name == hint || metadata_version(p).map(|v| v.to_string()) == Some(hint.clone()) && name.starts_with('v')
        });
        if let Some(p) = hinted {
            return Some(p.to_string());
        }
    }
    in_dir.into_iter().max_by_key(|p| (metadata_version(p), p.to_string())).map(|p| p.to_string())
}
