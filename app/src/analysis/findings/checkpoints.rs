//! Checkpoint ids as committed: the end-of-input commit, and holes in a job's sequence.

use crate::model::flink::END_OF_INPUT_CHECKPOINT;

use super::{thousands, Context, Finding, Severity};
use crate::analysis::jobs::JobSpan;

pub(super) fn end_of_input(cx: &Context<'_>) -> Vec<Finding> {
    let is_end = |i: &usize| cx.history.snapshots[*i].flink.as_ref().and_then(|f| f.checkpoint_id) == Some(END_OF_INPUT_CHECKPOINT);
    let jobs: Vec<(&JobSpan, Vec<usize>)> =
        cx.jobs.iter().filter(|j| j.end_of_input).map(|j| (j, j.snapshot_indexes.iter().copied().filter(is_end).collect())).collect();
    if jobs.is_empty() {
        return Vec::new();
    }
    let each = jobs.iter().map(|(j, ends)| {
        format!(
            "snapshot {} of job {} (after checkpoint {})",
            ends.first().map(|&i| cx.id(i).to_string()).unwrap_or_default(),
            Context::short(&j.job_id),
            j.last_checkpoint().map(|c| c.to_string()).unwrap_or_else(|| "none".into())
        )
    });
    vec![Finding {
        kind: "end_of_input_commit",
        severity: Severity::Info,
        title: format!("End-of-input commit{}: checkpoint id {END_OF_INPUT_CHECKPOINT}", if jobs.len() > 1 { "s" } else { "" }),
        snapshot_ids: jobs.iter().flat_map(|(_, ends)| ends.iter().map(|&i| cx.id(i))).collect(),
        job_ids: jobs.iter().map(|(j, _)| j.job_id.clone()).collect(),
        evidence: format!(
            "{} carr{} flink.max-committed-checkpoint-id {END_OF_INPUT_CHECKPOINT} (Long.MAX_VALUE): the final flush of a \
             bounded job, committed after its last checkpoint, not a checkpoint id.",
            super::capped_list(each, jobs.len(), "jobs' final commits"),
            if jobs.len() > 1 { "y" } else { "ies" }
        ),
        action: "Nothing: the job finished. Exclude this value from monitoring that expects small checkpoint ids.".into(),
        statement: None,
    }]
}

/// Checkpoint ids a job skipped between two it committed.
pub(super) fn gaps(cx: &Context<'_>) -> Vec<Finding> {
    cx.jobs
        .iter()
        .filter_map(|j| {
            let holes = j.checkpoint_holes();
            if holes.is_empty() {
                return None;
            }
            let ranges = super::capped_list(holes.iter().map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}–{b}") }), holes.len(), "holes");
            // The snapshots on either side of each hole.
            let around: Vec<usize> = j
                .snapshot_indexes
                .windows(2)
                .filter(|w| {
                    let cp = |i: usize| cx.history.snapshots[i].flink.as_ref().and_then(|f| f.checkpoint_id).unwrap_or(0);
                    cp(w[1]) != END_OF_INPUT_CHECKPOINT && cp(w[1]) > cp(w[0]).saturating_add(1)
                })
                .flat_map(|w| [w[0], w[1]])
                .collect();
            Some(Finding {
                kind: "checkpoint_gaps",
                severity: Severity::Info,
                title: format!("Checkpoints {} of job {} committed nothing", ranges, Context::short(&j.job_id)),
                snapshot_ids: around.iter().map(|&i| cx.id(i)).collect(),
                job_ids: vec![j.job_id.clone()],
                evidence: format!(
                    "job {} committed checkpoints {}–{} but not {} ({} ids). The metadata proves these checkpoints never \
                     committed a snapshot; it cannot tell a failed checkpoint (a lost TaskManager, a timeout) from one that \
                     completed with nothing to commit, nor show a restore: the Flink job's checkpoint history can.",
                    Context::short(&j.job_id),
                    j.first_checkpoint().unwrap_or(0),
                    j.last_checkpoint().unwrap_or(0),
                    ranges,
                    thousands(j.missing_count()),
                ),
                action: "If checkpoints failed and the job restored, nothing is lost (the rows re-commit), but files written \
                         before the failure are orphans: schedule remove_orphan_files past the longest recovery."
                    .into(),
                statement: cx.table.statement(
                    "remove_orphan_files",
                    j.last_commit_ms.checked_sub(86_400_000).and_then(crate::analysis::sql::timestamp).map(|t| format!("older_than => {t}")),
                ),
            })
        })
        .collect()
}
