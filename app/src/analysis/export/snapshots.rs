//! The snapshot table: one row per snapshot, every column of the JSON report's `snapshots`,
//! `counts_from` and `read` included (where each row's numbers come from).

use crate::analysis::inspect::SnapshotRow;

use super::table::{i64s, ints, json_name, texts, Table, Values};

pub fn snapshots(rows: &[SnapshotRow]) -> Table {
    let n = rows.len();
    let r = || rows.iter();
    let t = || rows.iter().map(SnapshotRow::totals);
    Table::new("snapshots", n)
        .col("snapshot_id", Values::Int(r().map(|s| Some(s.snapshot_id.0)).collect()))
        .col("parent_id", Values::Int(r().map(|s| s.parent_id.map(|p| p.0)).collect()))
        .col("sequence_number", i64s(r().map(|s| Some(s.sequence_number))))
        .col("committed_at", Values::TimestampMs(r().map(|s| Some(s.timestamp_ms)).collect()))
        .col("operation", texts(r().map(|s| Some(s.operation.as_str()))))
        .col("writer", texts(r().map(|s| json_name(&s.writer))))
        .col("writer_evidence", texts(r().map(|s| Some(s.writer_evidence))))
        .col("flink_job_id", texts(r().map(|s| s.flink_job_id.as_deref())))
        .col("flink_operator_id", texts(r().map(|s| s.flink_operator_id.as_deref())))
        .col("flink_checkpoint_id", i64s(r().map(|s| s.flink_checkpoint_id)))
        .cols_of_totals(t)
        .col("live_rows", ints(r().map(|s| s.live_rows().0)))
        .col("live_rows_are", texts(r().map(|s| s.live_rows().1.as_ref().and_then(json_name))))
        .col("files_size", ints(t().map(|t| t.files_size)))
        .col("counts_from", texts(t().map(|t| t.source.as_ref().and_then(json_name))))
        .col("read", texts(r().map(|s| s.read.as_ref().and_then(json_name))))
}
