//! The snapshot table: one row per snapshot, every column of the JSON report's `snapshots`,
//! `counts_from` and `read` included (where each row's numbers come from).

use crate::analysis::inspect::SnapshotRow;

use super::table::{i64s, ints, json_name, texts, Table, Values};

pub fn snapshots(rows: &[SnapshotRow]) -> Table {
    let n = rows.len();
    let r = || rows.iter();
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
        .col("manifests", ints(r().map(|s| s.manifests)))
        .col("manifest_bytes", ints(r().map(|s| s.manifest_bytes)))
        .col("data_files", ints(r().map(|s| s.data_files)))
        .col("delete_files", ints(r().map(|s| s.delete_files)))
        .col("position_delete_files", ints(r().map(|s| s.position_delete_files)))
        .col("equality_delete_files", ints(r().map(|s| s.equality_delete_files)))
        .col("deletion_vectors", ints(r().map(|s| s.deletion_vectors)))
        .col("records", ints(r().map(|s| s.records)))
        .col("position_deletes", ints(r().map(|s| s.position_deletes)))
        .col("equality_deletes", ints(r().map(|s| s.equality_deletes)))
        .col("live_rows", ints(r().map(|s| s.live_rows)))
        .col("live_rows_are", texts(r().map(|s| s.live_rows_are.as_ref().and_then(json_name))))
        .col("files_size", ints(r().map(|s| s.files_size)))
        .col("counts_from", texts(r().map(|s| s.counts_from.as_ref().and_then(json_name))))
        .col("read", texts(r().map(|s| s.read.as_ref().and_then(json_name))))
}
