//! Drives the model's load steps in the browser, publishing what is known after each batch so the
//! chart grows while files arrive.

use std::sync::Arc;

use leptos::prelude::*;

use crate::analysis::findings::TableRef;
use crate::analysis::inspect::{inspect, Inspect};
use crate::analysis::jobs::{job_spans, JobSpan};
use crate::analysis::markdown::markdown;
use crate::analysis::partitions::{partition_stats, partition_timeline, PartitionStat, PartitionTimeline};
use crate::analysis::GrowthSeries;
use crate::model::{LoadError, TableHistory};
use crate::source::http::{HttpError, HttpErrorKind};
use crate::source::object_read::{ObjectAccess, Plan};
use crate::source::rest_catalog::Session;
use crate::source::s3::apply_remote_signature;
use crate::source::{newest_metadata, FileSet, MemoryFiles, PathIndex, SourceError};

use super::fetch::send;

use super::AppState;

/// What the view shows of an opened table: finished analysis results, cheap to clone.
#[derive(Clone, PartialEq)]
pub struct Opened {
    pub name: String,
    pub report: Arc<Inspect>,
    pub series: Arc<GrowthSeries>,
    pub summaries: Arc<Vec<Vec<(String, String)>>>,
    pub jobs: Arc<Vec<JobSpan>>,
    pub partitions: Arc<Vec<PartitionStat>>,
    pub partition_timeline: Arc<PartitionTimeline>,
    /// Ticket-ready summary, with `<catalog>` for the user's catalog name.
    pub markdown: Arc<String>,
    pub loading: bool,
    pub progress: (usize, usize),
    pub bytes_read: u64,
    /// Why loading stopped early, when it did.
    pub stopped: Option<String>,
}

/// Where the files of a table are: in memory (dropped), beside the app (bundled examples), or on
/// an object store behind a catalog or a URL.
pub enum TableFiles {
    Memory(MemoryFiles),
    Served { base: String, index: PathIndex, sizes: std::collections::HashMap<String, u64> },
    Remote { access: std::cell::RefCell<ObjectAccess>, catalog: Option<(Session, Vec<String>, String)> },
}

impl TableFiles {
    fn index(&self) -> Option<&PathIndex> {
        match self {
            TableFiles::Memory(m) => Some(m.index()),
            TableFiles::Served { index, .. } => Some(index),
            TableFiles::Remote { .. } => None,
        }
    }

    async fn read_path(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        match self {
            TableFiles::Memory(m) => m.read_path(path),
            TableFiles::Served { base, .. } => fetch_bytes(&format!("{base}/{path}")).await,
            TableFiles::Remote { .. } => self.read_remote(path).await,
        }
    }

    async fn read_reference(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let Some(index) = self.index() else { return self.read_remote(reference).await };
        let path = index.resolve(reference).ok_or_else(|| SourceError::NotFound { reference: reference.to_string() })?.to_string();
        self.read_path(&path).await
    }

    async fn read_remote(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let io = |e: HttpError| SourceError::Io { path: reference.to_string(), message: e.to_string() };
        let first = self.remote_once(reference).await;
        match first {
            Err(e) if e.kind == HttpErrorKind::Status(403) && self.refresh_credentials().await => self.remote_once(reference).await.map_err(io),
            other => other.map_err(io),
        }
    }

    async fn remote_once(&self, reference: &str) -> Result<Vec<u8>, HttpError> {
        let TableFiles::Remote { access, catalog } = self else { return Err(HttpError { url: reference.into(), kind: HttpErrorKind::Other, message: "not remote".into() }) };
        let now = js_sys::Date::now() as u64;
        let other = |m: String| HttpError { url: reference.to_string(), kind: HttpErrorKind::Other, message: m };
        let plan = access.borrow().plan(reference, catalog.as_ref().map(|c| &c.0), now).map_err(other)?;
        let req = match plan {
            Plan::Get(r) => r,
            Plan::RemoteSign { unsigned, sign } => apply_remote_signature(unsigned, &ok(&sign).await?.body).map_err(other)?,
        };
        ok(&req).await.map(|r| r.body)
    }

    async fn refresh_credentials(&self) -> bool {
        let TableFiles::Remote { access, catalog: Some((session, ns, table)) } = self else { return false };
        if access.borrow().storage.is_empty() {
            return false;
        }
        let Ok(req) = session.credentials_request(ns, table, js_sys::Date::now() as u64) else { return false };
        let Ok(resp) = send(&req).await else { return false };
        match session.read_credentials(&req, &resp) {
            Ok(fresh) if !fresh.is_empty() => {
                access.borrow_mut().storage = fresh;
                true
            }
            _ => false,
        }
    }
}

pub async fn ok(req: &crate::source::http::Request) -> Result<crate::source::http::Response, HttpError> {
    let resp = send(req).await?;
    if (200..300).contains(&resp.status) {
        Ok(resp)
    } else {
        Err(HttpError::status(&req.url, resp.status, &resp.body))
    }
}

