//! A table folder picked as a handle (the File System Access API's `showDirectoryPicker`): only
//! `metadata/` is listed when it opens, and a file is looked up by name when the loader asks for
//! it. `data/` is touched by the data-file features (footers, duplicates) and, once every
//! snapshot's files are known, by the orphan census; the folder input lists everything first.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, FileSystemDirectoryHandle, FileSystemFileHandle, FileSystemHandle, FileSystemHandleKind};

use crate::source::listing::Listing;
use crate::source::range::{ByteRange, RangeRead};
use crate::source::{Census, Fetch, PathIndex, SourceError};

use super::picked_read::{self, io};

/// The folder the table's files live under: `metadata/` and, usually, `data/`.
const METADATA: &str = "metadata";
/// A folder picked for the orphan census is walked this deep and no further (Hive-style
/// partitions nest a level per field): a link loop or a stranger's deep tree ends here.
const MAX_DEPTH: usize = 12;
/// And holds at most this many files: past it the census is not taken (it would be partial).
const MAX_FILES: usize = 2_000_000;
/// `version-hint.text` holds a number: a longer file is not a hint.
const MAX_HINT_BYTES: f64 = 32.0;
/// Sizes of the metadata log's files asked for at once (`prepare_sizes`).
const SIZES_IN_FLIGHT: usize = 16;
/// Versions after the hinted one looked for by name before listing `metadata/` is cheaper.
const MAX_PROBES: usize = 256;

/// Folders handed to the decoder workers are kept here, the last few opened: a job names its
/// folder by number, and the page posts the handle to a worker before its first such job.
const HANDED_KEPT: usize = 8;

thread_local! {
    static HANDED: RefCell<Vec<(u32, FileSystemDirectoryHandle)>> = const { RefCell::new(Vec::new()) };
    static NEXT_HANDED: Cell<u32> = const { Cell::new(1) };
}

/// Keeps `dir` for the decoder workers, under a new number.
fn hand(dir: &FileSystemDirectoryHandle) -> u32 {
    let id = NEXT_HANDED.with(|n| n.replace(n.get().wrapping_add(1)));
    HANDED.with(|h| {
        let mut h = h.borrow_mut();
        if h.len() >= HANDED_KEPT {
            h.remove(0);
        }
        h.push((id, dir.clone()));
    });
    id
}

/// The folder handed out as `id`, while it is among the last `HANDED_KEPT`.
pub fn handed(id: u32) -> Option<FileSystemDirectoryHandle> {
    HANDED.with(|h| h.borrow().iter().find(|(i, _)| *i == id).map(|(_, d)| d.clone()))
}

pub struct HandleFiles {
    root: FileSystemDirectoryHandle,
    root_name: String,
    /// The root's own entries (`metadata`, `data`, …): a reference is placed under the root by
    /// the first of its segments that names one of them.
    children: Vec<String>,
    /// The root's folders other than `metadata/` and `data/` (savepoints kept with the table).
    beside: Vec<(String, FileSystemDirectoryHandle)>,
    /// `metadata/`'s files, as `<root>/metadata/<name>` (the folder input's paths), once listed.
    index: OnceCell<PathIndex>,
    metadata: FileSystemDirectoryHandle,
    /// `metadata/` as handed to the decoder workers (`handed`).
    metadata_id: u32,
    /// Folders already opened, by their path under the root.
    folders: RefCell<HashMap<String, FileSystemDirectoryHandle>>,
    /// Sizes of the files read or asked for (`prepare_sizes`): a handle has no size until its
    /// `File` is taken.
    sizes: RefCell<HashMap<String, u64>>,
    /// The whole folder, once listed for the orphan census.
    others: RefCell<Option<Listing>>,
}

/// One `next()` of a directory's async iterator; None at its end.
async fn next(it: &js_sys::AsyncIterator, path: &str) -> Result<Option<JsValue>, SourceError> {
    let step = JsFuture::from(it.next().map_err(io(path))?).await.map_err(io(path))?;
    let step: js_sys::IteratorNext = step.unchecked_into();
    Ok((!step.done()).then(|| step.value()))
}

/// The names under a folder, by `keys()`: no handle is made for each (metadata/ of a day of
/// checkpoints holds 52,000 names). A folder among them is found when it is read as a file.
async fn names(dir: &FileSystemDirectoryHandle, path: &str) -> Result<Vec<String>, SourceError> {
    let it = dir.keys();
    let mut out = Vec::new();
    while let Some(name) = next(&it, path).await? {
        out.extend(name.as_string());
    }
    Ok(out)
}

