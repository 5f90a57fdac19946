//! The `icescope inspect --format json` document. Its names are a contract other tools read.

use serde::Serialize;

use crate::decode::SnapshotId;

use super::findings::{findings_with, Finding, TableRef};
use super::jobs::{job_spans, JobSpan};
use crate::model::time::rfc3339_ms;
use crate::model::{CountSource, Gap, ReadMode, ReadReason, TableHistory, Totals};

#[derive(Debug, PartialEq, Serialize)]
pub struct Inspect {
    pub table: TableInfo,
    pub snapshots: Vec<SnapshotRow>,
    pub jobs: Vec<JobRow>,
    pub projection: Option<super::projection::Projection>,
    pub findings: Vec<Finding>,
    pub gaps: Vec<Gap>,
    /// Where a summary's totals and the files read disagree.
    pub disagreements: Vec<DisagreementRow>,
    /// Schemas, specs, sort orders, branches and tags, properties (`analysis::shape`).
    pub shape: super::shape::Shape,
    /// How the numbers were obtained (set by whoever loaded the table).
    pub load: Option<LoadInfo>,
    /// While the current snapshot's manifests are still being read: how far. The partitions, small
    /// files, late files and dangling deletes wait for them (`TableHistory::current_files_wait`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files_wait: Option<crate::model::FilesWait>,
    /// Savepoints read beside the table, judged against it (set by the session that read them).
    #[serde(skip)]
    pub savepoints: Option<super::savepoint::Judged>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DisagreementRow {
    pub snapshot_id: SnapshotId,
    pub field: &'static str,
    pub summary: u64,
    pub counted: u64,
    pub counted_from: CountSource,
}

/// What was read: the numbers per snapshot are exact where `counts_from` is `manifests` or
/// `manifest_list`, and stated by the writer where it is `summary`.
#[derive(Debug, PartialEq, Serialize)]
pub struct LoadInfo {
    pub mode: LoadMode,
    pub snapshots: usize,
    pub counted_from_manifests: usize,
    pub counted_from_manifest_lists: usize,
    pub from_summaries: usize,
    pub unknown: usize,
    /// Snapshots read by their manifest lists as a sample across the history.
    pub sampled: usize,
    pub files_read: usize,
    pub bytes_read: u64,
    /// Which metadata file was opened among those found, and why; None when the user named it.
    pub metadata_pick: Option<crate::source::metadata_pick::MetadataPick>,
    /// When the table is too big to read here: how to let Spark read it.
    pub suggestion: Option<String>,
    /// What each phase read and when it ended, from the reader's start (the CLI's).
    pub phases: Vec<ReadPhase>,
    /// HTTP requests sent (catalog, signing and storage), where the table was read over a network.
    pub requests: Option<u64>,
}

/// One phase of a load: `metadata` (the metadata file, and the metadata pick's reads before it),
/// `manifest_lists`, `manifests`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadPhase {
    pub phase: &'static str,
    pub files: usize,
    pub bytes: u64,
    /// Seconds from the start to the phase's last file; None where it read none.
    pub done_s: Option<f64>,
}

/// How much of the table was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadMode {
    /// Every snapshot's manifests.
    AllSnapshots,
    /// metadata.json, the current and last snapshots' manifests, a sample's manifest lists.
    MetadataFirst,
    /// Spark's metadata tables (`icescope spark-export`) instead of the manifests.
    SparkExport,
}

impl LoadInfo {
    pub fn of(history: &TableHistory, files_read: usize, bytes_read: u64) -> LoadInfo {
        let mut info = LoadInfo {
            mode: match history.read_mode() {
                _ if history.exported().is_some() => LoadMode::SparkExport,
                Some(ReadMode::All) => LoadMode::AllSnapshots,
                _ => LoadMode::MetadataFirst,
            },
            snapshots: history.snapshots.len(),
            counted_from_manifests: 0,
            counted_from_manifest_lists: 0,
            from_summaries: 0,
            unknown: 0,
            sampled: 0,
            files_read,
            bytes_read,
            metadata_pick: None,
            suggestion: super::spark_export::suggestion(history),
            phases: Vec::new(),
            requests: None,
        };
        for i in 0..history.snapshots.len() {
            match history.totals(i).source {
                Some(CountSource::Manifests) => info.counted_from_manifests += 1,
                Some(CountSource::ManifestList) => info.counted_from_manifest_lists += 1,
                Some(CountSource::Summary) => info.from_summaries += 1,
                None => info.unknown += 1,
            }
            if history.read_reason(i) == Some(ReadReason::Sample) {
                info.sampled += 1;
            }
        }
        info
    }
}

