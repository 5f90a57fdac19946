//! Deletion vectors against their Puffin files' footers: each live vector's manifest entry names a
//! blob (`content_offset`, `content_size_in_bytes`), the data file it applies to and its cardinality
//! (`record_count`); the footer must list that blob as a `deletion-vector-v1` with the same
//! `referenced-data-file` and `cardinality`, uncompressed. Spark and Trino read a vector at the
//! manifest's offset without the footer, so a disagreement is silent there: the cardinality is
//! what count(*) from metadata subtracts, and a reader that plans from the footer applies other rows.

use std::collections::HashMap;

use serde::Serialize;

use crate::decode::puffin::{BlobMetadata, BlobType, PuffinFooter};
use crate::model::footers::PuffinFileFooter;
use crate::model::TableHistory;

use super::findings::{Bounded, Facts, Finding, FindingKind, Severity, TableRef};
use crate::decode::SnapshotId;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VectorRow {
    pub puffin_path: String,
    pub referenced_data_file: Option<String>,
    pub content_offset: Option<i64>,
    pub content_size_in_bytes: Option<i64>,
    /// The manifest's `record_count`: rows the vector deletes.
    pub manifest_cardinality: i64,
    pub footer_cardinality: Option<i64>,
    pub footer_referenced_data_file: Option<String>,
    pub blob_type: Option<String>,
    /// None where the Puffin footer could not be read (`error` says why).
    pub matches: Option<bool>,
    /// What disagrees, or why the footer could not be read.
    pub problem: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VectorCheck {
    pub puffin_files: usize,
    pub puffin_footers_read: usize,
    pub vectors: usize,
    pub mismatches: usize,
    /// Vectors whose Puffin footer could not be read.
    pub unchecked: usize,
    pub bytes_fetched: u64,
    pub vectors_checked: Vec<VectorRow>,
}

/// A Hadoop catalog keeps `file:///x` as configured and writes `file:/x` inside its files.
fn same_path(a: &str, b: &str) -> bool {
    let norm = |p: &str| p.strip_prefix("file:///").map(|r| format!("file:/{r}")).unwrap_or_else(|| p.to_string());
    a == b || norm(a) == norm(b)
}

/// A footer's blobs by (offset, length), built once per Puffin file: a file may hold tens of
/// thousands of vectors, and looking each up by a scan would be quadratic.
struct Blobs<'a> {
    footer: &'a PuffinFooter,
    at: HashMap<(u64, u64), &'a BlobMetadata>,
}

impl<'a> Blobs<'a> {
    fn new(footer: &'a PuffinFooter) -> Self {
        let mut at = HashMap::with_capacity(footer.blobs.len());
        for b in &footer.blobs {
            at.entry((b.offset, b.length)).or_insert(b);
        }
        Blobs { footer, at }
    }
}

fn compare(blobs: &Blobs<'_>, row: &mut VectorRow) -> Option<String> {
    let footer = blobs.footer;
    let (Some(offset), Some(size)) = (row.content_offset, row.content_size_in_bytes) else {
        return Some("the manifest entry has no content_offset or content_size_in_bytes: no blob can be looked up".into());
    };
    let found = match (u64::try_from(offset), u64::try_from(size)) {
        (Ok(o), Ok(l)) => blobs.at.get(&(o, l)).copied(),
        _ => None,
    };
    let Some(blob) = found else {
        let near: Vec<String> = footer.blobs.iter().take(3).map(|b| format!("{} at {} ({} bytes)", b.kind.as_str(), b.offset, b.length)).collect();
        return Some(format!(
            "the footer lists no blob at offset {offset} of {size} bytes (it lists {}: {}{})",
            footer.blobs.len(),
            near.join(", "),
            if footer.blobs.len() > 3 { ", …" } else { "" }
        ));
    };
    row.blob_type = Some(blob.kind.as_str().to_string());
    row.footer_referenced_data_file = blob.properties.get("referenced-data-file").cloned();
    row.footer_cardinality = blob.properties.get("cardinality").and_then(|c| c.parse::<i64>().ok());
    let mut wrong = Vec::new();
    if blob.kind != BlobType::DeletionVectorV1 {
        wrong.push(format!("the blob is a `{}`, not a `deletion-vector-v1`", blob.kind.as_str()));
    }
    if blob.compression_codec.is_some() {
        wrong.push("the blob is compressed, which the spec forbids for deletion vectors".to_string());
    }
    match (&row.footer_referenced_data_file, &row.referenced_data_file) {
        (None, _) => wrong.push("the footer names no `referenced-data-file`".to_string()),
        (Some(f), Some(m)) if !same_path(f, m) => wrong.push(format!("the footer says it applies to {f}, the manifest to {m}")),
        (Some(_), None) => wrong.push("the manifest entry names no referenced_data_file".to_string()),
        _ => {}
    }
    match (blob.properties.get("cardinality"), row.footer_cardinality) {
        (None, _) => wrong.push("the footer gives no `cardinality`".to_string()),
        (Some(c), None) => wrong.push(format!("the footer's cardinality `{c}` is not a number")),
        (Some(_), Some(c)) if c != row.manifest_cardinality => {
            wrong.push(format!("the footer's cardinality is {c}, the manifest's record_count {}", row.manifest_cardinality))
        }
        _ => {}
    }
    (!wrong.is_empty()).then(|| wrong.join("; "))
}

