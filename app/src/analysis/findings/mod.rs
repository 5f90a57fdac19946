//! Findings: what the table shows, what to do, and the exact statement to run. Each rule is a
//! pure function of the history; the runbook wording follows the chapter the project grew from.

mod checkpoints;
pub use checkpoints::{CheckpointGaps, EndOfInput, EndOfInputCommit, IdRange, Pause};
mod facts;
pub use facts::{Bounded, Facts};
mod kind;
pub use kind::FindingKind;
mod deletes;
pub use deletes::DeleteDebt;
mod files;
pub use files::SmallFiles;
mod late;
pub(crate) use late::arrived_late;
pub use late::{LateOneRowFiles, NoStatement};
mod manifests;
pub use manifests::{ManifestsMergePending, ManifestsNeverMerged, NotMerging};
mod metadata;
pub use metadata::{
    newest_metadata_unreadable, CurrentSnapshotUnknown, DuplicateSnapshotIds, ListedTwice, ManifestLengthMismatch, NewestMetadataUnreadable, Standing,
};
mod properties;
pub use properties::{PropertyNotRead, UnreadProperty};
mod replay;
pub use replay::{Before, Repeat, Replay, ReplayedJob, ReplayingJob, RestorePoint, SavepointReplayed};
mod resumes;
pub use resumes::{JobResumed, Resume};
mod writers;
pub use writers::{ConcurrentWriters, JobWrites, RestoredWorkCommittedLate};
mod retention;
pub use retention::{RestorePointExpiry, Retention};
mod schema;
pub use schema::{Column, ColumnNameReused, SchemaAt, SchemaUnderRunningWriter};

use serde::Serialize;

use crate::decode::SnapshotId;
use crate::model::TableHistory;

use super::jobs::{job_spans, JobSpan};
pub use super::statement::Statement;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Severity {
    /// The badge a report prints: the serious ones in capitals.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Critical => "CRITICAL",
            Severity::Warning => "WARNING",
            Severity::Info => "info",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// What it is about; its stable machine name, e.g. `savepoint_replayed`, is `kind.as_str()`.
    pub kind: FindingKind,
    pub severity: Severity,
    pub title: String,
    pub snapshot_ids: Vec<SnapshotId>,
    pub job_ids: Vec<String>,
    /// What the table shows, with numbers and snapshot ids.
    pub evidence: String,
    /// What to do (the runbook row).
    pub action: String,
    /// The exact statement to run, when there is one.
    pub statement: Option<Statement>,
    /// What was found, typed: `report::findings::word` makes `title`, `evidence` and `action` of it.
    pub facts: Facts,
}

impl Finding {
    /// A finding as a rule makes it: its facts, what it is about and the statement; the words are
    /// report's to add (`report::findings::word`).
    pub fn new(
        kind: FindingKind,
        severity: Severity,
        facts: Facts,
        snapshot_ids: Vec<SnapshotId>,
        job_ids: Vec<String>,
        statement: Option<Statement>,
    ) -> Finding {
        Finding { kind, facts, severity, title: String::new(), snapshot_ids, job_ids, evidence: String::new(), action: String::new(), statement }
    }
}

/// How statements name the table: Spark's catalog name and the table identifier.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRef {
    pub catalog: String,
    pub table: String,
}

impl TableRef {
    /// `s3://bucket/wh/db/events` → `db.events`; the catalog is the user's to name.
    pub fn guess(history: &TableHistory, catalog: Option<&str>) -> TableRef {
        let parts = crate::source::resolve::table_names(&history.metadata.location);
        let table = match parts.as_slice() {
            [] => "db.table".to_string(),
            [t] => t.to_string(),
            [ns, t, ..] => format!("{}.{}", ns.trim_end_matches(".db"), t),
        };
        TableRef { catalog: catalog.unwrap_or(super::statement::PLACEHOLDER).to_string(), table }
    }

    /// The table as a procedure's `table` argument: a string literal holding the quoted name, or
    /// None (with the reason from `refusal`) when the name cannot be made safe.
    pub fn literal(&self) -> Option<String> {
        crate::analysis::sql::string(&crate::analysis::sql::multipart(&self.table.split('.').collect::<Vec<_>>())?)
    }

    /// Why no statement is printed for this table, if none is.
    pub fn refusal(&self) -> Option<String> {
        self.literal().is_none().then(|| crate::analysis::sql::refusal(&self.table).unwrap_or_else(|| "it has an empty part".into()))
    }

