//! Opening what the user named: a folder, a local metadata file, a URL, or a catalog table.

use std::collections::BTreeMap;
use std::path::Path;

use futures::executor::block_on;
use std::rc::Rc;

use icescope::model::{ReadMode, TableHistory};
use icescope::session::drive::read_all;
use icescope::session::open::{Naming, OpenError, Version};
use icescope::session::{Ask, Inline, Loader, TableSession};
use icescope::source::fetch::Listed;
use icescope::source::local::LocalFolder;
use icescope::source::range::{ByteRange, RangeRead};
use icescope::source::remote::{self, RemoteFiles};
use icescope::source::rest_catalog::CatalogOptions;
use icescope::source::transport::Ureq;
use icescope::source::{Fetch, InFlight, PathIndex, SourceError};

use super::args::{CatalogArgs, CatalogList, ListFormat, TableArgs};
use super::failure::{print, print_json, Failure};

/// Where the table's files are, for commands that read inside data files too. One per run, so
/// the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum Files {
    Local(LocalFolder),
    Remote(Box<RemoteFiles<Ureq>>),
    /// An object-store prefix, listed: a Spark export or a table's folder.
    Listed(Box<Listed<RemoteFiles<Ureq>>>),
}

impl Fetch for Files {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        match self {
            Files::Local(f) => f.fetch(reference).await,
            Files::Remote(f) => f.fetch(reference).await,
            Files::Listed(f) => f.fetch(reference).await,
        }
    }

    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        match self {
            Files::Local(f) => f.fetch_head(reference, n).await,
            Files::Remote(f) => f.fetch_head(reference, n).await,
            Files::Listed(f) => f.fetch_head(reference, n).await,
        }
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        match self {
            Files::Local(f) => f.fetch_range(reference, range).await,
            Files::Remote(f) => f.fetch_range(reference, range).await,
            Files::Listed(f) => f.fetch_range(reference, range).await,
        }
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        match self {
            Files::Local(f) => f.size_hint(reference),
            Files::Remote(f) => f.size_hint(reference),
            Files::Listed(f) => f.size_hint(reference),
        }
    }

    fn in_flight(&self) -> InFlight {
        match self {
            Files::Local(f) => f.in_flight(),
            Files::Remote(f) => f.in_flight(),
            Files::Listed(f) => f.in_flight(),
        }
    }

    fn census(&self) -> Option<icescope::source::Census<'_>> {
        match self {
            Files::Local(f) => f.census(),
            Files::Remote(_) | Files::Listed(_) => None,
        }
    }

    fn listing(&self) -> Option<&PathIndex> {
        match self {
            Files::Local(f) => f.listing(),
            Files::Remote(f) => f.listing(),
            Files::Listed(f) => f.listing(),
        }
    }
}

/// The files a table folder lists under its root, with sizes and modification times, and that root.
pub type Listing = (icescope::source::listing::Listing, String);

/// An open table, read by the session every front end drives.
pub type Open = TableSession<Files, Inline>;

/// Which snapshots to read in detail besides what the mode reads, once the metadata is known. Its
/// error is a usage error: a snapshot named that the table does not have.
pub type Select<'a> = &'a dyn Fn(&TableHistory) -> Result<Vec<usize>, String>;

fn failure(e: OpenError) -> Failure {
    match e {
        OpenError::Usage(m) => Failure::Usage(m),
        OpenError::Unreadable(m) => Failure::Unreadable(m),
    }
}

/// The table opened and read: every snapshot's manifests with `all`, whatever the flags say; the
/// snapshots `select` names in detail; the paths read kept with `record_paths`.
fn open_selecting(a: &TableArgs, all: bool, record_paths: bool, select: Select) -> Result<Open, Failure> {
    let started = icescope::session::now_ms();
    let mode = if a.all_snapshots || all {
        ReadMode::All
    } else if a.metadata_first {
        ReadMode::MetadataFirst
    } else {
        ReadMode::Auto
    };
    let (files, name, version) = source(a)?;
    let (loader, pick) = block_on(icescope::session::open::open(&name, &files, &Inline, version, record_paths)).map_err(failure)?;
    let mut s = TableSession::new(name, Rc::new(files), Inline, loader, pick, mode);
    // The phases count from here: the metadata pick's reads and a catalog's answers are the first.
    s.loader.stats.times.started_ms = started;
    for i in select(&s.loader.history).map_err(Failure::Usage)? {
        s.request(Ask::Select(i));
    }
    block_on(read_all(&mut s));
    Ok(s)
}

/// The table opened and read as the flags say.
pub fn open(a: &TableArgs) -> Result<Open, Failure> {
    open_selecting(a, false, false, &|_| Ok(Vec::new()))
}

/// The table with the snapshots `select` names read in detail too.
pub fn history_selecting(a: &TableArgs, select: Select) -> Result<Open, Failure> {
    open_selecting(a, false, false, select)
}

