//! Delete files piling up with checkpoints: every one is a file each reader opens and applies.

use super::{thousands, Context, Finding, FindingKind, Severity};

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
    // The delete-debt chart's top line, counted the same way: Puffin files, not vectors.
    let opened = now.totals().scan_files().map(|s| s.files).unwrap_or(u64::MAX);
    let vectors = match (now.deletion_vectors, now.deletion_vector_files) {
        (0, _) => String::new(),
        (v, p) => format!(" (the {} deletion vectors sit in {} Puffin file{})", thousands(v), thousands(p), if p == 1 { "" } else { "s" }),
    };
    let mut evidence = format!(
        "{} delete files are live ({} position, {} equality, {} deletion vectors) over {} data file{}: a full scan opens {} \
         files{vectors}. Delete files grew in {grew} of the last {commits} commits.",
        thousands(deletes),
        thousands(now.position_delete_files),
        thousands(now.equality_delete_files),
        thousands(now.deletion_vectors),
        thousands(now.data_files),
        if now.data_files == 1 { "" } else { "s" },
        thousands(opened)
    );
    let dangling = if h.current_files_wait().is_none() { dangling_deletes(cx, cur) } else { 0 };
    if now.equality_delete_files > 0 {
        evidence.push_str(" rewrite_position_delete_files cannot touch equality deletes; only a data-file rewrite applies them.");
    }
    if dangling > 0 {
        evidence += &format!(
            " {} of them apply to no live data file (every data file is newer than the delete): a data-file rewrite \
             left them behind, and readers still open them.",
            thousands(dangling)
        );
    }
    vec![Finding {
        kind: FindingKind::DeleteDebt,
        severity: if deletes >= now.data_files.max(1) { Severity::Warning } else { Severity::Info },
        title: format!(
            "Delete debt: {} delete files on {} data file{}",
            thousands(deletes),
            thousands(now.data_files),
            if now.data_files == 1 { "" } else { "s" }
        ),
        snapshot_ids: vec![cx.id(since), cx.id(cur)],
        job_ids: h.snapshots[cur].flink.iter().map(|f| f.job_id.to_string()).collect(),
        evidence,
        action: format!(
            "Rewrite the data files with a delete threshold of one, {}, and remove dangling deletes in the same call: the \
             rewrite applies deletes of every kind, but without remove-dangling-deletes the deletes it applied stay in the table.",
            if cx.streaming() { "every N checkpoints" } else { "after the batches that delete" }
        ),
        statement: cx.table.statement("rewrite_data_files", Some("options => map('delete-file-threshold', '1', 'remove-dangling-deletes', 'true')".into())),
    }]
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