/// The names under a folder, files and folders apart.
async fn entries(dir: &FileSystemDirectoryHandle, path: &str) -> Result<(Vec<String>, Vec<(String, FileSystemDirectoryHandle)>), SourceError> {
    let it = dir.values();
    let (mut files, mut folders) = (Vec::new(), Vec::new());
    while let Some(h) = next(&it, path).await? {
        let h: FileSystemHandle = h.dyn_into().map_err(io(path))?;
        match h.kind() {
            FileSystemHandleKind::File => files.push(h.name()),
            FileSystemHandleKind::Directory => folders.push((h.name(), h.unchecked_into())),
            _ => {}
        }
    }
    Ok((files, folders))
}

impl HandleFiles {
    /// Lists the picked folder's own entries and `metadata/`'s files; nothing else. None when it
    /// holds no `metadata/` (not a table's folder: one above it, say).
    pub async fn open(root: FileSystemDirectoryHandle) -> Result<Option<HandleFiles>, String> {
        let Some(files) = HandleFiles::open_unlisted(root).await? else { return Ok(None) };
        files.list().await.map_err(|e| e.to_string())?;
        Ok(Some(files))
    }

    /// The picked folder's own entries only: `metadata/` is listed by `list`, when wanted.
    pub async fn open_unlisted(root: FileSystemDirectoryHandle) -> Result<Option<HandleFiles>, String> {
        let root_name = root.name();
        let (files, folders) = entries(&root, &root_name).await.map_err(|e| e.to_string())?;
        let Some((_, metadata)) = folders.iter().find(|(n, _)| n == METADATA).cloned() else {
            return Ok(None);
        };
        let children = folders.iter().map(|(n, _)| n.clone()).chain(files).collect();
        let beside = folders.into_iter().filter(|(n, _)| n != METADATA && n != "data").collect();
        let folders = RefCell::new(HashMap::from([(METADATA.to_string(), metadata.clone())]));
        Ok(Some(HandleFiles {
            root,
            root_name,
            children,
            beside,
            index: OnceCell::new(),
            metadata_id: hand(&metadata),
            metadata,
            folders,
            sizes: RefCell::default(),
            others: RefCell::new(None),
        }))
    }

    /// Lists `metadata/`, once.
    pub async fn list(&self) -> Result<(), SourceError> {
        if self.index.get().is_some() {
            return Ok(());
        }
        let metadata = self.metadata.clone();
        let listed = names(&metadata, &format!("{}/{METADATA}", self.root_name)).await?;
        let mut index = PathIndex::default();
        for n in listed {
            index.insert(format!("{}/{METADATA}/{n}", self.root_name));
        }
        index.shrink_to_fit();
        let _ = self.index.set(index);
        Ok(())
    }

    /// The metadata file Iceberg's `HadoopTableOperations.refresh` reads as current, found
    /// without listing `metadata/` (a day's 34,662 names take Chromium itself 1.0–1.2 s to
    /// list): the version `version-hint.text` states, then each next version while its file
    /// exists (`getMetadataFile`: `v<N>.metadata.json`, `v<N>.gz.metadata.json`,
    /// `v<N>.metadata.json.gz`). None without a hint, when the file it names is missing, or
    /// past `MAX_PROBES` newer versions: the folder is then listed and picked by content.
    pub async fn hinted_current(&self) -> Option<String> {
        let metadata = self.metadata.clone();
        let at = format!("{}/{METADATA}", self.root_name);
        let hint: FileSystemFileHandle = JsFuture::from(metadata.get_file_handle("version-hint.text")).await.ok()?.unchecked_into();
        let hint: File = JsFuture::from(hint.get_file()).await.ok()?.unchecked_into();
        if hint.size() > MAX_HINT_BYTES {
            return None;
        }
        let text = picked_read::whole(&format!("{at}/version-hint.text"), &hint).await.ok()?;
        let mut version: u64 = std::str::from_utf8(&text).ok()?.trim().parse().ok()?;
        let mut name = version_file(&metadata, version).await?;
        for _ in 0..MAX_PROBES {
            let next = version.checked_add(1)?;
            match version_file(&metadata, next).await {
                Some(n) => (version, name) = (next, n),
                None => return Some(format!("{at}/{name}")),
            }
        }
        None
    }

    /// The files in the root's folders other than `metadata/` and `data/`, at most `max`.
    pub async fn files_beside(&self, max: usize) -> Result<Vec<(String, File)>, SourceError> {
        let mut out = Vec::new();
        for (name, dir) in &self.beside {
            out.extend(files_under(dir, &format!("{}/{name}", self.root_name), &[], max.saturating_sub(out.len())).await?);
        }
        Ok(out)
    }

    /// Listed, and `metadata/` holds nothing.
    pub fn is_empty(&self) -> bool {
        self.index.get().is_some_and(PathIndex::is_empty)
    }

    /// The picked folder, to be listed again (a watch looks for newer metadata files).
    pub fn root(&self) -> FileSystemDirectoryHandle {
        self.root.clone()
    }

