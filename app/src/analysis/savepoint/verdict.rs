//! The verdict: the committer's job and operator looked up in the table's history the way
//! Iceberg's committer will look them up on restore, then what came after the savepoint.

use std::collections::{BTreeSet, HashMap};

use super::{Alternative, PendingGone, Removal, ReplayedJob, RestorePoint, ResumeWrites, SavepointRead, Tie, UnknownWhy, Verdict, VerdictKind};
use crate::analysis::findings::TableRef;
use crate::decode::flink_savepoint::committer::{CommitterState, SinkKind};
use crate::decode::SnapshotId;
use crate::model::flink::END_OF_INPUT_CHECKPOINT;
use crate::model::TableHistory;

/// A savepoint read beside the table, as a restore point: its committer's job id, its checkpoint.
#[derive(Debug, Clone)]
struct Origin {
    job_id: String,
    checkpoint_id: i64,
    path: String,
}

fn origins(reads: &[SavepointRead]) -> Vec<Origin> {
    reads
        .iter()
        .flat_map(|r| {
            r.committers.iter().filter_map(|c| Some(Origin { job_id: c.job_id.clone()?, checkpoint_id: r.metadata.checkpoint_id, path: r.path.clone() }))
        })
        .collect()
}

/// Verdicts for several savepoints, newest (highest checkpoint id) first, each with the newest
/// safe one among them as its alternative. Each is judged knowing the others: a job that one of
/// them would explain as well as another is tied to neither for certain.
pub fn verdicts(reads: &[SavepointRead], table: Option<(&TableHistory, &TableRef)>) -> Vec<(usize, Verdict)> {
    let all = origins(reads);
    let mut out: Vec<(usize, Verdict)> = reads.iter().enumerate().map(|(i, r)| (i, verdict_among(r, table, &all))).collect();
    out.sort_by(|a, b| b.1.checkpoint_id.cmp(&a.1.checkpoint_id).then(reads[a.0].path.cmp(&reads[b.0].path)));
    let safe = out.iter().find(|(_, v)| v.kind == VerdictKind::Safe).map(|(i, _)| reads[*i].path.clone());
    for (i, v) in &mut out {
        if v.kind != VerdictKind::Safe && safe.as_deref() != Some(reads[*i].path.as_str()) {
            v.safe_alternative = safe.clone();
        }
    }
    out
}

/// One savepoint judged alone (no other savepoint read beside it).
pub fn verdict(read: &SavepointRead, table: Option<(&TableHistory, &TableRef)>) -> Verdict {
    verdict_among(read, table, &origins(std::slice::from_ref(read)))
}

