//! Loading: drives source → decode → model, for the CLI and the browser alike. The bytes come
//! from any `Fetch` (the transport is passed in); the model never sees where they came from.
//! Imports source, decode and model; imported only by the CLI and the view.

use std::fmt;

use crate::decode::manifest_digest::{DigestFault, DigestedManifest};
use crate::decode::DecodeError;
use crate::decode::ManifestFile;
#[cfg(not(target_arch = "wasm32"))]
use crate::model::ReadMode;
use crate::model::{Fault, GapKind, ManifestAsk, Need, TableHistory};

use crate::source::{Fetch, SourceError};

pub mod data_scan;
pub mod decoder;
use crate::decode::job::{Decoded, Job};
use decoder::{Decoder, Inline};
mod advance;
mod key_scan;
mod pump;
pub mod spark_export;
pub use pump::Pump;

#[derive(Debug, Clone, PartialEq)]
pub enum LoadError {
    Source(SourceError),
    Decode(DecodeError),
    /// No metadata file among the files given.
    NoMetadata(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Source(e) => e.fmt(f),
            LoadError::Decode(e) => e.fmt(f),
            LoadError::NoMetadata(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for LoadError {}

impl From<SourceError> for LoadError {
    fn from(e: SourceError) -> Self {
        LoadError::Source(e)
    }
}

impl From<DecodeError> for LoadError {
    fn from(e: DecodeError) -> Self {
        LoadError::Decode(e)
    }
}

/// What was read, for progress bars, the report's `load` section and the benchmark's floor.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadStats {
    pub files: usize,
    pub bytes: u64,
    /// Of `bytes`: the metadata file's, the manifest lists' and the manifests'.
    pub metadata_bytes: u64,
    pub list_bytes: u64,
    pub manifest_bytes: u64,
    pub failed: usize,
    /// Of `files`: the manifest lists' and the manifests' (the metadata file is one).
    pub list_files: usize,
    pub manifest_files: usize,
    /// When each phase of the read ended, ms since the epoch.
    pub times: ReadTimes,
    /// Every path read, in order, when asked for (`icescope inspect --reads`).
    pub paths: Option<Vec<String>>,
}

impl ReadStats {
    /// A read that has read its metadata file (`size` bytes) and nothing else yet, started at
    /// `started_ms`.
    fn of_metadata(path: &str, size: u64, started_ms: u64, record_paths: bool) -> ReadStats {
        ReadStats {
            files: 1,
            bytes: size,
            metadata_bytes: size,
            times: ReadTimes { started_ms, metadata_ms: now_ms(), ..ReadTimes::default() },
            paths: record_paths.then(|| vec![path.to_string()]),
            ..ReadStats::default()
        }
    }
}

/// When a load's phases ended (ms since the epoch): the metadata file read and decoded, the last
/// manifest list and the last manifest read. `started` is when its caller began (before the
/// metadata file was asked for; the loader's own opening when no caller says).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadTimes {
    pub started_ms: u64,
    pub metadata_ms: u64,
    pub lists_ms: Option<u64>,
    pub manifests_ms: Option<u64>,
}

/// The host's clock: the CLI's system time, the browser's `Date.now()`.
pub fn now_ms() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now() as u64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        crate::source::s3::now_ms()
    }
}

pub struct Loader {
    pub history: TableHistory,
    pub stats: ReadStats,
    /// (table location + `/`, the folder holding `metadata/` + `/`) in a listed source.
    anchor: Option<(String, String)>,
}

/// Where a listed source holds the table's own files: the folder whose `metadata/` holds the
/// metadata file read. References under the table location are read from the same path below it,
/// so a copy elsewhere in the folder (one sharing more of the reference's path) is never read instead.
fn anchor(metadata_path: &str, location: &str) -> Option<(String, String)> {
    let dir = metadata_path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    let root = if dir == "metadata" { "" } else { dir.strip_suffix("/metadata")? };
    let location = location.trim_end_matches('/');
    (!location.is_empty()).then(|| (format!("{location}/"), if root.is_empty() { String::new() } else { format!("{root}/") }))
}

