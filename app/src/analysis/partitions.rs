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
    /// Longest time from the partition's start to the commit that added one of its one-row files,
    /// where those arrived late by the late-data finding's rule (day partitions only: the day
    /// ended more than a day before both the table's newest day and the commit). None otherwise:
    /// a backfill of old days in full files, or yesterday's stragglers, is not late data.
    pub max_lateness_ms: Option<i64>,
}

const DAY_MS: i64 = 86_400_000;

/// Partitions of the current snapshot, sorted by label (dates sort in time order).
pub fn partition_stats(history: &TableHistory) -> Vec<PartitionStat> {
    let Some(cur) = history.current_index() else { return Vec::new() };
    // Counted from every file or not at all: the caption says what it waits for.
    if history.current_files_wait().is_some() {
        return Vec::new();
    }
    let mut by: BTreeMap<String, PartitionStat> = BTreeMap::new();
    let mut labels = Labels::new(history);
    // Per partition label: its day's start, and the newest commit of its one-row files.
    let mut one_row: BTreeMap<String, (i64, i64)> = BTreeMap::new();
    let mut newest_day: Option<i64> = None;
    for f in history.live_files(cur) {
        let day_start = history.metadata.partition_spec(f.partition_spec_id).and_then(|spec| {
            f.file.partition.iter().find_map(|(name, v)| match (spec.fields.iter().find(|pf| *pf.name == **name).map(|pf| &pf.transform), v) {
                (Some(Transform::Day), PartitionValue::Int(d)) => d.checked_mul(DAY_MS),
                _ => None,
            })
        });
        let label = labels.of(f.partition_spec_id, &f.file.partition);
        if !by.contains_key(label) {
            let stat = PartitionStat { label: label.to_string(), data_files: 0, delete_files: 0, rows: 0, one_row_files: 0, max_lateness_ms: None };
            by.insert(label.to_string(), stat);
        }
        let Some(stat) = by.get_mut(label) else { continue };
        if f.file.content != DataContent::Data {
            if !matches!(f.file.content, DataContent::Unknown(_)) {
                stat.delete_files += 1;
            }
            continue;
        }
        stat.data_files += 1;
        stat.rows = stat.rows.saturating_add(f.file.record_count.max(0) as u64);
        stat.one_row_files += u64::from(f.file.record_count == 1);
        let Some(start) = day_start else { continue };
        newest_day = Some(newest_day.map_or(start, |n| n.max(start)));
        let commit = f.added_snapshot_id.and_then(|id| history.index_of_avro_id(id)).map(|i| history.snapshots[i].snapshot.timestamp_ms);
        if let (true, Some(commit)) = (f.file.record_count == 1, commit) {
            let e = one_row.entry(label.to_string()).or_insert((start, commit));
            e.1 = e.1.max(commit);
        }
    }
    for (label, (start, commit)) in one_row {
        let late = newest_day.is_some_and(|newest| crate::analysis::findings::arrived_late(start, DAY_MS, newest, commit));
        if let (true, Some(stat)) = (late, by.get_mut(&label)) {
            stat.max_lateness_ms = commit.checked_sub(start);
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
        let mut labels = Labels::new(history);
        for f in history.live_files(i).into_iter().filter(|f| f.file.content == DataContent::Data) {
            let label = labels.of(f.partition_spec_id, &f.file.partition);
            match files.get_mut(label) {
                Some(n) => *n += 1,
                None => {
                    files.insert(label.to_string(), 1);
                }
            }
        }
        per_snapshot.push((i, files));
    }
    let mut partitions: Vec<String> = per_snapshot.iter().flat_map(|(_, m)| m.keys().cloned()).collect();
    partitions.sort();
    partitions.dedup();
    let snapshots = per_snapshot.into_iter().map(|(i, m)| (i, partitions.iter().map(|p| m.get(p).copied().unwrap_or(0)).collect())).collect();
    PartitionTimeline { partitions, snapshots }
}

/// Labels of the partitions files name, the last few remembered: a day's 50,000 files fall in a
/// handful of partitions, and formatting each file's date took a fifth of a report in the browser.
pub(crate) struct Labels<'a> {
    history: &'a TableHistory,
    recent: Vec<(i32, &'a [(std::sync::Arc<str>, PartitionValue)], String)>,
    next: usize,
}

const REMEMBERED: usize = 16;

impl<'a> Labels<'a> {
    pub fn new(history: &'a TableHistory) -> Self {
        Labels { history, recent: Vec::with_capacity(REMEMBERED), next: 0 }
    }

    pub fn of(&mut self, spec_id: i32, values: &'a [(std::sync::Arc<str>, PartitionValue)]) -> &str {
        // Floats compared by their bits: 0.0 and -0.0 are equal but print apart.
        let hit = self.recent.iter().position(|(s, v, _)| *s == spec_id && crate::decode::manifest::same_partition(v, values));
        let at = match hit {
            Some(at) => at,
            None => {
                let entry = (spec_id, values, label(self.history, spec_id, values));
                if self.recent.len() < REMEMBERED {
                    self.recent.push(entry);
                    self.recent.len() - 1
                } else {
                    let at = self.next;
                    self.recent[at] = entry;
                    self.next = (at + 1) % REMEMBERED;
                    at
                }
            }
        };
        &self.recent[at].2
    }
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
    if parts.is_empty() {
        "(unpartitioned)".to_string()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{label, Labels};
    use crate::decode::{PartitionValue, TableMetadata};
    use crate::model::TableHistory;

    #[test]
    fn remembered_labels_are_the_labels_past_eviction_and_for_signed_zeros() {
        let json = r#"{"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://b/t","last-sequence-number":0,
            "last-updated-ms":1,"last-column-id":1,"current-schema-id":0,"schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"x","required":false,"type":"double"}]}],
            "default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[{"name":"x","transform":"identity","source-id":1,"field-id":1000}]}],"last-partition-id":1000,
            "default-sort-order-id":0,"sort-orders":[{"order-id":0,"fields":[]}],"snapshots":[]}"#;
        let h = TableHistory::new("m.json", TableMetadata::from_bytes("m.json", json.as_bytes()).unwrap());
        let name: Arc<str> = "x".into();
        let values: Vec<Vec<(Arc<str>, PartitionValue)>> =
            (0..40).map(|i| vec![(name.clone(), PartitionValue::Float(if i == 39 { -0.0 } else { f64::from(i % 37) }))]).collect();
        let mut labels = Labels::new(&h);
        for round in 0..3 {
            for v in &values {
                assert_eq!(labels.of(0, v), label(&h, 0, v), "round {round}");
            }
        }
        assert_eq!(labels.of(0, &values[39]), "x=-0");
        assert_eq!(labels.of(0, &values[0]), "x=0");
    }
}
