//! Opening what the user named: a folder, a local metadata file, a URL, or a catalog table.

use std::path::Path;

use futures::executor::block_on;
use icescope::load::pick_metadata;
use icescope::load::{load_pick, load_with_stats, Loader};
use icescope::model::{ReadMode, TableHistory};
use icescope::source::local::LocalFolder;
use icescope::source::metadata_pick::MetadataPick;
use icescope::source::range::{ByteRange, RangeRead};
use icescope::source::remote::{self, RemoteFiles};
use icescope::source::rest_catalog::{split_identifier, CatalogOptions};
use icescope::source::transport::Ureq;
use icescope::source::{Fetch, PathIndex, SourceError};

use super::args::Args;

/// Where the table's files are, for commands that read inside data files too. One per run, so
/// the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
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

/// The files a table folder lists under its root, with sizes and modification times, and that root.
pub type Listing = (icescope::source::listing::Listing, String);

/// Which snapshots to read in detail besides what the mode reads, once the metadata is known.
pub type Select<'a> = &'a dyn Fn(&TableHistory) -> Result<Vec<usize>, String>;

/// Reads what `mode` asks for, then the files of the snapshots `select` names, from the same source.
/// A pick (a folder's newest metadata file, not one named with --metadata) falls back to the newest
/// that reads.
fn load_files<F: Fetch>(
    files: &F,
    metadata: &str,
    pick: Option<&mut MetadataPick>,
    mode: ReadMode,
    record_paths: bool,
    select: Select,
) -> Result<Loader, String> {
    let mut loader = match pick {
        Some(p) => load_pick(files, p, mode, record_paths),
        None => load_with_stats(files, metadata, mode, record_paths),
    }
    .map_err(|e| e.to_string())?;
    let wanted = select(&loader.history)?;
    if !wanted.is_empty() {
        for i in wanted {
            loader.history.select(i);
        }
        block_on(loader.run(files, 64));
    }
    Ok(loader)
}

/// The table's files, the loaded table (every snapshot's manifests with `all`, whatever the flags
/// say; the snapshots `select` names in detail), the metadata file read and the pick (a folder only).
fn open_selecting(a: &Args, all: bool, select: Select) -> Result<(Files, Loader, String, Option<MetadataPick>), String> {
    let mode = if a.all_snapshots || all {
        ReadMode::All
    } else if a.metadata_first {
        ReadMode::MetadataFirst
    } else {
        ReadMode::Auto
    };
    // A folder Spark wrote (`icescope spark-export`): its tables stand in for the manifests.
    // The folder is listed once: the same listing serves the table's own metadata.
    let mut listed = None;
    if let Some(t) = a.target.as_deref().filter(|t| a.catalog.is_none() && Path::new(t).is_dir()) {
        let folder = LocalFolder::open(Path::new(t)).map_err(|e| e.to_string())?;
        use icescope::source::FileSet;
        if let Some(layout) = icescope::load::spark_export::detect(folder.metadata_index()) {
            let loader = block_on(Loader::open_spark_export(&folder, &layout, a.reads)).map_err(|e| e.to_string())?;
            let metadata = loader.history.metadata_file.clone();
            return Ok((Files::Local(folder), loader, metadata, None));
        }
        listed = Some(folder);
    }
    // The same, on an object store: `s3://bucket/prefix/` is listed (ListObjectsV2) to find it.
    if let Some(t) = a.target.as_deref().filter(|t| a.catalog.is_none() && t.starts_with("s3") && t.ends_with('/')) {
        let remote = RemoteFiles::direct(Ureq::default(), a.s3.clone(), t);
        let objects = block_on(remote.list_prefix(t, a.s3_list_page_size)).map_err(|e| e.to_string())?;
        let listed = icescope::source::fetch::Listed::new(remote, (0..objects.len()).map(|i| (objects.path(i).to_string(), objects.size(i))));
        let layout = icescope::load::spark_export::detect(&listed.index)
            .ok_or_else(|| format!("{t}: no export of Spark's metadata tables here (`snapshots/*.parquet`); name a table's metadata.json to open a table"))?;
        let loader = block_on(Loader::open_spark_export(&listed, &layout, a.reads)).map_err(|e| e.to_string())?;
        let metadata = loader.history.metadata_file.clone();
        return Ok((Files::Remote(Box::new(listed.into_inner())), loader, metadata, None));
    }
    let (files, metadata, mut pick) = source(a, listed)?;
    let fallback = pick.as_mut().filter(|_| a.metadata.is_none());
    let loader = load_files(&files, &metadata, fallback, mode, a.reads, select)?;
    let metadata = loader.history.metadata_file.clone();
    Ok((files, loader, metadata, pick))
}

