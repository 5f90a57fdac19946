//! Following a table opened in the browser: a folder picked as a handle is listed again (or its
//! `version-hint.text` read), a catalog is asked with the last ETag, directly or through the
//! relay. Files read through the folder input (or dropped where the browser hands over no folder
//! handle) are a copy of one moment and cannot be followed.

use crate::source::follow::{Follow, Follows, Newer};
use crate::source::metadata_pick::candidates;
use crate::source::Fetch;

use super::files::TableFiles;
use super::handle::HandleFiles;

/// Why this source cannot be followed; None where it can.
pub fn not_followable(files: &TableFiles) -> Option<&'static str> {
    match files {
        TableFiles::Handle(_) => None,
        TableFiles::Remote(r) if r.has_catalog() => None,
        TableFiles::Picked(_) | TableFiles::Served(_) => {
            Some("a copy of one moment (read as files, or a bundled example): choose or drop the table's folder in Chrome or Edge, or open it from its catalog, to follow it")
        }
        TableFiles::Remote(_) | TableFiles::Listed(_) => {
            Some("a metadata file opened by its URL names one version: open the table from its catalog to follow it")
        }
        TableFiles::Relay(r) if r.has_catalog() => None,
        TableFiles::Relay(_) => Some("a metadata file opened by its location names one version: open the table from the catalog to follow it"),
    }
}

impl Follows for TableFiles {
    async fn newer(&self, current: &str, follow: &mut Follow) -> Result<Option<Newer<Self>>, String> {
        match self {
            TableFiles::Handle(h) => {
                // A Hadoop table's hint: a look reads one small file and asks for the next names.
                if let Some(now) = h.hinted_current().await {
                    return Ok((now != current).then_some(Newer { path: now, files: None, pick: None, hinted: true }));
                }
                let fresh = HandleFiles::open(h.root()).await?.ok_or("the folder holds no metadata/ any more")?;
                // Metadata files are written once, and a Hadoop table's version-hint.text only changes
                // with a new one (HadoopTableOperations writes the file, then the hint): the same
                // names mean the same pick, and an idle look reads nothing.
                if same_metadata_files(h, &fresh) {
                    return Ok(None);
                }
                let pick = crate::source::metadata_pick::pick(&fresh).await.ok_or("the folder's metadata/ holds no metadata file any more")?;
                Ok((pick.path != current).then(|| Newer { path: pick.path.clone(), files: Some(TableFiles::Handle(fresh)), pick: Some(pick), hinted: false }))
            }
            TableFiles::Remote(r) if r.has_catalog() => Ok(r.newer(current, follow).await?.map(|n| n.map(TableFiles::Remote))),
            TableFiles::Relay(r) if r.has_catalog() => {
                let path = r.reload().await.map_err(|e| e.to_string())?;
                Ok((path != current).then_some(Newer { path, files: None, pick: None, hinted: false }))
            }
            other => Err(not_followable(other).unwrap_or("this source cannot be followed").to_string()),
        }
    }
}

fn same_metadata_files(before: &HandleFiles, now: &HandleFiles) -> bool {
    let names = |f: &HandleFiles| {
        let mut c = f.listing().and_then(candidates).map(|(_, c)| c).unwrap_or_default();
        c.sort_unstable();
        c
    };
    names(before) == names(now)
}
