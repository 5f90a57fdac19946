//! Jobs restored from the same state, and jobs writing at the same time.

use super::{thousands, Context, Finding, Severity};

/// A job whose first committed checkpoint is not above an earlier job's last one was restored from
/// state that earlier job had already committed past: a savepoint (or checkpoint) used twice.
pub(super) fn savepoint_replays(cx: &Context<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (k, job) in cx.jobs.iter().enumerate().skip(1) {
        let Some(first) = job.first_checkpoint() else { continue };
        // The earlier job whose committed range this job's first checkpoint falls into.
        let Some(replayed) = cx.jobs[..k].iter().rev().find(|p| {
            p.first_checkpoint().is_some_and(|pf| pf <= first) && p.last_checkpoint().is_some_and(|pl| first <= pl)
        }) else {
            continue;
        };
        // Commits that overlap in time are two writers at once (`concurrent_writers`), not a resume.
        if job.first_index() < replayed.last_index() {
            continue;
        }
        let target = replayed.last_index();
        let target_records = cx.history.totals(target).records;
        let after_target = job.first_index() > target;
        let statement = after_target.then(|| cx.table.statement("rollback_to_snapshot", Some(format!("snapshot_id => {}", cx.id(target))))).flatten();
        // A job whose counter starts at 1 restored nothing: a second deployment re-reading the source.
        let cause = if first == 1 {
            "it started without state, so it re-read the source from the beginning"
        } else {
            "both were restored from the same state, so the second replayed every row after it"
        };
        let evidence = format!(
            "job {} committed checkpoints {}–{}{} from {} after job {} had already committed checkpoints {}–{}{}: {cause}. \
             Job {} added {} rows in {} snapshots (first {}), duplicates of rows job {} had written. The last snapshot of \
             job {} is {}{}.",
            Context::short(&job.job_id),
            first,
            job.last_checkpoint().unwrap_or(first),
            if job.end_of_input { " and an end-of-input commit" } else { "" },
            crate::model::time::rfc3339_ms(job.first_commit_ms),
            Context::short(&replayed.job_id),
            replayed.first_checkpoint().unwrap_or(0),
            replayed.last_checkpoint().unwrap_or(0),
            if replayed.end_of_input { " and an end-of-input commit" } else { "" },
            Context::short(&job.job_id),
            thousands(job.rows_added),
            job.snapshot_indexes.len(),
            cx.id(job.first_index()),
            Context::short(&replayed.job_id),
            Context::short(&replayed.job_id),
            cx.id(target),
            target_records.map(|r| format!(" with {} live records", thousands(r))).unwrap_or_default(),
        );
        let action = if after_target {
            format!(
                "Roll back to the last snapshot of job {} (removes job {}'s {} rows), then take a new savepoint from a running \
                 job; never resume from the old savepoint again.",
                Context::short(&replayed.job_id),
                Context::short(&job.job_id),
                thousands(job.rows_added)
            )
        } else {
            "The two jobs' commits interleave, so no single snapshot holds one job's rows without the other's: stop the \
             replaying job and remove its rows by its flink.job-id ranges, then take a new savepoint."
                .to_string()
        };
        out.push(Finding {
            kind: "savepoint_replayed",
            severity: Severity::Critical,
            title: format!("Savepoint replayed: job {} re-committed checkpoints from {}", Context::short(&job.job_id), first),
            snapshot_ids: job.snapshot_indexes.iter().map(|&i| cx.id(i)).chain(std::iter::once(cx.id(target))).collect(),
            job_ids: vec![job.job_id.clone(), replayed.job_id.clone()],
            evidence,
            action,
            statement,
        });
    }
    out
}

/// Two job ids whose commits interleave in time: two writers on one table.
pub(super) fn concurrent_writers(cx: &Context<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (k, a) in cx.jobs.iter().enumerate() {
        for b in &cx.jobs[k + 1..] {
            if b.first_index() < a.last_index() {
                let interleaved = b.snapshot_indexes.iter().filter(|&&i| i < a.last_index()).count();
                let fresh = if b.first_checkpoint() == Some(1) {
                    format!(" Job {} started at checkpoint 1: it restored no state and re-read its source from the beginning.", Context::short(&b.job_id))
                } else {
                    String::new()
                };
                out.push(Finding {
                    kind: "concurrent_writers",
                    severity: Severity::Critical,
                    title: format!("Two Flink jobs writing at once: {} and {}", Context::short(&a.job_id), Context::short(&b.job_id)),
                    snapshot_ids: vec![cx.id(b.first_index()), cx.id(a.last_index())],
                    job_ids: vec![a.job_id.clone(), b.job_id.clone()],
                    evidence: format!(
                        "job {} committed from {} to {}; job {} started committing at {}, {} of its commits before job {}'s last. \
                         Both write every row they read: a duplicated deployment or a second resume.{fresh} Job {} added {} rows \
                         ({} snapshots), job {} {} rows ({} snapshots): whichever the deployment does not own are duplicates.",
                        Context::short(&a.job_id),
                        crate::model::time::rfc3339_ms(a.first_commit_ms),
                        crate::model::time::rfc3339_ms(a.last_commit_ms),
                        Context::short(&b.job_id),
                        crate::model::time::rfc3339_ms(b.first_commit_ms),
                        interleaved,
                        Context::short(&a.job_id),
                        Context::short(&a.job_id),
                        thousands(a.rows_added),
                        a.snapshot_indexes.len(),
                        Context::short(&b.job_id),
                        thousands(b.rows_added),
                        b.snapshot_indexes.len(),
                    ),
                    action: "Stop one of the jobs now (keep the one the deployment owns). Their commits interleave, so no \
                             snapshot holds one job's rows without the other's: remove the other job's rows by key and time \
                             range, or restore from a snapshot before the second job's first commit and replay the owner."
                        .into(),
                    statement: None,
                });
            }
        }
    }
    out
}

/// A new job id whose checkpoints continue above the previous job's: an ordinary resume.
pub(super) fn resumes(cx: &Context<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for pair in cx.jobs.windows(2) {
        let (prev, next) = (&pair[0], &pair[1]);
        let (Some(pl), Some(nf)) = (prev.last_checkpoint(), next.first_checkpoint()) else { continue };
        if nf > pl && next.first_index() > prev.last_index() {
            out.push(Finding {
                kind: "job_resumed",
                severity: Severity::Info,
                title: format!("Job resumed: {} continued after {}", Context::short(&next.job_id), Context::short(&prev.job_id)),
                snapshot_ids: vec![cx.id(prev.last_index()), cx.id(next.first_index())],
                job_ids: vec![prev.job_id.clone(), next.job_id.clone()],
                evidence: format!(
                    "job {} committed checkpoints up to {}; job {} began at checkpoint {} ({} after the last commit): restored \
                     from a savepoint or checkpoint, with no overlap. A single resume is normal.",
                    Context::short(&prev.job_id),
                    pl,
                    Context::short(&next.job_id),
                    nf,
                    duration(next.first_commit_ms.saturating_sub(prev.last_commit_ms)),
                ),
                action: "Expected. Delete the savepoint it was resumed from, so that it cannot be used a second time.".into(),
                statement: None,
            });
        }
    }
    out
}

pub(super) fn duration(ms: i64) -> String {
    let s = ms / 1000;
    match s {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s => format!("{:.1} h", s as f64 / 3600.0),
    }
}