    /// Where a reference is under the picked folder: the segments after the root's own name
    /// (followed by one of its entries), else from the first segment that names one of its
    /// entries. `..` and `.` never name anything.
    fn place<'a>(&self, reference: &'a str) -> Option<Vec<&'a str>> {
        let segments: Vec<&str> = reference.split('/').filter(|s| !s.is_empty()).collect();
        if segments.iter().any(|s| *s == "." || *s == "..") {
            return None;
        }
        let child = |s: &str| self.children.iter().any(|c| c == s);
        let after_root = (0..segments.len().saturating_sub(1)).rev().find(|&i| segments[i] == self.root_name && child(segments[i + 1])).map(|i| i + 1);
        let start = after_root.or_else(|| segments.iter().position(|s| child(s)))?;
        let placed = segments[start..].to_vec();
        (placed.len() >= 2).then_some(placed)
    }

    async fn folder(&self, path: &[&str], shown: &str) -> Result<FileSystemDirectoryHandle, SourceError> {
        let mut at = String::new();
        let mut dir = self.root.clone();
        for s in path {
            if !at.is_empty() {
                at.push('/');
            }
            at.push_str(s);
            let cached = self.folders.borrow().get(&at).cloned();
            dir = match cached {
                Some(d) => d,
                None => {
                    let d: FileSystemDirectoryHandle =
                        JsFuture::from(dir.get_directory_handle(s)).await.map_err(|_| SourceError::NotFound { reference: shown.to_string() })?.unchecked_into();
                    self.folders.borrow_mut().insert(at.clone(), d.clone());
                    d
                }
            };
        }
        Ok(dir)
    }

    /// The file a reference names, with the path it is shown by.
    async fn file(&self, reference: &str) -> Result<(String, File), SourceError> {
        let not_found = || SourceError::NotFound { reference: reference.to_string() };
        let relative: Vec<String> = match self.index.get().and_then(|x| x.resolve_at(reference).map(|i| (x, i))) {
            Some((x, i)) => x.path(i).split('/').skip(1).map(str::to_string).collect(),
            None => self.place(reference).ok_or_else(not_found)?.into_iter().map(str::to_string).collect(),
        };
        let (name, folders) = relative.split_last().ok_or_else(not_found)?;
        let folders: Vec<&str> = folders.iter().map(String::as_str).collect();
        let path = format!("{}/{}", self.root_name, relative.join("/"));
        let dir = self.folder(&folders, reference).await?;
        let handle: FileSystemFileHandle = JsFuture::from(dir.get_file_handle(name)).await.map_err(|_| not_found())?.unchecked_into();
        let file: File = JsFuture::from(handle.get_file()).await.map_err(io(&path))?.unchecked_into();
        self.sizes.borrow_mut().insert(reference.to_string(), file.size() as u64);
        Ok((path, file))
    }

    /// Takes the sizes of these files (the metadata log's, for the growth chart's strip): a
    /// handle's size is a round trip, so they are asked for before the sizes are needed.
    /// Several at once: one after another, a day's hundred held the reads behind them for seconds.
    pub async fn prepare_sizes(&self, references: &[String]) {
        use futures::StreamExt;
        let wanted: Vec<&String> = references.iter().filter(|r| !self.sizes.borrow().contains_key(*r)).collect();
        futures::stream::iter(wanted)
            .for_each_concurrent(SIZES_IN_FLIGHT, |r| async move {
                let _ = self.file(r).await;
            })
            .await;
    }

    /// Lists the whole folder with each file's size and modification time, for the orphan
    /// census. Once per table.
    pub async fn list_others(&self) -> Result<(), SourceError> {
        if self.others.borrow().is_some() {
            return Ok(());
        }
        let mut listing = Listing::default();
        for (p, file) in files_under(&self.root, &self.root_name, &[], MAX_FILES).await? {
            listing.push(&p, Some(file.size() as u64), Some(file.last_modified() as i64));
        }
        listing.shrink_to_fit();
        *self.others.borrow_mut() = Some(listing);
        Ok(())
    }
}

impl HandleFiles {
    /// The metadata files of the versions after `after` and before `before` that are there, by
    /// name, oldest first (at most `MAX_PROBES` looked for): what a look by the hint stepped over.
    pub async fn versions_between(&self, after: u64, before: u64) -> Vec<String> {
        let mut out = Vec::new();
        for v in (after.saturating_add(1)..before).take(MAX_PROBES) {
            if let Some(name) = version_file(&self.metadata, v).await {
                out.push(format!("{}/{METADATA}/{name}", self.root_name));
            }
        }
        out
    }
}

