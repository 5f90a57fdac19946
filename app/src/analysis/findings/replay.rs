//! Jobs restored from state an earlier job had already committed past (a savepoint used twice),
//! and where a job was restored from, as its first commit shows it.

use serde::Serialize;

use super::{Bounded, Context, Facts, Finding, FindingKind, Severity, CAP};
use crate::analysis::jobs::JobSpan;
use crate::decode::SnapshotId;

/// A savepoint (or checkpoint) used twice.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "case", rename_all = "snake_case")]
pub enum SavepointReplayed {
    /// Boxed: by far the largest facts, and findings are moved around often.
    Replay(Box<Replay>),
    /// The replaying jobs beyond the first `CAP`.
    More { jobs: Bounded<String> },
}

/// One job that replayed checkpoints an earlier job had committed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Replay {
    pub job: ReplayingJob,
    pub replayed: ReplayedJob,
    /// Where the job was restored from, as its commits show it.
    pub restore: RestorePoint,
    /// Earlier jobs whose commits after the restore point the replay repeats.
    pub repeats: Bounded<Repeat>,
    /// Rows repeated, at most what the job wrote; None where a summary does not say.
    pub repeated_rows: Option<u64>,
    /// Whether `repeated_rows` is exact, not an upper bound.
    pub exact: bool,
    /// The last snapshot before the job's first commit.
    pub before: Before,
    /// Whether rolling back to `before` removes the job's rows (no commits interleave).
    pub rollback: bool,
    /// Commits by other writers after `before`, which a rollback removes too.
    pub later_commits_of_others: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayingJob {
    pub job_id: String,
    pub first_checkpoint: i64,
    pub last_checkpoint: i64,
    pub end_of_input: bool,
    pub first_commit_ms: i64,
    pub rows_added: Option<u64>,
    pub snapshots: u64,
    pub first_snapshot_id: SnapshotId,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayedJob {
    pub job_id: String,
    pub first_checkpoint: i64,
    pub last_checkpoint: i64,
    pub end_of_input: bool,
}

/// Rows of an earlier job the replay writes again: all of them, or at most its commits after the
/// restore point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Repeat {
    pub job_id: String,
    pub rows: Option<u64>,
    pub all_of_it: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Before {
    pub snapshot_id: SnapshotId,
    pub job_id: Option<String>,
    pub live_records: Option<u64>,
}

/// A job whose first committed checkpoint is not above an earlier job's last one was restored from
/// state that earlier job had already committed past: a savepoint (or checkpoint) used twice.
pub(super) fn savepoint_replays(cx: &Context<'_>) -> Vec<Finding> {
    // Commits that overlap in time are two writers at once (`concurrent_writers`), not a resume.
    let replays: Vec<(usize, usize)> = latest_covering(cx.jobs)
        .into_iter()
        .enumerate()
        .filter_map(|(k, p)| p.map(|p| (k, p)))
        .filter(|&(k, p)| cx.jobs[k].first_index() >= cx.jobs[p].last_index())
        .filter(|&(k, p)| !(k + 1 == cx.jobs.len() && fresh_beside_running(&cx.jobs[p], &cx.jobs[k])))
        .collect();
    let mut out = Vec::new();
    for &(k, p) in replays.iter().take(CAP) {
        let (job, replayed) = (&cx.jobs[k], &cx.jobs[p]);
        let Some(first) = job.first_checkpoint() else { continue };
        // The table as it stood just before the replay: another job may have committed after the
        // replayed one (resumed from a later savepoint) and before this one, and stays.
        let target = job.first_index().saturating_sub(1);
        let target_job = cx.jobs.iter().find(|j| j.snapshot_indexes.binary_search(&target).is_ok());
        let target_records = cx.history.totals(target).records;
        let after_target = job.first_index() > target;
        // Commits after the target by anyone else (maintenance, other writers): a rollback removes them too.
        let others_after = (target + 1..cx.history.snapshots.len()).filter(|i| job.snapshot_indexes.binary_search(i).is_err()).count();
        let statement = after_target.then(|| cx.table.statement("rollback_to_snapshot", Some(format!("snapshot_id => {}", cx.id(target))))).flatten();
        let restore = restore_point(cx, job, replayed);
        // Earlier jobs whose commits after the restore point the replay repeats.
        let overlaps: Vec<(&JobSpan, Option<u64>, bool)> = cx
            .jobs
            .iter()
            .filter(|e| e.job_id != job.job_id && e.first_index() < job.first_index())
            .filter_map(|e| {
                let after: Vec<usize> = e
                    .snapshot_indexes
                    .iter()
                    .copied()
                    .filter(|&i| i < job.first_index() && checkpoint(cx, i).is_some_and(|c| c > restore.checkpoint))
                    .collect();
                (!after.is_empty()).then(|| {
                    let rows = after.iter().map(|&i| added_records(cx, i)).try_fold(0u64, |a, r| a.checked_add(r?));
                    (e, rows, after.len() == e.snapshot_indexes.len())
                })
            })
            .collect();
        let overlap_sum = overlaps.iter().map(|o| o.1).try_fold(0u64, |a, r| a.checked_add(r?));
        // A job that has not yet written as much as it repeats (watched while it catches up)
        // repeats at most what it wrote.
        let repeated = match (overlap_sum, job.rows_added) {
            (Some(o), Some(r)) => Some(o.min(r)),
            (o, _) => o,
        };
        let facts = SavepointReplayed::Replay(Box::new(Replay {
            job: ReplayingJob {
                job_id: job.job_id.clone(),
                first_checkpoint: first,
                last_checkpoint: job.last_checkpoint().unwrap_or(first),
                end_of_input: job.end_of_input,
                first_commit_ms: job.first_commit_ms,
                rows_added: job.rows_added,
                snapshots: job.snapshot_indexes.len() as u64,
                first_snapshot_id: cx.id(job.first_index()),
            },
            replayed: ReplayedJob {
                job_id: replayed.job_id.clone(),
                first_checkpoint: replayed.first_checkpoint().unwrap_or(0),
                last_checkpoint: replayed.last_checkpoint().unwrap_or(0),
                end_of_input: replayed.end_of_input,
            },
            restore,
            repeats: Bounded::of(overlaps.iter().map(|(e, rows, all)| Repeat { job_id: e.job_id.clone(), rows: *rows, all_of_it: *all })),
            repeated_rows: repeated,
            exact: overlaps.iter().all(|o| o.2) && repeated == overlap_sum,
            before: Before { snapshot_id: cx.id(target), job_id: target_job.map(|j| j.job_id.clone()), live_records: target_records },
            rollback: after_target,
            later_commits_of_others: others_after as u64,
        }));
        out.push(Finding::new(
            FindingKind::SavepointReplayed,
            Severity::Critical,
            Facts::SavepointReplayed(facts),
            job.snapshot_indexes.iter().map(|&i| cx.id(i)).chain(std::iter::once(cx.id(target))).collect(),
            vec![job.job_id.clone(), replayed.job_id.clone()],
            statement,
        ));
    }
    if replays.len() > CAP {
        let rest = &replays[CAP..];
        out.push(Finding::new(
            FindingKind::SavepointReplayed,
            Severity::Critical,
            Facts::SavepointReplayed(SavepointReplayed::More { jobs: Bounded::of(rest.iter().map(|&(k, _)| cx.jobs[k].job_id.clone())) }),
            Vec::new(),
            rest.iter().take(CAP).map(|&(k, _)| cx.jobs[k].job_id.clone()).collect(),
            None,
        ));
    }
    out
}

/// For each job, the latest earlier job whose committed checkpoint range holds this job's first
/// checkpoint: O(jobs · log jobs), where asking every earlier job would be quadratic.
fn latest_covering(jobs: &[JobSpan]) -> Vec<Option<usize>> {
    let mut points: Vec<i64> = jobs.iter().flat_map(|j| j.first_checkpoint().into_iter().chain(j.last_checkpoint())).collect();
    points.sort_unstable();
    points.dedup();
    let at = |c: i64| points.binary_search(&c).unwrap_or(0);
    // A segment tree over the points: each node holds the latest job covering all of it.
    let size = points.len().next_power_of_two();
    let mut tag: Vec<Option<usize>> = vec![None; 2 * size];
    let mut out = Vec::with_capacity(jobs.len());
    for (k, j) in jobs.iter().enumerate() {
        let (Some(first), Some(last)) = (j.first_checkpoint(), j.last_checkpoint()) else {
            out.push(None);
            continue;
        };
        let mut i = at(first) + size;
        let mut latest = None;
        while i >= 1 {
            latest = latest.max(tag[i]);
            i >>= 1;
        }
        out.push(latest);
        let (mut l, mut r) = (at(first) + size, at(last) + size + 1);
        while l < r {
            if l & 1 == 1 {
                tag[l] = tag[l].max(Some(k));
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                tag[r] = tag[r].max(Some(k));
            }
            l >>= 1;
            r >>= 1;
        }
    }
    out
}

/// A job that started without state (checkpoint 1) while the one before it was still committing
/// on its schedule: its last commit came less than two of its usual intervals earlier and it shows
/// no end of input. For the newest job the table cannot yet tell a second deployment beside a
/// running one (the next commits interleave) from a restart that re-read the source (none come):
/// said as two writers or a restart, so that a watch does not call it a replay for one look and
/// two writers the next. Once later jobs follow, the sequence decides it.
pub(super) fn fresh_beside_running(a: &JobSpan, b: &JobSpan) -> bool {
    if b.first_checkpoint() != Some(1) || a.end_of_input || a.commit_ms.len() < 2 || b.first_index() < a.last_index() {
        return false;
    }
    let n = i64::try_from(a.commit_ms.len() - 1).unwrap_or(i64::MAX);
    let usual = a.last_commit_ms.saturating_sub(a.first_commit_ms) / n.max(1);
    usual > 0 && b.first_commit_ms.saturating_sub(a.last_commit_ms) < usual.saturating_mul(2)
}

/// Where a replaying job was restored from, as its commits show it. Iceberg's committer skips the
/// checkpoints the restored job id already committed and folds them into the next one, so the
/// first commit of a job restored from an older state holds several checkpoints' rows: their
/// number, at the job's usual rows per commit, says how far back it went. Rounded up: a restored
/// job starts its sources late into its first checkpoint, so that commit holds at most its
/// checkpoints' usual rows and often fewer (the lab's older-savepoint runs: 5.0 and 5.8 commits'
/// worth for the 6 checkpoints folded). A source catching up on a backlog writes more per
/// checkpoint, and the estimate then reaches back too far: it says "about".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RestorePoint {
    pub checkpoint: i64,
    /// Whether `checkpoint` is estimated from the first commit's rows.
    pub estimated: bool,
    pub first_commit_rows: Option<u64>,
    /// The job's usual rows per commit.
    pub usual_rows: Option<u64>,
    /// Checkpoints the first commit holds, by that estimate.
    pub folded: Option<i64>,
}

