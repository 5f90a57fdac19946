//! Each verdict worded once: its sentence, what to do, its facts as rows, its badge.

use crate::analysis::savepoint::{Removal, ReplayedJob, Tie, UnknownWhy, Verdict, VerdictKind};
use crate::model::flink::END_OF_INPUT_CHECKPOINT;
use crate::report::text::{count, thousands};

pub(super) fn short(job: &str) -> String {
    format!("{}…", job.chars().take(8).collect::<String>())
}

fn checkpoints(first: Option<i64>, last: Option<i64>, end: bool) -> String {
    let range = match (first, last) {
        (Some(a), Some(b)) if a == b => format!("checkpoint {a}"),
        (Some(a), Some(b)) => format!("checkpoints {a}–{b}"),
        _ => String::new(),
    };
    match (range.is_empty(), end) {
        (true, true) => "its end-of-input commit".into(),
        (false, true) => format!("{range} and its end-of-input commit"),
        _ => range,
    }
}

fn commits(n: usize) -> String {
    if n == 1 {
        "1 commit".into()
    } else {
        format!("{} commits", thousands(n as u64))
    }
}

fn list(ids: &[i64]) -> String {
    ids.iter().map(|&c| if c == END_OF_INPUT_CHECKPOINT { "end of input".to_string() } else { c.to_string() }).collect::<Vec<_>>().join(", ")
}

/// What resuming from the savepoint does, in one or two sentences. `esc` shows text from the files.
pub fn summary(v: &Verdict, esc: &dyn Fn(&str) -> String) -> String {
    let job = v.job_id.as_deref().map(|j| esc(&short(j))).unwrap_or_else(|| "?".into());
    match v.kind {
        VerdictKind::Safe => {
            let rp = v.restore_point.as_ref();
            format!(
                "Safe: nothing reached the table after checkpoint {} of job {job}; the restored committer finds that job's last commit (checkpoint {}, snapshot {}) and commits only what follows.",
                v.checkpoint_id,
                rp.map_or("?".into(), |r| r.checkpoint_id.to_string()),
                rp.map_or("?".into(), |r| r.snapshot_id.to_string()),
            )
        }
        VerdictKind::Replays => {
            let parts: Vec<String> = v.replayed.iter().map(|r| replayed_part(v, r, esc)).collect();
            let caveat = v
                .replayed
                .iter()
                .find_map(|r| match &r.tie {
                    Tie::Resumed { same_from_checkpoints_up_to: Some(m) } => Some(format!(
                        " (A retained checkpoint of job {job} at or below checkpoint {m}, had one been kept, would start a job the same way: FlinkSink's committer skips what that job committed.)"
                    )),
                    _ => None,
                })
                .unwrap_or_default();
            format!(
                "Replays: the table already holds {}{} rows committed after this savepoint's checkpoint {} — {}.{caveat} {}",
                if v.rows_estimated { "about " } else { "" },
                count(v.rows_committed_after),
                v.checkpoint_id,
                parts.join("; "),
                resume_sentence(v, esc)
            )
        }
        VerdictKind::RestorePointExpired => format!(
            "Restore point expired: no snapshot of job {job} is left in the table's history, so Iceberg's committer takes -1 as that job's last committed checkpoint and commits again every checkpoint the savepoint carries ({}). Their temporary manifests were deleted after their first commit: the restore fails on a missing file, or, where one is still there, commits its rows twice.",
            if v.recommitted_checkpoints.is_empty() { "none".into() } else { list(&v.recommitted_checkpoints) }
        ),
        VerdictKind::CommitterMismatch => {
            let ours = if v.committer_operator_ids.is_empty() { "no operator holds an Iceberg committer's state".to_string() } else {
                format!("its Iceberg committers are operators {}", v.committer_operator_ids.iter().map(|o| esc(o)).collect::<Vec<_>>().join(", "))
            };
            format!(
                "Committer mismatch: {ours}, and the table's commits name operator {}: resuming would restore no committer state for this table, or the wrong one.",
                if v.table_operator_ids.is_empty() { "none".into() } else { v.table_operator_ids.iter().map(|o| esc(o)).collect::<Vec<_>>().join(", ") }
            )
        }
        VerdictKind::Unknown => match v.unknown_why {
            Some(UnknownWhy::NoTable) => format!("Unknown: no table was given; the savepoint's committer restores job {job} at checkpoint {}.", v.checkpoint_id),
            Some(UnknownWhy::NoFlinkCommits) => "Unknown: the table holds no commit by a Flink job.".into(),
            Some(UnknownWhy::NoJobId) => "Unknown: the committer's state names no job id.".into(),
            Some(UnknownWhy::JobNeverCommitted) | None => format!(
                "Unknown: the table never held a commit by job {job} and shows no expired snapshots; the restored committer commits the checkpoints the savepoint carries ({}) as new.",
                if v.recommitted_checkpoints.is_empty() { "none".into() } else { list(&v.recommitted_checkpoints) }
            ),
        },
    }
}

