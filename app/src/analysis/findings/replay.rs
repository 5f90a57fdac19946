//! Jobs restored from the same state, and jobs writing at the same time.

use serde::Serialize;

use super::{Bounded, Context, Facts, Finding, FindingKind, Severity, CAP};
use crate::analysis::jobs::JobSpan;
use crate::decode::SnapshotId;

/// A savepoint (or checkpoint) used twice.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "case", rename_all = "snake_case")]
pub enum SavepointReplayed {
    Replay(Replay),
    /// The replaying jobs beyond the first `CAP`.
    More {
        jobs: Bounded<String>,
    },
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
        let facts = SavepointReplayed::Replay(Replay {
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
        });
        out.push(Finding {
            kind: FindingKind::SavepointReplayed,
            facts: Facts::SavepointReplayed(Box::new(facts)),
            severity: Severity::Critical,
            title: String::new(),
            snapshot_ids: job.snapshot_indexes.iter().map(|&i| cx.id(i)).chain(std::iter::once(cx.id(target))).collect(),
            job_ids: vec![job.job_id.clone(), replayed.job_id.clone()],
            evidence: String::new(),
            action: String::new(),
            statement,
        });
    }
    if replays.len() > CAP {
        let rest = &replays[CAP..];
        out.push(Finding {
            kind: FindingKind::SavepointReplayed,
            facts: Facts::SavepointReplayed(Box::new(SavepointReplayed::More { jobs: Bounded::of(rest.iter().map(|&(k, _)| cx.jobs[k].job_id.clone())) })),
            severity: Severity::Critical,
            title: String::new(),
            snapshot_ids: Vec::new(),
            job_ids: rest.iter().take(CAP).map(|&(k, _)| cx.jobs[k].job_id.clone()).collect(),
            evidence: String::new(),
            action: String::new(),
            statement: None,
        });
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
fn fresh_beside_running(a: &JobSpan, b: &JobSpan) -> bool {
    if b.first_checkpoint() != Some(1) || a.end_of_input || a.commit_ms.len() < 2 || b.first_index() < a.last_index() {
        return false;
    }
    let n = i64::try_from(a.commit_ms.len() - 1).unwrap_or(i64::MAX);
    let usual = a.last_commit_ms.saturating_sub(a.first_commit_ms) / n.max(1);
    usual > 0 && b.first_commit_ms.saturating_sub(a.last_commit_ms) < usual.saturating_mul(2)
}

/// Two writers on one table, in the three shapes the finding takes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "case", rename_all = "snake_case")]
pub enum ConcurrentWriters {
    /// A job started without state right after a running one's last commit, not yet interleaved.
    FreshBesideRunning { running_job_id: String, fresh_job_id: String, after_ms: i64, fresh_rows_added: Option<u64> },
    /// Two jobs whose commits interleave.
    Pair { first: JobWrites, second: JobWrites, interleaved_commits: u64, second_without_state: bool },
    /// The pairs beyond the first `CAP`, and every job in any pair.
    More { pairs: u64, jobs: Bounded<String> },
}

/// What one job committed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobWrites {
    pub job_id: String,
    pub first_commit_ms: i64,
    pub last_commit_ms: i64,
    pub rows_added: Option<u64>,
    pub snapshots: u64,
}

impl JobWrites {
    fn of(j: &JobSpan) -> JobWrites {
        JobWrites {
            job_id: j.job_id.clone(),
            first_commit_ms: j.first_commit_ms,
            last_commit_ms: j.last_commit_ms,
            rows_added: j.rows_added,
            snapshots: j.snapshot_indexes.len() as u64,
        }
    }
}

