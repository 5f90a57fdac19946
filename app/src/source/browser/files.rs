//! Where an opened table's files are in the browser: picked or dropped (kept as `File` handles and
//! read only when the loader asks), served beside the app (bundled examples), or remote.

use std::collections::HashMap;

use crate::source::range::{from_http, ByteRange, RangeRead};
use crate::source::remote::RemoteFiles;
use crate::source::{Fetch, InFlight, PathIndex, SourceError};

use super::fetch::Browser;
use super::picked_read;

/// Files the user picked or dropped: nothing is read until the loader needs it.
/// Each `File` sits at its path's position in the matching index: a folder of 90,000 files keeps
/// each path once.
#[derive(Default)]
pub struct PickedFiles {
    index: PathIndex,
    files: Vec<web_sys::File>,
    /// The folder's other files (data, deletes, anything not metadata): never read, only listed
    /// for the orphan-file census. A plain list, not indexed: a folder of 90,000 files is picked
    /// without hashing each name.
    others: Vec<(String, web_sys::File)>,
    /// Data and delete files (Parquet, Puffin), kept apart from the metadata: the loader's listing
    /// and metadata pick never walk them; only a data scan (footers, duplicates) resolves them.
    data_index: PathIndex,
    data: Vec<web_sys::File>,
}

/// A path given twice keeps its last file, as a map would.
fn place(index: &mut PathIndex, files: &mut Vec<web_sys::File>, path: String, file: web_sys::File) {
    match index.position(&path).and_then(|i| files.get_mut(i)) {
        Some(slot) => *slot = file,
        None => {
            index.insert(path);
            files.push(file);
        }
    }
}

impl PickedFiles {
    pub fn insert(&mut self, path: String, file: web_sys::File) {
        place(&mut self.index, &mut self.files, path, file);
    }

    pub fn insert_other(&mut self, path: String, file: web_sys::File) {
        self.others.push((path, file));
    }

    pub fn insert_data(&mut self, path: String, file: web_sys::File) {
        place(&mut self.data_index, &mut self.data, path, file);
    }

    /// Gives back what growing the indexes left spare, once every file is in.
    pub fn shrink_to_fit(&mut self) {
        self.index.shrink_to_fit();
        self.data_index.shrink_to_fit();
        self.files.shrink_to_fit();
        self.data.shrink_to_fit();
        self.others.shrink_to_fit();
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The picked file a reference names: metadata first, then data files.
    fn file(&self, reference: &str) -> Result<(&str, &web_sys::File), SourceError> {
        let found = match self.index.resolve_at(reference) {
            Some(i) => self.files.get(i).map(|f| (self.index.path(i), f)),
            None => self.data_index.resolve_at(reference).and_then(|i| self.data.get(i).map(|f| (self.data_index.path(i), f))),
        };
        found.ok_or_else(|| SourceError::NotFound { reference: reference.to_string() })
    }
}

impl Fetch for PickedFiles {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let (path, file) = self.file(reference)?;
        picked_read::whole(path, file).await
    }

    async fn fetch_reader(&self, reference: &str) -> Result<Option<(u64, Box<dyn std::io::Read>)>, SourceError> {
        let (path, file) = self.file(reference)?;
        picked_read::reader(path, file).await.map(Some)
    }

    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        let (path, file) = self.file(reference)?;
        picked_read::head(path, file, n).await
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        let (path, file) = self.file(reference)?;
        picked_read::range(path, file, range).await
    }

    /// Only metadata.json sizes (the growth chart's strip): asking a picked file for its size is a
    /// round trip to the disk that took up to tens of milliseconds each on a folder of 50,000 files.
    fn size_hint(&self, reference: &str) -> Option<u64> {
        let i = self.index.resolve_at(reference)?;
        crate::source::metadata_pick::is_metadata_file(self.index.path(i)).then(|| self.files.get(i).map(|f| f.size() as u64)).flatten()
    }

    fn listing(&self) -> Option<&PathIndex> {
        Some(&self.index)
    }
}

/// A bundled example: its files beside the app, with the index's sizes.
pub struct ServedFiles {
    pub base: String,
    pub index: PathIndex,
    pub sizes: HashMap<String, u64>,
}

