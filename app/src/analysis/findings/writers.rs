//! Jobs writing at the same time: two writers on one table, and the dynamic sink's late commits
//! of restored work that only look like it.

use serde::Serialize;

use super::replay::{checkpoint, fresh_beside_running};
use super::{Bounded, Context, Facts, Finding, FindingKind, Severity, CAP};
use crate::analysis::jobs::JobSpan;

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
            out.push(Finding::new(
                FindingKind::ConcurrentWriters,
                Severity::Critical,
                Facts::ConcurrentWriters(ConcurrentWriters::FreshBesideRunning {
                    running_job_id: a.job_id.clone(),
                    fresh_job_id: b.job_id.clone(),
                    after_ms: b.first_commit_ms.saturating_sub(a.last_commit_ms),
                    fresh_rows_added: b.rows_added,
                }),
                vec![cx.id(a.last_index()), cx.id(b.first_index())],
                vec![a.job_id.clone(), b.job_id.clone()],
                None,
            ));
        }
    }
    for (k, b) in (0..cx.jobs.len()).flat_map(|k| overlapping(k).map(move |b| (k, b))).take(CAP) {
        let (a, b) = (&cx.jobs[k], &cx.jobs[b]);
        if let Some(f) = restored_work_committed_late(cx, a, b) {
            out.push(f);
            continue;
        }
        let interleaved = b.snapshot_indexes.iter().filter(|&&i| i < a.last_index()).count();
        out.push(Finding::new(
            FindingKind::ConcurrentWriters,
            Severity::Critical,
            Facts::ConcurrentWriters(ConcurrentWriters::Pair {
                first: JobWrites::of(a),
                second: JobWrites::of(b),
                interleaved_commits: interleaved as u64,
                second_without_state: b.first_checkpoint() == Some(1),
            }),
            vec![cx.id(b.first_index()), cx.id(a.last_index())],
            vec![a.job_id.clone(), b.job_id.clone()],
            None,
        ));
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
        out.push(Finding::new(
            FindingKind::ConcurrentWriters,
            Severity::Critical,
            Facts::ConcurrentWriters(ConcurrentWriters::More { pairs: rest as u64, jobs: Bounded::of(involved.iter().map(|&k| cx.jobs[k].job_id.clone())) }),
            Vec::new(),
            involved.iter().take(CAP).map(|&k| cx.jobs[k].job_id.clone()).collect(),
            None,
        ));
    }
    out
}

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
    Some(Finding::new(
        FindingKind::RestoredWorkCommittedLate,
        Severity::Info,
        Facts::RestoredWorkCommittedLate(RestoredWorkCommittedLate {
            old_job_id: a.job_id.clone(),
            new_job_id: b.job_id.clone(),
            new_first_checkpoint: b_first,
            late_commits: late.len() as u64,
            late_checkpoints: late.iter().filter_map(|&i| checkpoint(cx, i)).collect(),
        }),
        late.iter().map(|&i| cx.id(i)).collect(),
        vec![a.job_id.clone(), b.job_id.clone()],
        None,
    ))
}
