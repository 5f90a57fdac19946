//! Opening what the user named: a folder, a local metadata file, a URL, or a catalog table.

use std::collections::BTreeMap;
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

use super::args::{CatalogArgs, CatalogList, ListFormat, TableArgs};
use super::failure::{print, print_json, Failure};

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

/// Which snapshots to read in detail besides what the mode reads, once the metadata is known. Its
/// error is a usage error: a snapshot named that the table does not have.
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
) -> Result<Loader, Failure> {
    let mut loader = match pick {
        Some(p) => load_pick(files, p, mode, record_paths),
        None => load_with_stats(files, metadata, mode, record_paths),
    }
    .map_err(Failure::unreadable)?;
    let wanted = select(&loader.history).map_err(Failure::Usage)?;
    if !wanted.is_empty() {
        for i in wanted {
            loader.history.select(i);
        }
        block_on(loader.run(files, &icescope::load::decoder::Inline, 64));
    }
    Ok(loader)
}

/// The table's files, the loaded table (every snapshot's manifests with `all`, whatever the flags
/// say; the snapshots `select` names in detail; the paths read with `record_paths`), the metadata
/// file read and the pick (a folder only).
fn open_selecting(a: &TableArgs, all: bool, record_paths: bool, select: Select) -> Result<(Files, Loader, String, Option<MetadataPick>), Failure> {
    let started = icescope::load::now_ms();
    let (files, mut loader, metadata, pick) = open_from(a, all, record_paths, select)?;
    // The phases count from here: the metadata pick's reads and a catalog's answers are the first.
    loader.stats.times.started_ms = started;
    Ok((files, loader, metadata, pick))
}

fn open_from(a: &TableArgs, all: bool, record_paths: bool, select: Select) -> Result<(Files, Loader, String, Option<MetadataPick>), Failure> {
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
    if let Some(t) = a.target.as_deref().filter(|t| a.catalog.catalog.is_none() && Path::new(t).is_dir()) {
        let folder = LocalFolder::open(Path::new(t)).map_err(Failure::unreadable)?;
        use icescope::source::FileSet;
        if let Some(layout) = icescope::load::spark_export::detect(folder.metadata_index()) {
            let loader = block_on(Loader::open_spark_export(&folder, &layout, record_paths)).map_err(Failure::unreadable)?;
            let metadata = loader.history.metadata_file.clone();
            return Ok((Files::Local(folder), loader, metadata, None));
        }
        listed = Some(folder);
    }
    // The same, on an object store: `s3://bucket/prefix/` is listed (ListObjectsV2) to find it.
    if let Some(t) = a.target.as_deref().filter(|t| a.catalog.catalog.is_none() && remote::names_folder(t)) {
        let listed = block_on(RemoteFiles::direct(Ureq::default(), a.s3(), t).listed(t, a.s3_list_page_size)).map_err(Failure::unreadable)?;
        let layout = icescope::load::spark_export::detect(&listed.index).ok_or_else(|| {
            Failure::Unreadable(format!("{t}: no export of Spark's metadata tables here (`snapshots/*.parquet`); name a table's metadata.json to open a table"))
        })?;
        let loader = block_on(Loader::open_spark_export(&listed, &layout, record_paths)).map_err(Failure::unreadable)?;
        let metadata = loader.history.metadata_file.clone();
        return Ok((Files::Remote(Box::new(listed.into_inner())), loader, metadata, None));
    }
    let (files, metadata, mut pick) = source(a, listed)?;
    let fallback = pick.as_mut().filter(|_| a.metadata.is_none());
    let loader = load_files(&files, &metadata, fallback, mode, record_paths, select)?;
    let metadata = loader.history.metadata_file.clone();
    Ok((files, loader, metadata, pick))
}

/// The table's files, the loaded table, and the metadata pick (a folder only).
pub fn open(a: &TableArgs) -> Result<(Files, Loader, Option<MetadataPick>), Failure> {
    open_selecting(a, false, false, &|_| Ok(Vec::new())).map(|(f, l, _, p)| (f, l, p))
}

