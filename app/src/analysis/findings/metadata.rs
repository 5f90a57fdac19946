//! metadata.json contradicting itself: snapshot ids listed twice, a current snapshot it does not
//! hold. Every number is still shown; these say which of them a damaged file makes ambiguous.
//! And the newest metadata.json that does not read at all, an older one shown in its place.

use std::collections::HashMap;

use serde::Serialize;

use super::{Bounded, Context, Facts, Finding, FindingKind, Severity};
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
    vec![Finding::new(
        FindingKind::DuplicateSnapshotIds,
        Severity::Warning,
        Facts::DuplicateSnapshotIds(DuplicateSnapshotIds {
            ids: Bounded::of(twice.iter().map(|&(f, i)| ListedTwice { snapshot_id: cx.id(i), first_position: f + 1, again_position: i + 1 })),
        }),
        twice.iter().take(super::CAP).map(|&(_, i)| cx.id(i)).collect(),
        Vec::new(),
        None,
    )]
}

pub(super) fn current_snapshot_unknown(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    let Some(id) = h.metadata.current_snapshot_id else { return Vec::new() };
    if h.snapshots.iter().any(|s| s.snapshot.snapshot_id == id) {
        return Vec::new();
    }
    let shown = h.current_index();
    vec![Finding::new(
        FindingKind::CurrentSnapshotUnknown,
        Severity::Warning,
        Facts::CurrentSnapshotUnknown(CurrentSnapshotUnknown {
            current_snapshot_id: id,
            snapshots: h.snapshots.len() as u64,
            shown_instead: shown.map(|i| cx.id(i)),
        }),
        shown.map(|i| cx.id(i)).into_iter().collect(),
        Vec::new(),
        None,
    )]
}

/// Manifests read although their length differs from what their lists state (see
/// `model::LengthMismatch`): every count holds, but the files are not the bytes the writer wrote.
pub(super) fn manifest_length_mismatch(cx: &Context<'_>) -> Vec<Finding> {
    let all = cx.history.length_mismatches();
    if all.is_empty() {
        return Vec::new();
    }
    vec![Finding::new(
        FindingKind::ManifestLengthMismatch,
        Severity::Warning,
        Facts::ManifestLengthMismatch(ManifestLengthMismatch { manifests: Bounded::of(all.iter().cloned()) }),
        Vec::new(),
        Vec::new(),
        None,
    )]
}

/// The newest metadata file that does not read, and the older one shown in its place.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewestMetadataUnreadable {
    /// The damaged file's name, and why it did not read.
    pub damaged: String,
    pub error: String,
    /// The file shown.
    pub opened: String,
    pub standing: Standing,
    /// Whether version-hint.text names the damaged file.
    pub hinted: bool,
    /// Whether a catalog's pointer names the damaged file after the last commit.
    pub pointer: bool,
    /// Snapshots the damaged file holds that the one shown does not, where its first bytes say.
    pub missing_snapshots: Option<i64>,
    /// The damaged file's last-sequence-number (format v2 on), and the shown one's.
    pub damaged_sequence_number: Option<i64>,
    pub opened_sequence_number: i64,
    pub format_version: u8,
    /// How many versions after the shown one the damaged file is by name.
    pub versions_after: Option<u64>,
    /// The newest file that reads, where another was chosen to be shown.
    pub newest_that_reads: Option<String>,
    /// Why older files did not read either.
    pub older_unreadable: Bounded<String>,
}

/// Why the damaged file counts as newer than the one shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Standing {
    /// The newest by content, by the age its first bytes state.
    NewestByContent { last_sequence_number: Option<i64>, last_updated_ms: Option<i64> },
    /// The highest version by name; its first bytes state no age.
    HighestByName,
    /// The file version-hint.text names.
    Hinted,
    /// Only newer than the file opened.
    Newer,
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
    let standing = if by_content {
        Standing::NewestByContent {
            last_sequence_number: version.and_then(|v| v.last_sequence_number),
            last_updated_ms: version.and_then(|v| v.last_updated_ms),
        }
    } else if by_name {
        Standing::HighestByName
    } else if is_hinted {
        Standing::Hinted
    } else {
        Standing::Newer
    };
    let pointer = by_content || by_name || is_hinted;
    let facts = NewestMetadataUnreadable {
        damaged: bad,
        error: error.clone(),
        opened,
        standing,
        hinted: is_hinted,
        pointer,
        missing_snapshots: missing,
        damaged_sequence_number: theirs,
        opened_sequence_number: m.last_sequence_number,
        format_version: m.format_version,
        versions_after: match (version.and_then(|v| v.name_version), metadata_version(&history.metadata_file)) {
            (Some(b), Some(o)) if b > o => Some(b - o),
            _ => None,
        },
        // A version chosen in the app's picker afterwards keeps the pick and its damaged file.
        newest_that_reads: (pick.path != history.metadata_file).then(|| name(&pick.path)),
        older_unreadable: Bounded::of(older.iter().map(|(_, e)| e.clone())),
    };
    Some(Finding::new(
        FindingKind::NewestMetadataUnreadable,
        if pointer { Severity::Critical } else { Severity::Warning },
        Facts::NewestMetadataUnreadable(Box::new(facts)),
        Vec::new(),
        Vec::new(),
        None,
    ))
}
