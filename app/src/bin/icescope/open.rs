//! Opening what the user named: a folder, a local metadata file, a URL, or a catalog table.

use std::path::Path;

use futures::executor::block_on;
use icescope::load::{load_with_stats, Loader};
use icescope::model::ReadMode;
use icescope::source::local::LocalFolder;
use icescope::load::pick_metadata;
use icescope::source::metadata_pick::MetadataPick;
use icescope::source::remote::{self, RemoteFiles};
use icescope::source::rest_catalog::{split_identifier, CatalogOptions};
use icescope::source::transport::Ureq;
use icescope::source::range::{ByteRange, RangeRead};
use icescope::source::{Fetch, PathIndex, SourceError};

use super::args::Args;

/// Where the table's files are, for commands that read inside data files too.
pub enum Files {
    Local(LocalFolder),
    Remote(Box<RemoteFiles<Ureq>>),
}

impl Fetch for Files {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        match self {
            Files::Local(f) => f.fetch(reference).await,
            Files::Remote(f) => f.fetch(reference).await,
        }
    }

    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        match self {
            Files::Local(f) => f.fetch_head(reference, n).await,
            Files::Remote(f) => f.fetch_head(reference, n).await,
        }
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        match self {
            Files::Local(f) => f.fetch_range(reference, range).await,
            Files::Remote(f) => f.fetch_range(reference, range).await,
        }
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        match self {
            Files::Local(f) => f.size_hint(reference),
            Files::Remote(f) => f.size_hint(reference),
        }
    }

    fn listing(&self) -> Option<&PathIndex> {
        match self {
            Files::Local(f) => f.listing(),
            Files::Remote(f) => f.listing(),
        }
    }
}

/// The loaded table, and which of the folder's metadata files was opened and why (a folder only).
pub fn history(a: &Args) -> Result<(Loader, Option<MetadataPick>), String> {
    open(a).map(|(_, loader, pick)| (loader, pick))
}

/// The table's files, the loaded table, and the metadata pick (a folder only).
pub fn open(a: &Args) -> Result<(Files, Loader, Option<MetadataPick>), String> {
    let mode = if a.all_snapshots {
        ReadMode::All
    } else if a.metadata_first {
        ReadMode::MetadataFirst
    } else {
        ReadMode::Auto
    };
    let (files, metadata, pick) = source(a)?;
    let loader = load_with_stats(&files, &metadata, mode, a.reads).map_err(|e| e.to_string())?;
    Ok((files, loader, pick))
}

fn source(a: &Args) -> Result<(Files, String, Option<MetadataPick>), String> {
    if let Some(uri) = &a.catalog {
        let ident = a.table.as_deref().ok_or("--catalog needs --table NS.NAME")?;
        let (ns, table) = split_identifier(ident).ok_or_else(|| format!("--table `{ident}`: expected NAMESPACE.TABLE"))?;
        let t = Ureq::default();
        let session = block_on(remote::connect(&t, &options(a, uri)?)).map_err(|e| e.to_string())?;
        let loaded = block_on(remote::load_table(&t, &session, &ns, &table)).map_err(|e| e.to_string())?;
        let location = loaded.metadata_location.clone().ok_or_else(|| format!("{ident}: the catalog returned no metadata-location"))?;
        let files = RemoteFiles::from_catalog(t, a.s3.clone(), session, ns, table, &loaded);
        return Ok((Files::Remote(Box::new(files)), location, None));
    }
    let target = a.target.as_deref().ok_or(super::args::USAGE)?;
    if ["s3://", "s3a://", "s3n://", "http://", "https://"].iter().any(|p| target.starts_with(p)) {
        let files = RemoteFiles::direct(Ureq::default(), a.s3.clone(), target);
        return Ok((Files::Remote(Box::new(files)), target.to_string(), None));
    }
    let (folder, metadata, pick) = open_local(Path::new(target), a.metadata.as_deref())?;
    Ok((Files::Local(folder), metadata, pick))
}

fn options(a: &Args, uri: &str) -> Result<CatalogOptions, String> {
    Ok(CatalogOptions { uri: uri.to_string(), warehouse: a.warehouse.clone(), auth: a.auth()? })
}

/// `{"namespaces": [[…]], "tables": {"a.b": [names]}}`
pub fn catalog_listing(a: &Args) -> Result<String, String> {
    let uri = a.catalog.as_deref().ok_or("catalog needs --catalog URI")?;
    let t = Ureq::default();
    let session = block_on(remote::connect(&t, &options(a, uri)?)).map_err(|e| e.to_string())?;
    let listing = block_on(remote::list(&t, &session)).map_err(|e| e.to_string())?;
    if a.format == "text" {
        // Names come from the catalog: shown, never obeyed, by a terminal.
        let visible = icescope::analysis::markdown::visible;
        return Ok(listing.iter().map(|(ns, t)| format!("{}: {}\n", visible(&ns.join(".")), visible(&t.join(", ")))).collect());
    }
    let tables: serde_json::Map<String, serde_json::Value> = listing.iter().map(|(ns, t)| (ns.join("."), serde_json::json!(t))).collect();
    let json = serde_json::json!({
        "catalog": uri,
        "prefix": session.prefix,
        "namespaces": listing.iter().map(|(ns, _)| ns.clone()).collect::<Vec<_>>(),
        "tables": tables,
    });
    serde_json::to_string_pretty(&json).map(|s| s + "\n").map_err(|e| e.to_string())
}

/// A metadata file is read within its table folder (the parent of `metadata/`), so that the
/// manifest lists and manifests it names can be found by path suffix.
fn open_local(target: &Path, named: Option<&str>) -> Result<(LocalFolder, String, Option<MetadataPick>), String> {
    if target.is_dir() {
        let folder = LocalFolder::open(target).map_err(|e| e.to_string())?;
        let mut pick = block_on(pick_metadata(&folder)).ok_or_else(|| format!("{}: no *.metadata.json file in this folder", target.display()))?;
        if let Some(name) = named {
            let found = pick.versions.iter().find(|v| v.path == name || v.path.ends_with(&format!("/{name}"))).ok_or_else(|| {
                let names: Vec<&str> = pick.versions.iter().map(|v| v.path.as_str()).collect();
                format!("--metadata {name}: not among this folder's metadata files ({})", names.join(", "))
            })?;
            pick.why = format!("named with --metadata (the newest by content is {})", pick.path);
            pick.path = found.path.clone();
        }
        return Ok((folder, pick.path.clone(), Some(pick)));
    }
    if !target.is_file() {
        return Err(format!("{}: no such file or folder", target.display()));
    }
    let dir = target.parent().unwrap_or(Path::new("."));
    let root = if dir.file_name().is_some_and(|n| n == "metadata") { dir.parent().unwrap_or(dir) } else { dir };
    let folder = LocalFolder::open(root).map_err(|e| e.to_string())?;
    let rel = target.strip_prefix(root).map_err(|e| e.to_string())?.to_string_lossy().replace('\\', "/");
    Ok((folder, rel, None))
}