/// A read that has arrived: what was needed, what its decode was asked, and what it decoded to
/// (or why it could not be read).
pub struct Arrival {
    need: Need,
    ask: ManifestAsk,
    decoded: Result<Arrived, SourceError>,
}

struct Arrived {
    /// The file's size, read.
    bytes: u64,
    what: What,
}

enum What {
    List(Result<Vec<ManifestFile>, DecodeError>),
    Manifest(Result<DigestedManifest, DecodeError>),
}

/// Decodes a list or a manifest that has arrived, with the loader's decoder.
async fn decode_arrival<D: Decoder>(dec: &D, need: &Need, ask: ManifestAsk, bytes: Vec<u8>) -> Arrived {
    let len = bytes.len() as u64;
    Arrived { bytes: len, what: what_of(need, dec.decode(job_of(need, ask, bytes)).await) }
}

/// Has the decoder read a list or a manifest from the folder it holds (`Fetch::in_folder`) and
/// decode it. A file it cannot read is the source's error, as `fetch`'s would be.
async fn read_arrival<D: Decoder>(dec: &D, need: &Need, ask: ManifestAsk, (folder, name): (u32, String), reference: &str) -> Result<Arrived, SourceError> {
    let job = Job::Read { folder, name, then: Box::new(job_of(need, ask, Vec::new())) };
    match dec.decode(job).await {
        Ok(Decoded::Read { bytes, decoded }) => Ok(Arrived { bytes, what: what_of(need, decoded.map(|d| *d)) }),
        Ok(Decoded::Unread { missing: true, .. }) => Err(SourceError::NotFound { reference: reference.to_string() }),
        Ok(Decoded::Unread { message, .. }) => Err(SourceError::Io { path: reference.to_string(), message }),
        // The decoder stopped on it (or answered with something else): an error naming the file.
        other => Ok(Arrived { bytes: 0, what: what_of(need, other) }),
    }
}

fn job_of(need: &Need, ask: ManifestAsk, bytes: Vec<u8>) -> Job {
    match need {
        Need::ManifestList { path } => Job::ManifestList { path: path.clone(), bytes },
        Need::Manifest { path, .. } => Job::Manifest { path: path.clone(), bytes, inherited: ask.inherited, keep_at_most: ask.keep_at_most },
    }
}

/// What a list's or a manifest's decode came to.
fn what_of(need: &Need, decoded: Result<Decoded, DecodeError>) -> What {
    match need {
        Need::ManifestList { path } => What::List(match decoded {
            Ok(Decoded::List(l)) => Ok(l),
            Ok(_) => Err(DecodeError::new(path, "", decoder::unexpected(path, "a manifest list"))),
            Err(e) => Err(e),
        }),
        Need::Manifest { path, .. } => What::Manifest(match decoded {
            Ok(Decoded::Manifest(m)) => Ok(*m),
            Ok(_) => Err(DecodeError::new(path, "", decoder::unexpected(path, "a manifest"))),
            Err(e) => Err(e),
        }),
    }
}

/// Older metadata files tried after the newest fails to read: each is read whole, and a folder
/// may hold a hundred.
pub const MAX_FALLBACKS: usize = 10;

/// Concurrent requests: enough to hide latency, few enough for a browser's per-host limit.
pub const PARALLEL: usize = 6;

impl Loader {
    /// Reads and decodes the metadata file on this thread: from here on every summary series is known.
    pub async fn open<F: Fetch>(files: &F, metadata_path: &str, record_paths: bool) -> Result<Loader, LoadError> {
        Loader::open_with(files, &Inline, metadata_path, record_paths).await
    }

