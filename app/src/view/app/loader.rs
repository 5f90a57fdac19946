//! Drives the model's load steps in the browser, publishing what is known after each batch so the
//! chart grows while files arrive.

use std::sync::Arc;

use leptos::prelude::*;

use crate::analysis::findings::TableRef;
use crate::analysis::inspect::{inspect, Inspect};
use crate::analysis::jobs::{job_spans, JobSpan};
use crate::analysis::markdown::markdown;
use crate::analysis::partitions::{partition_stats, PartitionStat};
use crate::analysis::GrowthSeries;
use crate::model::{LoadError, TableHistory};
use crate::source::{newest_metadata, FileSet, MemoryFiles, PathIndex, SourceError};

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
    /// Ticket-ready summary, with `<catalog>` for the user's catalog name.
    pub markdown: Arc<String>,
    pub loading: bool,
    pub progress: (usize, usize),
}

/// Where the files of a table are: in memory (dropped) or beside the app (bundled examples).
pub enum TableFiles {
    Memory(MemoryFiles),
    Served { base: String, index: PathIndex },
}

impl TableFiles {
    fn index(&self) -> &PathIndex {
        match self {
            TableFiles::Memory(m) => m.index(),
            TableFiles::Served { index, .. } => index,
        }
    }

    async fn read_path(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        match self {
            TableFiles::Memory(m) => m.read_path(path),
            TableFiles::Served { base, .. } => fetch_bytes(&format!("{base}/{path}")).await,
        }
    }

    async fn read_reference(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let path = self.index().resolve(reference).ok_or_else(|| SourceError::NotFound { reference: reference.to_string() })?.to_string();
        self.read_path(&path).await
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

fn publish(state: AppState, name: &str, history: &TableHistory, loading: bool) {
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
        markdown: Arc::new(markdown),
        loading,
        progress: history.progress(),
    }));
}

/// Opens a table: the metadata file `metadata` (or the newest one among the files), then every
/// manifest list and manifest. Only an unreadable metadata file stops it.
pub async fn open_table(state: AppState, name: String, files: TableFiles, metadata: Option<String>) {
    let Some(metadata) = metadata.or_else(|| match &files {
        TableFiles::Memory(m) => newest_metadata(m),
        TableFiles::Served { .. } => None,
    }) else {
        state.error(format!(
            "{name}: none of the {} files is a table metadata file (*.metadata.json or *.metadata.json.gz)",
            files.index().paths().len()
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
    let current = bytes.len() as u64;
    match &files {
        TableFiles::Memory(m) => history.record_metadata_sizes(current, |r| m.index().resolve(r).and_then(|p| m.size_of(p))),
        TableFiles::Served { .. } => history.record_metadata_sizes(current, |_| None),
    }
    publish(state, &name, &history, true);
    loop {
        let needs = history.pending();
        if needs.is_empty() {
            break;
        }
        for (i, need) in needs.iter().enumerate() {
            let bytes = files.read_reference(need.path()).await.map_err(LoadError::from);
            history.deliver(need, bytes);
            if i % 16 == 15 {
                publish(state, &name, &history, true);
            }
        }
        publish(state, &name, &history, true);
    }
    publish(state, &name, &history, false);
}