fn verdict_among(read: &SavepointRead, table: Option<(&TableHistory, &TableRef)>, origins: &[Origin]) -> Verdict {
    let meta = &read.metadata;
    let mut v = Verdict {
        kind: VerdictKind::Unknown,
        unknown_why: None,
        checkpoint_id: meta.checkpoint_id,
        job_id: None,
        operator_id: None,
        restore_point: None,
        recommitted_checkpoints: Vec::new(),
        replayed: Vec::new(),
        rows_committed_after: None,
        rows_estimated: false,
        resume_writes: None,
        jobs_already_resumed: Vec::new(),
        jobs_maybe_resumed: Vec::new(),
        safe_alternative: None,
        rollback_target_snapshot_id: None,
        rollback_removes: None,
        statement: None,
        rollback_fails: None,
        committer_operator_ids: read.committers.iter().map(|c| c.table_operator_id().unwrap_or(&c.operator_id).to_string()).collect(),
        table_operator_ids: Vec::new(),
        operators_without_uid: if meta.format_version >= 5 {
            meta.operators.iter().filter(|o| o.uid.is_none()).map(|o| o.operator_id.clone()).collect()
        } else {
            Vec::new()
        },
    };
    let Some((history, table_ref)) = table else {
        v.unknown_why = Some(UnknownWhy::NoTable);
        if let [c] = read.committers.as_slice() {
            v.job_id = c.job_id.clone();
            v.operator_id = c.table_operator_id().map(str::to_string);
        }
        return v;
    };
    let table_ops: BTreeSet<String> = history.snapshots.iter().filter_map(|s| s.flink.as_ref()?.operator_id.as_deref().map(str::to_string)).collect();
    v.table_operator_ids = table_ops.iter().cloned().collect();
    let has_flink = history.snapshots.iter().any(|s| s.flink.is_some());
    // The committer whose operator id the table's commits carry (any, when they carry none).
    let matching: Vec<&CommitterState> =
        read.committers.iter().filter(|c| table_ops.is_empty() || c.table_operator_id().is_some_and(|o| table_ops.contains(o))).collect();
    let committer = match matching.as_slice() {
        [c] => *c,
        _ if !has_flink && read.committers.len() == 1 => {
            v.unknown_why = Some(UnknownWhy::NoFlinkCommits);
            v.job_id = read.committers[0].job_id.clone();
            v.operator_id = read.committers[0].table_operator_id().map(str::to_string);
            return v;
        }
        _ => {
            v.kind = VerdictKind::CommitterMismatch;
            return v;
        }
    };
    let op = committer.table_operator_id().unwrap_or(&committer.operator_id).to_string();
    v.operator_id = Some(op.clone());
    v.job_id = committer.job_id.clone();
    let Some(job) = committer.job_id.as_deref() else {
        v.unknown_why = Some(UnknownWhy::NoJobId);
        return v;
    };
    let c = meta.checkpoint_id;
    let ancestry = ancestry(history);
    // What the restored committer finds: the newest ancestor by this job and operator with a checkpoint id.
    let restore = ancestry.iter().rev().copied().find(|&i| {
        history.snapshots[i].flink.as_ref().is_some_and(|f| &*f.job_id == job && f.operator_id.as_deref().is_none_or(|o| o == op) && f.checkpoint_id.is_some())
    });
    let Some(restore) = restore else {
        let expired =
            history.snapshots.iter().any(|s| s.snapshot.parent_snapshot_id.is_some_and(|p| !history.snapshots.iter().any(|t| t.snapshot.snapshot_id == p)));
        if expired {
            v.kind = VerdictKind::RestorePointExpired;
            // Iceberg then takes -1 as the job's last committed checkpoint: every checkpoint the state carries is committed again.
            v.recommitted_checkpoints = committer.pending_checkpoints.iter().map(|p| p.checkpoint_id).collect();
        } else {
            v.unknown_why = Some(UnknownWhy::JobNeverCommitted);
            v.recommitted_checkpoints = committer.pending_checkpoints.iter().map(|p| p.checkpoint_id).collect();
        }
        return v;
    };
    let m = history.snapshots[restore].flink.as_ref().and_then(|f| f.checkpoint_id).unwrap_or(-1);
    v.restore_point = Some(RestorePoint { snapshot_id: history.snapshots[restore].snapshot.snapshot_id, checkpoint_id: m });
    v.recommitted_checkpoints = committer.pending_checkpoints.iter().map(|p| p.checkpoint_id).filter(|&p| p > m).collect();
    // Commits after the savepoint: in the current snapshot's ancestry, this operator's commits
    // above the savepoint's checkpoint id, by its own job (it ran on) or by jobs after it.
    let pos = ancestry.iter().position(|&i| i == restore).unwrap_or(0);
    let first_after_savepoint_by_job =
        ancestry.iter().position(|&i| history.snapshots[i].flink.as_ref().is_some_and(|f| &*f.job_id == job && f.checkpoint_id.is_some_and(|k| k > c)));
    let start = first_after_savepoint_by_job.map_or(pos + 1, |p| p.min(pos + 1));
    let first_checkpoint_of = |job_id: &str| -> Option<i64> {
        ancestry
            .iter()
            .filter_map(|&i| history.snapshots[i].flink.as_ref())
            .filter(|f| &*f.job_id == job_id)
            .filter_map(|f| f.checkpoint_id)
            .filter(|&k| k != END_OF_INPUT_CHECKPOINT)
            .min()
    };
    let mut by_job: Vec<ReplayedJob> = Vec::new();
    let mut index_of: HashMap<String, usize> = HashMap::new();
    for &i in ancestry.iter().skip(start) {
        let Some(f) = history.snapshots[i].flink.as_ref() else { continue };
        // Another operator's commits count only from a job that restored this savepoint's
        // checkpoint counter (its first checkpoint is c + 1): the same pipeline with a new uid,
        // forced past the committer's state with --allowNonRestoredState. Any other is another writer.
        if f.operator_id.as_deref().is_some_and(|o| o != op) && first_checkpoint_of(&f.job_id) != Some(c + 1) {
            continue;
        }
        // A job that began at checkpoint 1 restored no state: another deployment (concurrent
        // writers say so), not a copy of this savepoint's stretch.
        if &*f.job_id != job && first_checkpoint_of(&f.job_id) == Some(1) {
            continue;
        }
        let Some(id) = f.checkpoint_id.filter(|&k| k > c) else { continue };
        let rows = added_records(history, i);
        let n = *index_of.entry(f.job_id.to_string()).or_insert_with(|| {
            by_job.push(ReplayedJob {
                job_id: f.job_id.to_string(),
                took_the_savepoint: &*f.job_id == job,
                commits: 0,
                first_checkpoint: None,
                last_checkpoint: None,
                end_of_input: false,
                rows: Some(0),
                resumed_from_it: false,
                tie: Tie::Other,
                estimated: false,
            });
            by_job.len() - 1
        });
        let r = &mut by_job[n];
        r.commits += 1;
        if id == END_OF_INPUT_CHECKPOINT {
            r.end_of_input = true;
        } else {
            r.first_checkpoint = Some(r.first_checkpoint.map_or(id, |x| x.min(id)));
            r.last_checkpoint = Some(r.last_checkpoint.map_or(id, |x| x.max(id)));
        }
        r.rows = match (r.rows, rows) {
            (Some(a), Some(b)) => a.checked_add(b),
            _ => None,
        };
    }
    // A savepoint taken while its job ran on holds its own checkpoint's files as pending: the job
    // committed them with its next checkpoint, so that commit's rows above c include rows from
    // before the savepoint's position (the properties say so: PostCheckpointAction NONE).
    // IcebergSink and the dynamic sink commit on the savepoint's own completion (a commit with
    // checkpoint c by its job): then nothing before the position rides in a later commit.
    let own_commit = ancestry.iter().any(|&i| history.snapshots[i].flink.as_ref().is_some_and(|f| &*f.job_id == job && f.checkpoint_id == Some(c)));
    let ran_on = !own_commit && meta.properties.as_ref().is_some_and(|p| p.savepoint && p.post_checkpoint_action.as_deref() == Some("NONE"));
    let sink = committer.sink;
    // Whether a job restored from checkpoint k of job J could first commit checkpoint f (see
    // `Tie`). FlinkSink reads J's last commit when the job restores, which the table does not
    // date: J may have committed on (two deployments at once) before the restored job's first
    // commit at `at`. So f is k + 1, or, through FlinkSink, one past a checkpoint above k that J
    // had committed by then.
    let committed_by = |origin_job: &str, at: usize, k: i64| {
        ancestry[..at]
            .iter()
            .filter_map(|&i| history.snapshots[i].flink.as_ref())
            .any(|f| &*f.job_id == origin_job && f.operator_id.as_deref().is_none_or(|o| o == op) && f.checkpoint_id == Some(k))
    };
    let starts = |origin_job: &str, k: i64, at: usize, f: i64| -> bool {
        let skipped = f.saturating_sub(1);
        skipped == k || (sink == SinkKind::FlinkSink && skipped > k && committed_by(origin_job, at, skipped))
    };
    let first_position = |job_id: &str| ancestry.iter().position(|&i| history.snapshots[i].flink.as_ref().is_some_and(|f| &*f.job_id == job_id));
    // Copies of the stretch after the savepoint: (jobs, last checkpoint) — the job that ran on and
    // each job resumed from it, with the jobs continuing their counters.
    let mut copies: Vec<(Vec<usize>, Option<i64>)> = Vec::new();
    for (n, r) in by_job.iter_mut().enumerate() {
        let first_ever = first_checkpoint_of(&r.job_id);
        let at = first_position(&r.job_id).unwrap_or(0);
        let continues = |copies: &[(Vec<usize>, Option<i64>)]| copies.iter().rposition(|(_, last)| last.is_some_and(|l| first_ever == l.checked_add(1)));
        let tie = if r.took_the_savepoint {
            Tie::TookIt
        } else if first_ever.is_none() && r.end_of_input {
            // It finished before its first checkpoint: only its end-of-input commit, no counter to read.
            Tie::Inferred { alternatives: Vec::new(), later_checkpoints_up_to: None, likely_checkpoint: None }
        } else if let Some(f) = first_ever.filter(|&f| starts(job, c, at, f)) {
            let alternatives: Vec<Alternative> = origins
                .iter()
                .filter(|o| o.path != read.path && starts(&o.job_id, o.checkpoint_id, at, f))
                .map(|o| Alternative { path: o.path.clone(), checkpoint_id: o.checkpoint_id })
                .collect();
            let skipped = f.saturating_sub(1);
            let later = (skipped > c).then_some(skipped);
            if alternatives.is_empty() && later.is_none() {
                // Through FlinkSink, had J committed c itself, a restore of an older checkpoint of J starts the same way.
                let older_same = sink == SinkKind::FlinkSink && committed_by(job, at, c);
                Tie::Resumed { same_from_checkpoints_up_to: older_same.then_some(c) }
            } else {
                Tie::Inferred { alternatives, later_checkpoints_up_to: later, likely_checkpoint: likely_restore(history, &ancestry, &r.job_id) }
            }
        } else if continues(&copies).is_some() {
            Tie::Continues
        } else {
            Tie::Other
        };
        // A job that may continue a copy joins it; one that may have been restored here starts one.
        match (&tie, continues(&copies)) {
            (Tie::Continues | Tie::Inferred { .. }, Some(k)) => {
                copies[k].0.push(n);
                copies[k].1 = copies[k].1.max(r.last_checkpoint);
            }
            (Tie::TookIt | Tie::Resumed { .. } | Tie::Inferred { .. }, _) => copies.push((vec![n], r.last_checkpoint)),
            _ => {}
        }
        r.resumed_from_it = matches!(tie, Tie::Resumed { .. });
        // A job of another lineage counts checkpoints that are not this savepoint's positions in
        // the source, and one that may have been restored from an earlier point wrote rows from
        // before this one's position: estimates.
        let earlier_origin = matches!(&tie, Tie::Inferred { alternatives, .. } if alternatives.is_empty() && r.end_of_input && r.first_checkpoint.is_none())
            || matches!(&tie, Tie::Inferred { alternatives, .. } if alternatives.iter().any(|a| a.checkpoint_id < c));
        r.estimated = matches!(tie, Tie::Other) || earlier_origin || (r.took_the_savepoint && ran_on);
        r.tie = tie;
    }
    if by_job.is_empty() {
        v.kind = VerdictKind::Safe;
        return v;
    }
    v.kind = VerdictKind::Replays;
    v.rows_committed_after = by_job.iter().try_fold(0u64, |a, r| a.checked_add(r.rows?));
    v.rows_estimated = by_job.iter().any(|r| r.estimated);
    v.jobs_already_resumed = by_job.iter().filter(|r| r.resumed_from_it).map(|r| r.job_id.clone()).collect();
    v.jobs_maybe_resumed = by_job.iter().filter(|r| matches!(r.tie, Tie::Inferred { .. })).map(|r| r.job_id.clone()).collect();
    v.resume_writes = resume_writes(&by_job, &copies);
    v.replayed = by_job;
    // Roll back to the savepoint's last commit: the newest ancestor by its job and operator at or
    // below its checkpoint id; every commit after that one goes.
    let last_of_savepoint = ancestry.iter().rev().copied().find(|&i| {
        history.snapshots[i]
            .flink
            .as_ref()
            .is_some_and(|f| &*f.job_id == job && f.operator_id.as_deref().is_none_or(|o| o == op) && f.checkpoint_id.is_some_and(|k| k <= c))
    });
    if let Some(i) = last_of_savepoint {
        // After the rollback the restored committer commits what its state holds above that
        // commit's checkpoint, from the temporary manifests the state names (IcebergFilesCommitter
        // initializeState → commitUpToCheckpoint → readCompletedFiles); a job that committed them
        // since deleted those manifests (deleteCommittedManifests), and the restore fails.
        let target_checkpoint = history.snapshots[i].flink.as_ref().and_then(|f| f.checkpoint_id).unwrap_or(-1);
        let pending = committer.pending_checkpoints.iter().map(|p| p.checkpoint_id).filter(|&p| p > target_checkpoint && p <= c).min();
        let committed_since = pending.and_then(|p| {
            ancestry.iter().copied().find_map(|k| {
                let f = history.snapshots[k].flink.as_ref()?;
                let ck = f.checkpoint_id.filter(|&ck| ck >= p && &*f.job_id == job && f.operator_id.as_deref().is_none_or(|o| o == op))?;
                Some(PendingGone { pending_checkpoint: p, committed_with_checkpoint: ck, committed_in_snapshot_id: history.snapshots[k].snapshot.snapshot_id })
            })
        });
        match committed_since {
            Some(gone) => v.rollback_fails = Some(gone),
            None => {
                let id = history.snapshots[i].snapshot.snapshot_id;
                v.rollback_target_snapshot_id = Some(id);
                v.rollback_removes = ancestry.iter().position(|&k| k == i).map(|p| removal(history, &ancestry[p + 1..]));
                v.statement = table_ref.statement("rollback_to_snapshot", Some(format!("snapshot_id => {id}")));
            }
        }
    }
    v
}