    /// Reads and decodes the metadata file with `dec`. A decoder on this thread decodes it as it
    /// is read where the source hands it over in parts; the browser's worker gets the bytes, or
    /// reads the file itself where it holds the folder; the page only receives the decoded metadata.
    pub async fn open_with<F: Fetch, D: Decoder>(files: &F, dec: &D, metadata_path: &str, record_paths: bool) -> Result<Loader, LoadError> {
        if dec.decodes_here() {
            // Gzip, or a file that does not decode, is read whole below (for the error that names its field).
            if let Some((size, reader)) = files.fetch_reader(metadata_path).await? {
                if let Some(m) = crate::decode::TableMetadata::from_reader(metadata_path, reader) {
                    return Ok(Loader::opened(files, metadata_path, m, size, record_paths));
                }
            }
        }
        let job = |bytes| Job::TableMetadata { path: metadata_path.to_string(), bytes };
        let (size, decoded) = match files.in_folder(metadata_path).filter(|_| dec.reads_folders()) {
            Some((folder, name)) => match dec.decode(Job::Read { folder, name, then: Box::new(job(Vec::new())) }).await? {
                Decoded::Read { bytes, decoded } => (bytes, *decoded?),
                Decoded::Unread { missing: true, .. } => return Err(SourceError::NotFound { reference: metadata_path.to_string() }.into()),
                Decoded::Unread { message, .. } => return Err(SourceError::Io { path: metadata_path.to_string(), message }.into()),
                other => (0, other),
            },
            None => {
                let bytes = files.fetch(metadata_path).await?;
                (bytes.len() as u64, dec.decode(job(bytes)).await?)
            }
        };
        match decoded {
            Decoded::Metadata(m) => Ok(Loader::opened(files, metadata_path, *m, size, record_paths)),
            _ => Err(LoadError::Decode(DecodeError::new(metadata_path, "", decoder::unexpected(metadata_path, "table metadata")))),
        }
    }

    fn opened<F: Fetch>(files: &F, metadata_path: &str, metadata: crate::decode::TableMetadata, size: u64, record_paths: bool) -> Loader {
        let mut history = TableHistory::new(metadata_path, metadata);
        // The metadata log's sizes come later (`record_metadata_sizes`): in a browser each size of a
        // picked file is a round trip to the disk, and the chart must not wait for a hundred of them.
        history.record_metadata_sizes(size, |_| None);
        let stats = ReadStats::of_metadata(metadata_path, size, now_ms(), record_paths);
        let anchor = files.listing().and_then(|_| anchor(metadata_path, &history.metadata.location));
        Loader { history, stats, anchor }
    }

    /// Opens the picked metadata file; when it does not read (damaged, cut short, gone), the next
    /// newest by content that does, at most `MAX_FALLBACKS` more, the pick saying which failed.
    /// The table then shows as that older version left it, which beats showing nothing.
    pub async fn open_pick<F: Fetch>(files: &F, pick: &mut crate::source::metadata_pick::MetadataPick, record_paths: bool) -> Result<Loader, LoadError> {
        Loader::open_pick_by(pick, |path| async move { Loader::open(files, &path, record_paths).await }).await
    }

    /// As `open_pick`, decoding with `dec`.
    pub async fn open_pick_with<F: Fetch, D: Decoder>(
        files: &F,
        dec: &D,
        pick: &mut crate::source::metadata_pick::MetadataPick,
        record_paths: bool,
    ) -> Result<Loader, LoadError> {
        Loader::open_pick_by(pick, |path| async move { Loader::open_with(files, dec, &path, record_paths).await }).await
    }

    async fn open_pick_by<Fut: std::future::Future<Output = Result<Loader, LoadError>>>(
        pick: &mut crate::source::metadata_pick::MetadataPick,
        open: impl Fn(String) -> Fut,
    ) -> Result<Loader, LoadError> {
        // Newer by name but of no age their first bytes state: one that does not read is as damaged
        // a newest file as any (and, passed over in silence, its data would pass for orphans); one
        // that reads is left to the pick by content.
        let mut failed = Vec::new();
        for path in pick.undated_newer().into_iter().take(MAX_FALLBACKS) {
            if let Err(e) = open(path.clone()).await {
                failed.push((path, e.to_string()));
            }
        }
        let first = match open(pick.path.clone()).await {
            Ok(l) => {
                if !failed.is_empty() {
                    let opened = pick.path.clone();
                    pick.fell_back(&opened, failed);
                }
                return Ok(l);
            }
            Err(e) => e,
        };
        failed.push((pick.path.clone(), first.to_string()));
        let tried: Vec<String> = failed.iter().map(|(p, _)| p.clone()).collect();
        for path in pick.fallbacks().into_iter().filter(|p| !tried.contains(p)).take(MAX_FALLBACKS) {
            match open(path.clone()).await {
                Ok(l) => {
                    pick.fell_back(&path, failed);
                    return Ok(l);
                }
                Err(e) => failed.push((path, e.to_string())),
            }
        }
        Err(first)
    }