/// Two job ids whose commits interleave in time: two writers on one table.
pub(super) fn concurrent_writers(cx: &Context<'_>) -> Vec<Finding> {
    // Jobs come in order of first commit: the jobs that started before `a`'s last commit follow it.
    let starts: Vec<usize> = cx.jobs.iter().map(|j| j.first_index()).collect();
    let overlapping = |k: usize| k + 1..starts.partition_point(|&s| s < cx.jobs[k].last_index()).max(k + 1);
    let total: usize = (0..cx.jobs.len()).map(|k| overlapping(k).len()).sum();
    let mut out = Vec::new();
    // Not yet interleaved: a fresh job right after a running one's last commit.
    if let [.., a, b] = cx.jobs {
        if fresh_beside_running(a, b) {
            out.push(Finding {
                kind: FindingKind::ConcurrentWriters,
                facts: Facts::ConcurrentWriters(ConcurrentWriters::FreshBesideRunning {
                    running_job_id: a.job_id.clone(),
                    fresh_job_id: b.job_id.clone(),
                    after_ms: b.first_commit_ms.saturating_sub(a.last_commit_ms),
                    fresh_rows_added: b.rows_added,
                }),
                severity: Severity::Critical,
                title: String::new(),
                snapshot_ids: vec![cx.id(a.last_index()), cx.id(b.first_index())],
                job_ids: vec![a.job_id.clone(), b.job_id.clone()],
                evidence: String::new(),
                action: String::new(),
                statement: None,
            });
        }
    }
    for (k, b) in (0..cx.jobs.len()).flat_map(|k| overlapping(k).map(move |b| (k, b))).take(CAP) {
        let (a, b) = (&cx.jobs[k], &cx.jobs[b]);
        if let Some(f) = restored_work_committed_late(cx, a, b) {
            out.push(f);
            continue;
        }
        let interleaved = b.snapshot_indexes.iter().filter(|&&i| i < a.last_index()).count();
        out.push(Finding {
            kind: FindingKind::ConcurrentWriters,
            facts: Facts::ConcurrentWriters(ConcurrentWriters::Pair {
                first: JobWrites::of(a),
                second: JobWrites::of(b),
                interleaved_commits: interleaved as u64,
                second_without_state: b.first_checkpoint() == Some(1),
            }),
            severity: Severity::Critical,
            title: String::new(),
            snapshot_ids: vec![cx.id(b.first_index()), cx.id(a.last_index())],
            job_ids: vec![a.job_id.clone(), b.job_id.clone()],
            evidence: String::new(),
            action: String::new(),
            statement: None,
        });
    }
    if total > CAP {
        let rest = total - CAP;
        // A job is involved when it overlaps a later job or an earlier one overlaps it (a sweep).
        let mut later_of_some = vec![0i64; cx.jobs.len() + 1];
        for k in 0..cx.jobs.len() {
            let r = overlapping(k);
            later_of_some[r.start] += 1;
            later_of_some[r.end] -= 1;
        }
        let mut open = 0;
        let involved: Vec<usize> = (0..cx.jobs.len())
            .filter(|&k| {
                open += later_of_some[k];
                open > 0 || !overlapping(k).is_empty()
            })
            .collect();
        out.push(Finding {
            kind: FindingKind::ConcurrentWriters,
            facts: Facts::ConcurrentWriters(ConcurrentWriters::More {
                pairs: rest as u64,
                jobs: Bounded::of(involved.iter().map(|&k| cx.jobs[k].job_id.clone())),
            }),
            severity: Severity::Critical,
            title: String::new(),
            snapshot_ids: Vec::new(),
            job_ids: involved.iter().take(CAP).map(|&k| cx.jobs[k].job_id.clone()).collect(),
            evidence: String::new(),
            action: String::new(),
            statement: None,
        });
    }
    out
}

/// Rows a job added, or `?` where its summaries do not say.
/// After a restart the dynamic sink can commit work restored from the old job under the old job
/// id once the new job has begun committing (apache/iceberg#16011): one or two late commits of
/// older checkpoints, not a second writer.
const LATE_RESTORED: usize = 2;

/// An old job's commits of older checkpoints after a new job began: restored work, not a second writer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RestoredWorkCommittedLate {
    pub old_job_id: String,
    pub new_job_id: String,
    pub new_first_checkpoint: i64,
    pub late_commits: u64,
    /// The checkpoints those commits carry (at most `LATE_RESTORED`).
    pub late_checkpoints: Vec<i64>,
}

