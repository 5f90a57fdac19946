//! The series behind each chart: `growth` (the growth chart, one row per snapshot), `deletes`
//! (the delete-debt chart), `jobs` (the job timeline) and `partitions` (data files per partition
//! of the current snapshot). x is where the chart puts the snapshot (the checkpoint id on Flink
//! tables, commit order otherwise), with the label it draws there.

use crate::analysis::growth::GrowthSeries;
use crate::analysis::jobs::JobSpan;
use crate::analysis::partitions::PartitionStat;

use super::table::{i64s, ints, json_name, texts, Table, Values};

/// From the values the charts draw (the app holds them; the CLI computes them from the history).
pub fn series(g: &GrowthSeries, spans: &[JobSpan], stats: &[PartitionStat]) -> Vec<Table> {
    vec![growth(g), deletes(g), jobs(spans), partitions(stats)]
}

fn growth(g: &GrowthSeries) -> Table {
    let xs = g.x_positions();
    let p = || g.points.iter();
    let t = || g.points.iter().map(|p| p.totals());
    Table::new("growth", g.points.len())
        .col("index", ints(p().map(|p| Some(p.index as u64))))
        .col("snapshot_id", Values::Int(p().map(|p| Some(p.snapshot_id.0)).collect()))
        .col("committed_at", Values::TimestampMs(p().map(|p| Some(p.committed_at_ms)).collect()))
        .col("operation", texts(p().map(|p| Some(p.operation.as_str()))))
        .col("job_id", texts(p().map(|p| p.job_id.as_deref())))
        .col("checkpoint_id", i64s(p().map(|p| p.checkpoint_id)))
        .col("x", Values::Float(xs.iter().map(|x| Some(x.x)).collect()))
        .col("x_label", texts(xs.iter().map(|x| Some(x.label.clone()))))
        .cols_of_totals(t)
        .col("files_size", ints(t().map(|t| t.files_size)))
        .col("counts_from", texts(t().map(|t| t.source.as_ref().and_then(json_name))))
        .col("metadata_json_bytes", ints(p().map(|p| p.metadata_json_bytes)))
        .col("expired_before", ints(p().map(|p| Some(p.expired_before))))
}

fn deletes(g: &GrowthSeries) -> Table {
    let xs = g.x_positions();
    let t = || g.points.iter().map(|p| p.totals());
    Table::new("deletes", g.points.len())
        .col("index", ints(g.points.iter().map(|p| Some(p.index as u64))))
        .col("snapshot_id", Values::Int(g.points.iter().map(|p| Some(p.snapshot_id.0)).collect()))
        .col("x", Values::Float(xs.iter().map(|x| Some(x.x)).collect()))
        // The chart's top line: data, delete and Puffin files; at most where not exact.
        .col("files_a_scan_opens", ints(t().map(|c| c.scan_files().map(|s| s.files))))
        .col("files_a_scan_opens_exact", Values::Bool(t().map(|c| c.scan_files().map(|s| s.exact)).collect()))
        .col("position_delete_files", ints(t().map(|t| t.position_delete_files)))
        .col("equality_delete_files", ints(t().map(|t| t.equality_delete_files)))
        .col("deletion_vectors", ints(t().map(|t| t.deletion_vectors)))
        .col("deletion_vector_files", ints(t().map(|t| t.deletion_vector_files)))
        .col("counts_from", texts(t().map(|t| t.source.as_ref().and_then(json_name))))
}

fn jobs(spans: &[JobSpan]) -> Table {
    let j = || spans.iter();
    Table::new("jobs", spans.len())
        .col("job_id", texts(j().map(|j| Some(j.job_id.clone()))))
        .col("first_commit", Values::TimestampMs(j().map(|j| Some(j.first_commit_ms)).collect()))
        .col("last_commit", Values::TimestampMs(j().map(|j| Some(j.last_commit_ms)).collect()))
        .col("first_checkpoint_id", i64s(j().map(|j| j.first_checkpoint())))
        .col("last_checkpoint_id", i64s(j().map(|j| j.last_checkpoint())))
        .col("end_of_input", Values::Bool(j().map(|j| Some(j.end_of_input)).collect()))
        .col("sink", texts(j().map(|j| json_name(&j.sink))))
        .col("sink_evidence", texts(j().map(|j| Some(j.sink_evidence()))))
        .col("snapshots", ints(j().map(|j| Some(j.snapshot_indexes.len() as u64))))
        .col("rows_added", ints(j().map(|j| j.rows_added)))
}

fn partitions(stats: &[PartitionStat]) -> Table {
    let s = || stats.iter();
    Table::new("partitions", stats.len())
        .col("partition", texts(s().map(|p| Some(p.label.clone()))))
        .col("data_files", ints(s().map(|p| Some(p.data_files))))
        .col("delete_files", ints(s().map(|p| Some(p.delete_files))))
        .col("rows", ints(s().map(|p| Some(p.rows))))
        .col("one_row_files", ints(s().map(|p| Some(p.one_row_files))))
        .col("max_lateness_ms", i64s(s().map(|p| p.max_lateness_ms)))
}