/// The loaded table with the snapshots `select` names read in detail too.
pub fn history_selecting(a: &TableArgs, select: Select) -> Result<(Loader, Option<MetadataPick>), Failure> {
    open_selecting(a, false, false, select).map(|(_, l, _, p)| (l, p))
}

/// The loaded table, and which of the folder's metadata files was opened and why (a folder only).
/// With `all`, every snapshot's manifests are read whatever the flags say, and a
/// folder's listing comes back too (the orphan census needs both); with `list_store` too, an S3
/// table's store is listed (ListObjectsV2 needs `s3:ListBucket`, which a reader may not have).
/// `record_paths`: the loader keeps every path it reads (`inspect --reads`).
pub fn history_with_listing(
    a: &TableArgs,
    all: bool,
    list_store: bool,
    record_paths: bool,
) -> Result<(Loader, Option<MetadataPick>, Option<Listing>), Failure> {
    let (files, loader, metadata, pick) = open_selecting(a, all, record_paths, &|_| Ok(Vec::new()))?;
    let listing = match &files {
        Files::Remote(remote) => {
            let s3 = a.catalog.catalog.is_some() || icescope::source::s3::parse_s3(&metadata).is_some();
            if all && list_store && s3 {
                Some(store_listing(a, remote, &loader)?)
            } else {
                None
            }
        }
        // Every manifest read (asked for, or a small table read whole): the census is possible,
        // and the app makes it too.
        Files::Local(folder) if all || loader.history.all_files_known().is_none() => {
            use icescope::source::FileSet;
            // A census from a partial listing would call every unlisted file missing: refused instead.
            let index = folder.complete_index().map_err(Failure::unreadable)?;
            icescope::analysis::orphans::table_root(&metadata)
                .map(|root| (icescope::analysis::orphans::listed_files(index, |p| folder.size_of(p), |p| folder.modified_ms(p)).into_iter().collect(), root))
        }
        Files::Local(_) => None,
    };
    Ok((loader, pick, listing))
}

/// `listed`: the target folder, already listed.
fn source(a: &TableArgs, listed: Option<LocalFolder>) -> Result<(Files, String, Option<MetadataPick>), Failure> {
    if let Some(uri) = &a.catalog.catalog {
        let ident = a.table.as_deref().ok_or_else(|| Failure::usage("--catalog needs --table NS.NAME"))?;
        let (ns, table) = split_identifier(ident).ok_or_else(|| Failure::Usage(format!("--table `{ident}`: expected NAMESPACE.TABLE")))?;
        let t = Ureq::default();
        let s3 = a.s3();
        let session = block_on(remote::connect(&t, &options(&a.catalog, &s3, uri)?)).map_err(Failure::unreadable)?;
        let loaded = block_on(remote::load_table(&t, &session, &ns, &table)).map_err(Failure::unreadable)?;
        let location = loaded.metadata_location.clone().ok_or_else(|| Failure::Unreadable(format!("{ident}: the catalog returned no metadata-location")))?;
        let files = RemoteFiles::from_catalog(t, s3, session, ns, table, &loaded);
        return Ok((Files::Remote(Box::new(files)), location, None));
    }
    let target = a
        .target
        .as_deref()
        .ok_or_else(|| Failure::usage("which table? Give a table folder, a metadata.json or its URL, or --catalog URI --table NS.NAME (icescope --help)"))?;
    if remote::is_remote(target) {
        icescope::source::rest_catalog::no_credentials_in(target).map_err(Failure::Usage)?;
        let files = RemoteFiles::direct(Ureq::default(), a.s3(), target);
        return Ok((Files::Remote(Box::new(files)), target.to_string(), None));
    }
    let (folder, metadata, pick) = open_local(Path::new(target), a.metadata.as_deref(), listed)?;
    Ok((Files::Local(folder), metadata, pick))
}

pub fn options(c: &CatalogArgs, s3: &BTreeMap<String, String>, uri: &str) -> Result<CatalogOptions, Failure> {
    icescope::source::rest_catalog::no_credentials_in(uri).map_err(Failure::Usage)?;
    Ok(CatalogOptions { uri: uri.to_string(), warehouse: c.warehouse.clone(), auth: c.auth(s3).map_err(Failure::Usage)? })
}