/// The checkpoint a job's first commit's size points to (see `Tie::Inferred`): needs three later
/// checkpoint commits to know its usual size.
fn likely_restore(history: &TableHistory, ancestry: &[usize], job_id: &str) -> Option<i64> {
    let commits: Vec<(i64, u64)> = ancestry
        .iter()
        .filter_map(|&i| {
            let f = history.snapshots[i].flink.as_ref().filter(|f| &*f.job_id == job_id)?;
            Some((f.checkpoint_id.filter(|&k| k != END_OF_INPUT_CHECKPOINT)?, added_records(history, i)?))
        })
        .collect();
    let (&(first, rows), rest) = commits.split_first()?;
    if rest.len() < 3 {
        return None;
    }
    let mut sizes: Vec<u64> = rest.iter().map(|c| c.1).collect();
    sizes.sort_unstable();
    let usual = sizes[sizes.len() / 2];
    if usual == 0 {
        return None;
    }
    // Rounded: a first commit within half a checkpoint's rows of the usual is one checkpoint.
    let checkpoints = i64::try_from(rows.saturating_add(usual / 2) / usual).ok()?.max(1);
    Some(first.saturating_sub(checkpoints))
}

/// The copy a resume repeats: the longest that reached the end of its input, else the longest.
fn resume_writes(by_job: &[ReplayedJob], copies: &[(Vec<usize>, Option<i64>)]) -> Option<ResumeWrites> {
    let measured: Vec<(Option<u64>, bool, bool, &Vec<usize>)> = copies
        .iter()
        .map(|(jobs, _)| {
            let rows = jobs.iter().try_fold(0u64, |a, &n| a.checked_add(by_job[n].rows?));
            // A copy tied by inference may not start at this savepoint's position.
            let unsure = jobs.iter().any(|&n| by_job[n].estimated || matches!(by_job[n].tie, Tie::Inferred { .. }));
            (rows, jobs.iter().any(|&n| by_job[n].end_of_input), unsure, jobs)
        })
        .collect();
    // The first of equal copies: the earliest resume, which the reader met first.
    let longest = |complete: bool| measured.iter().filter(|m| m.1 || !complete).rev().max_by_key(|m| m.0);
    let best = longest(true).or_else(|| longest(false))?;
    Some(ResumeWrites {
        rows: best.0,
        at_least: !best.1,
        estimated: best.2,
        copies_in_table: copies.len(),
        measured_from: best.3.iter().map(|&n| by_job[n].job_id.clone()).collect(),
    })
}