impl Fetch for ServedFiles {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let path = self.index.resolve(reference).ok_or_else(|| SourceError::NotFound { reference: reference.to_string() })?;
        fetch_bytes(&format!("{}/{path}", self.base)).await
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        let path = self.index.resolve(reference).ok_or_else(|| SourceError::NotFound { reference: reference.to_string() })?;
        fetch_range_of(&format!("{}/{path}", self.base), range).await
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        self.sizes.get(self.index.resolve(reference)?).copied()
    }

    fn listing(&self) -> Option<&PathIndex> {
        Some(&self.index)
    }
}

pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, SourceError> {
    let io = |message: String| SourceError::Io { path: url.to_string(), message };
    let response = gloo_net::http::Request::get(url).send().await.map_err(|e| io(e.to_string()))?;
    if !response.ok() {
        let error = crate::source::http::HttpError::status(url, response.status(), response.status_text().as_bytes());
        return Err(SourceError::Http { path: url.to_string(), error });
    }
    response.binary().await.map_err(|e| io(e.to_string()))
}

impl TableFiles {
    /// Every file the source lists, metadata or not (the orphan-file census); None for a remote table.
    fn all_paths(&self) -> Option<Vec<String>> {
        let mut paths: Vec<String> = self.listing()?.paths().map(str::to_string).collect();
        if let TableFiles::Picked(f) = self {
            paths.extend(f.others.iter().map(|(p, _)| p.clone()));
            paths.extend(f.data_index.paths().map(str::to_string));
        }
        Some(paths)
    }

    /// A listed file's size and last modification (ms), where the source knows them: a picked
    /// `File` has both, a served example its index's size, a remote table no listing at all.
    /// Built once per census: asking is a round trip to the disk, done for the orphans only.
    fn file_facts(&self) -> impl Fn(&str) -> (Option<u64>, Option<i64>) + '_ {
        let others: HashMap<&str, &web_sys::File> = match self {
            TableFiles::Picked(f) => f.others.iter().map(|(p, f)| (p.as_str(), f)).collect(),
            _ => HashMap::new(),
        };
        move |path: &str| match self {
            TableFiles::Picked(f) => f
                .index
                .position(path)
                .and_then(|i| f.files.get(i))
                .or_else(|| f.data_index.position(path).and_then(|i| f.data.get(i)))
                .or_else(|| others.get(path).copied())
                .map(|f| (Some(f.size() as u64), Some(f.last_modified() as i64)))
                .unwrap_or((None, None)),
            TableFiles::Served(f) => (f.sizes.get(path).copied(), None),
            TableFiles::Remote(_) | TableFiles::Relay(_) | TableFiles::Handle(_) | TableFiles::Listed(_) => (None, None),
        }
    }
}

/// A ranged GET beside the app (`trunk serve` and static servers answer 206; one that answers
/// 200 is handled by `from_http`, which cuts the range out and counts the whole transfer).
pub async fn fetch_range_of(url: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
    let io = |message: String| SourceError::Io { path: url.to_string(), message };
    let Some(value) = range.header() else { return Ok(RangeRead::default()) };
    let response = gloo_net::http::Request::get(url).header("Range", &value).send().await.map_err(|e| io(e.to_string()))?;
    let status = response.status();
    if !matches!(status, 200 | 206 | 416) {
        let error = crate::source::http::HttpError::status(url, status, response.status_text().as_bytes());
        return Err(SourceError::Http { path: url.to_string(), error });
    }
    let content_range = response.headers().get("content-range");
    let body = response.binary().await.map_err(|e| io(e.to_string()))?;
    from_http(url, range, status, content_range.as_deref(), body)
}

pub enum TableFiles {
    Picked(PickedFiles),
    Served(ServedFiles),
    Remote(RemoteFiles<Browser>),
    /// A catalog table read through `icescope serve`'s relay.
    Relay(super::relay::RelayFiles),
    /// A folder picked as a handle: files looked up by name as they are needed.
    Handle(super::handle::HandleFiles),
    /// An `s3://bucket/prefix/` location typed in the app, listed (a table folder or a Spark export).
    Listed(crate::source::fetch::Listed<RemoteFiles<Browser>>),
}

