//! Before you resume: what resuming a Flink job from a savepoint (or retained checkpoint) will do
//! to the Iceberg table, from the committer's state in the savepoint and the table's snapshots.
//! Pure: the savepoint is decoded and the table read before this runs.

mod verdict;

use serde::Serialize;

use crate::analysis::statement::Statement;
use crate::decode::flink_savepoint::committer::CommitterState;
use crate::decode::flink_savepoint::CheckpointMetadata;
use crate::decode::SnapshotId;

pub use verdict::{verdict, verdicts};

/// One savepoint as read: where, what it holds, the committer found in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavepointRead {
    pub path: String,
    pub metadata: CheckpointMetadata,
    /// Every Iceberg committer found by state name, decoded (usually one).
    pub committers: Vec<CommitterState>,
}

/// Savepoints read beside a table, and those that could not be (path, why): what a session keeps
/// to judge against whichever version of the table is open.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Savepoints {
    pub reads: Vec<SavepointRead>,
    pub unreadable: Vec<(String, String)>,
}

/// Those savepoints judged against one version of the table, newest first (`verdicts`).
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub savepoints: std::sync::Arc<Savepoints>,
    pub verdicts: Vec<(usize, Verdict)>,
}

pub fn judge(savepoints: std::sync::Arc<Savepoints>, table: Option<(&crate::model::TableHistory, &crate::analysis::findings::TableRef)>) -> Judged {
    let verdicts = verdicts(&savepoints.reads, table);
    Judged { savepoints, verdicts }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// Nothing reached the table after the savepoint's checkpoint.
    Safe,
    /// The table already holds commits made after it: resuming writes their rows again.
    Replays,
    /// The snapshot that tells the committer what its job committed is gone from the table.
    RestorePointExpired,
    /// No operator, or more than one, holds an Iceberg committer with the table's operator id.
    CommitterMismatch,
    Unknown,
}

/// Why a verdict is `unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnknownWhy {
    NoTable,
    /// The table holds no commit by any Flink job.
    NoFlinkCommits,
    /// The committer's state names no job id.
    NoJobId,
    /// The table never held a commit by the savepoint's job, and shows no expired snapshots.
    JobNeverCommitted,
}

/// The table's snapshot that tells a restored committer what its job already committed
/// (Iceberg's `SinkUtil.getMaxCommittedCheckpointId`: the newest ancestor of the current snapshot
/// with the job's `flink.job-id` and operator id).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RestorePoint {
    pub snapshot_id: SnapshotId,
    pub checkpoint_id: i64,
}

/// A pending checkpoint of the savepoint's committer state that its job committed later.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingGone {
    pub pending_checkpoint: i64,
    /// The job's commit whose checkpoint took that pending checkpoint's files.
    pub committed_with_checkpoint: i64,
    pub committed_in_snapshot_id: SnapshotId,
}

/// A job whose commits after the savepoint are in the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayedJob {
    pub job_id: String,
    /// The job that took the savepoint (it ran on), rather than one resumed later.
    pub took_the_savepoint: bool,
    pub commits: usize,
    pub first_checkpoint: Option<i64>,
    pub last_checkpoint: Option<i64>,
    pub end_of_input: bool,
    /// Sum of those commits' `added-records`; None when a summary does not say.
    pub rows: Option<u64>,
    /// How the table shows it resumed from this savepoint: its first checkpoint id follows the
    /// savepoint's directly (Flink continues the restored counter).
    pub resumed_from_it: bool,
    /// Its checkpoint ids are not this savepoint's (it resumed from an earlier one): the rows
    /// counted above the savepoint's checkpoint id are an estimate.
    pub estimated: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub kind: VerdictKind,
    pub unknown_why: Option<UnknownWhy>,
    /// The savepoint's checkpoint id.
    pub checkpoint_id: i64,
    pub job_id: Option<String>,
    pub operator_id: Option<String>,
    pub restore_point: Option<RestorePoint>,
    /// Checkpoints the state carries above the restore point: the restored committer commits
    /// them (again, if they were committed before the restore point expired).
    pub recommitted_checkpoints: Vec<i64>,
    pub replayed: Vec<ReplayedJob>,
    pub rows_replayed: Option<u64>,
    /// Some job's rows are an estimate (see `ReplayedJob::estimated`).
    pub rows_estimated: bool,
    pub jobs_already_resumed: Vec<String>,
    /// The newest savepoint among those read whose verdict is `safe`.
    pub safe_alternative: Option<String>,
    pub rollback_target_snapshot_id: Option<SnapshotId>,
    pub statement: Option<Statement>,
    /// Why no rollback is offered: the savepoint's committer state carries a checkpoint above its
    /// job's last commit at or below the savepoint, and that job committed it since (its files
    /// with a later checkpoint) and deleted the temporary manifests the state points to.
    pub rollback_fails: Option<PendingGone>,
    /// For a mismatch: the committers' operator ids, and the table's.
    pub committer_operator_ids: Vec<String>,
    pub table_operator_ids: Vec<String>,
    /// Operators whose uid the savepoint does not carry (format 5 and later): their ids are
    /// Flink's hash of the job graph, so a job that adds uids cannot restore their state.
    pub operators_without_uid: Vec<String>,
}

/// Decodes one `_metadata` and every Iceberg committer in it. `read_file` returns a state file's
/// bytes (or why not): the caller owns the policy of which files may be opened.
pub fn read(
    path: &str,
    bytes: &[u8],
    read_file: &mut dyn FnMut(&crate::decode::flink_savepoint::StreamHandle) -> Result<Vec<u8>, crate::decode::DecodeError>,
) -> Result<SavepointRead, crate::decode::DecodeError> {
    use crate::decode::flink_savepoint::{committer, decode_checkpoint_metadata};
    let metadata = decode_checkpoint_metadata(path, bytes)?;
    let committers =
        committer::find_committers(&metadata).iter().map(|c| committer::decode_committer(path, &metadata, c, read_file)).collect::<Result<Vec<_>, _>>()?;
    Ok(SavepointRead { path: path.to_string(), metadata, committers })
}
