//! Opening a table from a source's files, for every front end: a folder Spark exported (its
//! tables stand in for the manifests), a metadata file the source names, one of the folder's
//! versions a person names, or the folder's newest by content — falling back to the newest that
//! reads.

use crate::load::decoder::Decoder;
use crate::load::{pick_metadata, Loader};
use crate::source::metadata_pick::MetadataPick;
use crate::source::Fetch;

/// How a version chosen in the app's picker starts its reason.
pub const CHOSEN: &str = "chosen in the app";

/// Which metadata file to open.
#[derive(Debug, Clone)]
pub enum Version {
    /// The source's newest by content, or an older one where it does not read; a Spark export is
    /// opened as its tables.
    Newest,
    /// The folder's versions as already listed: the newest by content, or an older one where it
    /// does not read.
    Picked(MetadataPick),
    /// The file the source names (a URL, a file, a catalog's pointer): it reads, or nothing opens.
    File(String),
    /// One of the folder's versions, named by a person; `versions`: the folder's, where they were
    /// already listed (the app's picker), else they are listed now.
    Named { name: String, by: Naming, versions: Option<MetadataPick> },
}

/// Who named a version, for the reason the report gives and the error that refuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// `--metadata NAME`: the pick becomes the file named.
    Flag,
    /// The app's picker: the pick keeps the newest, which the picker marks.
    Picker,
}

/// Why nothing opened: the person's naming (a usage error) or the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError {
    Usage(String),
    Unreadable(String),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Usage(m) | OpenError::Unreadable(m) => f.write_str(m),
        }
    }
}

impl From<OpenError> for String {
    fn from(e: OpenError) -> String {
        e.to_string()
    }
}

/// The loader over the metadata file read (decoded by `dec`: in the browser a worker, so that a
/// day of snapshots is not one long task on the page and a hostile file's panic ends the worker),
/// and which of the folder's files that was and why. `name`: how the source is called in errors;
/// `record_paths`: the loader keeps every path it reads.
pub async fn open<F: Fetch, D: Decoder>(
    name: &str,
    files: &F,
    dec: &D,
    version: Version,
    record_paths: bool,
) -> Result<(Loader, Option<MetadataPick>), OpenError> {
    let unreadable = |e: crate::load::LoadError| OpenError::Unreadable(e.to_string());
    match version {
        Version::Newest => {
            if let Some(layout) = files.listing().and_then(crate::load::spark_export::detect) {
                return Loader::open_spark_export(files, &layout, record_paths).await.map(|l| (l, None)).map_err(unreadable);
            }
            let mut pick = listed(name, files).await?;
            let loader = Loader::open_pick_with(files, dec, &mut pick, record_paths).await.map_err(unreadable)?;
            Ok((loader, Some(pick)))
        }
        Version::Picked(mut pick) => {
            let loader = Loader::open_pick_with(files, dec, &mut pick, record_paths).await.map_err(unreadable)?;
            Ok((loader, Some(pick)))
        }
        Version::File(path) => Loader::open_with(files, dec, &path, record_paths).await.map(|l| (l, None)).map_err(unreadable),
        Version::Named { name: named, by, versions } => {
            let pick = match versions {
                Some(p) => p,
                None => listed(name, files).await?,
            };
            let pick = among(pick, &named, by)?;
            let path = match by {
                Naming::Flag => pick.path.clone(),
                Naming::Picker => pick.versions.iter().find(|v| is(&v.path, &named)).map(|v| v.path.clone()).unwrap_or(named),
            };
            let loader = Loader::open_with(files, dec, &path, record_paths).await.map_err(unreadable)?;
            Ok((loader, Some(pick)))
        }
    }
}

/// The folder's versions, newest by content first in its reason.
async fn listed<F: Fetch>(name: &str, files: &F) -> Result<MetadataPick, OpenError> {
    pick_metadata(files).await.ok_or_else(|| {
        let n = files.listing().map(|i| i.paths().len()).unwrap_or(0);
        OpenError::Unreadable(format!(
            "{name}: no *.metadata.json file in this folder (none of its {n} files is a table metadata file, *.metadata.json or *.metadata.json.gz)"
        ))
    })
}

fn is(path: &str, name: &str) -> bool {
    path == name || path.ends_with(&format!("/{name}"))
}

/// The pick with `name` as the person's choice, or why the folder has no such version.
fn among(mut pick: MetadataPick, name: &str, by: Naming) -> Result<MetadataPick, OpenError> {
    let Some(found) = pick.versions.iter().find(|v| is(&v.path, name)).map(|v| v.path.clone()) else {
        let names: Vec<&str> = pick.versions.iter().map(|v| v.path.as_str()).collect();
        let named = match by {
            Naming::Flag => format!("--metadata {name}"),
            Naming::Picker => name.to_string(),
        };
        return Err(OpenError::Usage(format!("{named}: not among this folder's metadata files ({})", names.join(", "))));
    };
    match by {
        Naming::Flag => {
            pick.why = format!("named with --metadata (the newest by content is {})", pick.path);
            pick.path = found;
        }
        Naming::Picker => pick.why = format!("{CHOSEN} (the newest by content is {})", pick.path),
    }
    Ok(pick)
}
