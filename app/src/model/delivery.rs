//! Decoded files absorbed into the history: a manifest list's rows checked and its manifests
//! queued, a manifest's digest kept (its entries too while a snapshot shown in detail needs them),
//! and a snapshot counted once every manifest it names is in. Decoding happens before, wherever
//! the loader's decoder runs (`decode::manifest_digest`).

use std::sync::Arc;

use crate::decode::manifest_digest::{DigestFault, DigestedManifest};
use crate::decode::{Manifest, ManifestContent, ManifestFile};

use super::history::{Fault, Gap, GapKind, ListSlot, ManifestSlot, TableHistory, Want};
use super::list_counts::{count_list, list_totals, row_disagreements, NoCount};
use super::reading::{same_object, Lane, Need, ReadMode, ReadReason, MAX_KEPT_ENTRIES, SPARE_KEPT_ENTRIES};

/// What a manifest's decode is asked for (`TableHistory::manifest_ask`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ManifestAsk {
    pub inherited: Option<i64>,
    pub keep_at_most: usize,
}

impl TableHistory {
    /// Hands over a list's rows (and its size in bytes), or why they could not be had.
    pub fn absorb_list(&mut self, path: &str, decoded: Result<(u64, Vec<ManifestFile>), Fault>) {
        let decoded = decoded.map(|(bytes, l)| {
            self.reading.list_bytes_read = self.reading.list_bytes_read.saturating_add(bytes);
            self.reading.list_rows_read = self.reading.list_rows_read.saturating_add(l.len() as u64);
            l
        });
        self.reading.files_done += 1;
        self.deliver_list_decoded(path, decoded);
    }

    pub(super) fn deliver_list_decoded(&mut self, path: &str, decoded: Result<Vec<ManifestFile>, Fault>) {
        let users = self.by_list.get(&self.snapshots, path);
        // A manifest listed twice would be counted twice: the list is not a count anyone can trust.
        let decoded = decoded.and_then(|l| {
            let mut seen = std::collections::HashSet::new();
            if let Some(dup) = l.iter().find(|m| !seen.insert(same_object(&m.manifest_path))) {
                return Err(Fault::new(
                    GapKind::Inconsistent,
                    format!("{path}: lists manifest {} more than once (a writer bug or a damaged file)", dup.manifest_path),
                ));
            }
            let unknown = l.iter().enumerate().find_map(|(i, m)| if let crate::decode::ManifestContent::Unknown(v) = m.content { Some((i, v)) } else { None });
            if let Some((i, v)) = unknown {
                return Err(Fault::new(
                    GapKind::Decode,
                    format!("{path}: manifest[{i}].content: unknown manifest content {v} (0 data, 1 deletes): which of its manifests hold data cannot be told"),
                ));
            }
            if let Some(neg) = l.iter().find(|m| m.manifest_length < 0) {
                return Err(Fault::new(
                    GapKind::Inconsistent,
                    format!("{path}: manifest {}: manifest_length {} is negative", neg.manifest_path, neg.manifest_length),
                ));
            }
            Ok(l)
        });
        let list = match decoded {
            Ok(l) => Arc::new(l),
            Err(Fault { kind, message }) => {
                self.lists.insert(path.to_string(), ListSlot::Unavailable(Gap { file: path.to_string(), kind, message, snapshot_ids: Vec::new() }));
                self.reading.revision = self.reading.revision.wrapping_add(1);
                return;
            }
        };
        let totals = list_totals(&list);
        for &i in &users {
            self.snapshots[i].listed = totals.clone().map(Box::new);
            // v1 lists may lack the counts: then only the manifests can say.
            if totals.is_none() && self.snapshots[i].want == Want::List {
                self.snapshots[i].want = Want::Manifests;
            }
        }
        self.lists.insert(path.to_string(), ListSlot::Loaded(list.clone()));
        self.want_manifests(path, &list);
        self.reading.kinds_stale = true;
        self.reading.revision = self.reading.revision.wrapping_add(1);
    }