    /// The table's own file for a reference, where the source lists it; else the reference.
    fn own_path<F: Fetch>(&self, files: &F, reference: &str) -> String {
        let own = self.anchor.as_ref().and_then(|(location, root)| Some(format!("{root}{}", reference.strip_prefix(location.as_str())?)));
        match (own, files.listing()) {
            (Some(p), Some(listing)) if listing.contains(&p) => p,
            _ => reference.to_string(),
        }
    }

    fn deliver(&mut self, arrival: Arrival) {
        let Arrival { need, ask, decoded } = arrival;
        match &decoded {
            Ok(d) => {
                self.stats.files += 1;
                self.stats.bytes = self.stats.bytes.saturating_add(d.bytes);
                let now = Some(now_ms());
                let (bytes, files, done) = match need {
                    Need::ManifestList { .. } => (&mut self.stats.list_bytes, &mut self.stats.list_files, &mut self.stats.times.lists_ms),
                    Need::Manifest { .. } => (&mut self.stats.manifest_bytes, &mut self.stats.manifest_files, &mut self.stats.times.manifests_ms),
                };
                *bytes = bytes.saturating_add(d.bytes);
                *files += 1;
                *done = now;
                if let Some(p) = &mut self.stats.paths {
                    p.push(need.path().to_string());
                }
            }
            Err(_) => self.stats.failed += 1,
        }
        let fault = |e: SourceError| Fault::new(fault_kind(&e), e.to_string());
        let stopped = |e: DecodeError| Fault::new(GapKind::Decode, e.to_string());
        match need {
            Need::ManifestList { path } => {
                let list = decoded.map_err(fault).and_then(|d| match d.what {
                    What::List(l) => l.map(|l| (d.bytes, l)).map_err(stopped),
                    What::Manifest(_) => Err(stopped(DecodeError::new(&path, "", decoder::unexpected(&path, "a manifest list")))),
                });
                self.history.absorb_list(&path, list)
            }
            Need::Manifest { path, expected_bytes, expected_entries } => {
                let digested = decoded.map_err(fault).and_then(|d| match d.what {
                    What::Manifest(m) => {
                        let m = m.map_err(stopped)?;
                        match expected_bytes {
                            Some(want) if d.bytes != want => self.length_differs(&path, m, d.bytes, want, expected_entries),
                            _ => Ok(m),
                        }
                    }
                    What::List(_) => Err(stopped(DecodeError::new(&path, "", decoder::unexpected(&path, "a manifest")))),
                });
                self.history.absorb_manifest(&path, ask, digested)
            }
        }
    }

    /// A manifest cut at a block boundary decodes cleanly to fewer entries, so a manifest of another
    /// length than its list states is read only when it holds every entry the list counts; then
    /// the disagreement is kept and said. Otherwise it is not the file the list names.
    fn length_differs(&mut self, path: &str, m: DigestedManifest, bytes: u64, want: u64, entries: Option<u64>) -> Result<DigestedManifest, Fault> {
        let found = match &m.result {
            Ok(d) => Ok(d.entries as u64),
            Err(DigestFault::Inconsistent(_)) => Err(None),
            Err(DigestFault::Decode(e)) => Err(Some(e.to_string())),
        };
        let why = match (found, entries) {
            (Ok(found), Some(e)) if e == found => {
                let mismatch = crate::model::LengthMismatch { file: path.to_string(), bytes, stated: want, entries: found };
                self.history.note_length_mismatch(mismatch);
                return Ok(m);
            }
            // It decoded, but its counts are no good: that is said of it as of any other manifest.
            (Err(None), _) => return Ok(m),
            (Ok(found), Some(e)) => format!("; it holds {found} entries where the list counts {e}"),
            (Ok(_), None) => "; the list states no file counts to check it against".into(),
            (Err(Some(e)), _) => format!("; {e}"),
        };
        Err(Fault::new(
            GapKind::Inconsistent,
            format!("{path}: the file is {bytes} bytes but its manifest list's manifest_length says {want}{why}: cut short, or not the file the list names"),
        ))
    }

