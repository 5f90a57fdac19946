//! Files and rows per partition in the current snapshot, with one-row files and their lateness.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::decode::{DataContent, PartitionValue};
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
        let spec = history.metadata.partition_spec(f.partition_spec_id);
        let mut day_start = None;
        let parts: Vec<String> = f
            .file
            .partition
            .iter()
            .map(|(name, v)| {
                let transform = spec.and_then(|s| s.fields.iter().find(|pf| pf.name == *name)).map(|pf| pf.transform.as_str());
                match (transform, v) {
                    (Some("day"), PartitionValue::Int(d)) => {
                        day_start = Some(d * 86_400_000);
                        format!("{name}={}", date_of_days(*d))
                    }
                    _ => format!("{name}={v}"),
                }
            })
            .collect();
        let label = if parts.is_empty() { "(unpartitioned)".to_string() } else { parts.join("/") };
        let stat = by.entry(label.clone()).or_insert(PartitionStat {
            label,
            data_files: 0,
            delete_files: 0,
            rows: 0,
            one_row_files: 0,
            max_lateness_ms: None,
        });
        if f.file.content != DataContent::Data {
            stat.delete_files += 1;
            continue;
        }
        stat.data_files += 1;
        stat.rows += f.file.record_count.max(0) as u64;
        stat.one_row_files += u64::from(f.file.record_count == 1);
        let commit = f.added_snapshot_id.and_then(|id| history.index_of_avro_id(id)).map(|i| history.snapshots[i].snapshot.timestamp_ms);
        if let (Some(start), Some(commit)) = (day_start, commit) {
            stat.max_lateness_ms = Some(stat.max_lateness_ms.unwrap_or(i64::MIN).max(commit - start));
        }
    }
    by.into_values().collect()
}
