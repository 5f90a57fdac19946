//! *Before you resume*: each savepoint's verdict as a sentence, what to do instead, and the rows
//! for JSON, the terminal and the ticket's Markdown. One function words each verdict; the surfaces
//! only differ in how text from the files (paths, ids) is escaped.

use serde::Serialize;

use super::text::{code, count, sql_block, text, thousands, visible};
use crate::analysis::findings::{Finding, FindingKind};
use crate::analysis::savepoint::{Judged, Removal, ReplayedJob, SavepointRead, Tie, UnknownWhy, Verdict, VerdictKind};
use crate::decode::flink_savepoint::committer::{PendingCheckpoint, SinkKind};
use crate::decode::flink_savepoint::properties::CheckpointProperties;
use crate::model::flink::END_OF_INPUT_CHECKPOINT;

/// The JSON contract: one row per savepoint, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavepointReport {
    /// The table the verdicts were taken against (its metadata file), when one was given.
    pub table: Option<String>,
    pub savepoints: Vec<Row>,
    /// Savepoints that could not be read, with the error naming file and field.
    pub unreadable: Vec<Unreadable>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unreadable {
    pub path: String,
    pub error: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub savepoint: SavepointJson,
    pub committer: Option<CommitterJson>,
    pub verdict: Verdict,
    /// The verdict in one sentence, and what to do.
    pub summary: String,
    pub advice: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavepointJson {
    pub path: String,
    pub checkpoint_id: i64,
    pub format_version: u32,
    /// What Flink's checkpoint properties say it was (format 4 and later).
    pub properties: Option<CheckpointProperties>,
    /// The same in words: "a savepoint taken by stop-with-savepoint, canonical format".
    pub taken_as: String,
    pub operators: Vec<OperatorJson>,
    pub gaps: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperatorJson {
    pub operator_id: String,
    pub uid: Option<String>,
    pub name: Option<String>,
    pub parallelism: i32,
    pub max_parallelism: i32,
    pub state_names: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitterJson {
    pub sink: SinkKind,
    /// The id the table's `flink.operator-id` carries for this committer.
    pub operator_id: Option<String>,
    /// The operator holding the state (FlinkSink: the same; sink v2: the `Committer` operator).
    pub state_operator_id: String,
    pub job_id: Option<String>,
    pub pending_checkpoints: Vec<PendingCheckpoint>,
}

/// The rows, in the order the verdicts come (newest first).
pub fn report(table: Option<&str>, reads: &[SavepointRead], verdicts: &[(usize, Verdict)], unreadable: Vec<Unreadable>) -> SavepointReport {
    let savepoints = verdicts
        .iter()
        .filter_map(|(i, v)| {
            let r = reads.get(*i)?;
            let m = &r.metadata;
            let matching = r.committers.iter().find(|c| c.table_operator_id() == v.operator_id.as_deref()).or(r.committers.first());
            Some(Row {
                savepoint: SavepointJson {
                    path: r.path.clone(),
                    checkpoint_id: m.checkpoint_id,
                    format_version: m.format_version,
                    properties: m.properties.clone(),
                    taken_as: taken_as(m.properties.as_ref()),
                    operators: m
                        .operators
                        .iter()
                        .map(|o| OperatorJson {
                            operator_id: o.operator_id.clone(),
                            uid: o.uid.clone(),
                            name: o.name.clone(),
                            parallelism: o.parallelism,
                            max_parallelism: o.max_parallelism,
                            state_names: o.state_names(),
                        })
                        .collect(),
                    gaps: m.gaps.clone(),
                },
                committer: matching.map(|c| CommitterJson {
                    sink: c.sink,
                    operator_id: c.table_operator_id().map(str::to_string),
                    state_operator_id: c.operator_id.clone(),
                    job_id: c.job_id.clone(),
                    pending_checkpoints: c.pending_checkpoints.clone(),
                }),
                summary: summary(v, &|s| s.to_string()),
                advice: advice(v, &|s| s.to_string()),
                verdict: v.clone(),
            })
        })
        .collect();
    SavepointReport { table: table.map(str::to_string), savepoints, unreadable }
}

/// The rows of savepoints a session judged against the table read from `table` (its metadata file).
pub fn of(j: &Judged, table: Option<&str>) -> SavepointReport {
    let unreadable = j.savepoints.unreadable.iter().map(|(path, error)| Unreadable { path: path.clone(), error: error.clone() }).collect();
    report(table, &j.savepoints.reads, &j.verdicts, unreadable)
}

/// What a savepoint's or checkpoint's properties say it was; empty where they were not read.
pub fn taken_as(p: Option<&CheckpointProperties>) -> String {
    let Some(p) = p else { return String::new() };
    let lower = |s: &Option<String>| s.as_deref().map(str::to_lowercase);
    if p.savepoint {
        let how = match p.post_checkpoint_action.as_deref() {
            Some("SUSPEND") => "by stop-with-savepoint",
            Some("TERMINATE") => "by stop-with-savepoint --drain",
            Some("NONE") => "while the job ran on",
            _ => "",
        };
        let format = lower(&p.format_type).map(|f| format!(", {f} format")).unwrap_or_default();
        format!("a savepoint{}{format}", if how.is_empty() { String::new() } else { format!(" taken {how}") })
    } else {
        let name = p.type_name.as_deref().filter(|n| *n != "Checkpoint").map(|n| format!(" ({})", n.to_lowercase())).unwrap_or_default();
        format!("a retained checkpoint{name}")
    }
}

fn short(job: &str) -> String {
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

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// For a terminal: one block per savepoint, newest first.
pub fn text_report(r: &SavepointReport) -> String {
    let mut out = String::new();
    if let Some(t) = &r.table {
        out.push_str(&format!("Table: {}\n\n", visible(t)));
    }
    for row in &r.savepoints {
        let v = &row.verdict;
        out.push_str(&format!("{}  checkpoint {}  {}\n", kind(v).to_uppercase(), v.checkpoint_id, visible(&row.savepoint.path)));
        if !row.savepoint.taken_as.is_empty() {
            out.push_str(&format!("  {}\n", upper_first(&row.savepoint.taken_as)));
        }
        out.push_str(&format!("  {}\n", summary(v, &|s| visible(s))));
        let a = advice(v, &|s| visible(s));
        if !a.is_empty() {
            out.push_str(&format!("  {a}\n"));
        }
        if let Some(s) = &v.statement {
            out.push_str(&format!("  only to resume from it again: {}\n", s.sql()));
        }
        out.push('\n');
    }
    for u in &r.unreadable {
        out.push_str(&format!("UNREADABLE  {}\n  {}\n\n", visible(&u.path), visible(&u.error)));
    }
    out
}

/// For the ticket: a table of the savepoints, then each verdict with its statement.
pub fn markdown(r: &SavepointReport) -> String {
    markdown_at(r, None, "##", &[])
}

/// The same as a section of the table's ticket (`report::markdown`), its statements naming the
/// catalog typed, each savepoint saying which of the ticket's findings it stands behind.
pub fn section(r: &SavepointReport, catalog: &str, findings: &[Finding]) -> String {
    markdown_at(r, Some(catalog), "###", findings)
}

/// The replay findings a savepoint stands behind: a job resumed from it is the one a finding
/// names as having replayed. Its statement, not the savepoint's, answers that incident.
pub fn behind<'a>(v: &Verdict, findings: &'a [Finding]) -> Vec<&'a Finding> {
    findings.iter().filter(|f| f.kind == FindingKind::SavepointReplayed && f.job_ids.first().is_some_and(|j| v.jobs_already_resumed.contains(j))).collect()
}

/// "It stands behind the finding …": one sentence per savepoint that is behind a finding.
pub fn behind_sentence(v: &Verdict, findings: &[Finding], esc: &dyn Fn(&str) -> String) -> Option<String> {
    let fs = behind(v, findings);
    let first = fs.first()?;
    let titles = fs.iter().map(|f| format!("\u{201c}{}\u{201d}", esc(&f.title))).collect::<Vec<_>>().join(", ");
    Some(format!(
        "This is the savepoint behind the finding {titles}: job {} resumed from it. That finding's statement{} is the one for the incident; {}",
        esc(&short(first.job_ids.first().map(String::as_str).unwrap_or("?"))),
        if first.statement.is_some() { " (recommended, above)" } else { "" },
        if v.statement.is_some() {
            "the statement here answers another question, resuming from this savepoint again, and removes more."
        } else {
            "nothing here replaces it."
        }
    ))
}

fn markdown_at(r: &SavepointReport, catalog: Option<&str>, h: &str, findings: &[Finding]) -> String {
    let mut out = format!("{h} Before you resume\n\n");
    if let Some(t) = &r.table {
        out.push_str(&format!("Against the table read from {}.\n\n", code(t)));
    }
    out.push_str("| savepoint | checkpoint | job | verdict | rows in the table after it | a resume writes again |\n|---|---:|---|---|---:|---:|\n");
    for row in &r.savepoints {
        let v = &row.verdict;
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            text(&row.savepoint.path),
            v.checkpoint_id,
            v.job_id.as_deref().map(|j| text(&short(j))).unwrap_or_default(),
            kind(v),
            if v.kind == VerdictKind::Replays {
                format!("{}{}", if v.rows_estimated { "about " } else { "" }, count(v.rows_committed_after))
            } else {
                String::new()
            },
            v.resume_writes
                .as_ref()
                .map(|w| format!("{}{}{}", if w.at_least { "at least " } else { "" }, if w.estimated { "about " } else { "" }, count(w.rows)))
                .unwrap_or_default()
        ));
    }
    for row in &r.savepoints {
        let v = &row.verdict;
        out.push_str(&format!("\n{h}# {} (checkpoint {})\n\n", text(&row.savepoint.path), v.checkpoint_id));
        if !row.savepoint.taken_as.is_empty() {
            out.push_str(&format!("{}.\n\n", upper_first(&row.savepoint.taken_as)));
        }
        if let Some(b) = behind_sentence(v, findings, &|s| text(s)) {
            out.push_str(&format!("**{b}**\n\n"));
        }
        out.push_str(&format!("{}\n", summary(v, &|s| text(s))));
        let a = advice(v, &|s| text(s));
        if !a.is_empty() {
            out.push_str(&format!("\n{a}\n"));
        }
        if let Some(s) = &v.statement {
            out.push_str("\nOnly to resume from this savepoint again:\n\n");
            out.push_str(&sql_block(&s.sql_for(catalog)));
        }
    }
    for u in &r.unreadable {
        out.push_str(&format!("\n{h}# {} could not be read\n\n{}\n", text(&u.path), text(&u.error)));
    }
    out
}