    /// `CALL <catalog>.system.procedure(args);` — `<catalog>` stays for the reader to fill in, any
    /// other catalog name is quoted; `args` must be built from `sql` literals.
    pub fn call(&self, procedure: &'static str, args: &str) -> Statement {
        Statement::call(&self.catalog, procedure, args.to_string())
    }

    /// `ALTER TABLE <catalog>.db.t <clause>;`, or None when the table's name cannot be made safe;
    /// `clause` must be built from `sql` literals.
    pub(crate) fn alter(&self, clause: &str) -> Option<Statement> {
        let table = crate::analysis::sql::multipart(&self.table.split('.').collect::<Vec<_>>())?;
        Some(Statement::alter(&self.catalog, table, clause.to_string()))
    }

    /// How statements and reports name the table: `catalog.db.table`, the catalog as statements print it.
    pub fn qualified(&self) -> String {
        format!("{}.{}", super::statement::catalog_part(&self.catalog), self.table)
    }

    /// A statement with named arguments (Spark does not mix them with positional ones), the table
    /// first; None when a value cannot be made safe.
    pub(crate) fn statement(&self, procedure: &'static str, rest: Option<String>) -> Option<Statement> {
        let table = self.literal()?;
        let rest = rest?;
        Some(self.call(procedure, &if rest.is_empty() { format!("table => {table}") } else { format!("table => {table}, {rest}") }))
    }
}

/// Everything a rule may read, computed once.
pub(crate) struct Context<'a> {
    pub history: &'a TableHistory,
    pub jobs: &'a [JobSpan],
    pub table: &'a TableRef,
}

impl Context<'_> {
    pub fn id(&self, index: usize) -> SnapshotId {
        self.history.snapshots[index].snapshot.snapshot_id
    }

    /// Files that hold part of snapshot `index` but could not be read: a finding that counts its
    /// files counts only the rest, and must say so.
    pub fn unread(&self, index: usize) -> usize {
        let id = self.id(index);
        self.history.gaps().iter().filter(|g| g.snapshot_ids.contains(&id)).count()
    }

    /// Whether a Flink sink wrote any of the table: wording in checkpoints is for streaming
    /// tables only (a table only Spark batches wrote has no checkpoints).
    pub fn streaming(&self) -> bool {
        !self.jobs.is_empty()
    }
}

/// All findings, most severe first, in a stable order.
pub fn findings(history: &TableHistory, table: &TableRef) -> Vec<Finding> {
    findings_with(history, table, &job_spans(history))
}

/// As `findings`, with the history's job spans (`job_spans`) already at hand.
pub fn findings_with(history: &TableHistory, table: &TableRef, jobs: &[JobSpan]) -> Vec<Finding> {
    let cx = Context { history, jobs, table };
    let mut out = Vec::new();
    out.extend(metadata::duplicate_snapshot_ids(&cx));
    out.extend(metadata::current_snapshot_unknown(&cx));
    out.extend(metadata::manifest_length_mismatch(&cx));
    out.extend(replay::savepoint_replays(&cx));
    out.extend(writers::concurrent_writers(&cx));
    out.extend(resumes::resumes(&cx));
    out.extend(checkpoints::end_of_input(&cx));
    out.extend(checkpoints::gaps(&cx));
    out.extend(retention::restore_point_expiry(&cx));
    // Counted from the current snapshot's files: nothing until they are all read, not a part.
    let files_read = history.current_files_wait().is_none();
    if files_read {
        out.extend(late::late_one_row_files(&cx));
    }
    out.extend(manifests::never_merged(&cx));
    out.extend(properties::not_read(&cx));
    if files_read {
        out.extend(files::small_files(&cx));
    }
    out.extend(deletes::delete_debt(&cx));
    out.extend(schema::stale_writer_schema(&cx));
    out.extend(schema::name_reused(&cx));
    out.extend(retention::retention(&cx));
    out.sort_by_key(|f| std::cmp::Reverse(f.severity));
    out
}

/// Findings of one kind over pairs of jobs, over jobs or over checkpoint holes are listed one by
/// one up to this many; one more finding of the kind counts the rest. A table with 2,000 job ids
/// must give a report a person can read, in time and memory proportional to the table.
pub const CAP: usize = 10;
