//! Jobs restored from the same state, and jobs writing at the same time.

use super::Words;
use crate::analysis::findings::{ConcurrentWriters, JobResumed, Replay, RestorePoint, RestoredWorkCommittedLate, SavepointReplayed, CAP};
use crate::model::time::rfc3339_ms;
use crate::report::format::{capped_list, duration_coarse, plural, short_job, thousands};

pub(super) fn restored_work_committed_late(f: &RestoredWorkCommittedLate) -> Words {
    let (old, new) = (short_job(&f.old_job_id), short_job(&f.new_job_id));
    let s = plural(f.late_commits);
    Words {
        title: format!("Job {old} committed older checkpoints after job {new} began"),
        evidence: format!(
            "{} commit{s} of job {old} (checkpoint{s} {}) came after job {new}'s first commit (checkpoint {}), with lower \
             checkpoint ids: work restored from the old job, committed under its job id by the new one after a restart, as \
             the dynamic sink does. Not two writers: the ids do not overlap.",
            f.late_commits,
            f.late_checkpoints.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "),
            f.new_first_checkpoint,
        ),
        action: "Nothing: no rows were written twice.".into(),
    }
}

const ONE_WRITER: &str = "Stop one of the jobs now (keep the one the deployment owns). Their commits interleave, so no \
                          snapshot holds one job's rows without the other's: remove the other job's rows by key and time \
                          range, or restore from a snapshot before the second job's first commit and replay the owner.";

/// Rows a job added, or `?` where its summaries do not say.
fn rows(n: Option<u64>) -> String {
    n.map(thousands).unwrap_or_else(|| "?".into())
}

pub(super) fn concurrent_writers(f: &ConcurrentWriters) -> Words {
    let (title, evidence) = match f {
        ConcurrentWriters::FreshBesideRunning { running_job_id, fresh_job_id, after_ms, fresh_rows_added } => {
            let (a, b) = (short_job(running_job_id), short_job(fresh_job_id));
            (
                format!("Job {b} started without state while job {a} was still committing: two writers at once, or a restart from scratch"),
                format!(
                    "job {b} started at checkpoint 1, without state, {} after job {a}'s last commit, while that job was still \
                 committing on its schedule and shows no end of input: a second deployment of the job beside the running \
                 one (or a restart that re-read its source from the beginning). Job {b} added {} rows so far; every row it \
                 reads, job {a} wrote or will write too.",
                    duration_coarse(*after_ms),
                    rows(*fresh_rows_added),
                ),
            )
        }
        ConcurrentWriters::Pair { first, second, interleaved_commits, second_without_state } => {
            let (a, b) = (short_job(&first.job_id), short_job(&second.job_id));
            let fresh = if *second_without_state {
                format!(" Job {b} started at checkpoint 1: it restored no state and re-read its source from the beginning.")
            } else {
                String::new()
            };
            (
                format!("Two Flink jobs writing at once: {a} and {b}"),
                format!(
                    "job {a} committed from {} to {}; job {b} started committing at {}, {interleaved_commits} of its commits before job {a}'s last. \
                 Both write every row they read: a duplicated deployment or a second resume.{fresh} Job {a} added {} rows \
                 ({} snapshots), job {b} {} rows ({} snapshots): whichever the deployment does not own are duplicates.",
                    rfc3339_ms(first.first_commit_ms),
                    rfc3339_ms(first.last_commit_ms),
                    rfc3339_ms(second.first_commit_ms),
                    rows(first.rows_added),
                    first.snapshots,
                    rows(second.rows_added),
                    second.snapshots,
                ),
            )
        }
        ConcurrentWriters::More { pairs, jobs } => (
            format!("{} more pairs of Flink jobs writing at once", thousands(*pairs)),
            format!(
                "Beyond the {CAP} pairs above, {} more pairs of jobs have commits that interleave; {} jobs in all write \
                 at the same time as another: {}. Every one writes every row it reads.",
                thousands(*pairs),
                thousands(jobs.total as u64),
                capped_list(jobs.first.iter().map(|j| short_job(j)), jobs.total, "jobs")
            ),
        ),
    };
    Words { title, evidence, action: ONE_WRITER.into() }
}