pub fn check_vectors(history: &TableHistory, index: usize, puffins: &[PuffinFileFooter]) -> VectorCheck {
    let by_path: HashMap<&str, (&PuffinFileFooter, Option<Blobs<'_>>)> =
        puffins.iter().map(|p| (p.file_path.as_str(), (p, p.footer.as_ref().ok().map(Blobs::new)))).collect();
    let mut rows = Vec::new();
    for f in history.live_files(index).into_iter().filter(|f| f.file.is_deletion_vector()) {
        let path = &*f.file.file_path;
        // Only the files that were read: a cancelled read leaves the rest out, not counted as wrong.
        let Some((read, blobs)) = by_path.get(path) else { continue };
        let v3 = f.file.v3.as_deref();
        let mut row = VectorRow {
            puffin_path: path.to_string(),
            referenced_data_file: v3.and_then(|v| v.referenced_data_file.clone()),
            content_offset: v3.and_then(|v| v.content_offset),
            content_size_in_bytes: v3.and_then(|v| v.content_size_in_bytes),
            manifest_cardinality: f.file.record_count,
            footer_cardinality: None,
            footer_referenced_data_file: None,
            blob_type: None,
            matches: None,
            problem: None,
        };
        match (&read.footer, blobs) {
            (Ok(_), Some(blobs)) => {
                let mut wrong: Vec<String> = compare(blobs, &mut row).into_iter().collect();
                // For a vector, file_size_in_bytes is the whole Puffin file's: another size means
                // the file was rewritten or cut after the commit (the footer is read at its end).
                if let Some(size) = read.object_size.filter(|&s| i64::try_from(s) != Ok(f.file.file_size_in_bytes)) {
                    wrong.push(format!("the Puffin file is {size} bytes, the manifest's file_size_in_bytes {}", f.file.file_size_in_bytes));
                }
                row.problem = (!wrong.is_empty()).then(|| wrong.join("; "));
                row.matches = Some(row.problem.is_none());
            }
            (Err(e), _) => row.problem = Some(e.clone()),
            (Ok(_), None) => {}
        }
        rows.push(row);
    }
    VectorCheck {
        puffin_files: puffins.len(),
        puffin_footers_read: puffins.iter().filter(|p| p.footer.is_ok()).count(),
        vectors: rows.len(),
        mismatches: rows.iter().filter(|r| r.matches == Some(false)).count(),
        unchecked: rows.iter().filter(|r| r.matches.is_none()).count(),
        bytes_fetched: puffins.iter().map(|p| p.fetched).sum(),
        vectors_checked: rows,
    }
}

/// Live deletion vectors that disagree with their Puffin file's footer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VectorFooterMismatch {
    pub snapshot_id: SnapshotId,
    pub vectors: Bounded<VectorProblem>,
    /// Footer cardinality minus manifest record_count over the vectors whose footer gives one.
    pub cardinality_delta: i128,
}

/// Puffin files whose footer could not be read, and the live vectors left unchecked in them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PuffinFooterUnreadable {
    pub snapshot_id: SnapshotId,
    pub puffin_files: usize,
    pub puffin_footers_read: usize,
    /// The live vectors in them, unchecked.
    pub vectors: Bounded<VectorProblem>,
}

/// One vector and what is wrong with it (`VectorRow::problem`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VectorProblem {
    pub puffin_path: String,
    pub content_offset: Option<i64>,
    pub problem: String,
}

pub fn findings(check: &VectorCheck, snapshot_id: SnapshotId, table: &TableRef) -> Vec<Finding> {
    let mut out = Vec::new();
    let problems = |keep: &dyn Fn(&VectorRow) -> bool| {
        Bounded::of(check.vectors_checked.iter().filter(|r| keep(r)).map(|r| VectorProblem {
            puffin_path: r.puffin_path.clone(),
            content_offset: r.content_offset,
            problem: r.problem.clone().unwrap_or_default(),
        }))
    };
    let finding = |kind, facts, severity| {
        Finding::new(
            kind,
            severity,
            facts,
            vec![snapshot_id],
            Vec::new(),
            table.statement("rewrite_data_files", Some("options => map('delete-file-threshold', '1')".into())),
        )
    };
    if check.mismatches > 0 {
        let bad = |r: &VectorRow| r.matches == Some(false);
        // Summed wide: cardinalities near i64's ends must not overflow.
        let cardinality_delta: i128 = check
            .vectors_checked
            .iter()
            .filter(|r| bad(r))
            .filter_map(|r| r.footer_cardinality.map(|c| i128::from(c) - i128::from(r.manifest_cardinality)))
            .sum();
        let facts = VectorFooterMismatch { snapshot_id, vectors: problems(&bad), cardinality_delta };
        out.push(finding(FindingKind::VectorFooterMismatch, Facts::VectorFooterMismatch(facts), Severity::Critical));
    }
    if check.unchecked > 0 {
        let facts = PuffinFooterUnreadable {
            snapshot_id,
            puffin_files: check.puffin_files,
            puffin_footers_read: check.puffin_footers_read,
            vectors: problems(&|r: &VectorRow| r.matches.is_none()),
        };
        out.push(finding(FindingKind::PuffinFooterUnreadable, Facts::PuffinFooterUnreadable(facts), Severity::Warning));
    }
    out
}
