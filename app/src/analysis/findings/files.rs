//! Small files beyond one per partition (the fleet score).

use std::collections::BTreeSet;

use crate::decode::DataContent;

use serde::Serialize;

use super::{Context, Facts, Finding, FindingKind, Severity};
use crate::decode::SnapshotId;

/// The current snapshot's data files against its partitions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SmallFiles {
    pub snapshot_id: SnapshotId,
    /// Live data files beyond one per partition.
    pub score: u64,
    pub live_data_files: u64,
    pub partitions: u64,
    pub average_bytes: u64,
    /// Whether a Flink sink wrote any of the table.
    pub streaming: bool,
    /// Files of the snapshot that could not be read: the counts are of the rest.
    pub unread_files: usize,
}

pub(super) fn small_files(cx: &Context<'_>) -> Vec<Finding> {
    let Some(cur) = cx.history.current_index() else { return Vec::new() };
    let files: Vec<_> = cx.history.live_files(cur).into_iter().filter(|f| f.file.content == DataContent::Data).collect();
    let partitions: BTreeSet<String> = files.iter().map(|f| partition_key(f.partition_spec_id, &f.file.partition)).collect();
    let score = files.len().saturating_sub(partitions.len());
    if files.is_empty() || score < 10 {
        return Vec::new();
    }
    let bytes: u64 = files.iter().map(|f| u64::try_from(f.file.file_size_in_bytes).unwrap_or(0)).fold(0, u64::saturating_add);
    let avg = bytes / files.len() as u64;
    let facts = SmallFiles {
        snapshot_id: cx.id(cur),
        score: score as u64,
        live_data_files: files.len() as u64,
        partitions: partitions.len() as u64,
        average_bytes: avg,
        streaming: cx.streaming(),
        unread_files: cx.unread(cur),
    };
    vec![Finding::new(
        FindingKind::SmallFiles,
        if score >= 1000 { Severity::Warning } else { Severity::Info },
        Facts::SmallFiles(facts),
        vec![cx.id(cur)],
        Vec::new(),
        cx.table.statement("rewrite_data_files", Some("options => map('partial-progress.enabled', 'true')".into())),
    )]
}

pub(super) fn partition_key(spec: i32, values: &[(std::sync::Arc<str>, crate::decode::PartitionValue)]) -> String {
    let v: Vec<String> = values.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{spec}:{}", v.join("/"))
}