/// `{"namespaces": [[…]], "tables": {"a.b": [names]}}`
pub fn catalog_listing(c: &CatalogList) -> Result<(), Failure> {
    let uri = c.catalog.catalog.as_deref().ok_or_else(|| Failure::usage("catalog needs --catalog URI"))?;
    let t = Ureq::default();
    let session = block_on(remote::connect(&t, &options(&c.catalog, &c.storage.s3(), uri)?)).map_err(Failure::unreadable)?;
    let listing = block_on(remote::list(&t, &session)).map_err(Failure::unreadable)?;
    if c.format == ListFormat::Text {
        // Names come from the catalog: shown, never obeyed, by a terminal.
        let visible = icescope::report::text::visible;
        let rows = listing.namespaces.iter().map(|(ns, t)| format!("{}: {}\n", visible(&ns.join(".")), visible(&t.join(", "))));
        return print(&rows.chain(listing.incomplete.iter().map(|why| format!("incomplete: {why}\n"))).collect::<String>());
    }
    let tables: serde_json::Map<String, serde_json::Value> = listing.namespaces.iter().map(|(ns, t)| (ns.join("."), serde_json::json!(t))).collect();
    let json = serde_json::json!({
        "catalog": uri,
        "prefix": session.prefix,
        "namespaces": listing.namespaces.iter().map(|(ns, _)| ns.clone()).collect::<Vec<_>>(),
        "tables": tables,
        "incomplete": listing.incomplete,
    });
    print_json(&json)
}

/// The table folder a metadata file is in: the parent of its `metadata/`, else its own folder.
pub fn folder_of_metadata_file(file: &Path) -> &Path {
    let dir = file.parent().unwrap_or(Path::new("."));
    if dir.file_name().is_some_and(|n| n == "metadata") {
        dir.parent().unwrap_or(dir)
    } else {
        dir
    }
}

/// A metadata file is read within its table folder (the parent of `metadata/`), so that the
/// manifest lists and manifests it names can be found by path suffix.
fn open_local(target: &Path, named: Option<&str>, listed: Option<LocalFolder>) -> Result<(LocalFolder, String, Option<MetadataPick>), Failure> {
    if target.is_dir() {
        let folder = match listed {
            Some(f) => f,
            None => LocalFolder::open(target).map_err(Failure::unreadable)?,
        };
        let mut pick =
            block_on(pick_metadata(&folder)).ok_or_else(|| Failure::Unreadable(format!("{}: no *.metadata.json file in this folder", target.display())))?;
        if let Some(name) = named {
            let found = pick.versions.iter().find(|v| v.path == name || v.path.ends_with(&format!("/{name}"))).ok_or_else(|| {
                let names: Vec<&str> = pick.versions.iter().map(|v| v.path.as_str()).collect();
                Failure::Usage(format!("--metadata {name}: not among this folder's metadata files ({})", names.join(", ")))
            })?;
            pick.why = format!("named with --metadata (the newest by content is {})", pick.path);
            pick.path = found.path.clone();
        }
        return Ok((folder, pick.path.clone(), Some(pick)));
    }
    if !target.is_file() {
        return Err(Failure::Unreadable(format!("{}: no such file or folder", target.display())));
    }
    let root = folder_of_metadata_file(target);
    let folder = LocalFolder::open(root).map_err(Failure::unreadable)?;
    let rel = target.strip_prefix(root).map_err(Failure::unreadable)?.to_string_lossy().replace('\\', "/");
    Ok((folder, rel, None))
}

/// Every object under the table's location on its S3 store (signed ListObjectsV2, paged), as
/// `s3://bucket/key` paths under the root `s3://bucket/location-path/`.
fn store_listing(a: &TableArgs, files: &RemoteFiles<Ureq>, loader: &Loader) -> Result<Listing, Failure> {
    let location = loader.history.metadata.location.trim_end_matches('/');
    let (bucket, path) =
        icescope::source::s3::parse_s3(location).ok_or_else(|| Failure::Unreadable(format!("{location}: only an s3:// table location can be listed")))?;
    let root = format!("s3://{bucket}/{path}/");
    let listed = block_on(files.list_prefix(&root, a.s3_list_page_size)).map_err(Failure::unreadable)?;
    Ok((listed, root))
}
