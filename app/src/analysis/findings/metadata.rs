//! metadata.json contradicting itself: snapshot ids listed twice, a current snapshot it does not
//! hold. Every number is still shown; these say which of them a damaged file makes ambiguous.
//! And the newest metadata.json that does not read at all, an older one shown in its place.

use std::collections::HashMap;

use serde::Serialize;

use super::{capped_list, thousands, Bounded, Context, Facts, Finding, FindingKind, Severity};
use crate::decode::SnapshotId;
use crate::model::{LengthMismatch, TableHistory};

/// Snapshot ids metadata.json lists more than once.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DuplicateSnapshotIds {
    pub ids: Bounded<ListedTwice>,
}

/// An id listed again: where, counting snapshots from 1 in commit order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedTwice {
    pub snapshot_id: SnapshotId,
    pub first_position: usize,
    pub again_position: usize,
}

/// A current-snapshot-id that no listed snapshot has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CurrentSnapshotUnknown {
    pub current_snapshot_id: SnapshotId,
    pub snapshots: u64,
    /// The last committed snapshot, shown as current instead.
    pub shown_instead: Option<SnapshotId>,
}

/// Manifests read although their length differs from what their lists state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestLengthMismatch {
    pub manifests: Bounded<LengthMismatch>,
}
use crate::source::metadata_pick::{metadata_version, MetadataPick};
use crate::source::resolve::last_component;

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
    vec![Finding {
        kind: FindingKind::DuplicateSnapshotIds,
        facts: Facts::DuplicateSnapshotIds(DuplicateSnapshotIds {
            ids: Bounded::of(twice.iter().map(|&(f, i)| ListedTwice { snapshot_id: cx.id(i), first_position: f + 1, again_position: i + 1 })),
        }),
        severity: Severity::Warning,
        title: String::new(),
        snapshot_ids: twice.iter().take(super::CAP).map(|&(_, i)| cx.id(i)).collect(),
        job_ids: Vec::new(),
        evidence: String::new(),
        action: String::new(),
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
        facts: Facts::CurrentSnapshotUnknown(CurrentSnapshotUnknown {
            current_snapshot_id: id,
            snapshots: h.snapshots.len() as u64,
            shown_instead: shown.map(|i| cx.id(i)),
        }),
        severity: Severity::Warning,
        title: String::new(),
        snapshot_ids: shown.map(|i| cx.id(i)).into_iter().collect(),
        job_ids: Vec::new(),
        evidence: String::new(),
        action: String::new(),
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
    vec![Finding {
        kind: FindingKind::ManifestLengthMismatch,
        facts: Facts::ManifestLengthMismatch(ManifestLengthMismatch { manifests: Bounded::of(all.iter().cloned()) }),
        severity: Severity::Warning,
        title: String::new(),
        snapshot_ids: Vec::new(),
        job_ids: Vec::new(),
        evidence: String::new(),
        action: String::new(),
        statement: None,
    }]
}

/// The folder's newest metadata file did not read and an older one was opened instead
/// (`MetadataPick::fell_back`). The damaged file may be the incident itself: it is what a
/// catalog's pointer names after the last commit, and every engine loading the table through
/// that pointer fails on it, while here every chart is quietly short of what it added. How many
/// snapshots is told by the sequence numbers: the damaged file's first bytes usually survive
/// (writers put `last-sequence-number` near the top, and the usual damage cuts the end).
pub fn newest_metadata_unreadable(history: &TableHistory, pick: &MetadataPick) -> Option<Finding> {
    let ((damaged, error), older) = pick.unreadable.split_first()?;
    let name = |p: &str| last_component(p).unwrap_or(p).to_string();
    let opened = name(&history.metadata_file);
    let bad = name(damaged);
    let version = pick.versions.iter().find(|v| v.path == *damaged);
    let dated = version.is_some_and(|v| v.last_sequence_number.is_some() || v.last_updated_ms.is_some());
    let newest = pick.versions.iter().max_by_key(|v| (v.last_sequence_number, v.last_updated_ms, v.name_version, v.path.clone()));
    let by_content = dated && newest.is_some_and(|n| n.path == *damaged);
    // Cut before the fields that date it (a file of 0 bytes, say): placed by its name only.
    let top_name = pick.versions.iter().filter_map(|v| v.name_version).max();
    let by_name = !dated && version.and_then(|v| v.name_version).is_some_and(|n| Some(n) == top_name);
    let is_hinted = pick.hinted.as_deref() == Some(damaged.as_str());
    let m = &history.metadata;
    // Format v1 numbers no sequence: its files state 0 or nothing.
    let theirs = version.and_then(|v| v.last_sequence_number).filter(|_| m.format_version >= 2);
    let missing = theirs.and_then(|s| s.checked_sub(m.last_sequence_number)).filter(|n| *n >= 0);
    let plural = |n: i64, one: &str, many: &str| if n == 1 { format!("1 {one}") } else { format!("{} {many}", thousands(n.unsigned_abs())) };
    let hint = if is_hinted { ", and the one version-hint.text names" } else { "" };
    let standing = if by_content {
        let age = match version.map(|v| (v.last_sequence_number, v.last_updated_ms)) {
            Some((Some(s), _)) => format!("last-sequence-number {s}"),
            Some((None, Some(t))) => format!("last-updated-ms {t}"),
            _ => String::new(),
        };
        format!("the newest metadata file by content ({age} in its first bytes){hint}")
    } else if by_name {
        format!("the highest version by name (its first bytes state no age to place it by){hint}")
    } else if is_hinted {
        "the file version-hint.text names".to_string()
    } else {
        "newer than the file opened".to_string()
    };
    let pointer = by_content || by_name || is_hinted;
    let severity = if pointer { Severity::Critical } else { Severity::Warning };
    let short = match missing {
        Some(0) => "no snapshot short".to_string(),
        Some(n) => format!("{} short", plural(n, "snapshot", "snapshots")),
        None => "snapshots it adds unknown".to_string(),
    };
    let title =
        format!("{} metadata file {bad} does not read: the table is shown as {opened} left it, {short}", if pointer { "The newest" } else { "A newer" });
    let lost = match (missing, theirs) {
        (Some(0), Some(s)) => format!(
            "no snapshot is missing (both state last-sequence-number {s}): the newer file changed only the table's metadata (properties, schema, expired snapshots)"
        ),
        (Some(n), Some(s)) => format!(
            "{} committed after it {} missing from every chart, count and finding here (last-sequence-number {s} in {bad}'s first bytes, {} in {opened})",
            plural(n, "snapshot", "snapshots"),
            if n == 1 { "is" } else { "are" },
            m.last_sequence_number
        ),
        _ if m.format_version < 2 => "how many snapshots it adds is unknown (format v1 numbers no sequence)".to_string(),
        _ => format!("how many snapshots it adds is unknown ({bad}'s first bytes state no last-sequence-number)"),
    };
    let versions = match (version.and_then(|v| v.name_version), metadata_version(&history.metadata_file)) {
        (Some(b), Some(o)) if b > o => format!(" By name it is {} after {opened}.", plural((b - o).try_into().unwrap_or(i64::MAX), "version", "versions")),
        _ => String::new(),
    };
    // A version chosen in the app's picker afterwards keeps the pick and its damaged file.
    let shown = if pick.path == history.metadata_file {
        format!("icescope opened {opened} instead, the newest that reads")
    } else {
        format!("{opened} is shown, as chosen (the newest that reads is {})", name(&pick.path))
    };
    let mut evidence = format!(
        "{error}. It is {standing}{}. {shown}: {lost}.{versions}",
        if pointer {
            ": after the last commit a catalog's pointer names this file, so every engine that loads the table through that \
             pointer (Spark, Trino, a Flink job restarting its committer) fails on it"
        } else {
            ""
        }
    );
    if !older.is_empty() {
        let each = older.iter().map(|(_, e)| e.clone());
        evidence += &format!(" Older ones did not read either: {}.", capped_list(each, older.len(), "files"));
    }
    let drops = match missing {
        Some(n) if n > 0 => format!(", which drops the {} only {bad} holds", plural(n, "snapshot", "snapshots")),
        _ => format!(", which drops whatever only {bad} holds"),
    };
    let action = format!(
        "If this folder is a copy, the original may be whole: copy {bad} again. Otherwise restore it (object-store \
         versioning, a backup), or point the table back at a file that reads before anything else commits: the catalog's \
         metadata location{} at {opened}{drops}. Run no maintenance (expire_snapshots, remove_orphan_files, \
         rewrite_data_files, rewrite_manifests) until the table loads again: remove_orphan_files against {opened} \
         would delete the data files the newer snapshots added.",
        if is_hinted { " (here version-hint.text)" } else { "" }
    );
    Some(Finding {
        kind: FindingKind::NewestMetadataUnreadable,
        facts: crate::analysis::findings::Facts::Worded,
        severity,
        title,
        snapshot_ids: Vec::new(),
        job_ids: Vec::new(),
        evidence,
        action,
        statement: None,
    })
}