    /// Reads until the plan is complete, as many reads in flight as the source says.
    pub async fn run<F: Fetch, D: Decoder>(&mut self, files: &F, dec: &D) {
        let n = files.in_flight();
        let mut pump = Pump::new(files, dec, n.reads).refill_by(n.refill);
        while pump.next(self).await {}
    }

    /// As `run`, `parallel` reads in flight whatever the source says (tests that need an order).
    pub async fn run_by<F: Fetch, D: Decoder>(&mut self, files: &F, dec: &D, parallel: usize) {
        let mut pump = Pump::new(files, dec, parallel);
        while pump.next(self).await {}
    }
}

/// The folder's newest metadata file by content (`source::metadata_pick::pick`).
pub use crate::source::metadata_pick::pick as pick_metadata;

/// The kind of a failed read, as a gap keeps it.
fn fault_kind(e: &SourceError) -> GapKind {
    use crate::source::http::HttpErrorKind;
    match e {
        SourceError::NotFound { .. } => GapKind::Missing,
        SourceError::Io { .. } => GapKind::Unreadable,
        SourceError::Http { error, .. } => match error.kind {
            HttpErrorKind::Status(404) => GapKind::Missing,
            HttpErrorKind::Status(s) | HttpErrorKind::Redirect(Some(s)) => GapKind::HttpStatus(s),
            HttpErrorKind::Cors => GapKind::Cors,
            HttpErrorKind::Unreachable => GapKind::Unreachable,
            HttpErrorKind::Malformed | HttpErrorKind::Redirect(None) | HttpErrorKind::Other => GapKind::Unreadable,
        },
    }
}

/// Reads a table synchronously (the CLI and native tests): metadata, then what `mode` asks for.
/// Only the metadata file itself is fatal; every other unreadable file becomes a gap.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_table<F: Fetch>(files: &F, metadata_path: &str, mode: ReadMode) -> Result<TableHistory, LoadError> {
    load_with_stats(files, metadata_path, mode, false).map(|l| l.history)
}

#[cfg(not(target_arch = "wasm32"))]
pub fn load_with_stats<F: Fetch>(files: &F, metadata_path: &str, mode: ReadMode, record_paths: bool) -> Result<Loader, LoadError> {
    let loader = futures::executor::block_on(Loader::open(files, metadata_path, record_paths))?;
    Ok(load_opened(files, loader, mode))
}

/// As `load_with_stats`, for the file a folder's listing picked: an older one if it does not read.
#[cfg(not(target_arch = "wasm32"))]
pub fn load_pick<F: Fetch>(files: &F, pick: &mut crate::source::metadata_pick::MetadataPick, mode: ReadMode, record_paths: bool) -> Result<Loader, LoadError> {
    let loader = futures::executor::block_on(Loader::open_pick(files, pick, record_paths))?;
    Ok(load_opened(files, loader, mode))
}

#[cfg(not(target_arch = "wasm32"))]
fn load_opened<F: Fetch>(files: &F, mut loader: Loader, mode: ReadMode) -> Loader {
    futures::executor::block_on(async {
        let current = loader.history.metadata_sizes.last().map(|m| m.bytes).unwrap_or(0);
        loader.history.record_metadata_sizes(current, |r| files.size_hint(r));
        loader.history.plan(mode);
        loader.run(files, &Inline).await;
        loader
    })
}