impl Fetch for TableFiles {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        match self {
            TableFiles::Picked(f) => f.fetch(reference).await,
            TableFiles::Served(f) => f.fetch(reference).await,
            TableFiles::Remote(f) => f.fetch(reference).await,
            TableFiles::Relay(f) => f.fetch(reference).await,
            TableFiles::Handle(f) => f.fetch(reference).await,
            TableFiles::Listed(f) => f.fetch(reference).await,
        }
    }

    async fn fetch_reader(&self, reference: &str) -> Result<Option<(u64, Box<dyn std::io::Read>)>, SourceError> {
        match self {
            TableFiles::Picked(f) => f.fetch_reader(reference).await,
            TableFiles::Handle(f) => f.fetch_reader(reference).await,
            TableFiles::Served(_) | TableFiles::Remote(_) | TableFiles::Relay(_) | TableFiles::Listed(_) => Ok(None),
        }
    }

    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        match self {
            TableFiles::Picked(f) => f.fetch_head(reference, n).await,
            TableFiles::Served(f) => f.fetch_head(reference, n).await,
            TableFiles::Remote(f) => f.fetch_head(reference, n).await,
            TableFiles::Relay(f) => f.fetch_head(reference, n).await,
            TableFiles::Handle(f) => f.fetch_head(reference, n).await,
            TableFiles::Listed(f) => f.fetch_head(reference, n).await,
        }
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        match self {
            TableFiles::Picked(f) => f.fetch_range(reference, range).await,
            TableFiles::Served(f) => f.fetch_range(reference, range).await,
            TableFiles::Remote(f) => f.fetch_range(reference, range).await,
            TableFiles::Relay(f) => f.fetch_range(reference, range).await,
            TableFiles::Handle(f) => f.fetch_range(reference, range).await,
            TableFiles::Listed(f) => f.fetch_range(reference, range).await,
        }
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        match self {
            TableFiles::Picked(f) => f.size_hint(reference),
            TableFiles::Served(f) => f.size_hint(reference),
            TableFiles::Remote(f) => f.size_hint(reference),
            TableFiles::Relay(f) => f.size_hint(reference),
            TableFiles::Handle(f) => f.size_hint(reference),
            TableFiles::Listed(f) => f.size_hint(reference),
        }
    }

    fn in_folder(&self, reference: &str) -> Option<(u32, String)> {
        match self {
            TableFiles::Handle(f) => f.in_folder(reference),
            _ => None,
        }
    }

    fn listing(&self) -> Option<&PathIndex> {
        match self {
            TableFiles::Picked(f) => f.listing(),
            TableFiles::Served(f) => f.listing(),
            TableFiles::Remote(f) => f.listing(),
            TableFiles::Relay(f) => f.listing(),
            TableFiles::Handle(f) => f.listing(),
            TableFiles::Listed(f) => f.listing(),
        }
    }

    /// A picked file is read by the browser process, not over a connection: more reads in flight
    /// keep it busy while the page decodes what has arrived. A folder handle's are asked for by
    /// the decoder workers: 48 in flight had W1b's charts in 11.8 s from the drop, 24 in 15.0, 96
    /// no sooner than 48. Through the relay, each of the browser's connections carries a batch of
    /// whole files, asked for a batch at a time.
    async fn prepare_sizes(&self, references: &[String]) {
        if let TableFiles::Handle(h) = self {
            h.prepare_sizes(references).await
        }
    }

    async fn list_for_census(&self) -> Result<(), SourceError> {
        match self {
            TableFiles::Handle(h) => h.list_others().await,
            _ => Ok(()),
        }
    }

    fn in_flight(&self) -> InFlight {
        let per_host = InFlight::BROWSER.reads;
        match self {
            TableFiles::Picked(_) => InFlight { reads: 4 * per_host, refill: 1 },
            TableFiles::Handle(_) => InFlight { reads: 8 * per_host, refill: 1 },
            TableFiles::Relay(_) => InFlight { reads: per_host * crate::source::relay::MAX_BATCH, refill: crate::source::relay::MAX_BATCH },
            TableFiles::Served(_) | TableFiles::Remote(_) | TableFiles::Listed(_) => InFlight::BROWSER,
        }
    }

    /// A remote table is not listed from the browser: no census; a folder handle once it listed itself.
    fn census(&self) -> Option<crate::source::Census<'_>> {
        if let TableFiles::Handle(f) = self {
            return f.census();
        }
        Some((self.all_paths()?, Box::new(self.file_facts())))
    }
}

impl PickedFiles {
    /// Savepoint folders dropped or picked with the table (a `_metadata` beside or under it): its
    /// Before you resume panel reads them without a second pick.
    pub fn savepoint_files(&self) -> Result<Option<super::savepoint_files::SavepointFiles>, String> {
        super::savepoint_files::SavepointFiles::among(&self.others)
    }
}