pub async fn fetch_bytes(url: &str) -> Result<Vec<u8>, SourceError> {
    let io = |message: String| SourceError::Io { path: url.to_string(), message };
    let response = gloo_net::http::Request::get(url).send().await.map_err(|e| io(e.to_string()))?;
    if !response.ok() {
        return Err(io(format!("HTTP {} {}", response.status(), response.status_text())));
    }
    response.binary().await.map_err(|e| io(e.to_string()))
}

struct Progress {
    bytes: u64,
    stopped: Option<String>,
}

fn publish(state: AppState, name: &str, history: &TableHistory, loading: bool, p: &Progress) {
    let summaries = history
        .snapshots
        .iter()
        .map(|s| {
            let mut kv = vec![("operation".to_string(), s.snapshot.operation.clone())];
            kv.extend(s.snapshot.summary.iter().map(|(k, v)| (k.clone(), v.clone())));
            kv
        })
        .collect();
    let report = inspect(history, &TableRef::guess(history, None));
    let markdown = markdown(&report);
    state.opened.set(Some(Opened {
        name: name.to_string(),
        report: Arc::new(report),
        series: Arc::new(GrowthSeries::of(history)),
        summaries: Arc::new(summaries),
        jobs: Arc::new(job_spans(history)),
        partitions: Arc::new(partition_stats(history)),
        partition_timeline: Arc::new(if loading { PartitionTimeline { partitions: Vec::new(), snapshots: Vec::new() } } else { partition_timeline(history, 200) }),
        markdown: Arc::new(markdown),
        loading,
        progress: history.progress(),
        bytes_read: p.bytes,
        stopped: p.stopped.clone(),
    }));
}

/// Concurrent requests while loading: enough to hide latency, few enough for a browser's
/// per-host connection limit and a catalog's patience.
const PARALLEL: usize = 6;

/// Opens a table: the metadata file `metadata` (or the newest one among the files), then every
/// manifest list and manifest, several at a time. Only an unreadable metadata file stops it;
/// opening another table (a new generation) or pressing cancel stops it where it is.
pub async fn open_table(state: AppState, name: String, files: TableFiles, metadata: Option<String>) {
    use futures::stream::{self, StreamExt};
    let generation = state.generation.get_untracked() + 1;
    state.generation.set(generation);
    let Some(metadata) = metadata.or_else(|| match &files {
        TableFiles::Memory(m) => newest_metadata(m),
        _ => None,
    }) else {
        state.error(format!(
            "{name}: none of the {} files is a table metadata file (*.metadata.json or *.metadata.json.gz)",
            files.index().map(|i| i.paths().len()).unwrap_or(0)
        ));
        return;
    };
    let bytes = match files.read_path(&metadata).await {
        Ok(b) => b,
        Err(e) => return state.error(e.to_string()),
    };
    let mut history = match TableHistory::from_metadata_bytes(&metadata, &bytes) {
        Ok(h) => h,
        Err(e) => return state.error(e.to_string()),
    };
    history.adopt_inline_manifests();
    let mut progress = Progress { bytes: bytes.len() as u64, stopped: None };
    match &files {
        TableFiles::Memory(m) => history.record_metadata_sizes(bytes.len() as u64, |r| m.index().resolve(r).and_then(|p| m.size_of(p))),
        TableFiles::Served { index, sizes, .. } => {
            history.record_metadata_sizes(bytes.len() as u64, |r| index.resolve(r).and_then(|p| sizes.get(p).copied()))
        }
        TableFiles::Remote { .. } => history.record_metadata_sizes(bytes.len() as u64, |_| None),
    }
    publish(state, &name, &history, true, &progress);
    let files = &files;
    'load: loop {
        let needs = history.pending();
        if needs.is_empty() {
            break;
        }
        let mut arriving = stream::iter(needs)
            .map(|need| async move {
                let result = files.read_reference(need.path()).await.map_err(LoadError::from);
                (need, result)
            })
            .buffer_unordered(PARALLEL);
        let mut n = 0usize;
        while let Some((need, result)) = arriving.next().await {
            if state.generation.get_untracked() != generation {
                return; // another table was opened: this one is no longer shown
            }
            if state.cancelled.get_untracked() == generation {
                progress.stopped = Some("cancelled: what was read until then is shown".into());
                break 'load;
            }
            if let Ok(b) = &result {
                progress.bytes += b.len() as u64;
            }
            history.deliver(&need, result);
            n += 1;
            if n % 8 == 0 {
                publish(state, &name, &history, true, &progress);
            }
        }
        publish(state, &name, &history, true, &progress);
    }
    if state.generation.get_untracked() == generation {
        publish(state, &name, &history, false, &progress);
    }
}
