//! Late data: one-row files in time partitions older than the window the writer is filling.

use crate::decode::{DataContent, PartitionValue, Transform};
use crate::model::time::{date_of_days, days_of_month_start, rfc3339_ms};

use serde::Serialize;

use super::{Bounded, Context, Facts, Finding, FindingKind, Severity};
use crate::decode::SnapshotId;

/// One-row files that arrived in time partitions older than the window their commit filled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LateOneRowFiles {
    /// The current snapshot, whose live files these are.
    pub snapshot_id: SnapshotId,
    pub files: u64,
    /// The late partitions as `column=value`, sorted.
    pub partitions: Bounded<String>,
    /// How long after its partition began the latest one arrived.
    pub max_lateness_ms: i64,
    /// Live data files in time partitions, late or not.
    pub time_partition_files: u64,
    pub unread_files: usize,
    pub no_statement: Option<NoStatement>,
}

/// Why the compaction statement is not printed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NoStatement {
    /// The event time column's name cannot be quoted safely, for this reason.
    ColumnUnquotable { why: String },
    /// The oldest late partition lies outside the years Spark accepts.
    OutsideSparkYears,
}

const DAY_MS: i64 = 86_400_000;

/// A time transform's value as the start of its period, in ms, and the period's length.
fn period(transform: &Transform, value: i64) -> Option<(i64, i64)> {
    match transform {
        Transform::Day => Some((value.checked_mul(DAY_MS)?, DAY_MS)),
        Transform::Hour => Some((value.checked_mul(3_600_000)?, 3_600_000)),
        Transform::Month => {
            let (y, m) = (1970i64.checked_add(value.div_euclid(12))?, value.rem_euclid(12) as u32 + 1);
            Some((days_of_month_start(y, m)?.checked_mul(DAY_MS)?, 28 * DAY_MS))
        }
        Transform::Year => Some((days_of_month_start(1970i64.checked_add(value)?, 1)?.checked_mul(DAY_MS)?, 365 * DAY_MS)),
        _ => None,
    }
}

/// A one-row data file in a time partition: only these can be late, so only these are kept
/// (a day of checkpoints has 50,000 live files).
struct TimeFile<'a> {
    start_ms: i64,
    width_ms: i64,
    added_index: Option<usize>,
    field: &'a crate::decode::PartitionField,
}

impl TimeFile<'_> {
    fn label(&self) -> String {
        let value = if self.field.transform == Transform::Day { date_of_days(self.start_ms / DAY_MS) } else { rfc3339_ms(self.start_ms) };
        format!("{}={}", self.field.name, value)
    }
}

/// The window the writer fills ends at the newest period in the table (or the commit, if earlier):
/// a file whose period (from `start_ms`, `width_ms` long) closed more than a period before that
/// arrived late. The Partitions chart marks late partitions by the same rule.
pub(crate) fn arrived_late(start_ms: i64, width_ms: i64, newest_ms: i64, commit_ms: i64) -> bool {
    match (start_ms.checked_add(width_ms), newest_ms.min(commit_ms).checked_sub(width_ms)) {
        (Some(end), Some(reference)) => end < reference,
        _ => false,
    }
}

pub(super) fn late_one_row_files(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    let Some(cur) = h.current_index() else { return Vec::new() };
    let mut column = None;
    let (mut in_time_partitions, mut newest) = (0usize, None::<i64>);
    let mut one_row = Vec::new();
    for f in h.live_files(cur).into_iter().filter(|f| f.file.content == DataContent::Data) {
        let Some(spec) = h.metadata.partition_spec(f.partition_spec_id) else { continue };
        // The first time-transformed field decides the file's period.
        let Some((field, value)) = spec.fields.iter().find_map(|pf| {
            let v = f.file.partition.iter().find(|(n, _)| **n == *pf.name).map(|(_, v)| v)?;
            match v {
                PartitionValue::Int(i) => period(&pf.transform, *i).map(|p| (pf, p)),
                _ => None,
            }
        }) else {
            continue;
        };
        column = column.or_else(|| h.metadata.schemas.iter().rev().find_map(|s| s.field_by_id(field.source_id)).map(|c| c.name.clone()));
        in_time_partitions += 1;
        newest = Some(newest.map_or(value.0, |n| n.max(value.0)));
        if f.file.record_count == 1 {
            one_row.push(TimeFile { start_ms: value.0, width_ms: value.1, added_index: f.added_snapshot_id.and_then(|id| h.index_of_avro_id(id)), field });
        }
    }
    let newest = newest.unwrap_or(0);
    let late: Vec<(&TimeFile, i64)> = one_row
        .iter()
        .filter_map(|f| {
            let commit = h.snapshots[f.added_index?].snapshot.timestamp_ms;
            arrived_late(f.start_ms, f.width_ms, newest, commit).then_some((f, commit.checked_sub(f.start_ms)?))
        })
        .collect();
    if late.is_empty() {
        return Vec::new();
    }
    let max_lateness = late.iter().map(|(_, l)| *l).max().unwrap_or(0);
    let oldest = late.iter().map(|(f, _)| f.start_ms).min().unwrap_or(0);
    let mut partitions: Vec<String> = late.iter().map(|(f, _)| f.label()).collect();
    partitions.sort_unstable();
    partitions.dedup();
    let mut snapshot_idx: Vec<usize> = late.iter().filter_map(|(f, _)| f.added_index).collect();
    snapshot_idx.sort_unstable();
    snapshot_idx.dedup();
    let column = column.unwrap_or_else(|| "<event time column>".into());
    let since = crate::analysis::sql::timestamp(oldest);
    let no_statement = match (&since, crate::analysis::sql::refusal(&column)) {
        (_, Some(why)) => Some(NoStatement::ColumnUnquotable { why }),
        (None, _) => Some(NoStatement::OutsideSparkYears),
        _ => None,
    };
    let facts = LateOneRowFiles {
        snapshot_id: cx.id(cur),
        files: late.len() as u64,
        partitions: Bounded::of(partitions.iter().cloned()),
        max_lateness_ms: max_lateness,
        time_partition_files: in_time_partitions as u64,
        unread_files: cx.unread(cur),
        no_statement,
    };
    vec![Finding::new(
        FindingKind::LateOneRowFiles,
        Severity::Warning,
        Facts::LateOneRowFiles(facts),
        snapshot_idx.iter().map(|&i| cx.id(i)).collect(),
        snapshot_idx
            .iter()
            .filter_map(|&i| h.snapshots[i].flink.as_ref().map(|f| f.job_id.to_string()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect(),
        cx.table.statement(
            "rewrite_data_files",
            since
                .zip(crate::analysis::sql::ident(&column))
                .and_then(|(since, column)| crate::analysis::sql::string_dq(&format!("{column} >= {since}")))
                .map(|w| format!("where => {w}")),
        ),
    )]
}
