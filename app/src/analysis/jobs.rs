//! Flink jobs as the snapshot log records them: one span per `flink.job-id`, in order of first commit.

use std::collections::HashMap;

use serde::Serialize;

use crate::model::flink::END_OF_INPUT_CHECKPOINT;
use crate::model::TableHistory;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobSpan {
    pub job_id: String,
    /// The distinct operator ids its commits name, the first `MAX_OPERATORS` (a sink has one).
    pub operator_ids: Vec<String>,
    /// Indexes into `TableHistory::snapshots`, in commit order.
    pub snapshot_indexes: Vec<usize>,
    /// Commit time of each of those snapshots.
    pub commit_ms: Vec<i64>,
    pub first_commit_ms: i64,
    pub last_commit_ms: i64,
    /// Real checkpoint ids committed, ascending (the end-of-input commit excluded).
    pub checkpoint_ids: Vec<i64>,
    pub end_of_input: bool,
    /// Which Flink sink wrote it, as far as its commits show, and which commits decided it.
    pub sink: Sink,
    pub sink_by: SinkEvidence,
    /// Sum of `added-records` over the job's snapshots (a missing key is none added); None when a
    /// summary states something that is not a count, or the sum passes 2^64.
    pub rows_added: Option<u64>,
}

pub const MAX_OPERATORS: usize = 8;

/// A jump of more than this many checkpoint ids is not a run of failed checkpoints but a counter
/// from elsewhere (a job restored from another job's state): it is not a hole.
pub const MAX_HOLE: i64 = 10_000;

impl JobSpan {
    pub fn first_checkpoint(&self) -> Option<i64> {
        self.checkpoint_ids.first().copied()
    }

    pub fn last_checkpoint(&self) -> Option<i64> {
        self.checkpoint_ids.last().copied()
    }

    pub fn first_index(&self) -> usize {
        self.snapshot_indexes[0]
    }

    pub fn last_index(&self) -> usize {
        *self.snapshot_indexes.last().unwrap_or(&0)
    }

    /// Checkpoint ids between the first and last committed that this job never committed, as
    /// inclusive ranges: one per hole, however many ids it spans.
    pub fn checkpoint_holes(&self) -> Vec<(i64, i64)> {
        self.checkpoint_ids.windows(2).filter(|w| w[1].checked_sub(w[0]).is_some_and(|d| (2..=MAX_HOLE).contains(&d))).map(|w| (w[0] + 1, w[1] - 1)).collect()
    }

    /// How many checkpoint ids the holes hold.
    pub fn missing_count(&self) -> u64 {
        self.checkpoint_holes().iter().map(|(a, b)| (b - a + 1) as u64).sum()
    }
}

pub fn job_spans(history: &TableHistory) -> Vec<JobSpan> {
    let mut spans: Vec<JobSpan> = Vec::new();
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    for (i, s) in history.snapshots.iter().enumerate() {
        let Some(f) = &s.flink else { continue };
        let pos = *by_id.entry(&*f.job_id).or_insert_with(|| {
            spans.push(JobSpan {
                job_id: f.job_id.to_string(),
                operator_ids: Vec::new(),
                snapshot_indexes: Vec::new(),
                commit_ms: Vec::new(),
                first_commit_ms: s.snapshot.timestamp_ms,
                last_commit_ms: s.snapshot.timestamp_ms,
                checkpoint_ids: Vec::new(),
                end_of_input: false,
                sink: Sink::FlinkSinkOrIcebergSink,
                sink_by: SinkEvidence::default(),
                rows_added: Some(0),
            });
            spans.len() - 1
        });
        let span = &mut spans[pos];
        span.snapshot_indexes.push(i);
        span.commit_ms.push(s.snapshot.timestamp_ms);
        span.first_commit_ms = span.first_commit_ms.min(s.snapshot.timestamp_ms);
        span.last_commit_ms = span.last_commit_ms.max(s.snapshot.timestamp_ms);
        if let Some(op) = &f.operator_id {
            if span.operator_ids.len() < MAX_OPERATORS && !span.operator_ids.iter().any(|o| **o == **op) {
                span.operator_ids.push(op.to_string());
            }
        }
        match f.checkpoint_id {
            Some(END_OF_INPUT_CHECKPOINT) => span.end_of_input = true,
            Some(c) => span.checkpoint_ids.push(c),
            None => {}
        }
        let added = match s.snapshot.summary.get("added-records") {
            None => Some(0),
            Some(v) => v.trim().parse::<u64>().ok(),
        };
        span.rows_added = span.rows_added.zip(added).and_then(|(sum, a)| sum.checked_add(a));
    }
    for span in &mut spans {
        span.checkpoint_ids.sort_unstable();
        span.checkpoint_ids.dedup();
        (span.sink, span.sink_by) = Sink::of(history, span);
    }
    // A job restored from another's state runs the same job graph: the same sink operator id is
    // the same sink, told wherever one of its jobs showed which.
    let known: Vec<(String, Sink, String)> = spans
        .iter()
        .filter(|s| matches!(s.sink, Sink::FlinkSink | Sink::DynamicSink))
        .flat_map(|s| s.operator_ids.iter().map(|o| (o.clone(), s.sink, s.job_id.clone())))
        .collect();
    for span in spans.iter_mut().filter(|s| matches!(s.sink, Sink::FlinkSinkOrIcebergSink | Sink::Unknown)) {
        if let Some((op, sink, job)) = known.iter().find(|(o, _, _)| span.operator_ids.contains(o)) {
            span.sink = *sink;
            span.sink_by.via = Some((op.clone(), job.clone()));
        }
    }
    spans
}