/// The table's files, the loaded table, and the metadata pick (a folder only).
pub fn open(a: &Args) -> Result<(Files, Loader, Option<MetadataPick>), String> {
    open_selecting(a, false, &|_| Ok(Vec::new())).map(|(f, l, _, p)| (f, l, p))
}

/// The loaded table with the snapshots `select` names read in detail too.
pub fn history_selecting(a: &Args, select: Select) -> Result<(Loader, Option<MetadataPick>), String> {
    open_selecting(a, false, select).map(|(_, l, _, p)| (l, p))
}

/// The loaded table, and which of the folder's metadata files was opened and why (a folder only).
/// With `all`, every snapshot's manifests are read whatever the flags say, and a
/// folder's listing comes back too (the orphan census needs both); with `list_store` too, an S3
/// table's store is listed (ListObjectsV2 needs `s3:ListBucket`, which a reader may not have).
pub fn history_with_listing(a: &Args, all: bool, list_store: bool) -> Result<(Loader, Option<MetadataPick>, Option<Listing>), String> {
    let (files, loader, metadata, pick) = open_selecting(a, all, &|_| Ok(Vec::new()))?;
    let listing = match &files {
        Files::Remote(remote) => {
            let s3 = a.catalog.is_some() || icescope::source::s3::parse_s3(&metadata).is_some();
            if all && list_store && s3 {
                Some(store_listing(a, remote, &loader)?)
            } else {
                None
            }
        }
        Files::Local(folder) if all => {
            use icescope::source::FileSet;
            // A census from a partial listing would call every unlisted file missing: refused instead.
            let index = folder.complete_index().map_err(|e| e.to_string())?;
            icescope::analysis::orphans::table_root(&metadata)
                .map(|root| (icescope::analysis::orphans::listed_files(index, |p| folder.size_of(p), |p| folder.modified_ms(p)).into_iter().collect(), root))
        }
        Files::Local(_) => None,
    };
    Ok((loader, pick, listing))
}

/// `listed`: the target folder, already listed.
fn source(a: &Args, listed: Option<LocalFolder>) -> Result<(Files, String, Option<MetadataPick>), String> {
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
    let target =
        a.target.as_deref().ok_or("which table? Give a table folder, a metadata.json or its URL, or --catalog URI --table NS.NAME (icescope --help)")?;
    if ["s3://", "s3a://", "s3n://", "http://", "https://"].iter().any(|p| target.starts_with(p)) {
        let files = RemoteFiles::direct(Ureq::default(), a.s3.clone(), target);
        return Ok((Files::Remote(Box::new(files)), target.to_string(), None));
    }
    let (folder, metadata, pick) = open_local(Path::new(target), a.metadata.as_deref(), listed)?;
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
        let visible = icescope::report::text::visible;
        let rows = listing.namespaces.iter().map(|(ns, t)| format!("{}: {}\n", visible(&ns.join(".")), visible(&t.join(", "))));
        return Ok(rows.chain(listing.incomplete.iter().map(|why| format!("incomplete: {why}\n"))).collect());
    }
    let tables: serde_json::Map<String, serde_json::Value> = listing.namespaces.iter().map(|(ns, t)| (ns.join("."), serde_json::json!(t))).collect();
    let json = serde_json::json!({
        "catalog": uri,
        "prefix": session.prefix,
        "namespaces": listing.namespaces.iter().map(|(ns, _)| ns.clone()).collect::<Vec<_>>(),
        "tables": tables,
        "incomplete": listing.incomplete,
    });
    serde_json::to_string_pretty(&json).map(|s| s + "\n").map_err(|e| e.to_string())
}

/// A metadata file is read within its table folder (the parent of `metadata/`), so that the
/// manifest lists and manifests it names can be found by path suffix.
fn open_local(target: &Path, named: Option<&str>, listed: Option<LocalFolder>) -> Result<(LocalFolder, String, Option<MetadataPick>), String> {
    if target.is_dir() {
        let folder = match listed {
            Some(f) => f,
            None => LocalFolder::open(target).map_err(|e| e.to_string())?,
        };
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

/// Every object under the table's location on its S3 store (signed ListObjectsV2, paged), as
/// `s3://bucket/key` paths under the root `s3://bucket/location-path/`.
fn store_listing(a: &Args, files: &RemoteFiles<Ureq>, loader: &Loader) -> Result<Listing, String> {
    let location = loader.history.metadata.location.trim_end_matches('/');
    let (bucket, path) = icescope::source::s3::parse_s3(location).ok_or_else(|| format!("{location}: only an s3:// table location can be listed"))?;
    let root = format!("s3://{bucket}/{path}/");
    let listed = block_on(files.list_prefix(&root, a.s3_list_page_size)).map_err(|e| e.to_string())?;
    Ok((listed, root))
}