/// The table read as the flags say, every snapshot's manifests with `all`; `record_paths`: the
/// loader keeps every path it reads (`inspect --reads`).
pub fn open_reading(a: &TableArgs, all: bool, record_paths: bool) -> Result<Open, Failure> {
    open_selecting(a, all, record_paths, &|_| Ok(Vec::new()))
}

/// The table with every snapshot's manifests read, and the files under its location for the
/// orphan census; an S3 table's store is listed (ListObjectsV2 needs `s3:ListBucket`, which a
/// reader may not have).
pub fn orphans_listing(a: &TableArgs) -> Result<(Open, Option<Listing>), Failure> {
    let s = open_selecting(a, true, false, &|_| Ok(Vec::new()))?;
    let metadata = &s.loader.history.metadata_file;
    let listing = match &*s.files {
        Files::Remote(remote) => {
            let s3 = a.catalog.catalog.is_some() || icescope::source::s3::parse_s3(metadata).is_some();
            if s3 {
                Some(store_listing(a, remote, &s.loader)?)
            } else {
                None
            }
        }
        Files::Local(folder) => {
            use icescope::source::FileSet;
            // A census from a partial listing would call every unlisted file missing: refused instead.
            let index = folder.complete_index().map_err(Failure::unreadable)?;
            icescope::analysis::orphans::table_root(metadata)
                .map(|root| (icescope::analysis::orphans::listed_files(index, |p| folder.size_of(p), |p| folder.modified_ms(p)).into_iter().collect(), root))
        }
        Files::Listed(_) => None,
    };
    Ok((s, listing))
}

/// The files the user named, how errors call them, and which metadata file to open.
fn source(a: &TableArgs) -> Result<(Files, String, Version), Failure> {
    if a.catalog.catalog.is_some() {
        let (files, location) = catalog_table(a)?;
        return Ok((Files::Remote(Box::new(files)), location.clone(), Version::File(location)));
    }
    let target = a
        .target
        .as_deref()
        .ok_or_else(|| Failure::usage("which table? Give a table folder, a metadata.json or its URL, or --catalog URI --table NS.NAME (icescope --help)"))?;
    // A prefix on an object store is listed (ListObjectsV2): a folder Spark wrote
    // (`icescope spark-export`) or a table's own folder.
    if remote::names_folder(target) {
        let listed = block_on(RemoteFiles::direct(Ureq::default(), a.s3(), target).listed(target, a.s3_list_page_size)).map_err(Failure::unreadable)?;
        return Ok((Files::Listed(Box::new(listed)), target.to_string(), Version::Newest));
    }
    if remote::is_remote(target) {
        icescope::source::rest_catalog::no_credentials_in(target).map_err(Failure::Usage)?;
        let files = RemoteFiles::direct(Ureq::default(), a.s3(), target);
        return Ok((Files::Remote(Box::new(files)), target.to_string(), Version::File(target.to_string())));
    }
    let path = Path::new(target);
    if path.is_dir() {
        let folder = LocalFolder::open(path).map_err(Failure::unreadable)?;
        let version = match &a.metadata {
            Some(name) => Version::Named { name: name.clone(), by: Naming::Flag, versions: None },
            None => Version::Newest,
        };
        return Ok((Files::Local(folder), path.display().to_string(), version));
    }
    if !path.is_file() {
        return Err(Failure::Unreadable(format!("{}: no such file or folder", path.display())));
    }
    // A metadata file is read within its table folder (the parent of `metadata/`), so that the
    // manifest lists and manifests it names can be found by path suffix.
    let root = folder_of_metadata_file(path);
    let folder = LocalFolder::open(root).map_err(Failure::unreadable)?;
    let rel = path.strip_prefix(root).map_err(Failure::unreadable)?.to_string_lossy().replace('\\', "/");
    Ok((Files::Local(folder), path.display().to_string(), Version::File(rel)))
}

/// `--table NS.NAME`, which `--catalog` needs, or the usage error.
pub fn catalog_identifier(a: &TableArgs) -> Result<&str, Failure> {
    let ident = a.table.as_deref().ok_or_else(|| Failure::usage("--catalog needs --table NS.NAME"))?;
    remote::identifier(ident).map_err(|e| Failure::Usage(format!("--table {e}")))?;
    Ok(ident)
}

/// The catalog table `--catalog URI --table NS.NAME` names: its files (vended credentials and
/// the location's host with them) and its current metadata file.
fn catalog_table(a: &TableArgs) -> Result<(RemoteFiles<Ureq>, String), Failure> {
    let ident = catalog_identifier(a)?;
    let uri = a.catalog.catalog.as_deref().unwrap_or_default();
    let t = Ureq::default();
    let opened = block_on(remote::open_table(&t, &options(&a.catalog, &a.s3(), uri)?, ident)).map_err(Failure::Unreadable)?;
    let files = RemoteFiles::from_catalog(t, a.s3(), opened.session, opened.namespace, opened.table, &opened.loaded);
    Ok((files, opened.location))
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