pub(super) fn checkpoint(cx: &Context<'_>, i: usize) -> Option<i64> {
    cx.history.snapshots[i].flink.as_ref().and_then(|f| f.checkpoint_id)
}

fn added_records(cx: &Context<'_>, i: usize) -> Option<u64> {
    match cx.history.snapshots[i].snapshot.summary.get("added-records") {
        None => Some(0),
        Some(v) => v.trim().parse().ok(),
    }
}

pub(super) fn restore_point(cx: &Context<'_>, job: &JobSpan, replayed: &JobSpan) -> RestorePoint {
    let first = job.first_checkpoint().unwrap_or(1);
    let first_rows = added_records(cx, job.first_index());
    // The usual rows per commit: the median of the job's later commits (end of input and its
    // short last flush aside), else of the job it replays.
    let median = |j: &JobSpan, skip_first: bool| -> Option<u64> {
        let mut v: Vec<u64> = j
            .snapshot_indexes
            .iter()
            .skip(usize::from(skip_first))
            .filter(|&&i| checkpoint(cx, i) != Some(crate::model::flink::END_OF_INPUT_CHECKPOINT))
            .filter_map(|&i| added_records(cx, i))
            .filter(|&r| r > 0)
            .collect();
        v.sort_unstable();
        (v.len() >= 2).then(|| v[v.len() / 2])
    };
    let usual = median(job, true).or_else(|| median(replayed, false));
    let back = match (first_rows, usual) {
        (Some(k), Some(u)) if u > 0 && k > u.saturating_add(u / 2) => Some(i64::try_from(k.div_ceil(u)).unwrap_or(i64::MAX)),
        _ => None,
    };
    match back {
        Some(n) => {
            RestorePoint { checkpoint: first.saturating_sub(n).max(0), estimated: true, first_commit_rows: first_rows, usual_rows: usual, folded: Some(n) }
        }
        None => RestorePoint { checkpoint: first.saturating_sub(1), estimated: false, first_commit_rows: first_rows, usual_rows: usual, folded: None },
    }
}