    /// Queues the manifests a loaded list names, if any of its snapshots wants them.
    pub(super) fn want_manifests(&mut self, path: &str, list: &Arc<Vec<ManifestFile>>) {
        let users = self.by_list.get(&self.snapshots, path);
        let want = users.iter().map(|&i| self.snapshots[i].want).max().unwrap_or(Want::Summary);
        let detail = users.iter().any(|&i| self.snapshots[i].detail);
        if want < Want::Manifests {
            self.release_if_done(path);
            return;
        }
        // Read metadata first, the data manifests of the snapshots shown in detail wait behind the
        // lists (a person's selection does not): what they decide waits for them, and says so.
        let bulk =
            detail && self.reading.mode == Some(ReadMode::MetadataFirst) && !users.iter().any(|i| self.reading.reasons.get(i) == Some(&ReadReason::Selected));
        let mut missing = 0usize;
        for m in list.iter() {
            let p = &m.manifest_path;
            let lane = match (detail, bulk && m.content == ManifestContent::Data) {
                (true, true) => Lane::Bulk,
                (true, false) => Lane::Hi,
                (false, _) => Lane::Lo,
            };
            match self.manifests.get_mut(p) {
                None => {
                    self.manifests.insert(p.clone(), ManifestSlot::Pending);
                    if let Some(id) = m.added_snapshot_id {
                        self.reading.adders.insert(p.clone(), id);
                    }
                    let expected = u64::try_from(m.manifest_length).ok().filter(|&b| b > 0);
                    let count = |c: Option<i64>| c.and_then(|c| u64::try_from(c).ok());
                    let entries = count(m.added_files_count)
                        .zip(count(m.existing_files_count))
                        .zip(count(m.deleted_files_count))
                        .and_then(|((a, e), d)| a.checked_add(e)?.checked_add(d));
                    self.enqueue_in(Need::Manifest { path: p.clone(), expected_bytes: expected, expected_entries: entries }, lane);
                    self.reading.waiting.entry(p.clone()).or_default().push(path.to_string());
                    missing += 1;
                }
                Some(ManifestSlot::Pending) => {
                    if lane == Lane::Hi {
                        self.promote(p);
                    }
                    self.reading.waiting.entry(p.clone()).or_default().push(path.to_string());
                    missing += 1;
                }
                Some(ManifestSlot::Unavailable(_, lists)) => {
                    if !lists.iter().any(|l| l == path) {
                        lists.push(path.to_string());
                    }
                }
                Some(ManifestSlot::Loaded { manifest: None, .. }) if detail => {
                    // Only its digest was kept; the detail view needs its files.
                    if self.reading.refetch.insert(p.clone()) {
                        if let Some(id) = m.added_snapshot_id {
                            self.reading.adders.insert(p.clone(), id);
                        }
                        self.reading.queued.remove(&format!("1\u{0}{p}"));
                        self.enqueue(Need::Manifest { path: p.clone(), expected_bytes: None, expected_entries: None }, true);
                    }
                }
                Some(ManifestSlot::Loaded { .. }) => {}
            }
        }
        if missing > 0 {
            self.reading.open.insert(path.to_string(), missing);
        } else {
            self.count(path, list);
        }
    }

    /// What to ask of a manifest's decode, as its read starts: the snapshot that added it, and
    /// how many of its entries may be kept (none unless a snapshot shown in detail needs them).
    pub fn manifest_ask(&self, path: &str) -> ManifestAsk {
        let keep = if self.reading.refetch.contains(path) { Some(true) } else { self.needed_in_detail(path) };
        let keep_at_most = keep.map_or(0, |essential| self.room(essential));
        ManifestAsk { inherited: self.reading.adders.get(path).copied(), keep_at_most }
    }

    /// Entries that may still be kept: the current and selected snapshots' up to
    /// `MAX_KEPT_ENTRIES`, the others' up to `SPARE_KEPT_ENTRIES`.
    fn room(&self, essential: bool) -> usize {
        let limit = if essential { MAX_KEPT_ENTRIES } else { SPARE_KEPT_ENTRIES };
        limit.saturating_sub(self.reading.kept_entries)
    }