fn restored_work_committed_late(cx: &Context<'_>, a: &JobSpan, b: &JobSpan) -> Option<Finding> {
    let b_first = b.first_checkpoint()?;
    let late: Vec<usize> = a.snapshot_indexes.iter().copied().filter(|&i| i > b.first_index()).collect();
    let older = late.iter().all(|&i| checkpoint(cx, i).is_some_and(|c| c < b_first));
    if late.is_empty() || late.len() > LATE_RESTORED || !older {
        return None;
    }
    Some(Finding {
        kind: FindingKind::RestoredWorkCommittedLate,
        facts: Facts::RestoredWorkCommittedLate(RestoredWorkCommittedLate {
            old_job_id: a.job_id.clone(),
            new_job_id: b.job_id.clone(),
            new_first_checkpoint: b_first,
            late_commits: late.len() as u64,
            late_checkpoints: late.iter().filter_map(|&i| checkpoint(cx, i)).collect(),
        }),
        severity: Severity::Info,
        title: String::new(),
        snapshot_ids: late.iter().map(|&i| cx.id(i)).collect(),
        job_ids: vec![a.job_id.clone(), b.job_id.clone()],
        evidence: String::new(),
        action: String::new(),
        statement: None,
    })
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

fn checkpoint(cx: &Context<'_>, i: usize) -> Option<i64> {
    cx.history.snapshots[i].flink.as_ref().and_then(|f| f.checkpoint_id)
}

fn added_records(cx: &Context<'_>, i: usize) -> Option<u64> {
    match cx.history.snapshots[i].snapshot.summary.get("added-records") {
        None => Some(0),
        Some(v) => v.trim().parse().ok(),
    }
}

fn restore_point(cx: &Context<'_>, job: &JobSpan, replayed: &JobSpan) -> RestorePoint {
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

/// A new job id continuing the checkpoints of the job before it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "case", rename_all = "snake_case")]
pub enum JobResumed {
    /// Its first commit of a usual size: no overlap.
    Continued { resume: Resume },
    /// Its first commit holds several checkpoints' rows: restored from older state (FlinkSink's
    /// committer folds what the restored job id committed into it) or a backlog.
    FromOlderState { resume: Resume, first_commit_rows: u64, usual_rows: u64, folded_checkpoints: i64, restored_from: i64, repeated_rows_estimate: u64 },
    /// The resumes beyond the first `CAP`.
    More { resumes: u64, jobs: Bounded<String> },
}

/// One job continuing another's checkpoints.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Resume {
    pub previous_job_id: String,
    pub job_id: String,
    pub previous_last_checkpoint: i64,
    pub first_checkpoint: i64,
    /// From the previous job's last commit to this one's first.
    pub after_ms: i64,
}

/// A new job id whose checkpoints continue above the previous job's: an ordinary resume.
pub(super) fn resumes(cx: &Context<'_>) -> Vec<Finding> {
    // Each job is paired with the job it most plausibly continues: among the jobs that committed
    // before it began, the one whose last checkpoint is nearest below its first — not merely the
    // one before it in commit order, which may be another deployment's. A job some earlier job had
    // already committed past is a replay (`savepoint_replays`), one started at checkpoint 1 no resume.
    let pairs: Vec<(&JobSpan, &JobSpan, i64, i64)> = cx
        .jobs
        .iter()
        .enumerate()
        .filter_map(|(k, next)| {
            let nf = next.first_checkpoint()?;
            let before = &cx.jobs[..k];
            if nf <= 1 || before.iter().any(|p| p.last_checkpoint().is_some_and(|pl| pl >= nf)) {
                return None;
            }
            let prev = before
                .iter()
                .filter(|p| p.last_index() < next.first_index())
                .filter_map(|p| Some((p, p.last_checkpoint()?)))
                .filter(|&(_, pl)| pl < nf)
                .max_by_key(|&(p, pl)| (pl, p.last_index()))?;
            Some((prev.0, next, prev.1, nf))
        })
        .collect();
    let mut out: Vec<Finding> = pairs.iter().take(CAP).map(|&(prev, next, pl, nf)| resumed(cx, prev, next, pl, nf)).collect();
    if pairs.len() > CAP {
        let rest = &pairs[CAP..];
        out.push(Finding {
            kind: FindingKind::JobResumed,
            facts: Facts::JobResumed(JobResumed::More { resumes: rest.len() as u64, jobs: Bounded::of(rest.iter().map(|(_, next, ..)| next.job_id.clone())) }),
            severity: Severity::Info,
            title: String::new(),
            snapshot_ids: Vec::new(),
            job_ids: rest.iter().take(CAP).map(|(_, next, ..)| next.job_id.clone()).collect(),
            evidence: String::new(),
            action: String::new(),
            statement: None,
        });
    }
    out
}

/// One resume. Through FlinkSink a job restored from state older than the previous job's last
/// commit still begins right after it (the committer skips what the restored job id committed and
/// folds those checkpoints into its first commit), so "no overlap in checkpoint ids" is not "no
/// rows written twice": a first commit of several checkpoints' rows says it went back, or that its
/// source caught up on a backlog. The table cannot tell which: said as a warning, with "about".
fn resumed(cx: &Context<'_>, prev: &JobSpan, next: &JobSpan, pl: i64, nf: i64) -> Finding {
    let restore = restore_point(cx, next, prev);
    let pair = Resume {
        previous_job_id: prev.job_id.clone(),
        job_id: next.job_id.clone(),
        previous_last_checkpoint: pl,
        first_checkpoint: nf,
        after_ms: next.first_commit_ms.saturating_sub(prev.last_commit_ms),
    };
    let (facts, severity) = match (restore.estimated, restore.first_commit_rows, restore.usual_rows, restore.folded) {
        (true, Some(k), Some(u), Some(n)) if restore.checkpoint < pl => (
            JobResumed::FromOlderState {
                resume: pair,
                first_commit_rows: k,
                usual_rows: u,
                folded_checkpoints: n,
                restored_from: restore.checkpoint,
                repeated_rows_estimate: u.saturating_mul(u64::try_from(pl.saturating_sub(restore.checkpoint)).unwrap_or(0)),
            },
            Severity::Warning,
        ),
        _ => (JobResumed::Continued { resume: pair }, Severity::Info),
    };
    Finding {
        kind: FindingKind::JobResumed,
        facts: Facts::JobResumed(facts),
        severity,
        title: String::new(),
        snapshot_ids: vec![cx.id(prev.last_index()), cx.id(next.first_index())],
        job_ids: vec![prev.job_id.clone(), next.job_id.clone()],
        evidence: String::new(),
        action: String::new(),
        statement: None,
    }
}