fn replayed_part(v: &Verdict, r: &ReplayedJob, esc: &dyn Fn(&str) -> String) -> String {
    let id = esc(&short(&r.job_id));
    let who = match &r.tie {
        Tie::TookIt => format!("job {id} itself ran on"),
        Tie::Resumed { .. } => match r.first_checkpoint {
            Some(f) => format!("job {id} (resumed from it: its first checkpoint, {f}, is the one a restore of it commits)"),
            None => format!("job {id} (resumed from it)"),
        },
        Tie::Inferred { alternatives, later_checkpoints_up_to, likely_checkpoint } => {
            let mut others: Vec<String> = alternatives.iter().map(|a| format!("{} (checkpoint {})", esc(&a.path), a.checkpoint_id)).collect();
            if let Some(m) = later_checkpoints_up_to {
                others.push(format!(
                    "a later savepoint or checkpoint of job {} up to checkpoint {m}",
                    v.job_id.as_deref().map(|j| esc(&short(j))).unwrap_or_else(|| "?".into())
                ));
            }
            if others.is_empty() {
                format!("job {id} (maybe resumed from it: it committed only at the end of its input, so no checkpoint id ties it to a restore point)")
            } else {
                let likely = likely_checkpoint
                    .map(|k| format!("; its first commit's size points to a restore at about checkpoint {k}, an estimate"))
                    .unwrap_or_default();
                format!(
                    "job {id} (resumed from it or from {}: a restore of either starts with the same commit{likely}; the JobManager's restore record or the rows' key ranges decide it)",
                    others.join(" or ")
                )
            }
        }
        Tie::Continues => format!("job {id} (continuing the counter of a job above, from its later savepoint or checkpoint)"),
        Tie::Other => format!("job {id} (of another lineage: its rows above checkpoint {} are an estimate)", v.checkpoint_id),
    };
    format!(
        "{who}: {}{} rows in {} ({})",
        if r.estimated { "about " } else { "" },
        count(r.rows),
        checkpoints(r.first_checkpoint, r.last_checkpoint, r.end_of_input),
        commits(r.commits)
    )
}

/// "1st", "2nd", "3rd": which copy of a row a resume writes.
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// What a resume writes, apart from what the table holds: the stretch once more.
pub fn resume_sentence(v: &Verdict, esc: &dyn Fn(&str) -> String) -> String {
    let Some(w) = &v.resume_writes else { return String::new() };
    let from = w.measured_from.iter().map(|j| esc(&short(j))).collect::<Vec<_>>().join(" and ");
    let copies = match w.copies_in_table {
        1 => "which the table already holds once".to_string(),
        2 => "which the table already holds twice".to_string(),
        n => format!("which the table already holds {} times", thousands(n as u64)),
    };
    format!(
        "A resume from it writes {}{}{} rows again — the source read once more from the savepoint's position, as job{} {from} wrote it{} — {copies}: the {} copy of each.",
        if w.at_least { "at least " } else { "" },
        if w.estimated { "about " } else { "" },
        count(w.rows),
        if w.measured_from.len() > 1 { "s" } else { "" },
        if w.at_least { ", and whatever the source holds beyond that by then" } else { "" },
        ordinal(w.copies_in_table.saturating_add(1))
    )
}

/// The rollback's cost: "2 commits, 145,452 rows: job 8761a05b… 72,726 and job eb1278fa… 72,726".
pub fn removal(r: &Removal, esc: &dyn Fn(&str) -> String) -> String {
    let mut jobs: Vec<String> = r.jobs.iter().map(|(j, rows)| format!("job {} {}", esc(&short(j)), count(*rows))).collect();
    if r.other_commits > 0 {
        jobs.push(format!("{} commits by no Flink job", thousands(r.other_commits as u64)));
    }
    format!("{}, {} rows: {}", commits(r.commits), count(r.rows), jobs.join(", "))
}