    /// Hands over a manifest's digest (decoded as `ask` said), or why it could not be had; its
    /// entries are kept if a snapshot shown in detail still needs them and they fit.
    pub fn absorb_manifest(&mut self, path: &str, ask: ManifestAsk, decoded: Result<DigestedManifest, Fault>) {
        self.reading.files_done += 1;
        self.reading.adders.remove(path);
        let refetched = self.reading.refetch.remove(path);
        let keep = if refetched { Some(true) } else { self.needed_in_detail(path) };
        let (result, live_paths) = match decoded {
            Ok(d) => (
                d.result.map_err(|f| match f {
                    DigestFault::Decode(e) => Fault::new(GapKind::Decode, e.to_string()),
                    DigestFault::Inconsistent(m) => Fault::new(GapKind::Inconsistent, m),
                }),
                d.live_paths,
            ),
            Err(f) => (Err(f), Vec::new()),
        };
        for p in live_paths {
            if !self.referenced.contains(&p) {
                self.referenced.insert(p);
            }
        }
        let mut again = false;
        let slot = match result {
            Ok(d) => {
                self.written.merge(d.written);
                let fits = keep.is_some_and(|essential| d.entries <= self.room(essential));
                let kept = match d.kept {
                    Some(m) if fits => {
                        self.reading.kept_entries += d.entries;
                        Some(Arc::new(m))
                    }
                    Some(m) => {
                        // Asked for, but others were kept meanwhile: its files are still referenced.
                        self.note_live(&m);
                        None
                    }
                    None => {
                        // A snapshot was selected while it was read: read it again for its files.
                        again = fits && ask.keep_at_most == 0;
                        None
                    }
                };
                ManifestSlot::Loaded { digest: Arc::new(d.digest), manifest: kept }
            }
            Err(Fault { kind, message }) => {
                let users = self.reading.waiting.get(path).cloned().unwrap_or_default();
                ManifestSlot::Unavailable(Gap { file: path.to_string(), kind, message, snapshot_ids: Vec::new() }, users)
            }
        };
        self.manifests.insert(path.to_string(), slot);
        if again && self.reading.refetch.insert(path.to_string()) {
            if let Some(id) = ask.inherited {
                self.reading.adders.insert(path.to_string(), id);
            }
            self.reading.queued.remove(&format!("1\u{0}{path}"));
            self.enqueue(Need::Manifest { path: path.to_string(), expected_bytes: None, expected_entries: None }, true);
        }
        for list in self.reading.waiting.remove(path).unwrap_or_default() {
            let Some(left) = self.reading.open.get_mut(&list) else { continue };
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.reading.open.remove(&list);
                if let Some(ListSlot::Loaded(l)) = self.lists.get(&list).cloned() {
                    self.count(&list, &l);
                }
            }
        }
    }

    fn note_live(&mut self, m: &Manifest) {
        for e in m.entries.iter().filter(|e| e.status.is_live()) {
            if !self.referenced.contains(&*e.data_file.file_path) {
                self.referenced.insert(e.data_file.file_path.clone());
            }
        }
    }

    /// Whether a snapshot shown in detail needs this manifest's files: Some(true) for the current
    /// or a selected one, Some(false) for the others.
    fn needed_in_detail(&self, manifest: &str) -> Option<bool> {
        let mut needed = None;
        for l in self.reading.waiting.get(manifest)? {
            for i in self.by_list.get(&self.snapshots, l) {
                if self.snapshots[i].detail {
                    let essential = matches!(self.reading.reasons.get(&i), Some(ReadReason::Current | ReadReason::Selected));
                    if essential {
                        return Some(true);
                    }
                    needed = Some(false);
                }
            }
        }
        needed
    }

    fn count(&mut self, path: &str, list: &Arc<Vec<ManifestFile>>) {
        let users = self.by_list.get(&self.snapshots, path);
        let counts = match count_list(list, &self.manifests) {
            Ok(c) => Some(c),
            Err(NoCount::Missing) => None,
            Err(NoCount::Invalid(why)) => {
                // Neither the manifests nor the list's own rows can be trusted: the summary stands.
                for &i in &users {
                    self.snapshots[i].listed = None;
                }
                let gap = Gap { file: path.to_string(), kind: GapKind::Inconsistent, message: format!("{path}: {why}"), snapshot_ids: Vec::new() };
                self.lists.insert(path.to_string(), ListSlot::Unavailable(gap));
                self.reading.kinds_stale = true;
                self.reading.revision = self.reading.revision.wrapping_add(1);
                return;
            }
        };
        let contradictions = row_disagreements(list, &self.manifests);
        if !contradictions.is_empty() {
            self.reading.list_warnings.insert(path.to_string(), contradictions);
        }
        for &i in &users {
            self.snapshots[i].counted = counts.clone().map(Box::new);
        }
        self.reading.kinds_stale = true;
        self.reading.revision = self.reading.revision.wrapping_add(1);
        self.release_if_done(path);
    }

    /// Drops a list's rows once no snapshot shown in detail needs them.
    fn release_if_done(&mut self, path: &str) {
        let users = self.by_list.get(&self.snapshots, path);
        if users.iter().any(|&i| self.snapshots[i].detail) || self.reading.open.contains_key(path) {
            return;
        }
        if let Some(slot) = self.lists.get_mut(path) {
            if matches!(slot, ListSlot::Loaded(_)) {
                *slot = ListSlot::Released;
            }
        }
    }
}