/// File `name` of a folder handed to this decoder worker, read whole within the bound every
/// source keeps (`path`: how the page shows it). Err((missing, why not)).
pub async fn read_handed(dir: &FileSystemDirectoryHandle, name: &str, path: &str) -> Result<Vec<u8>, (bool, String)> {
    let why = |e: SourceError| match e {
        SourceError::NotFound { .. } => (true, String::new()),
        SourceError::Io { message, .. } => (false, message),
        other => (false, other.to_string()),
    };
    let handle: FileSystemFileHandle = JsFuture::from(dir.get_file_handle(name)).await.map_err(|_| (true, String::new()))?.unchecked_into();
    let file: File = JsFuture::from(handle.get_file()).await.map_err(|e| why(io(path)(e)))?.unchecked_into();
    picked_read::whole(path, &file).await.map_err(why)
}

/// The name of version `v`'s metadata file in `dir`, in the order Iceberg looks for it.
async fn version_file(dir: &FileSystemDirectoryHandle, v: u64) -> Option<String> {
    for name in [format!("v{v}.metadata.json"), format!("v{v}.gz.metadata.json"), format!("v{v}.metadata.json.gz")] {
        if JsFuture::from(dir.get_file_handle(&name)).await.is_ok() {
            return Some(name);
        }
    }
    None
}

/// Every file under `dir` (walked to `MAX_DEPTH`, at most `max` of them) as (its path under
/// `path`, its `File`); the folders `skip` names at the top are left out.
pub async fn files_under(dir: &FileSystemDirectoryHandle, path: &str, skip: &[&str], max: usize) -> Result<Vec<(String, File)>, SourceError> {
    let mut out = Vec::new();
    let mut stack: Vec<(String, FileSystemDirectoryHandle, usize)> = vec![(path.to_string(), dir.clone(), 0)];
    while let Some((at, dir, depth)) = stack.pop() {
        let (files, folders) = entries(&dir, &at).await?;
        for name in files {
            let p = format!("{at}/{name}");
            let handle: FileSystemFileHandle = JsFuture::from(dir.get_file_handle(&name)).await.map_err(io(&p))?.unchecked_into();
            let file: File = JsFuture::from(handle.get_file()).await.map_err(io(&p))?.unchecked_into();
            out.push((p, file));
            if out.len() > max {
                return Err(SourceError::Io { path: path.to_string(), message: format!("holds over {max} files: not listed") });
            }
        }
        for (name, d) in folders {
            if depth < MAX_DEPTH && !(depth == 0 && skip.contains(&name.as_str())) {
                stack.push((format!("{at}/{name}"), d, depth + 1));
            }
        }
    }
    Ok(out)
}

impl Fetch for HandleFiles {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let (path, file) = self.file(reference).await?;
        picked_read::whole(&path, &file).await
    }

    async fn fetch_reader(&self, reference: &str) -> Result<Option<(u64, Box<dyn std::io::Read>)>, SourceError> {
        let (path, file) = self.file(reference).await?;
        picked_read::reader(&path, &file).await.map(Some)
    }

    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        let (path, file) = self.file(reference).await?;
        picked_read::head(&path, &file, n).await
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        let (path, file) = self.file(reference).await?;
        picked_read::range(&path, &file, range).await
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        self.sizes.borrow().get(reference).copied()
    }

    /// A file listed in `metadata/` (its lists and manifests): the workers read those by name,
    /// so the page's thread never carries a day's 17,280 manifests (`handle_floor.mjs`).
    /// As `file` finds it: by the listing once `metadata/` is listed, else by its place.
    fn in_folder(&self, reference: &str) -> Option<(u32, String)> {
        let name = match self.index.get().and_then(|x| x.resolve_at(reference).map(|i| (x, i))) {
            Some((x, i)) => x.path(i).strip_prefix(&self.root_name)?.strip_prefix('/')?.strip_prefix(METADATA)?.strip_prefix('/')?.to_string(),
            None => match self.place(reference)?.as_slice() {
                [METADATA, name] => name.to_string(),
                _ => return None,
            },
        };
        (!name.is_empty() && !name.contains('/')).then_some((self.metadata_id, name))
    }

    /// Once `list` has run: opened by `version-hint.text`, the table is read before it.
    fn listing(&self) -> Option<&PathIndex> {
        self.index.get()
    }

    /// Once `list_others` has run; None before.
    fn census(&self) -> Option<Census<'_>> {
        let others = self.others.borrow();
        let listing = others.as_ref()?;
        let mut paths = Vec::with_capacity(listing.len());
        let mut facts: HashMap<String, (Option<u64>, Option<i64>)> = HashMap::new();
        for i in 0..listing.len() {
            paths.push(listing.path(i).to_string());
            facts.insert(listing.path(i).to_string(), (listing.size(i), listing.modified_ms(i)));
        }
        Some((paths, Box::new(move |p: &str| facts.get(p).copied().unwrap_or((None, None)))))
    }
}
