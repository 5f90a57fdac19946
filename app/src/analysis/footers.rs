//! Manifests against the files: each live Parquet file's `record_count` against its footer's rows,
//! its `file_size_in_bytes` against the object's size, and each deletion vector against its Puffin
//! file's footer (`vector_footers`). A mismatch is a finding: a reader that plans from the
//! manifests (count(*) from metadata, split planning, the footer read at the manifest's size) then
//! answers wrong or fails.

use serde::Serialize;

use crate::decode::parquet_footer::FooterColumn;
use crate::decode::{DataContent, SnapshotId};
use crate::model::footers::{FileFooter, PuffinFileFooter};
use crate::model::TableHistory;

use super::findings::{Bounded, Facts, Finding, FindingKind, Severity, TableRef};
use super::vector_footers::{check_vectors, VectorCheck};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FooterRow {
    pub file_path: String,
    pub content: DataContent,
    pub manifest_record_count: i64,
    pub footer_rows: Option<i64>,
    pub manifest_file_size: i64,
    pub object_size: Option<u64>,
    pub row_groups: Option<usize>,
    pub codecs: Vec<String>,
    pub compressed_bytes: Option<i64>,
    pub uncompressed_bytes: Option<i64>,
    pub created_by: Option<String>,
    pub columns: Vec<FooterColumn>,
    /// Bytes fetched to read this footer.
    pub fetched: u64,
    /// Why no footer could be read (names the file and the field).
    pub error: Option<String>,
    pub records_match: Option<bool>,
    pub size_matches: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FooterReport {
    pub snapshot_id: SnapshotId,
    pub files: usize,
    pub footers_read: usize,
    pub record_count_mismatches: usize,
    pub size_mismatches: usize,
    pub unreadable: usize,
    pub bytes_fetched: u64,
    pub bytes_in_files: u64,
    pub files_checked: Vec<FooterRow>,
    /// Live deletion vectors against their Puffin files' footers.
    pub deletion_vectors: VectorCheck,
    pub findings: Vec<Finding>,
}

/// Live files whose footer holds another number of rows than their manifest entries state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordCountMismatch {
    pub snapshot_id: SnapshotId,
    pub files: Bounded<RowsDiffer>,
    /// Footer rows minus manifest record_count over all of them: what counts answered from
    /// metadata are off by.
    pub rows_delta: i128,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RowsDiffer {
    pub file_path: String,
    pub manifest_record_count: i64,
    pub footer_rows: i64,
}

/// Live files whose object is not the size their manifest entries state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileSizeMismatch {
    pub snapshot_id: SnapshotId,
    pub files: Bounded<SizeDiffers>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SizeDiffers {
    pub file_path: String,
    pub manifest_file_size: i64,
    pub object_size: u64,
}

/// Live files with no readable Parquet footer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FooterUnreadable {
    pub snapshot_id: SnapshotId,
    pub files: Bounded<NoFooter>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NoFooter {
    pub file_path: String,
    /// Why, as the reader refused it: it names the file and the field.
    pub error: String,
}

/// The manifests against the footers read, with their findings (typed: `report::findings`
/// words them, `report::findings::footer_report` for a reader).
pub fn footer_report(history: &TableHistory, index: usize, footers: &[FileFooter], puffins: &[PuffinFileFooter], table: &TableRef) -> FooterReport {
    let rows: Vec<FooterRow> = footers
        .iter()
        .map(|f| {
            let ok = f.footer.as_ref().ok();
            FooterRow {
                file_path: f.file_path.clone(),
                content: f.content,
                manifest_record_count: f.manifest_record_count,
                footer_rows: ok.map(|x| x.rows),
                manifest_file_size: f.manifest_file_size,
                object_size: f.object_size,
                row_groups: ok.map(|x| x.row_groups),
                codecs: ok.map(|x| x.codecs.clone()).unwrap_or_default(),
                compressed_bytes: ok.map(|x| x.compressed_bytes),
                uncompressed_bytes: ok.map(|x| x.uncompressed_bytes),
                created_by: ok.and_then(|x| x.created_by.clone()),
                columns: ok.map(|x| x.columns.clone()).unwrap_or_default(),
                fetched: f.fetched,
                error: f.footer.as_ref().err().cloned(),
                records_match: ok.map(|x| x.rows == f.manifest_record_count),
                size_matches: f.object_size.map(|s| i64::try_from(s).is_ok_and(|s| s == f.manifest_file_size)),
            }
        })
        .collect();
    let snapshot_id = history.snapshots.get(index).map(|s| s.snapshot.snapshot_id).unwrap_or(SnapshotId(0));
    let bad_records: Vec<&FooterRow> = rows.iter().filter(|r| r.records_match == Some(false)).collect();
    let bad_size: Vec<&FooterRow> = rows.iter().filter(|r| r.size_matches == Some(false)).collect();
    let unreadable: Vec<&FooterRow> = rows.iter().filter(|r| r.error.is_some()).collect();
    let mut findings = Vec::new();
    let finding = |kind, facts, severity, statement| Finding::new(kind, severity, facts, vec![snapshot_id], Vec::new(), statement);
    if !bad_records.is_empty() {
        // Summed wide: a hostile manifest's counts near i64's ends must not overflow.
        let rows_delta: i128 = bad_records.iter().map(|r| i128::from(r.footer_rows.unwrap_or(0)) - i128::from(r.manifest_record_count)).sum();
        let facts = RecordCountMismatch {
            snapshot_id,
            files: Bounded::of(bad_records.iter().map(|r| RowsDiffer {
                file_path: r.file_path.clone(),
                manifest_record_count: r.manifest_record_count,
                footer_rows: r.footer_rows.unwrap_or(0),
            })),
            rows_delta,
        };
        let statement = table.literal().map(|t| table.call("rewrite_data_files", &format!("table => {t}, options => map('rewrite-all', 'true')")));
        findings.push(finding(FindingKind::RecordCountMismatch, Facts::RecordCountMismatch(facts), Severity::Critical, statement));
    }
    if !bad_size.is_empty() {
        let facts = FileSizeMismatch {
            snapshot_id,
            files: Bounded::of(bad_size.iter().map(|r| SizeDiffers {
                file_path: r.file_path.clone(),
                manifest_file_size: r.manifest_file_size,
                object_size: r.object_size.unwrap_or(0),
            })),
        };
        findings.push(finding(FindingKind::FileSizeMismatch, Facts::FileSizeMismatch(facts), Severity::Critical, None));
    }
    if !unreadable.is_empty() {
        let facts = FooterUnreadable {
            snapshot_id,
            files: Bounded::of(unreadable.iter().map(|r| NoFooter { file_path: r.file_path.clone(), error: r.error.clone().unwrap_or_default() })),
        };
        findings.push(finding(FindingKind::FooterUnreadable, Facts::FooterUnreadable(facts), Severity::Warning, None));
    }
    let deletion_vectors = check_vectors(history, index, puffins);
    findings.extend(super::vector_footers::findings(&deletion_vectors, snapshot_id, table));
    FooterReport {
        snapshot_id,
        files: rows.len(),
        footers_read: rows.iter().filter(|r| r.error.is_none()).count(),
        record_count_mismatches: bad_records.len(),
        size_mismatches: bad_size.len(),
        unreadable: unreadable.len(),
        bytes_fetched: footers.iter().map(|f| f.fetched).sum(),
        bytes_in_files: footers.iter().map(|f| f.object_size.unwrap_or(f.manifest_file_size.max(0) as u64)).sum(),
        files_checked: rows,
        deletion_vectors,
        findings,
    }
}
