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
    /// The table shows it resumed from this savepoint and from no other restore point read
    /// (`tie`: `resumed`); one that may have is `tie`: `inferred`, and false here.
    pub resumed_from_it: bool,
    /// How the table ties the job to this savepoint, and how sure that is.
    pub tie: Tie,
    /// Its checkpoint ids are not this savepoint's (it resumed from an earlier one): the rows
    /// counted above the savepoint's checkpoint id are an estimate.
    pub estimated: bool,
}

/// How the table ties a job that committed after the savepoint to it. Flink continues a restored
/// checkpoint counter, and the committers skip what the table already holds: FlinkSink's
/// `IcebergFilesCommitter` every checkpoint at or below the restored job id's last commit
/// (`SinkUtil.getMaxCommittedCheckpointId` in `initializeState`), IcebergSink's and the dynamic
/// sink's committers only checkpoints of the committable's own (new) job id. So a job restored from
/// checkpoint k of job J first commits k + 1, or, through FlinkSink, max(k, J's last commit) + 1.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "how")]
pub enum Tie {
    /// The job that took the savepoint, running on past it.
    TookIt,
    /// Its first commit is the one a restore of this savepoint makes, and of the savepoints read
    /// beside the table no other would make it.
    Resumed {
        /// FlinkSink only: a retained checkpoint of the savepoint's job at or below this id (not
        /// read here) would make the same first commit. None where the sink decides it alone.
        same_from_checkpoints_up_to: Option<i64>,
    },
    /// Its first commit is the one a restore of this savepoint makes, and also the one other
    /// restore points make: the table cannot tell which it was restored from. Not counted as
    /// resumed from it; the JobManager's restore record or the rows' key ranges decide.
    Inferred {
        /// Other savepoints read beside the table that would start it the same way.
        alternatives: Vec<Alternative>,
        /// FlinkSink: the savepoint's job committed past it, up to this checkpoint, before this job
        /// started, so any later savepoint or checkpoint of that job up to it would too.
        later_checkpoints_up_to: Option<i64>,
        /// Where its first commit's size points: FlinkSink commits the skipped checkpoints' files
        /// with the first one it commits, so a first commit N times the job's usual size started
        /// about N − 1 checkpoints before it. An estimate from rows, never proof.
        likely_checkpoint: Option<i64>,
    },
    /// It continues the counter of a job of this savepoint's lineage (resumed from that job's own
    /// later savepoint or checkpoint).
    Continues,
    /// Another lineage: its checkpoint ids are not this savepoint's positions in the source.
    Other,
}

/// Another restore point that explains a job as well as this savepoint does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Alternative {
    pub path: String,
    pub checkpoint_id: i64,
}

/// What the rollback the verdict offers would take out of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Removal {
    /// Commits after the target in the current snapshot's ancestry.
    pub commits: usize,
    /// Their `added-records`; None when a summary does not say.
    pub rows: Option<u64>,
    /// The Flink jobs among them, in commit order, with the rows each added.
    pub jobs: Vec<(String, Option<u64>)>,
    /// Commits by no Flink job (maintenance, other engines).
    pub other_commits: usize,
}

/// What a resume from the savepoint writes: its source read again from the savepoint's position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResumeWrites {
    /// The rows the table shows written from that position on, by the longest copy of the stretch
    /// (the job that ran on past the savepoint, or a job resumed from it, with their successors).
    pub rows: Option<u64>,
    /// No copy reached the end of its input: the source has at least these rows after the
    /// position, and a resume writes whatever else it holds by then too.
    pub at_least: bool,
    /// The copy measured is tied to this savepoint by inference, or holds rows from before its
    /// position (a savepoint taken while the job ran on): the number is an estimate.
    pub estimated: bool,
    /// How many copies of those rows the table already holds: the resume writes one more.
    pub copies_in_table: usize,
    /// The jobs of the copy measured.
    pub measured_from: Vec<String>,
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
    /// Rows already in the table that were committed after the savepoint's checkpoint: the sum
    /// over `replayed`, every copy of the stretch counted (not what a resume writes: `resume_writes`).
    pub rows_committed_after: Option<u64>,
    /// Some job's rows are an estimate (see `ReplayedJob::estimated`).
    pub rows_estimated: bool,
    /// What a resume from it would write, and how many copies of it the table already holds.
    pub resume_writes: Option<ResumeWrites>,
    /// Jobs the table shows resumed from it (`Tie::Resumed`).
    pub jobs_already_resumed: Vec<String>,
    /// Jobs that may have resumed from it or from another restore point (`Tie::Inferred`).
    pub jobs_maybe_resumed: Vec<String>,
    /// The newest savepoint among those read whose verdict is `safe`.
    pub safe_alternative: Option<String>,
    pub rollback_target_snapshot_id: Option<SnapshotId>,
    /// What that rollback removes: it answers "resume from this savepoint again", not "undo a
    /// replay" (the replay finding's rollback keeps the first resume).
    pub rollback_removes: Option<Removal>,
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
/// bytes (or why not): the caller owns the policy of which files may be opened, and holds each
/// file once however many handles name it.
pub fn read<'f>(
    path: &str,
    bytes: &[u8],
    read_file: &mut dyn FnMut(&crate::decode::flink_savepoint::StreamHandle) -> Result<&'f [u8], crate::decode::DecodeError>,
) -> Result<SavepointRead, crate::decode::DecodeError> {
    use crate::decode::flink_savepoint::{committer, decode_checkpoint_metadata};
    let metadata = decode_checkpoint_metadata(path, bytes)?;
    let committers =
        committer::find_committers(&metadata).iter().map(|c| committer::decode_committer(path, &metadata, c, read_file)).collect::<Result<Vec<_>, _>>()?;
    Ok(SavepointRead { path: path.to_string(), metadata, committers })
}

/// The state files the committers of a decoded `_metadata` read (as often as handles name them).
pub fn state_files_named(metadata: &crate::decode::flink_savepoint::CheckpointMetadata) -> Vec<&crate::decode::flink_savepoint::StreamHandle> {
    use crate::decode::flink_savepoint::committer;
    committer::find_committers(metadata).iter().flat_map(|c| committer::files_named(metadata, c)).collect()
}
