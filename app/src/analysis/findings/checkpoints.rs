//! Checkpoint ids as committed: the end-of-input commit, and holes in a job's sequence.

use crate::model::flink::END_OF_INPUT_CHECKPOINT;

use super::{thousands, Context, Finding, FindingKind, Severity};
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
        kind: FindingKind::EndOfInputCommit,
        facts: crate::analysis::findings::Facts::Worded,
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
            let label = |h: &Hole| if h.from == h.to { h.from.to_string() } else { format!("{}–{}", h.from, h.to) };
            let ranges = super::capped_list(holes.iter().map(|(h, _)| label(h)), holes.len(), "holes");
            let paused: Vec<&Hole> = holes.iter().map(|(h, _)| h).filter(|h| !h.on_schedule()).collect();
            let secs = |ms: i64| format!("{:.1} s", ms as f64 / 1000.0);
            let schedule = if paused.is_empty() {
                format!(
                    "The commits either side of {} came on the job's usual schedule (no pause for a restart): what a savepoint \
                     taken without stopping the job leaves (Flink 2.x commits nothing for it; its files go in with the next \
                     checkpoint), a checkpoint that was declined or had nothing to commit, or, with IcebergSink, checkpoints whose \
                     commit was still pending folded into the next snapshot. No files are lost or orphaned by that.",
                    if holes.len() == 1 { "the hole" } else { "every hole" }
                )
            } else {
                format!(
                    "Around {} the commits paused ({}) longer than the job's spacing predicts: what a failed checkpoint \
                     followed by a restore looks like (IcebergSink folding checkpoints behind a slow commit pauses them too, and \
                     orphans nothing). Files written for a failed checkpoint are never committed (orphans).{}",
                    super::capped_list(paused.iter().map(|h| label(h)), paused.len(), "holes"),
                    super::capped_list(
                        paused.iter().map(|h| format!("{} instead of about {}", secs(h.gap_ms), h.expected_ms.map(secs).unwrap_or_else(|| "?".into()))),
                        paused.len(),
                        "pauses"
                    ),
                    if paused.len() < holes.len() { " The other holes came on schedule (a savepoint without stop, or a declined checkpoint)." } else { "" }
                )
            };
            let around: Vec<usize> = holes.iter().flat_map(|(_, w)| *w).collect();
            Some(Finding {
                kind: FindingKind::CheckpointGaps,
                facts: crate::analysis::findings::Facts::Worded,
                severity: Severity::Info,
                title: format!("Checkpoint{} {} of job {} committed nothing", if j.missing_count() == 1 { "" } else { "s" }, ranges, Context::short(&j.job_id)),
                snapshot_ids: around.iter().map(|&i| cx.id(i)).collect(),
                job_ids: vec![j.job_id.clone()],
                evidence: format!(
                    "job {} committed checkpoints {}–{} but not {} ({} id{}). {} The Flink job's checkpoint history \
                     (/jobs/:id/checkpoints) says which it was.",
                    Context::short(&j.job_id),
                    j.first_checkpoint().unwrap_or(0),
                    j.last_checkpoint().unwrap_or(0),
                    ranges,
                    thousands(j.missing_count()),
                    if j.missing_count() == 1 { "" } else { "s" },
                    schedule,
                ),
                action: if paused.is_empty() {
                    "Nothing, unless the checkpoint history shows failures: a savepoint or a declined checkpoint loses no rows and leaves no files behind."
                        .into()
                } else {
                    "Nothing is lost (the rows re-commit after the restore), but the files written before the failure are \
                     orphans: schedule remove_orphan_files past the longest recovery."
                        .into()
                },
                statement: if paused.is_empty() {
                    None
                } else {
                    cx.table.statement(
                        "remove_orphan_files",
                        j.last_commit_ms.checked_sub(86_400_000).and_then(crate::analysis::sql::timestamp).map(|t| format!("older_than => {t}")),
                    )
                },
            })
        })
        .collect()
}