#[derive(Debug, PartialEq, Serialize)]
pub struct JobRow {
    pub job_id: String,
    pub first_commit: String,
    pub last_commit: String,
    pub first_checkpoint_id: Option<i64>,
    pub last_checkpoint_id: Option<i64>,
    pub end_of_input: bool,
    /// Which Flink sink, as far as the commits show (`sink_evidence` says how).
    pub sink: super::jobs::Sink,
    pub sink_evidence: String,
    pub snapshots: usize,
    /// None where a summary's `added-records` is not a count or the sum passes 2^64.
    pub rows_added: Option<u64>,
}

impl From<&JobSpan> for JobRow {
    fn from(j: &JobSpan) -> Self {
        JobRow {
            job_id: j.job_id.clone(),
            first_commit: rfc3339_ms(j.first_commit_ms),
            last_commit: rfc3339_ms(j.last_commit_ms),
            first_checkpoint_id: j.first_checkpoint(),
            last_checkpoint_id: j.last_checkpoint(),
            end_of_input: j.end_of_input,
            sink: j.sink,
            sink_evidence: j.sink_evidence(),
            snapshots: j.snapshot_indexes.len(),
            rows_added: j.rows_added,
        }
    }
}

#[derive(Debug, PartialEq, Serialize)]
pub struct TableInfo {
    pub location: String,
    pub format_version: u8,
    pub metadata_file: String,
    pub current_snapshot_id: Option<SnapshotId>,
    /// How statements name it: `catalog.db.table`.
    pub name: String,
    /// The same, typed: statements and reports render from it.
    #[serde(skip)]
    pub table_ref: TableRef,
}

/// One row of the report's `snapshots`. The counts are packed, since a day of commits keeps 17,280
/// rows per report: `totals()` unpacks them, and the JSON writes each as a field of the row.
#[derive(Debug, PartialEq)]
pub struct SnapshotRow {
    pub snapshot_id: SnapshotId,
    pub parent_id: Option<SnapshotId>,
    pub sequence_number: i64,
    pub committed_at: crate::model::time::Rfc3339Ms,
    pub timestamp_ms: i64,
    pub operation: crate::decode::Operation,
    /// Who wrote it, and the summary keys that say so.
    pub writer: crate::model::Writer,
    pub writer_evidence: &'static str,
    pub flink_job_id: Option<std::sync::Arc<str>>,
    pub flink_operator_id: Option<std::sync::Arc<str>>,
    pub flink_checkpoint_id: Option<i64>,
    /// The live counts and where they come from (`counts_from` in the JSON).
    pub counts: crate::model::PackedTotals,
    /// Why this snapshot's files were read beyond its summary, if they were.
    pub read: Option<ReadReason>,
}

impl SnapshotRow {
    pub fn totals(&self) -> Totals {
        self.counts.unpack()
    }

    /// Records minus the rows position deletes and deletion vectors remove, and how far to trust it.
    pub fn live_rows(&self) -> (Option<u64>, Option<LiveRows>) {
        let c = self.totals();
        (c.records.zip(c.position_deletes).and_then(|(r, d)| r.checked_sub(d)), LiveRows::of(&c))
    }
}

impl Serialize for SnapshotRow {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let c = self.totals();
        let (live_rows, live_rows_are) = self.live_rows();
        let mut r = s.serialize_struct("SnapshotRow", 27)?;
        r.serialize_field("snapshot_id", &self.snapshot_id)?;
        r.serialize_field("parent_id", &self.parent_id)?;
        r.serialize_field("sequence_number", &self.sequence_number)?;
        r.serialize_field("committed_at", &self.committed_at)?;
        r.serialize_field("timestamp_ms", &self.timestamp_ms)?;
        r.serialize_field("operation", &self.operation)?;
        r.serialize_field("writer", &self.writer)?;
        r.serialize_field("writer_evidence", &self.writer_evidence)?;
        r.serialize_field("flink_job_id", &self.flink_job_id)?;
        r.serialize_field("flink_operator_id", &self.flink_operator_id)?;
        r.serialize_field("flink_checkpoint_id", &self.flink_checkpoint_id)?;
        r.serialize_field("manifests", &c.manifests)?;
        r.serialize_field("manifest_bytes", &c.manifest_bytes)?;
        r.serialize_field("data_files", &c.data_files)?;
        r.serialize_field("delete_files", &c.delete_files)?;
        r.serialize_field("position_delete_files", &c.position_delete_files)?;
        r.serialize_field("equality_delete_files", &c.equality_delete_files)?;
        r.serialize_field("deletion_vectors", &c.deletion_vectors)?;
        r.serialize_field("deletion_vector_files", &c.deletion_vector_files)?;
        r.serialize_field("records", &c.records)?;
        r.serialize_field("position_deletes", &c.position_deletes)?;
        r.serialize_field("equality_deletes", &c.equality_deletes)?;
        r.serialize_field("live_rows", &live_rows)?;
        r.serialize_field("live_rows_are", &live_rows_are)?;
        r.serialize_field("files_size", &c.files_size)?;
        r.serialize_field("counts_from", &c.source)?;
        r.serialize_field("read", &self.read)?;
        r.end()
    }
}

