//! The verdict: the committer's job and operator looked up in the table's history the way
//! Iceberg's committer will look them up on restore, then what came after the savepoint.

use std::collections::{BTreeSet, HashMap};

use super::{PendingGone, ReplayedJob, RestorePoint, SavepointRead, UnknownWhy, Verdict, VerdictKind};
use crate::analysis::findings::TableRef;
use crate::decode::flink_savepoint::committer::CommitterState;
use crate::decode::SnapshotId;
use crate::model::flink::END_OF_INPUT_CHECKPOINT;
use crate::model::TableHistory;

/// Verdicts for several savepoints, newest (highest checkpoint id) first, each with the newest
/// safe one among them as its alternative.
pub fn verdicts(reads: &[SavepointRead], table: Option<(&TableHistory, &TableRef)>) -> Vec<(usize, Verdict)> {
    let mut out: Vec<(usize, Verdict)> = reads.iter().enumerate().map(|(i, r)| (i, verdict(r, table))).collect();
    out.sort_by(|a, b| b.1.checkpoint_id.cmp(&a.1.checkpoint_id).then(reads[a.0].path.cmp(&reads[b.0].path)));
    let safe = out.iter().find(|(_, v)| v.kind == VerdictKind::Safe).map(|(i, _)| reads[*i].path.clone());
    for (i, v) in &mut out {
        if v.kind != VerdictKind::Safe && safe.as_deref() != Some(reads[*i].path.as_str()) {
            v.safe_alternative = safe.clone();
        }
    }
    out
}

pub fn verdict(read: &SavepointRead, table: Option<(&TableHistory, &TableRef)>) -> Verdict {
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
        rows_replayed: None,
        rows_estimated: false,
        jobs_already_resumed: Vec::new(),
        safe_alternative: None,
        rollback_target_snapshot_id: None,
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
    let ran_on = meta.properties.as_ref().is_some_and(|p| p.savepoint && p.post_checkpoint_action.as_deref() == Some("NONE"));
    // The last checkpoint committed by this savepoint's lineage so far: its job, and jobs resumed
    // from it or from a later savepoint of the lineage (which continue the counter).
    let mut lineage_last: Option<i64> = None;
    for r in &mut by_job {
        // Flink continues a restored checkpoint counter: a job restored from checkpoint c commits
        // c + 1 first (or only its end-of-input commit, when it finished before its first checkpoint).
        let first_ever = first_checkpoint_of(&r.job_id);
        r.resumed_from_it = !r.took_the_savepoint && (first_ever == Some(c + 1) || (first_ever.is_none() && r.end_of_input));
        let continues = lineage_last.is_some_and(|l| first_ever == l.checked_add(1));
        // A job of another lineage (resumed from an earlier savepoint) counts checkpoints that are
        // not this savepoint's positions in the source: its rows above c are an estimate.
        r.estimated = (!r.took_the_savepoint && !r.resumed_from_it && !continues) || (r.took_the_savepoint && ran_on);
        if r.took_the_savepoint || r.resumed_from_it || continues {
            lineage_last = lineage_last.max(r.last_checkpoint);
        }
    }
    if by_job.is_empty() {
        v.kind = VerdictKind::Safe;
        return v;
    }
    v.kind = VerdictKind::Replays;
    v.rows_replayed = by_job.iter().try_fold(0u64, |a, r| a.checked_add(r.rows?));
    v.rows_estimated = by_job.iter().any(|r| r.estimated);
    v.jobs_already_resumed = by_job.iter().filter(|r| r.resumed_from_it).map(|r| r.job_id.clone()).collect();
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
                v.statement = table_ref.statement("rollback_to_snapshot", Some(format!("snapshot_id => {id}")));
            }
        }
    }
    v
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
