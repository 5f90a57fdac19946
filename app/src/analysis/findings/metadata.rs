//! metadata.json contradicting itself: snapshot ids listed twice, a current snapshot it does not
//! hold. Every number is still shown; these say which of them a damaged file makes ambiguous.

use std::collections::HashMap;

use super::{capped_list, thousands, Context, Finding, FindingKind, Severity};

pub(super) fn duplicate_snapshot_ids(cx: &Context<'_>) -> Vec<Finding> {
    let mut first: HashMap<_, usize> = HashMap::new();
    let mut twice: Vec<(usize, usize)> = Vec::new();
    for (i, s) in cx.history.snapshots.iter().enumerate() {
        if let Some(&f) = first.get(&s.snapshot.snapshot_id) {
            twice.push((f, i));
        } else {
            first.insert(s.snapshot.snapshot_id, i);
        }
    }
    if twice.is_empty() {
        return Vec::new();
    }
    let each = twice.iter().map(|&(f, i)| format!("{} (snapshots #{} and #{} in commit order)", cx.id(i), f + 1, i + 1));
    vec![Finding {
        kind: FindingKind::DuplicateSnapshotIds,
        severity: Severity::Warning,
        title: format!("metadata.json lists {} snapshot id{} more than once", twice.len(), if twice.len() > 1 { "s" } else { "" }),
        snapshot_ids: twice.iter().take(super::CAP).map(|&(_, i)| cx.id(i)).collect(),
        job_ids: Vec::new(),
        evidence: format!(
            "{}. Iceberg never gives two snapshots one id: the file was damaged or edited by hand. Each entry is shown \
             and counted on its own; parents, rollbacks and findings that name the id cannot tell which one they mean.",
            capped_list(each, twice.len(), "ids")
        ),
        action: "Restore metadata.json from the previous version in its metadata log (or the catalog's history) before any \
                 maintenance or rollback runs against this table."
            .into(),
        statement: None,
    }]
}

pub(super) fn current_snapshot_unknown(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    let Some(id) = h.metadata.current_snapshot_id else { return Vec::new() };
    if h.snapshots.iter().any(|s| s.snapshot.snapshot_id == id) {
        return Vec::new();
    }
    let shown = h.current_index();
    vec![Finding {
        kind: FindingKind::CurrentSnapshotUnknown,
        severity: Severity::Warning,
        title: format!("The current snapshot {id} is not in metadata.json"),
        snapshot_ids: shown.map(|i| cx.id(i)).into_iter().collect(),
        job_ids: Vec::new(),
        evidence: format!(
            "current-snapshot-id is {id}, but none of the {} snapshots listed has that id{}. Readers of this metadata \
             fail or read nothing.",
            h.snapshots.len(),
            shown.map(|i| format!("; the last committed one ({}) is shown as current here", cx.id(i))).unwrap_or_default()
        ),
        action: "Restore metadata.json from the previous version in its metadata log (or the catalog's history).".into(),
        statement: None,
    }]
}

/// Manifests read although their length differs from what their lists state (see
/// `model::LengthMismatch`): every count holds, but the files are not the bytes the writer wrote.
pub(super) fn manifest_length_mismatch(cx: &Context<'_>) -> Vec<Finding> {
    let all = cx.history.length_mismatches();
    if all.is_empty() {
        return Vec::new();
    }
    let each =
        all.iter().map(|m| format!("{} ({} bytes, the list says {}; {} entries)", m.file, thousands(m.bytes), thousands(m.stated), thousands(m.entries)));
    vec![Finding {
        kind: FindingKind::ManifestLengthMismatch,
        severity: Severity::Warning,
        title: format!(
            "{} manifest{} not the length {} manifest list states",
            all.len(),
            if all.len() == 1 { " is" } else { "s are" },
            if all.len() == 1 { "its" } else { "their" }
        ),
        snapshot_ids: Vec::new(),
        job_ids: Vec::new(),
        evidence: format!(
            "{}. Each holds every entry its list counts, so it was read and counted; but it is not the file the writer \
             listed byte for byte: a copy that re-encoded it (another codec), or a writer or tool that rewrote it in place. \
             Readers that check the length (or read by it) may refuse it.",
            capped_list(each, all.len(), "manifests")
        ),
        action: "Compare these files with the table's original storage; restore the originals if this is a copy, and find what rewrote them if not.".into(),
        statement: None,
    }]
}
