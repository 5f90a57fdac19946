//! Delete files piling up with checkpoints: every one is a file each reader opens and applies.

use serde::Serialize;

use super::{Context, Facts, Finding, FindingKind, Severity};

/// The current snapshot's delete files, and the commits since there were none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeleteDebt {
    pub delete_files: u64,
    pub position_delete_files: u64,
    pub equality_delete_files: u64,
    pub deletion_vectors: u64,
    /// The Puffin files holding the deletion vectors.
    pub deletion_vector_files: u64,
    pub data_files: u64,
    /// The files a full scan opens (as the delete-debt chart's top line counts them), if known.
    pub scan_files: Option<u64>,
    /// Of the last `commits` (since the delete count was last zero), how many added delete files.
    pub grew_in_commits: u64,
    pub commits: u64,
    /// Delete files that apply to no live data file (0 until the current files are read).
    pub dangling_deletes: u64,
    pub streaming: bool,
}

pub(super) fn delete_debt(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    let Some(cur) = h.current_index() else { return Vec::new() };
    let Some(now) = h.counts(cur) else { return Vec::new() };
    let deletes = now.delete_files();
    if deletes < 2 {
        return Vec::new();
    }
    // Commits since the delete count was last zero, and how many of them added delete files.
    let mut since = cur;
    while since > 0 {
        match h.totals(since - 1).deletes() {
            Some(d) if d > 0 => since -= 1,
            _ => break,
        }
    }
    let grew = (since + 1..=cur).filter(|&i| matches!((h.totals(i - 1).deletes(), h.totals(i).deletes()), (Some(a), Some(b)) if b > a)).count();
    let commits = cur - since + 1;
    let dangling = if h.current_files_wait().is_none() { dangling_deletes(cx, cur) } else { 0 };
    let facts = DeleteDebt {
        delete_files: deletes,
        position_delete_files: now.position_delete_files,
        equality_delete_files: now.equality_delete_files,
        deletion_vectors: now.deletion_vectors,
        deletion_vector_files: now.deletion_vector_files,
        data_files: now.data_files,
        // The delete-debt chart's top line, counted the same way: Puffin files, not vectors.
        scan_files: now.totals().scan_files().map(|s| s.files),
        grew_in_commits: grew as u64,
        commits: commits as u64,
        dangling_deletes: dangling,
        streaming: cx.streaming(),
    };
    vec![Finding::new(
        FindingKind::DeleteDebt,
        if deletes >= now.data_files.max(1) { Severity::Warning } else { Severity::Info },
        Facts::DeleteDebt(facts),
        vec![cx.id(since), cx.id(cur)],
        h.snapshots[cur].flink.iter().map(|f| f.job_id.to_string()).collect(),
        cx.table.statement("rewrite_data_files", Some("options => map('delete-file-threshold', '1', 'remove-dangling-deletes', 'true')".into())),
    )]
}

/// Delete files whose data sequence number is not above any live data file's (equality deletes
/// apply to strictly older data, position deletes to older or equal): they delete nothing.
pub(super) fn dangling_deletes(cx: &Context<'_>, index: usize) -> u64 {
    use crate::decode::DataContent;
    let files = cx.history.live_files(index);
    let Some(oldest_data) = files.iter().filter(|f| f.file.content == DataContent::Data).filter_map(|f| f.data_sequence_number).min() else {
        return 0;
    };
    files
        .iter()
        .filter(|f| match (f.file.content, f.data_sequence_number) {
            (DataContent::EqualityDeletes, Some(s)) => s <= oldest_data,
            (DataContent::PositionDeletes, Some(s)) => s < oldest_data,
            _ => false,
        })
        .count() as u64
}
