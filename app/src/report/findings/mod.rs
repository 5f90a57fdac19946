//! Every finding's words: its title, what the table shows and what to do, made from the typed
//! facts analysis found (`analysis::findings::Facts`), once for the JSON, the text, the Markdown,
//! the app and the live events. Findings leave for a reader only through here (`word_all`).

mod checkpoints;
mod deletes;
mod files;
mod footers;
mod late;
mod manifests;
mod metadata;
mod orphans;
mod properties;
mod replay;
mod retention;
mod schema;

use crate::analysis::findings::{Facts, Finding, TableRef};
use crate::analysis::footers::FooterReport;
use crate::analysis::inspect::Inspect;
use crate::analysis::jobs::JobSpan;
use crate::analysis::orphans::OrphanReport;
use crate::decode::SnapshotId;
use crate::model::footers::{FileFooter, PuffinFileFooter};
use crate::model::TableHistory;

/// A finding's three texts.
pub(crate) struct Words {
    pub title: String,
    pub evidence: String,
    pub action: String,
}

/// Makes `f`'s title, evidence and action from its facts. Idempotent: the words are made afresh
/// each time.
pub fn word(f: &mut Finding, table: &TableRef) {
    let words = match &f.facts {
        Facts::DuplicateSnapshotIds(x) => metadata::duplicate_snapshot_ids(x),
        Facts::CurrentSnapshotUnknown(x) => metadata::current_snapshot_unknown(x),
        Facts::ManifestLengthMismatch(x) => metadata::manifest_length_mismatch(x),
        Facts::NewestMetadataUnreadable(x) => metadata::newest_metadata_unreadable(x),
        Facts::SmallFiles(x) => files::small_files(x),
        Facts::PropertyNotRead(x) => properties::not_read(x),
        Facts::DeleteDebt(x) => deletes::delete_debt(x),
        Facts::Retention(x) => retention::retention(x),
        Facts::LateOneRowFiles(x) => late::late_one_row_files(x),
        Facts::RestoredWorkCommittedLate(x) => replay::restored_work_committed_late(x),
        Facts::ConcurrentWriters(x) => replay::concurrent_writers(x),
        Facts::JobResumed(x) => replay::job_resumed(x),
        Facts::SavepointReplayed(x) => replay::savepoint_replayed(x),
        Facts::ManifestsMergePending(x) => manifests::merge_pending(x),
        Facts::ManifestsNeverMerged(x) => manifests::never_merged(x),
        Facts::EndOfInputCommit(x) => checkpoints::end_of_input(x),
        Facts::CheckpointGaps(x) => checkpoints::gaps(x),
        Facts::SchemaUnderRunningWriter(x) => schema::stale_writer_schema(x),
        Facts::ColumnNameReused(x) => schema::name_reused(x),
        Facts::RestorePointExpiry(x) => retention::restore_point_expiry(x),
        Facts::OrphanFiles(x) => orphans::orphan_files(x),
        Facts::RecordCountMismatch(x) => footers::record_count_mismatch(x),
        Facts::FileSizeMismatch(x) => footers::file_size_mismatch(x),
        Facts::FooterUnreadable(x) => footers::footer_unreadable(x),
        Facts::VectorFooterMismatch(x) => footers::vector_footer_mismatch(x),
        Facts::PuffinFooterUnreadable(x) => footers::puffin_footer_unreadable(x),
    };
    f.title = words.title;
    f.evidence = words.evidence;
    f.action = words.action;
    if let Some(why) = table.refusal() {
        f.action += &refusal_note(&why);
    }
}

pub fn word_all(findings: &mut [Finding], table: &TableRef) {
    for f in findings {
        word(f, table);
    }
}

/// The sentence a finding built on an incomplete snapshot carries, or nothing: its numbers count
/// only the files read.
pub(crate) fn partial_note(unread_files: usize, snapshot_id: SnapshotId) -> String {
    match unread_files {
        0 => String::new(),
        n => format!(
            " These numbers count only the files read: {n} file{} of snapshot {snapshot_id} could not be read (see the files that could not be read).",
            crate::report::format::plural(n as u64)
        ),
    }
}

/// Where the table's name cannot be quoted, each finding says why it has no statement.
pub(crate) fn refusal_note(why: &str) -> String {
    format!(" (No statement is printed for this table: its name cannot be quoted safely — {why}.)")
}

/// The history's findings (`analysis::findings::findings`), worded.
pub fn findings(history: &TableHistory, table: &TableRef) -> Vec<Finding> {
    let mut out = crate::analysis::findings::findings(history, table);
    word_all(&mut out, table);
    out
}

/// As `findings`, with the history's job spans already at hand.
pub fn findings_with(history: &TableHistory, table: &TableRef, jobs: &[JobSpan]) -> Vec<Finding> {
    let mut out = crate::analysis::findings::findings_with(history, table, jobs);
    word_all(&mut out, table);
    out
}

/// The orphan census's finding (`analysis::orphans::finding`), worded.
pub fn orphan_finding(report: &OrphanReport, table: &TableRef) -> Option<Finding> {
    let mut f = crate::analysis::orphans::finding(report, table)?;
    word(&mut f, table);
    Some(f)
}

/// The manifests against the footers read (`analysis::footers::footer_report`), its findings
/// worded.
pub fn footer_report(history: &TableHistory, index: usize, footers: &[FileFooter], puffins: &[PuffinFileFooter], table: &TableRef) -> FooterReport {
    let mut report = crate::analysis::footers::footer_report(history, index, footers, puffins, table);
    word_all(&mut report.findings, table);
    report
}

/// The history's analysis (`analysis::inspect::inspect`) with its findings worded.
pub fn inspect(history: &TableHistory, table: &TableRef) -> Inspect {
    let mut report = crate::analysis::inspect::inspect(history, table);
    word_all(&mut report.findings, table);
    report
}