/// The three Flink sinks write the same `flink.*` keys; what tells them apart where anything does:
/// only FlinkSink commits end of input under Long.MAX_VALUE (IcebergSink under its last checkpoint
/// id); and since Iceberg 1.10 a snapshot carries `engine-name` only if the committing JVM opened a
/// Flink `TableLoader` or `FlinkCatalog` (`FlinkEnvironmentContext.init`). FlinkSink's and
/// IcebergSink's committers open a TableLoader, so every one of their commits carries it; the
/// dynamic sink's committer loads a plain catalog, so its commits carry it only when something else
/// in that JVM did (a job on a mini cluster, a TaskManager shared with a source) — after a restore
/// on a fresh TaskManager they lose it. One commit without it decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Sink {
    FlinkSink,
    DynamicSink,
    /// Nothing in the commits tells FlinkSink from IcebergSink (an unbounded job, say).
    FlinkSinkOrIcebergSink,
    /// flink.* keys without `engine-name` from an Iceberg before 1.10: any of the three.
    Unknown,
}

/// The commits that decided a job's sink: the first few of them, how many there were, and the job
/// it was learnt from when another job with the same sink operator id decided it.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SinkEvidence {
    pub snapshot_ids: Vec<crate::decode::SnapshotId>,
    pub commits: usize,
    /// Of the job's commits, how many from Iceberg 1.10 or later carry `engine-name`.
    pub with_engine_name: usize,
    /// (operator id, job id) of the job that decided it, when not this one.
    pub via: Option<(String, String)>,
}

/// Snapshot ids an evidence list names, at most.
const MAX_EVIDENCE: usize = 3;

impl Sink {
    fn of(history: &TableHistory, span: &JobSpan) -> (Sink, SinkEvidence) {
        let commits = || span.snapshot_indexes.iter().map(|&i| &history.snapshots[i]);
        let evidence = |pick: &dyn Fn(&crate::model::SnapshotState) -> bool| {
            let hits: Vec<_> = commits().filter(|s| pick(s)).collect();
            SinkEvidence {
                snapshot_ids: hits.iter().take(MAX_EVIDENCE).map(|s| s.snapshot.snapshot_id).collect(),
                commits: hits.len(),
                with_engine_name: 0,
                via: None,
            }
        };
        if span.end_of_input {
            return (Sink::FlinkSink, evidence(&|s| s.flink.as_ref().is_some_and(|f| f.is_end_of_input())));
        }
        let recent = |s: &crate::model::SnapshotState| s.snapshot.summary.get("iceberg-version").and_then(iceberg_minor).is_some_and(|v| v >= (1, 10));
        let named = |s: &crate::model::SnapshotState| s.snapshot.summary.get("engine-name").is_some();
        let with_engine_name = commits().filter(|s| recent(s) && named(s)).count();
        let unnamed = evidence(&|s| recent(s) && !named(s));
        if unnamed.commits > 0 {
            return (Sink::DynamicSink, SinkEvidence { with_engine_name, ..unnamed });
        }
        if commits().any(named) {
            return (Sink::FlinkSinkOrIcebergSink, SinkEvidence { with_engine_name, ..evidence(&named) });
        }
        (Sink::Unknown, evidence(&|_| true))
    }

    pub fn label(self) -> &'static str {
        match self {
            Sink::FlinkSink => "FlinkSink",
            Sink::DynamicSink => "dynamic sink",
            Sink::FlinkSinkOrIcebergSink => "FlinkSink or IcebergSink",
            Sink::Unknown => "a Flink sink",
        }
    }
}

impl JobSpan {
    /// The sink and the commits that decided it, in a sentence.
    pub fn sink_evidence(&self) -> String {
        let e = &self.sink_by;
        let ids = || {
            let mut s = e.snapshot_ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
            if e.commits > e.snapshot_ids.len() {
                s += &format!(" and {} more", e.commits - e.snapshot_ids.len());
            }
            s
        };
        let why = match self.sink {
            Sink::FlinkSink => format!("end of input committed as Long.MAX_VALUE (snapshot {}), which only FlinkSink does", ids()),
            Sink::DynamicSink => format!(
                "{} of its commits from Iceberg 1.10 or later lack engine-name (snapshot {}){}; FlinkSink's and IcebergSink's \
                 committers write it on every commit since 1.10, the dynamic sink's only where its TaskManager opened a Flink table loader",
                e.commits,
                ids(),
                if e.with_engine_name > 0 { format!(", though {} carry it", e.with_engine_name) } else { String::new() }
            ),
            Sink::FlinkSinkOrIcebergSink => format!(
                "{} carry engine-name, as FlinkSink's and IcebergSink's do; nothing in them tells the two apart \
                 (a bounded FlinkSink ends with Long.MAX_VALUE)",
                if e.with_engine_name > 0 { format!("all {} of its commits from Iceberg 1.10 or later", e.with_engine_name) } else { "its commits".into() }
            ),
            Sink::Unknown => "its commits come from an Iceberg before 1.10, which writes the same keys for all three sinks".into(),
        };
        match &e.via {
            Some((op, job)) => format!("{}: job {job}, with the same sink operator id {op}, showed it", self.sink.label()),
            None => format!("{}: {why}", self.sink.label()),
        }
    }
}

/// `Apache Iceberg 1.11.0 (commit …)` → (1, 11).
fn iceberg_minor(v: &str) -> Option<(u32, u32)> {
    let n = v.split_whitespace().find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()))?;
    let mut parts = n.split('.');
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}
