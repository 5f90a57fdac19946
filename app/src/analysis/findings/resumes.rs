//! A new job id continuing the checkpoints of the job before it: an ordinary resume, or one whose
//! first commit says it went back to older state.

use serde::Serialize;

use super::replay::restore_point;
use super::{Bounded, Context, Facts, Finding, FindingKind, Severity, CAP};
use crate::analysis::jobs::JobSpan;

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
        out.push(Finding::new(
            FindingKind::JobResumed,
            Severity::Info,
            Facts::JobResumed(JobResumed::More { resumes: rest.len() as u64, jobs: Bounded::of(rest.iter().map(|(_, next, ..)| next.job_id.clone())) }),
            Vec::new(),
            rest.iter().take(CAP).map(|(_, next, ..)| next.job_id.clone()).collect(),
            None,
        ));
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
    Finding::new(
        FindingKind::JobResumed,
        severity,
        Facts::JobResumed(facts),
        vec![cx.id(prev.last_index()), cx.id(next.first_index())],
        vec![prev.job_id.clone(), next.job_id.clone()],
        None,
    )
}
