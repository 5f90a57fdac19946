//! `icescope savepoint`: a savepoint folder, a `_metadata` file, or a folder of savepoints and
//! retained checkpoints (`savepoint-*/_metadata`, `chk-*/_metadata`, `<job>/chk-*/_metadata`),
//! each read with the state files of its own folder only, and judged against the table if one is named.

use std::path::{Path, PathBuf};

use icescope::analysis::savepoint::{self, SavepointRead};
use icescope::decode::DecodeError;
use icescope::report::savepoint::{markdown, report, text_report, Unreadable};
use icescope::session::savepoint::{read_savepoint, MAX_SAVEPOINTS, METADATA};
use icescope::source::opened_folder::{Identity, OpenedFolder};

use crate::args::{ReportFormat, SavepointArgs};
use crate::failure::{print, print_json, Failure};

pub fn savepoint(c: &SavepointArgs) -> Result<(), Failure> {
    let (found, mut unreadable) = metadata_files(Path::new(&c.savepoints))?;
    let mut reads = Vec::new();
    for (f, listed) in &found {
        match read_one(f, *listed) {
            Ok(r) => reads.push(r),
            Err(e) if found.len() == 1 && unreadable.is_empty() => return Err(Failure::Unreadable(e.to_string())),
            Err(e) => unreadable.push(Unreadable { path: f.display().to_string(), error: e.to_string() }),
        }
    }
    let mut t = c.table.table.clone();
    // `--table FOLDER` names a table source here, not a catalog's table, unless a catalog is named.
    if t.catalog.catalog.is_none() && t.target.is_none() {
        t.target = t.table.take();
    }
    let loaded = if t.target.is_some() || t.catalog.catalog.is_some() { Some(crate::open::open(&t)?.loader) } else { None };
    let table = loaded.as_ref().map(|l| {
        let mut r = icescope::analysis::findings::TableRef::guess(&l.history, c.table.naming.spark_catalog.as_deref());
        if let Some(n) = &c.table.naming.table_name {
            r.table = n.clone();
        }
        (&l.history, r)
    });
    let verdicts = savepoint::verdicts(&reads, table.as_ref().map(|(h, r)| (*h, r)));
    let out = report(table.as_ref().map(|(h, _)| h.metadata_file.as_str()), &reads, &verdicts, unreadable);
    match c.format {
        ReportFormat::Json => print_json(&out),
        ReportFormat::Text => print(&text_report(&out)),
        ReportFormat::Markdown => print(&markdown(&out)),
    }
}

/// A `_metadata` found, and what its folder was when it was listed (None: the folder the user named).
type Found = (PathBuf, Option<Identity>);

/// The `_metadata` files `target` names, bounded in number and depth, and the folders below it
/// that could not be listed (Flink subsumes old `chk-*` folders while one is listing them): each a
/// row that says so, never the whole command's failure.
fn metadata_files(target: &Path) -> Result<(Vec<Found>, Vec<Unreadable>), Failure> {
    if target.is_file() {
        return Ok((vec![(target.to_path_buf(), None)], Vec::new()));
    }
    if !target.is_dir() {
        return Err(Failure::Unreadable(format!("{}: no such file or folder", target.display())));
    }
    let mut out = Vec::new();
    let mut gone = Vec::new();
    walk(target, 0, &mut out, &mut gone)?;
    if out.is_empty() && gone.is_empty() {
        return Err(Failure::Unreadable(format!("{}: no _metadata file here or in its savepoint-*/chk-* folders", target.display())));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((out, gone))
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<Found>, gone: &mut Vec<Unreadable>) -> Result<(), Failure> {
    let own = dir.join(METADATA);
    if own.is_file() {
        // A folder found by listing is read only while it is still the folder listed.
        let listed = if depth == 0 { None } else { Identity::of(dir) };
        if depth > 0 && listed.is_none() {
            gone.push(Unreadable {
                path: own.display().to_string(),
                error: format!("{}: was there when its folder was listed and is gone now", dir.display()),
            });
            return Ok(());
        }
        out.push((own, listed));
        return Ok(());
    }
    if depth >= 2 {
        return Ok(());
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if depth == 0 => return Err(Failure::Unreadable(format!("{}: {e}", dir.display()))),
        Err(e) => {
            gone.push(Unreadable {
                path: dir.display().to_string(),
                error: format!("{}: could not be listed ({e}); it was there when its folder was listed", dir.display()),
            });
            return Ok(());
        }
    };
    for e in entries.flatten() {
        let p = e.path();
        // symbolic links are not followed: a savepoint folder holds plain folders
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&p, depth + 1, out, gone)?;
            if out.len() > MAX_SAVEPOINTS {
                return Err(Failure::Unreadable(format!("{}: more than {MAX_SAVEPOINTS} savepoints; name one folder", dir.display())));
            }
        }
    }
    Ok(())
}

/// One `_metadata` and the state files beside it, all opened relative to its folder as it was
/// listed (`listed`), never through a link swapped in since.
fn read_one(file: &Path, listed: Option<Identity>) -> Result<SavepointRead, DecodeError> {
    // `_metadata` given alone names no folder: the folder's own name is asked of the disk.
    let folder = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let folder = if folder.as_os_str().is_empty() { PathBuf::from(".") } else { folder };
    let folder_name = match listed {
        Some(_) => folder.file_name().map(|n| n.to_string_lossy().into_owned()),
        None => std::fs::canonicalize(&folder).ok().and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned())),
    }
    .unwrap_or_default();
    let opened = OpenedFolder::open(&folder, listed).map_err(|e| DecodeError::new(&folder.display().to_string(), "", source_message(e)))?;
    let name = file.file_name().map_or_else(|| METADATA.to_string(), |n| n.to_string_lossy().into_owned());
    let shown = if file.parent().is_some_and(|p| p.as_os_str().is_empty()) { name } else { format!("{}/{name}", folder.display()) };
    futures::executor::block_on(read_savepoint(&opened, &shown, &folder_name))
}

fn source_message(e: icescope::source::SourceError) -> String {
    match e {
        icescope::source::SourceError::Io { message, .. } => message,
        other => other.to_string(),
    }
}