/// How exact `live_rows` is. A deletion vector's cardinality counts distinct rows of one data file
/// (one vector per file): exact. Position delete files of format v2 may repeat a position or point
/// at a file no longer live: an estimate. Equality deletes match rows by value, which the metadata
/// cannot count: the live rows are at most the number shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LiveRows {
    Exact,
    Estimate,
    AtMost,
}

impl LiveRows {
    fn of(c: &crate::model::Totals) -> Option<LiveRows> {
        c.records.zip(c.position_deletes)?;
        Some(if c.equality_delete_files.unwrap_or(0) > 0 || c.equality_deletes.unwrap_or(0) > 0 {
            LiveRows::AtMost
        } else if c.position_delete_files.unwrap_or(0) > 0 {
            LiveRows::Estimate
        } else {
            LiveRows::Exact
        })
    }

    pub fn label(self) -> &'static str {
        match self {
            LiveRows::Exact => "live",
            LiveRows::Estimate => "live, estimated: v2 position deletes may overlap",
            LiveRows::AtMost => "live at most: equality deletes remove more",
        }
    }
}

pub fn inspect(history: &TableHistory, table: &TableRef) -> Inspect {
    let jobs = job_spans(history);
    // Before the rows: the findings' passes over the current snapshot's files allocate, and a
    // day of rows held meanwhile would add to that peak.
    let findings = findings_with(history, table, &jobs);
    inspect_with(history, table, &jobs, findings)
}

/// As `inspect`, with the history's job spans and findings already made (a live look makes them
/// for its events, and the report it publishes next shows the same).
pub fn inspect_with(history: &TableHistory, table: &TableRef, jobs: &[JobSpan], findings: Vec<Finding>) -> Inspect {
    let m = &history.metadata;
    let snapshots = history
        .snapshots
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let c = history.totals(i);
            let f = s.flink.as_ref();
            let writer = crate::model::Writer::of(&s.snapshot.summary, &s.snapshot.operation.to_string());
            SnapshotRow {
                snapshot_id: s.snapshot.snapshot_id,
                parent_id: s.snapshot.parent_snapshot_id,
                sequence_number: s.snapshot.sequence_number,
                committed_at: crate::model::time::Rfc3339Ms(s.snapshot.timestamp_ms),
                timestamp_ms: s.snapshot.timestamp_ms,
                operation: s.snapshot.operation.clone(),
                writer: writer.0,
                writer_evidence: writer.1,
                flink_job_id: f.map(|f| f.job_id.clone()),
                flink_operator_id: f.and_then(|f| f.operator_id.clone()),
                flink_checkpoint_id: f.and_then(|f| f.checkpoint_id),
                counts: crate::model::PackedTotals::pack(&c),
                read: history.read_reason(i),
            }
        })
        .collect();
    Inspect {
        table: TableInfo {
            location: m.location.clone(),
            format_version: m.format_version,
            metadata_file: history.metadata_file.clone(),
            current_snapshot_id: m.current_snapshot_id,
            name: format!("{}.{}", table.catalog, table.table),
            table_ref: table.clone(),
        },
        snapshots,
        jobs: jobs.iter().map(JobRow::from).collect(),
        projection: super::projection::projection(history),
        findings,
        files_wait: history.current_files_wait(),
        gaps: history.gaps(),
        disagreements: history
            .disagreements()
            .into_iter()
            .map(|d| DisagreementRow {
                snapshot_id: history.snapshots[d.snapshot_index].snapshot.snapshot_id,
                field: d.field,
                summary: d.summary,
                counted: d.counted,
                counted_from: d.counted_from,
            })
            .collect(),
        shape: super::shape::shape(history),
        load: None,
        savepoints: None,
    }
}
