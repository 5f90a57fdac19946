//! What each finding found, as typed values: the numbers, ids and lists its words are made of
//! (in `report::findings`), and what a `--fail-on` user reads from the JSON's `facts`.

use serde::Serialize;

/// One variant per finding kind, named as the kind prints (`small_files`), its fields in snake case.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Facts {
    DuplicateSnapshotIds(super::metadata::DuplicateSnapshotIds),
    CurrentSnapshotUnknown(super::metadata::CurrentSnapshotUnknown),
    ManifestLengthMismatch(super::metadata::ManifestLengthMismatch),
    /// Boxed: large, and found once at most.
    NewestMetadataUnreadable(Box<super::metadata::NewestMetadataUnreadable>),
    SmallFiles(super::files::SmallFiles),
    PropertyNotRead(super::properties::PropertyNotRead),
    DeleteDebt(super::deletes::DeleteDebt),
    Retention(super::retention::Retention),
    LateOneRowFiles(super::late::LateOneRowFiles),
    RestoredWorkCommittedLate(super::writers::RestoredWorkCommittedLate),
    ConcurrentWriters(super::writers::ConcurrentWriters),
    JobResumed(super::resumes::JobResumed),
    SavepointReplayed(super::replay::SavepointReplayed),
    ManifestsMergePending(super::manifests::ManifestsMergePending),
    ManifestsNeverMerged(super::manifests::ManifestsNeverMerged),
    EndOfInputCommit(super::checkpoints::EndOfInputCommit),
    CheckpointGaps(super::checkpoints::CheckpointGaps),
    SchemaUnderRunningWriter(super::schema::SchemaUnderRunningWriter),
    ColumnNameReused(super::schema::ColumnNameReused),
    RestorePointExpiry(super::retention::RestorePointExpiry),
    OrphanFiles(crate::analysis::orphans::OrphanFiles),
    RecordCountMismatch(crate::analysis::footers::RecordCountMismatch),
    FileSizeMismatch(crate::analysis::footers::FileSizeMismatch),
    FooterUnreadable(crate::analysis::footers::FooterUnreadable),
    VectorFooterMismatch(crate::analysis::vector_footers::VectorFooterMismatch),
    PuffinFooterUnreadable(crate::analysis::vector_footers::PuffinFooterUnreadable),
}

/// A list kept bounded however large the table: the first `CAP` items and how many there were.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bounded<T> {
    pub first: Vec<T>,
    pub total: usize,
}

impl<T> Bounded<T> {
    /// Keeps the first `CAP` of `items`, counting them all.
    pub fn of(items: impl IntoIterator<Item = T>) -> Bounded<T> {
        let mut first = Vec::new();
        let mut total = 0usize;
        for item in items {
            if first.len() < super::CAP {
                first.push(item);
            }
            total = total.saturating_add(1);
        }
        Bounded { first, total }
    }
}