/// What to do instead, when the verdict is not `safe`.
pub fn advice(v: &Verdict, esc: &dyn Fn(&str) -> String) -> String {
    let alt = v.safe_alternative.as_deref().map(|p| format!("Resume from {} instead (safe). ", esc(p))).unwrap_or_default();
    let uid = if v.operators_without_uid.is_empty() {
        String::new()
    } else {
        format!(
            " {} operators carry no uid ({}): a job that adds uids cannot restore their state, and --allowNonRestoredState drops it.",
            thousands(v.operators_without_uid.len() as u64),
            v.operators_without_uid.iter().take(4).map(|o| esc(o)).collect::<Vec<_>>().join(", ")
        )
    };
    let body = match v.kind {
        VerdictKind::Safe => String::new(),
        VerdictKind::Replays => match (&v.rollback_fails, v.rollback_target_snapshot_id) {
            (Some(g), _) => format!(
                "{alt}Do not roll back to this savepoint's last commit to resume from it: its state still holds checkpoint {}, which its job \
                 committed since with checkpoint {} (snapshot {}) and whose temporary manifests it then deleted, so the restored \
                 committer would fail on the missing files. Never resume from this savepoint again.",
                g.pending_checkpoint, g.committed_with_checkpoint, g.committed_in_snapshot_id
            ),
            (None, Some(id)) => format!(
                "{alt}{}o resume from this savepoint again, roll back to snapshot {id}, its last commit, first: that removes every later commit ({}).{}",
                if alt.is_empty() { "T" } else { "Or, t" },
                v.rollback_removes.as_ref().map(|r| removal(r, esc)).unwrap_or_else(|| "?".into()),
                // Only where a job resumed from it (or may have): then there is a replay to undo, and a
                // smaller statement for it.
                if v.jobs_already_resumed.is_empty() && v.jobs_maybe_resumed.is_empty() {
                    ""
                } else {
                    " That includes the rows of the jobs resumed from it: it answers \"resume from this savepoint\", not \"undo a replay\" — for the incident, run the replay finding's statement, which keeps the first resume."
                }
            ),
            (None, None) => format!("{alt}Never resume from this savepoint again."),
        },
        VerdictKind::RestorePointExpired => format!(
            "{alt}{}esume with the committer's state dropped (a new uid for the committer and --allowNonRestoredState): its source then restarts from the savepoint's position and the committer commits only new checkpoints.",
            if alt.is_empty() { "R" } else { "Or r" }
        ),
        VerdictKind::CommitterMismatch => format!("{alt}Check the sink's uid (FlinkSink uidPrefix, IcebergSink uidSuffix) against the job that wrote the table."),
        VerdictKind::Unknown => alt,
    };
    format!("{body}{uid}").trim().to_string()
}

/// A verdict's facts for a panel, label and value, only those that apply.
pub fn facts(v: &Verdict) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(j) = &v.job_id {
        out.push(("job", j.clone()));
    }
    if v.kind == VerdictKind::Replays {
        out.push(("rows in the table after it", format!("{}{}", if v.rows_estimated { "about " } else { "" }, count(v.rows_committed_after))));
        if let Some(w) = &v.resume_writes {
            out.push((
                "a resume writes again",
                format!(
                    "{}{}{} rows (copy {} of each)",
                    if w.at_least { "at least " } else { "" },
                    if w.estimated { "about " } else { "" },
                    count(w.rows),
                    w.copies_in_table.saturating_add(1)
                ),
            ));
        }
    }
    if !v.jobs_already_resumed.is_empty() {
        out.push(("already resumed from it by", v.jobs_already_resumed.join(", ")));
    }
    if let Some(p) = &v.safe_alternative {
        out.push(("safe alternative", p.clone()));
    }
    if let Some(id) = v.rollback_target_snapshot_id {
        out.push(("to resume from it again, roll back to", format!("snapshot {id}")));
    }
    out
}

/// The verdict's kind as JSON names it.
pub fn kind(v: &Verdict) -> &'static str {
    match v.kind {
        VerdictKind::Safe => "safe",
        VerdictKind::Replays => "replays",
        VerdictKind::RestorePointExpired => "restore_point_expired",
        VerdictKind::CommitterMismatch => "committer_mismatch",
        VerdictKind::Unknown => "unknown",
    }
}

pub(super) fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}
