//! Checkpoint ids as committed: the end-of-input commit, and holes in a job's sequence.

use crate::model::flink::END_OF_INPUT_CHECKPOINT;

use serde::Serialize;

use super::{Bounded, Context, Facts, Finding, FindingKind, Severity};
use crate::analysis::jobs::JobSpan;
use crate::decode::SnapshotId;

/// Jobs whose final flush committed the end-of-input checkpoint id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndOfInputCommit {
    pub jobs: Bounded<EndOfInput>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndOfInput {
    pub job_id: String,
    /// Its first end-of-input commit.
    pub snapshot_id: Option<SnapshotId>,
    /// The last checkpoint it committed before.
    pub last_checkpoint: Option<i64>,
}

/// Checkpoint ids one job skipped between two it committed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CheckpointGaps {
    pub job_id: String,
    pub first_checkpoint: Option<i64>,
    pub last_checkpoint: Option<i64>,
    /// Ids skipped in all.
    pub missing_ids: u64,
    pub holes: Bounded<IdRange>,
    /// The holes around which the commits paused longer than the job's spacing predicts.
    pub paused: Bounded<Pause>,
}

/// Checkpoint ids `from` to `to`, both included.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IdRange {
    pub from: i64,
    pub to: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Pause {
    pub ids: IdRange,
    /// Between the commits either side, and what the job's usual spacing predicts.
    pub gap_ms: i64,
    pub expected_ms: Option<i64>,
}

pub(super) fn end_of_input(cx: &Context<'_>) -> Vec<Finding> {
    let is_end = |i: &usize| cx.history.snapshots[*i].flink.as_ref().and_then(|f| f.checkpoint_id) == Some(END_OF_INPUT_CHECKPOINT);
    let jobs: Vec<(&JobSpan, Vec<usize>)> =
        cx.jobs.iter().filter(|j| j.end_of_input).map(|j| (j, j.snapshot_indexes.iter().copied().filter(is_end).collect())).collect();
    if jobs.is_empty() {
        return Vec::new();
    }
    let facts = EndOfInputCommit {
        jobs: Bounded::of(jobs.iter().map(|(j, ends)| EndOfInput {
            job_id: j.job_id.clone(),
            snapshot_id: ends.first().map(|&i| cx.id(i)),
            last_checkpoint: j.last_checkpoint(),
        })),
    };
    vec![Finding::new(
        FindingKind::EndOfInputCommit,
        Severity::Info,
        Facts::EndOfInputCommit(facts),
        jobs.iter().flat_map(|(_, ends)| ends.iter().map(|&i| cx.id(i))).collect(),
        jobs.iter().map(|(j, _)| j.job_id.clone()).collect(),
        None,
    )]
}

/// How the commits around one hole were spaced: on the job's usual schedule, or after a pause.
struct Hole {
    from: i64,
    to: i64,
    /// Milliseconds between the commits either side, and what the job's usual spacing predicts.
    gap_ms: i64,
    expected_ms: Option<i64>,
}

impl Hole {
    /// A savepoint taken without stopping the job (Flink 2.x commits nothing for it; its files go
    /// in with the next checkpoint) or a declined checkpoint leaves the schedule as it was; a
    /// failure and restore adds the restart delay and the replay.
    fn on_schedule(&self) -> bool {
        self.expected_ms.is_some_and(|e| self.gap_ms <= e.saturating_add(e / 2).saturating_add(2_000))
    }
}

fn holes(cx: &Context<'_>, j: &JobSpan) -> Vec<(Hole, [usize; 2])> {
    let cp = |i: usize| cx.history.snapshots[i].flink.as_ref().and_then(|f| f.checkpoint_id).unwrap_or(0);
    let pairs: Vec<(usize, usize, i64)> = j
        .snapshot_indexes
        .windows(2)
        .zip(j.commit_ms.windows(2))
        .filter(|(w, _)| cp(w[1]) != END_OF_INPUT_CHECKPOINT)
        .map(|(w, t)| (w[0], w[1], t[1].saturating_sub(t[0])))
        .collect();
    // The job's spacing per checkpoint id, from commits of consecutive ids (the median, so one
    // slow commit does not move it).
    let mut steady: Vec<i64> = pairs.iter().filter(|(a, b, _)| cp(*b) == cp(*a).saturating_add(1)).map(|p| p.2).collect();
    steady.sort_unstable();
    let per_id = steady.get(steady.len() / 2).copied();
    pairs
        .into_iter()
        .filter_map(|(a, b, gap_ms)| {
            let d = cp(b).checked_sub(cp(a))?;
            (2..=crate::analysis::jobs::MAX_HOLE)
                .contains(&d)
                .then(|| (Hole { from: cp(a) + 1, to: cp(b) - 1, gap_ms, expected_ms: per_id.map(|p| p.saturating_mul(d)) }, [a, b]))
        })
        .collect()
}

/// Checkpoint ids a job skipped between two it committed.
pub(super) fn gaps(cx: &Context<'_>) -> Vec<Finding> {
    cx.jobs
        .iter()
        .filter_map(|j| {
            let holes = holes(cx, j);
            if holes.is_empty() {
                return None;
            }
            let paused: Vec<&Hole> = holes.iter().map(|(h, _)| h).filter(|h| !h.on_schedule()).collect();
            let around: Vec<usize> = holes.iter().flat_map(|(_, w)| *w).collect();
            let facts = CheckpointGaps {
                job_id: j.job_id.clone(),
                first_checkpoint: j.first_checkpoint(),
                last_checkpoint: j.last_checkpoint(),
                missing_ids: j.missing_count(),
                holes: Bounded::of(holes.iter().map(|(h, _)| IdRange { from: h.from, to: h.to })),
                paused: Bounded::of(paused.iter().map(|h| Pause { ids: IdRange { from: h.from, to: h.to }, gap_ms: h.gap_ms, expected_ms: h.expected_ms })),
            };
            Some(Finding::new(
                FindingKind::CheckpointGaps,
                Severity::Info,
                Facts::CheckpointGaps(facts),
                around.iter().map(|&i| cx.id(i)).collect(),
                vec![j.job_id.clone()],
                if paused.is_empty() {
                    None
                } else {
                    cx.table.statement(
                        "remove_orphan_files",
                        j.last_commit_ms.checked_sub(86_400_000).and_then(crate::analysis::sql::timestamp).map(|t| format!("older_than => {t}")),
                    )
                },
            ))
        })
        .collect()
}
