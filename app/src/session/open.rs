//! Opening a table from a source's files: a folder Spark exported (its tables stand in for the
//! manifests), a metadata file named, one chosen among the folder's versions, or the folder's
//! newest by content — falling back to the newest that reads.

use crate::load::decoder::Decoder;
use crate::load::{pick_metadata, Loader};
use crate::source::metadata_pick::MetadataPick;
use crate::source::Fetch;

/// How a version chosen in the app's picker starts its reason.
pub const CHOSEN: &str = "chosen in the app";

/// The loader over the metadata file read (decoded by `dec`: in the browser a worker, so that a
/// day of snapshots is not one long task on the page and a hostile file's panic ends the worker), and which of the folder's files that was and why.
/// `metadata`: a file named (None: the folder's pick); `chosen`: the folder's versions, when the
/// person picked one of them. The error is a sentence naming the file or the folder.
pub async fn open<F: Fetch, D: Decoder>(
    name: &str,
    files: &F,
    dec: &D,
    metadata: Option<String>,
    chosen: Option<MetadataPick>,
) -> Result<(Loader, Option<MetadataPick>), String> {
    if metadata.is_none() {
        if let Some(layout) = files.listing().and_then(crate::load::spark_export::detect) {
            return Loader::open_spark_export(files, &layout, false).await.map(|l| (l, None)).map_err(|e| e.to_string());
        }
    }
    let (metadata, mut pick) = match (metadata, chosen) {
        (Some(m), pick) => (m, pick),
        (None, _) => match pick_metadata(files).await {
            Some(p) => (p.path.clone(), Some(p)),
            None => {
                return Err(format!(
                    "{name}: none of the {} files is a table metadata file (*.metadata.json or *.metadata.json.gz)",
                    files.listing().map(|i| i.paths().len()).unwrap_or(0)
                ))
            }
        },
    };
    let loader = match pick.as_mut() {
        // The folder's own pick (not a version chosen in the picker): the newest that reads.
        Some(p) if p.path == metadata && !p.why.starts_with(CHOSEN) => Loader::open_pick_with(files, dec, p, false).await,
        _ => Loader::open_with(files, dec, &metadata, false).await,
    };
    loader.map(|l| (l, pick)).map_err(|e| e.to_string())
}

/// The folder's versions with `path` marked as the person's choice.
pub fn choose(mut pick: MetadataPick) -> MetadataPick {
    pick.why = format!("{CHOSEN} (the newest by content is {})", pick.path);
    pick
}
