//! The table's next metadata file, read into the history already held: a watched table grows by
//! a commit every few seconds, and its metadata file names every snapshot again. What was read of
//! the previous file is kept (the counts of the snapshots both name, every list and manifest
//! decoded), so only what is new is planned: the new snapshots' lists and the manifests they add.

use std::collections::{HashMap, HashSet};

use crate::decode::{SnapshotId, TableMetadata};

use super::super::digest::LiveCounts;
use super::super::reading::{ReadReason, ReadState};
use super::super::totals::Totals;
use super::{ListSlot, ManifestSlot, TableHistory, Want};

/// What a snapshot already had counted, keyed by its id and the list it names (a rewritten
/// snapshot with the same id is not the same snapshot).
type Carried = HashMap<(SnapshotId, Option<String>), Kept>;

struct Kept {
    listed: Option<Box<Totals>>,
    counted: Option<Box<LiveCounts>>,
    want: Want,
    reason: Option<ReadReason>,
}

impl TableHistory {
    /// The history `metadata` (read from `metadata_file`) records, with everything already read
    /// of this one carried over. Plan it (`plan`) and read what it then needs; once that is read,
    /// `trim` lets go of what the snapshots no longer shown in detail held.
    pub fn advance(&mut self, metadata_file: &str, metadata: TableMetadata) {
        let previous = std::mem::replace(self, TableHistory::new(metadata_file, metadata));
        let next = self;
        let TableHistory { snapshots, lists, manifests, written, referenced, reading, length_mismatches, metadata_sizes, .. } = previous;
        let mut carried: Carried = snapshots
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                let kept = Kept { listed: s.listed, counted: s.counted, want: s.want, reason: reading.reasons.get(&i).copied() };
                ((s.snapshot.snapshot_id, s.snapshot.manifest_list), kept)
            })
            .collect();
        let (mut reasons, mut recent) = (HashMap::new(), Vec::new());
        for (i, s) in next.snapshots.iter_mut().enumerate() {
            let Some(k) = carried.remove(&(s.snapshot.snapshot_id, s.snapshot.manifest_list.clone())) else { continue };
            s.listed = k.listed;
            s.counted = k.counted;
            // What it was read for stays read; the plan asks again for what is shown in detail now
            // (the current and last few), and a person's selection stays shown.
            s.want = k.want;
            s.detail = k.reason == Some(ReadReason::Selected);
            match k.reason {
                // Read as the current or one of the last: so it is shown unless this plan reads it
                // for a reason of its own.
                Some(ReadReason::Current | ReadReason::Recent) => recent.push(i),
                Some(r) => {
                    reasons.insert(i, r);
                }
                None => {}
            }
        }
        // A v1 snapshot's inline list is keyed by its index, which moves when older snapshots
        // expire: it is made again from the metadata, at no read's cost.
        let named = |path: &str| !super::is_inline_list_path(path) && !next.by_list.get(&next.snapshots, path).is_empty();
        next.lists = lists.into_iter().filter(|(p, slot)| !matches!(slot, ListSlot::Pending) && named(p)).collect();
        next.manifests = manifests.into_iter().filter(|(_, slot)| !matches!(slot, ManifestSlot::Pending)).collect();
        next.written = written;
        next.referenced = referenced;
        next.length_mismatches = length_mismatches;
        next.metadata_sizes = metadata_sizes;
        next.reading = ReadState {
            list_warnings: reading.list_warnings,
            list_bytes_read: reading.list_bytes_read,
            list_rows_read: reading.list_rows_read,
            kept_entries: reading.kept_entries,
            reasons,
            carried_recent: recent,
            sampled: reading.sampled,
            revision: reading.revision.wrapping_add(1),
            kinds_stale: true,
            ..ReadState::default()
        };
        next.settle_batch();
    }

    /// Lets go of what only snapshots no longer shown in detail held: their lists' rows, the
    /// entries kept whole, and the digests of manifests no list read still names (a watched
    /// table's expired snapshots). Called once what the last plan asked for is read.
    pub fn trim(&mut self) {
        let detail_lists: HashSet<String> = self
            .snapshots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.detail)
            .map(|(i, s)| s.snapshot.manifest_list.clone().unwrap_or_else(|| super::inline_list_path(i)))
            .collect();
        // Future commits name the current snapshot's manifests and new ones: a digest no list
        // held names is of an expired or replaced manifest. Unknown while the current list is not
        // read, and then nothing is dropped.
        let current_read = self
            .current_index()
            .and_then(|i| self.snapshots[i].snapshot.manifest_list.as_ref())
            .is_some_and(|p| matches!(self.lists.get(p), Some(ListSlot::Loaded(_))));
        let mut named: HashSet<&str> = HashSet::new();
        let mut kept_for_detail: HashSet<&str> = HashSet::new();
        for (path, slot) in &self.lists {
            if let ListSlot::Loaded(list) = slot {
                for m in list.iter() {
                    named.insert(&m.manifest_path);
                    if detail_lists.contains(path) {
                        kept_for_detail.insert(&m.manifest_path);
                    }
                }
            }
        }
        let mut kept_entries = 0usize;
        self.manifests.retain(|path, slot| match slot {
            ManifestSlot::Loaded { manifest, .. } => {
                if !kept_for_detail.contains(path.as_str()) {
                    *manifest = None;
                }
                kept_entries += manifest.as_ref().map_or(0, |m| m.entries.len());
                !current_read || named.contains(path.as_str())
            }
            _ => true,
        });
        self.reading.kept_entries = kept_entries;
        for (path, slot) in self.lists.iter_mut() {
            if matches!(slot, ListSlot::Loaded(_)) && !detail_lists.contains(path) && !self.reading.open.contains_key(path) {
                *slot = ListSlot::Released;
            }
        }
    }
}