/// The commits at `after` (ancestry indexes, oldest first): what a rollback before them removes.
fn removal(history: &TableHistory, after: &[usize]) -> Removal {
    let mut jobs: Vec<(String, Option<u64>)> = Vec::new();
    let mut other_commits = 0;
    for &i in after {
        let rows = added_records(history, i);
        match history.snapshots[i].flink.as_ref() {
            Some(f) => match jobs.iter_mut().find(|(j, _)| **j == *f.job_id) {
                Some((_, n)) => *n = n.zip(rows).and_then(|(a, b)| a.checked_add(b)),
                None => jobs.push((f.job_id.to_string(), rows)),
            },
            None => other_commits += 1,
        }
    }
    Removal { commits: after.len(), rows: after.iter().try_fold(0u64, |a, &i| a.checked_add(added_records(history, i)?)), jobs, other_commits }
}

/// Indexes of the current snapshot's ancestors, oldest first (what a committer walks, newest first).
fn ancestry(history: &TableHistory) -> Vec<usize> {
    let by_id: HashMap<SnapshotId, usize> = history.snapshots.iter().enumerate().map(|(i, s)| (s.snapshot.snapshot_id, i)).collect();
    let mut out = Vec::new();
    let mut at = history.metadata.current_snapshot_id.and_then(|id| by_id.get(&id).copied());
    while let Some(i) = at {
        if out.len() > history.snapshots.len() {
            break; // a parent cycle in a hostile metadata file
        }
        out.push(i);
        at = history.snapshots[i].snapshot.parent_snapshot_id.and_then(|p| by_id.get(&p).copied());
    }
    out.reverse();
    out
}

fn added_records(history: &TableHistory, i: usize) -> Option<u64> {
    match history.snapshots[i].snapshot.summary.get("added-records") {
        None => Some(0),
        Some(v) => v.trim().parse().ok(),
    }
}