pub(super) fn job_resumed(f: &JobResumed) -> Words {
    match f {
        JobResumed::FromOlderState { resume: r, first_commit_rows, usual_rows, folded_checkpoints: n, restored_from, repeated_rows_estimate } => {
            let (prev, next, pl, nf, gap) =
                (short_job(&r.previous_job_id), short_job(&r.job_id), r.previous_last_checkpoint, r.first_checkpoint, duration_coarse(r.after_ms));
            Words {
                title: format!("Job {next} resumed after {prev}, its first commit {n} checkpoints' rows: restored from older state, or a backlog"),
                evidence: format!(
                    "job {prev} committed checkpoints up to {pl}; job {next} began at checkpoint {nf} ({gap} later), but its first commit \
                 holds {} rows, at its usual {} rows per commit those of about {n} checkpoints. Either it was restored from about \
                 checkpoint {restored_from} — older than job {prev}'s last commit, so FlinkSink's committer skipped the checkpoints the restored \
                 job id had committed and folded their rows into this commit, and about {} rows of checkpoints {}–{pl} are in \
                 the table twice — or its source caught up on a backlog. The table cannot tell which: the JobManager's \
                 restore record (/jobs/:id/checkpoints, latest.restored) or the rows' key ranges decide it.",
                    thousands(*first_commit_rows),
                    thousands(*usual_rows),
                    thousands(*repeated_rows_estimate),
                    restored_from.saturating_add(1),
                ),
                action: "Check which savepoint or checkpoint the job was restored from; if older than the previous job's last \
                 commit, count the duplicate keys (Duplicates, or icescope duplicates) before deciding to remove them."
                    .into(),
            }
        }
        JobResumed::Continued { resume: r } => {
            let (prev, next) = (short_job(&r.previous_job_id), short_job(&r.job_id));
            Words {
                title: format!("Job resumed: {next} continued after {prev}"),
                evidence: format!(
                    "job {prev} committed checkpoints up to {}; job {next} began at checkpoint {} ({} after the last commit), its \
                 first commit of a usual size: restored from a savepoint or checkpoint, with no overlap. A single resume is normal.",
                    r.previous_last_checkpoint,
                    r.first_checkpoint,
                    duration_coarse(r.after_ms),
                ),
                action: "Expected. Delete the savepoint it was resumed from, so that it cannot be used a second time.".into(),
            }
        }
        JobResumed::More { resumes, jobs } => Words {
            title: format!("{} more resumes", thousands(*resumes)),
            evidence: format!(
                "Beyond the {CAP} above, {} more jobs each continued the checkpoints of the job before it: {}.",
                thousands(*resumes),
                capped_list(jobs.first.iter().map(|j| short_job(j)), jobs.total, "jobs")
            ),
            action: "Expected, one by one; so many restarts deserve a look at why the job keeps being redeployed.".into(),
        },
    }
}

/// Why the replaying job wrote again what it did.
fn cause(restore: &RestorePoint, replayed: &str, first: i64) -> String {
    if first == 1 {
        return "it started without state, so it re-read the source from the beginning".to_string();
    }
    match (restore.estimated, restore.first_commit_rows, restore.usual_rows, restore.folded) {
        (true, Some(k), Some(u), Some(n)) => format!(
            "its first commit, checkpoint {first}, holds {} rows, at its usual {} rows per commit those of at least {n} checkpoints: \
             it was restored from about checkpoint {} (Iceberg's committer skips the checkpoints the restored job id had \
             already committed and folds them into its first new commit), older state than job {replayed}'s",
            thousands(k),
            thousands(u),
            restore.checkpoint,
        ),
        _ => format!("it was restored from checkpoint {}, state that earlier commits had already gone past", restore.checkpoint),
    }
}

