//! Files and rows per partition in the current snapshot, with one-row files and their lateness.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::decode::{DataContent, PartitionValue, Transform};
use crate::model::time::date_of_days;
use crate::model::TableHistory;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionStat {
    /// `ts_day=2026-08-01`, or `(unpartitioned)`.
    pub label: String,
    pub data_files: u64,
    pub delete_files: u64,
    pub rows: u64,
    pub one_row_files: u64,
    /// Longest time from the partition's start to the commit that added one of its files (day
    /// partitions only): how late the source delivered into it.
    pub max_lateness_ms: Option<i64>,
}

/// Partitions of the current snapshot, sorted by label (dates sort in time order).
pub fn partition_stats(history: &TableHistory) -> Vec<PartitionStat> {
    let Some(cur) = history.current_index() else { return Vec::new() };
    let mut by: BTreeMap<String, PartitionStat> = BTreeMap::new();
    for f in history.live_files(cur) {
        let day_start = history.metadata.partition_spec(f.partition_spec_id).and_then(|spec| {
            f.file.partition.iter().find_map(|(name, v)| match (spec.fields.iter().find(|pf| *pf.name == **name).map(|pf| &pf.transform), v) {
                (Some(Transform::Day), PartitionValue::Int(d)) => d.checked_mul(86_400_000),
                _ => None,
            })
        });
        let label = label(history, f.partition_spec_id, &f.file.partition);
        let stat = by.entry(label.clone()).or_insert(PartitionStat {
            label,
            data_files: 0,
            delete_files: 0,
            rows: 0,
            one_row_files: 0,
            max_lateness_ms: None,
        });
        if f.file.content != DataContent::Data {
            if !matches!(f.file.content, DataContent::Unknown(_)) {
                stat.delete_files += 1;
            }
            continue;
        }
        stat.data_files += 1;
        stat.rows = stat.rows.saturating_add(f.file.record_count.max(0) as u64);
        stat.one_row_files += u64::from(f.file.record_count == 1);
        let commit = f.added_snapshot_id.and_then(|id| history.index_of_avro_id(id)).map(|i| history.snapshots[i].snapshot.timestamp_ms);
        if let Some(lateness) = day_start.zip(commit).and_then(|(start, commit)| commit.checked_sub(start)) {
            stat.max_lateness_ms = Some(stat.max_lateness_ms.unwrap_or(i64::MIN).max(lateness));
        }
    }
    by.into_values().collect()
}

/// Live data files per partition at each of the last snapshots: late data shows as an old
/// partition gaining a file long after the writer moved on.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionTimeline {
    /// Partition labels, sorted (dates in time order).
    pub partitions: Vec<String>,
    /// (snapshot index in commit order, files per partition in `partitions` order).
    pub snapshots: Vec<(usize, Vec<u64>)>,
}

/// Over at most the last `max_snapshots` snapshots whose files are at hand (those read in detail).
pub fn partition_timeline(history: &TableHistory, max_snapshots: usize) -> PartitionTimeline {
    let mut per_snapshot: Vec<(usize, BTreeMap<String, u64>)> = Vec::new();
    let first = history.snapshots.len().saturating_sub(max_snapshots);
    for i in first..history.snapshots.len() {
        if !history.has_files(i) {
            continue;
        }
        let mut files: BTreeMap<String, u64> = BTreeMap::new();
        for f in history.live_files(i).into_iter().filter(|f| f.file.content == DataContent::Data) {
            *files.entry(label(history, f.partition_spec_id, &f.file.partition)).or_default() += 1;
        }
        per_snapshot.push((i, files));
    }
    let mut partitions: Vec<String> = per_snapshot.iter().flat_map(|(_, m)| m.keys().cloned()).collect();
    partitions.sort();
    partitions.dedup();
    let snapshots = per_snapshot
        .into_iter()
        .map(|(i, m)| (i, partitions.iter().map(|p| m.get(p).copied().unwrap_or(0)).collect()))
        .collect();
    PartitionTimeline { partitions, snapshots }
}

pub(crate) fn label(history: &TableHistory, spec_id: i32, values: &[(std::sync::Arc<str>, PartitionValue)]) -> String {
    let spec = history.metadata.partition_spec(spec_id);
    let parts: Vec<String> = values
        .iter()
        .map(|(name, v)| {
            let transform = spec.and_then(|s| s.fields.iter().find(|pf| *pf.name == **name)).map(|pf| &pf.transform);
            match (transform, v) {
                (Some(Transform::Day), PartitionValue::Int(d)) => format!("{name}={}", date_of_days(*d)),
                _ => format!("{name}={v}"),
            }
        })
        .collect();
    if parts.is_empty() { "(unpartitioned)".to_string() } else { parts.join("/") }
}
