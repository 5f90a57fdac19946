//! What a finding is about, as a closed set: a consumer (the JSON's `kind`, the app's
//! `data-kind`, a chart that marks it) matches on it, and the name it prints is defined once.

use serde::Serialize;

macro_rules! kinds {
    ($($variant:ident => $name:literal,)*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum FindingKind {
            $($variant,)*
        }

        impl FindingKind {
            /// The stable machine name (`savepoint_replayed`), as the JSON and the exports print it.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(FindingKind::$variant => $name,)*
                }
            }

            pub const ALL: &'static [FindingKind] = &[$(FindingKind::$variant,)*];
        }
    };
}

kinds! {
    CheckpointGaps => "checkpoint_gaps",
    ColumnNameReused => "column_name_reused",
    ConcurrentWriters => "concurrent_writers",
    CurrentSnapshotUnknown => "current_snapshot_unknown",
    DeleteDebt => "delete_debt",
    DuplicateSnapshotIds => "duplicate_snapshot_ids",
    EndOfInputCommit => "end_of_input_commit",
    FileSizeMismatch => "file_size_mismatch",
    FooterUnreadable => "footer_unreadable",
    JobResumed => "job_resumed",
    LateOneRowFiles => "late_one_row_files",
    ManifestLengthMismatch => "manifest_length_mismatch",
    ManifestsMergePending => "manifests_merge_pending",
    ManifestsNeverMerged => "manifests_never_merged",
    NewestMetadataUnreadable => "newest_metadata_unreadable",
    OrphanFiles => "orphan_files",
    PropertyNotRead => "property_not_read",
    PuffinFooterUnreadable => "puffin_footer_unreadable",
    RecordCountMismatch => "record_count_mismatch",
    RestorePointExpiry => "restore_point_expiry",
    RestoredWorkCommittedLate => "restored_work_committed_late",
    Retention => "retention",
    SavepointReplayed => "savepoint_replayed",
    SchemaUnderRunningWriter => "schema_under_running_writer",
    SmallFiles => "small_files",
    VectorFooterMismatch => "vector_footer_mismatch",
}

impl Serialize for FindingKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl std::fmt::Display for FindingKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `f.kind == "delete_debt"`: compared by the name it prints.
impl PartialEq<&str> for FindingKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}