fn end_of_input(yes: bool) -> &'static str {
    if yes {
        " and an end-of-input commit"
    } else {
        ""
    }
}

pub(super) fn savepoint_replayed(f: &SavepointReplayed) -> Words {
    match f {
        SavepointReplayed::Replay(replay) => one_replay(replay),
        SavepointReplayed::More { jobs } => Words {
            title: format!("{} more jobs replayed checkpoints an earlier job had committed", thousands(jobs.total as u64)),
            evidence: format!(
                "Beyond the {CAP} above, {} jobs each began at a checkpoint an earlier job had already committed: {}.",
                thousands(jobs.total as u64),
                capped_list(jobs.first.iter().map(|j| short_job(j)), jobs.total, "jobs")
            ),
            action: "Each is a savepoint (or a source) read twice: go through the jobs in commit order, roll back or remove \
                     each replay's rows, and never resume from a used savepoint again."
                .into(),
        },
    }
}

fn one_replay(f: &Replay) -> Words {
    let Replay { job: j, replayed: r, restore, repeats, repeated_rows, exact, before, rollback, later_commits_of_others } = f;
    let (job, old) = (short_job(&j.job_id), short_job(&r.job_id));
    let overlap_text = capped_list(
        repeats.first.iter().map(|e| {
            if e.all_of_it {
                format!("all {} rows of job {}", rows(e.rows), short_job(&e.job_id))
            } else {
                format!("at most {} rows of job {} (its commits after checkpoint {})", rows(e.rows), short_job(&e.job_id), restore.checkpoint)
            }
        }),
        repeats.total,
        "jobs",
    );
    let evidence = format!(
        "job {job} committed checkpoints {}–{}{} from {} after job {old} had already committed checkpoints {}–{}{}: {}. \
         What it wrote again repeats {overlap_text}: {} {} of the {} rows job {job} added (in {} snapshots, first {}) repeat \
         rows already in the table. The last snapshot before it is {}{}{}.",
        j.first_checkpoint,
        j.last_checkpoint,
        end_of_input(j.end_of_input),
        rfc3339_ms(j.first_commit_ms),
        r.first_checkpoint,
        r.last_checkpoint,
        end_of_input(r.end_of_input),
        cause(restore, &old, j.first_checkpoint),
        if *exact { "so" } else { "so at most" },
        rows(*repeated_rows),
        rows(j.rows_added),
        j.snapshots,
        j.first_snapshot_id,
        before.snapshot_id,
        before.job_id.as_ref().map(|b| format!(" of job {}", short_job(b))).unwrap_or_default(),
        before.live_records.map(|r| format!(", with {} live records", thousands(r))).unwrap_or_default(),
    );
    let action = if *rollback {
        format!(
            "Roll back to snapshot {}, the last before job {job}'s first commit (removes its {} rows{}), then take a new \
             savepoint from a running job; never resume from the old savepoint again.",
            before.snapshot_id,
            rows(j.rows_added),
            match later_commits_of_others {
                0 => String::new(),
                1 => " and one later commit of another writer".to_string(),
                n => format!(" and {} later commits of other writers", thousands(*n)),
            }
        )
    } else {
        "The two jobs' commits interleave, so no single snapshot holds one job's rows without the other's: stop the \
         replaying job and remove its rows by its flink.job-id ranges, then take a new savepoint."
            .to_string()
    };
    Words {
        title: if j.first_checkpoint == 1 {
            format!("Savepoint replayed: job {job} re-read the source from the start")
        } else {
            format!(
                "Savepoint replayed: job {job} restored from {}checkpoint {} and wrote again what followed it",
                if restore.estimated { "about " } else { "" },
                restore.checkpoint
            )
        },
        evidence,
        action,
    }
}
