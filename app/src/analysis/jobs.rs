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
        self.checkpoint_ids
            .windows(2)
            .filter(|w| w[1].checked_sub(w[0]).is_some_and(|d| (2..=MAX_HOLE).contains(&d)))
            .map(|w| (w[0] + 1, w[1] - 1))
            .collect()
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
        let pos = *by_id.entry(f.job_id.as_str()).or_insert_with(|| {
            spans.push(JobSpan {
                job_id: f.job_id.clone(),
                operator_ids: Vec::new(),
                snapshot_indexes: Vec::new(),
                commit_ms: Vec::new(),
                first_commit_ms: s.snapshot.timestamp_ms,
                last_commit_ms: s.snapshot.timestamp_ms,
                checkpoint_ids: Vec::new(),
                end_of_input: false,
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
            if span.operator_ids.len() < MAX_OPERATORS && !span.operator_ids.contains(op) {
                span.operator_ids.push(op.clone());
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
    }
    spans
}
