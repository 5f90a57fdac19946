//! Which manifest lists and manifests to read, in what order, and what to keep of them.
//!
//! metadata.json alone gives every snapshot's summary totals. Lists and manifests are then read
//! only where they add something: the snapshots shown in detail (current, selected, the last few)
//! in full; a bounded sample across the history, and snapshots whose summaries lack totals, by
//! their list's counts; everything when the user asks for the full history (or the table is
//! small). Each file is decoded once; a list's rows are dropped once its snapshots are counted.

use std::collections::{HashMap, VecDeque};

use crate::decode::{ManifestContent, ManifestFile};

use super::history::{inline_list_path, ListSlot, ManifestSlot, TableHistory, Want};

/// How much of the history to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadMode {
    /// Everything for small tables, metadata first for large ones.
    Auto,
    /// Summaries, plus the detail snapshots and a sample.
    MetadataFirst,
    /// Every snapshot's manifests (`--all-snapshots`).
    All,
}

/// Up to this many snapshots, Auto reads everything: it costs less than explaining a sample.
pub const AUTO_ALL_UP_TO: usize = 200;
/// Snapshots read by their lists across a long history, evenly spaced: at most this many …
pub const SAMPLE: usize = 48;
/// … holding at most this many manifest-list rows (about 7 MB of Avro) …
pub const SAMPLE_ROWS: u64 = 120_000;
/// … but never fewer snapshots than this.
pub const MIN_SAMPLE: usize = 12;
/// The last snapshots kept whole, for the partition timeline.
pub const DETAIL_TAIL: usize = 5;
/// Lists decoded but not yet counted, at most: bounds memory when every snapshot is read.
const MAX_OPEN_LISTS: usize = 16;

/// The current snapshot's manifests read so far, of how many (None: its list is not read yet and
/// its summary does not say).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct FilesWait {
    pub manifests_read: usize,
    pub manifests: Option<usize>,
}

/// Which queue a need waits in: `next_needs` takes Hi, then Lo, then Bulk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lane {
    Hi,
    Lo,
    Bulk,
}

/// A file the history still needs, by the path the metadata wrote.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Need {
    ManifestList {
        path: String,
    },
    /// `expected_entries`: the files the list's row counts (added + existing + deleted), when it
    /// states all three.
    Manifest {
        path: String,
        expected_bytes: Option<u64>,
        expected_entries: Option<u64>,
    },
}

impl Need {
    pub fn path(&self) -> &str {
        match self {
            Need::ManifestList { path } | Need::Manifest { path, .. } => path,
        }
    }
}

/// Why a snapshot was read beyond its summary: shown beside its numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReadReason {
    Current,
    Selected,
    Recent,
    Sample,
    NoSummaryTotals,
    AllSnapshots,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct ReadState {
    pub(super) hi: VecDeque<Need>,
    pub(super) lo: VecDeque<Need>,
    /// The current and last snapshots' data manifests when the history is read metadata first:
    /// after the lists, which every chart but the partitions' is final with (`current_files_wait`).
    /// A day of fast appends names 17,280 of them; over a network they are most of the load.
    pub(super) bulk: VecDeque<Need>,
    pub(super) queued: std::collections::HashSet<String>,
    /// Manifests not yet settled → the lists waiting for them.
    pub(super) waiting: HashMap<String, Vec<String>>,
    /// Lists loaded whose manifests are not all settled → how many are missing.
    pub(super) open: HashMap<String, usize>,
    /// The snapshot that added each queued manifest (its entries may inherit the id).
    pub(super) adders: HashMap<String, i64>,
    /// Manifests whose entries a detail snapshot needs though only their digest was kept.
    pub(super) refetch: std::collections::HashSet<String>,
    pub(crate) reasons: HashMap<usize, ReadReason>,
    pub(crate) mode: Option<ReadMode>,
    pub(crate) files_queued: usize,
    pub(crate) files_done: usize,
    /// Bytes and rows of the manifest lists read: the size of those not read is estimated from them.
    pub(super) list_bytes_read: u64,
    pub(super) list_rows_read: u64,
    /// Delete kinds along the parent chains need re-deriving (done once per batch, not per file).
    pub(crate) kinds_stale: bool,
    /// Counts once each time a list's counts become known or unavailable: what a report shows
    /// changes only then, so a view need not be redrawn between two of them.
    pub(super) revision: u64,
    pub(crate) expected_bytes: u64,
    /// Lists whose rows contradict the manifests they name → what each says.
    pub(crate) list_warnings: std::collections::BTreeMap<String, Vec<String>>,
    /// Manifest entries held for detail snapshots, against `MAX_KEPT_ENTRIES`.
    pub(super) kept_entries: usize,
    /// The sample across the history is planned: a watched table's next metadata file keeps it
    /// rather than spacing a new one (each new commit is read as one of the last few).
    pub(super) sampled: bool,
    /// Snapshots a watched table's last metadata file had read as its current or last few.
    pub(super) carried_recent: Vec<usize>,
}

/// Entries held for the views of the current and selected snapshots (~300 bytes each with their
/// strings): past this, manifests are counted but their files not kept, and the views say the
/// files are not all there.
pub(super) const MAX_KEPT_ENTRIES: usize = 400_000;
/// Entries held for the other snapshots shown in detail (the last few, every snapshot of a small
/// table) while they fit: a table rewritten lately would otherwise hold every file two or three
/// times over. Past this, such a snapshot's files are read again when it is selected.
pub(super) const SPARE_KEPT_ENTRIES: usize = 25_000;

/// A manifest's path with the S3 scheme spellings made one: `s3a://b/x` and `s3://b/x` are the
/// same object, and a list naming both counts it twice.
pub(super) fn same_object(path: &str) -> std::borrow::Cow<'_, str> {
    for p in ["s3a://", "s3n://"] {
        if let Some(rest) = path.strip_prefix(p) {
            return format!("s3://{rest}").into();
        }
    }
    path.into()
}

impl TableHistory {
    /// Why each snapshot read beyond its summary was read.
    pub fn read_reason(&self, index: usize) -> Option<ReadReason> {
        self.reading.reasons.get(&index).copied()
    }

    /// The mode the current plan follows (Auto resolved).
    pub fn read_mode(&self) -> Option<ReadMode> {
        self.reading.mode
    }

    /// (files settled, files queued so far, bytes expected from manifest lengths).
    pub fn progress(&self) -> (usize, usize, u64) {
        (self.reading.files_done, self.reading.files_queued, self.reading.expected_bytes)
    }

    /// Chooses what to read. May be called again: to widen a plan, or after `select`.
    pub fn plan(&mut self, mode: ReadMode) {
        // Spark read the manifests; the files it read are not here to read again.
        if self.exported.is_some() {
            return;
        }
        let n = self.snapshots.len();
        let mode = match mode {
            ReadMode::Auto if n <= AUTO_ALL_UP_TO => ReadMode::All,
            ReadMode::Auto => ReadMode::MetadataFirst,
            m => m,
        };
        if self.reading.mode == Some(ReadMode::All) && mode == ReadMode::MetadataFirst {
            return; // never narrow
        }
        self.reading.mode = Some(mode);
        let mut wants: Vec<(usize, Want, bool, ReadReason)> = Vec::new();
        if let Some(cur) = self.current_index() {
            wants.push((cur, Want::Manifests, true, ReadReason::Current));
        }
        for i in n.saturating_sub(DETAIL_TAIL)..n {
            wants.push((i, Want::Manifests, true, ReadReason::Recent));
        }
        match mode {
            ReadMode::All => wants.extend((0..n).map(|i| (i, Want::Manifests, n <= AUTO_ALL_UP_TO, ReadReason::AllSnapshots))),
            _ => {
                if n > 0 && !self.reading.sampled {
                    self.reading.sampled = true;
                    // Evenly spaced, first and last included; fewer where the lists are long (a
                    // fast-append day has lists of up to 17,280 rows): at most SAMPLE_ROWS rows in all,
                    // as the summaries count them, and never fewer than MIN_SAMPLE snapshots.
                    let spaced = |k: usize| (0..k).map(move |j| if k <= 1 { n - 1 } else { j * (n - 1) / (k - 1) });
                    let rows = |k: usize| spaced(k).map(|i| self.snapshots[i].summary.unpack().manifests.unwrap_or(1)).fold(0u64, u64::saturating_add);
                    let mut k = SAMPLE.min(n);
                    while k > MIN_SAMPLE.min(n) && rows(k) > SAMPLE_ROWS {
                        k -= 1;
                    }
                    wants.extend(spaced(k).map(|i| (i, Want::List, false, ReadReason::Sample)));
                }
                for (i, s) in self.snapshots.iter().enumerate() {
                    if !s.summary.unpack().has_core() {
                        wants.push((i, Want::List, false, ReadReason::NoSummaryTotals));
                    }
                }
            }
        }
        for (i, want, detail, reason) in wants {
            self.want(i, want, detail, reason);
        }
        for i in std::mem::take(&mut self.reading.carried_recent) {
            self.reading.reasons.entry(i).or_insert(ReadReason::Recent);
        }
        self.settle_batch();
    }

    /// Shows snapshot `index` in detail: its list and manifests are read and kept whole.
    pub fn select(&mut self, index: usize) {
        if self.exported.is_some() {
            return;
        }
        // Whatever it was read for before, its files are now kept whole.
        self.reading.reasons.insert(index, ReadReason::Selected);
        self.want(index, Want::Manifests, true, ReadReason::Selected);
        self.settle_batch();
    }

    fn want(&mut self, i: usize, want: Want, detail: bool, reason: ReadReason) {
        let Some(s) = self.snapshots.get_mut(i) else { return };
        let newly = want > s.want || (detail && !s.detail);
        s.want = s.want.max(want);
        s.detail |= detail;
        self.reading.reasons.entry(i).or_insert(reason);
        if !newly {
            return;
        }
        let path = s.snapshot.manifest_list.clone().unwrap_or_else(|| inline_list_path(i));
        let is_detail = s.detail;
        match self.lists.get(&path).cloned() {
            None => {
                if s.snapshot.manifest_list.is_none() {
                    let list = inline_list(&s.snapshot.manifests);
                    self.deliver_list_decoded(&path, Ok(list));
                } else {
                    self.lists.insert(path.clone(), ListSlot::Pending);
                    self.enqueue(Need::ManifestList { path }, is_detail);
                }
            }
            Some(ListSlot::Pending) => {
                if is_detail {
                    self.promote(&path);
                }
            }
            Some(ListSlot::Loaded(list)) => self.want_manifests(&path, &list),
            // Counted already; its rows are needed again (a new detail snapshot): read it again.
            Some(ListSlot::Released) => {
                self.lists.insert(path.clone(), ListSlot::Pending);
                self.reading.queued.remove(&format!("0\u{0}{path}"));
                self.enqueue(Need::ManifestList { path }, is_detail);
            }
            Some(ListSlot::Unavailable(_)) => {}
        }
    }

    pub(super) fn enqueue(&mut self, need: Need, hi: bool) {
        self.enqueue_in(need, if hi { Lane::Hi } else { Lane::Lo });
    }

    pub(super) fn enqueue_in(&mut self, need: Need, lane: Lane) {
        let hi = lane == Lane::Hi;
        let key = format!("{}\u{0}{}", matches!(need, Need::Manifest { .. }) as u8, need.path());
        if !self.reading.queued.insert(key) {
            return;
        }
        self.reading.files_queued += 1;
        if let Need::Manifest { expected_bytes: Some(b), .. } = &need {
            self.reading.expected_bytes = self.reading.expected_bytes.saturating_add(*b);
        }
        if lane == Lane::Bulk {
            self.reading.bulk.push_back(need);
        } else if hi {
            self.reading.hi.push_back(need);
        } else if matches!(need, Need::Manifest { .. }) {
            // Right after the list that named it: a list's rows are dropped once it is counted.
            self.reading.lo.push_front(need);
        } else {
            self.reading.lo.push_back(need);
        }
    }

    pub(super) fn promote(&mut self, path: &str) {
        for lane in [&mut self.reading.lo, &mut self.reading.bulk] {
            if let Some(pos) = lane.iter().position(|n| n.path() == path) {
                if let Some(n) = lane.remove(pos) {
                    self.reading.hi.push_back(n);
                }
                return;
            }
        }
    }

    /// Up to `max` files to read next: detail files first, then the rest in commit order, never
    /// opening more lists than can be counted soon, then the bulk of the detail data manifests.
    pub fn next_needs(&mut self, max: usize) -> Vec<Need> {
        let mut out = Vec::new();
        while out.len() < max {
            if let Some(n) = self.reading.hi.pop_front() {
                out.push(n);
                continue;
            }
            let front_is_list = matches!(self.reading.lo.front(), Some(Need::ManifestList { .. }));
            if front_is_list && self.reading.open.len() >= MAX_OPEN_LISTS && !out.is_empty() {
                break;
            }
            match self.reading.lo.pop_front().or_else(|| self.reading.bulk.pop_front()) {
                Some(n) => out.push(n),
                None => break,
            }
        }
        out
    }

    /// What the current snapshot's files still wait for: None once they are all at hand (or
    /// nothing more of them will come). Partitions, small files, late files and dangling deletes
    /// are counted from them; the charts and findings from summaries and lists are not.
    pub fn current_files_wait(&self) -> Option<FilesWait> {
        if self.exported.is_some() {
            return None;
        }
        let cur = self.current_index()?;
        let s = self.snapshots.get(cur)?;
        if !s.detail || self.has_files(cur) {
            return None;
        }
        let path = s.snapshot.manifest_list.clone().unwrap_or_else(|| inline_list_path(cur));
        match self.lists.get(&path) {
            Some(ListSlot::Pending) => Some(FilesWait { manifests_read: 0, manifests: s.summary.unpack().manifests.and_then(|m| usize::try_from(m).ok()) }),
            Some(ListSlot::Loaded(list)) => {
                let read = list.iter().filter(|m| !matches!(self.manifests.get(&m.manifest_path), Some(ManifestSlot::Pending) | None)).count();
                // Every one read or failed: the files are what they will be (a finding says what is missing).
                (read < list.len()).then_some(FilesWait { manifests_read: read, manifests: Some(list.len()) })
            }
            _ => None,
        }
    }

    /// Every manifest list planned is read, and every delete manifest of the snapshots shown in
    /// detail: what is left is the bulk of their data manifests (`current_files_wait`).
    pub fn lists_settled(&self) -> bool {
        self.reading.hi.is_empty()
            && self.reading.lo.is_empty()
            && self.lists.values().all(|l| match l {
                ListSlot::Pending => false,
                ListSlot::Loaded(list) => list
                    .iter()
                    .filter(|m| m.content == ManifestContent::Deletes)
                    .all(|m| !matches!(self.manifests.get(&m.manifest_path), Some(ManifestSlot::Pending))),
                _ => true,
            })
    }

    /// Brings derived numbers up to date after a batch of deliveries.
    pub fn settle_batch(&mut self) {
        if self.reading.kinds_stale {
            self.reading.kinds_stale = false;
            self.refresh_kinds();
        }
    }

    /// Changes whenever a report of the history could differ from the last one made.
    pub fn revision(&self) -> u64 {
        self.reading.revision
    }

    pub fn is_settled(&self) -> bool {
        self.reading.hi.is_empty() && self.reading.lo.is_empty() && self.reading.bulk.is_empty()
    }

    /// Sizes of the current metadata file and of every metadata-log file that can be found,
    /// oldest first: the metadata.json growth series.
    pub fn record_metadata_sizes(&mut self, current_bytes: u64, size_of: impl Fn(&str) -> Option<u64>) {
        let mut sizes: Vec<super::MetadataSize> = self
            .metadata
            .metadata_log
            .iter()
            .filter_map(|e| size_of(&e.metadata_file).map(|bytes| super::MetadataSize { file: e.metadata_file.clone(), timestamp_ms: e.timestamp_ms, bytes }))
            .collect();
        sizes.push(super::MetadataSize { file: self.metadata_file.clone(), timestamp_ms: self.metadata.last_updated_ms, bytes: current_bytes });
        sizes.sort_by_key(|s| s.timestamp_ms);
        self.metadata_sizes = sizes;
    }

    /// What reading every snapshot would still cost: (files, bytes, whether the bytes are exact).
    /// Lists are sized by `size_of` where it knows (at most 64 are asked, the rest scaled by their
    /// manifest counts), else from the bytes per row of the lists read so far; manifests not yet
    /// named by any list read are estimated from the ones read so far.
    pub fn estimate_all(&self, size_of: impl Fn(&str) -> Option<u64>) -> (u64, u64, bool) {
        const PROBES: usize = 64;
        // Spark read them: nothing here reads them again (the export holds no manifest files).
        if self.exported.is_some() {
            return (0, 0, true);
        }
        let read_manifest_bytes: Vec<u64> = self
            .lists
            .values()
            .filter_map(|l| if let ListSlot::Loaded(l) = l { Some(l) } else { None })
            .flat_map(|l| l.iter().map(|m| m.manifest_length.max(0) as u64))
            .collect();
        let avg_manifest = if read_manifest_bytes.is_empty() { 8_192 } else { read_manifest_bytes.iter().sum::<u64>() / read_manifest_bytes.len() as u64 };
        let mut seen = std::collections::HashSet::new();
        // (list path, manifests it names, manifests its commit created). Paths are borrowed: on
        // a day of commits, copies of them were 5 MiB, asked for at every progress update.
        let mut unread: Vec<(std::borrow::Cow<str>, u64, u64)> = Vec::new();
        for (i, s) in self.snapshots.iter().enumerate() {
            let path = s.snapshot.manifest_list.as_deref().map_or_else(|| std::borrow::Cow::Owned(inline_list_path(i)), std::borrow::Cow::Borrowed);
            if s.counted.is_some() || matches!(self.lists.get(&*path), Some(ListSlot::Loaded(_)) | Some(ListSlot::Unavailable(_))) {
                continue;
            }
            if !seen.insert(path.clone()) {
                continue;
            }
            let entries = s.summary.unpack().manifests.or(s.listed.as_ref().and_then(|l| l.manifests)).unwrap_or(1);
            let created = s.snapshot.summary_i64("manifests-created").and_then(|c| u64::try_from(c).ok()).unwrap_or(1);
            unread.push((path, entries, created));
        }
        let every = unread.len().div_ceil(PROBES).max(1);
        let (mut probed, mut probed_bytes, mut probed_entries) = (0usize, 0u64, 0u64);
        for (path, entries, _) in unread.iter().step_by(every) {
            if let Some(b) = size_of(path) {
                probed += 1;
                probed_bytes = probed_bytes.saturating_add(b);
                probed_entries = probed_entries.saturating_add(*entries);
            }
        }
        let all_entries: u64 = unread.iter().map(|u| u.1).fold(0, u64::saturating_add);
        let (known_bytes, known_rows) =
            if probed_entries > 0 { (probed_bytes, probed_entries) } else { (self.reading.list_bytes_read, self.reading.list_rows_read) };
        let list_bytes = if known_rows > 0 { ((known_bytes as f64 / known_rows as f64) * all_entries as f64) as u64 } else { all_entries.saturating_mul(100) };
        let created: u64 = unread.iter().map(|u| u.2).fold(0, u64::saturating_add);
        let files = (unread.len() as u64).saturating_add(created);
        let bytes = list_bytes.saturating_add(created.saturating_mul(avg_manifest));
        (files, bytes, unread.is_empty() || (probed == unread.len() && created == 0))
    }
}

/// v1 snapshots may list their manifests inline rather than in a manifest list.
fn inline_list(paths: &[String]) -> Vec<ManifestFile> {
    paths
        .iter()
        .map(|p| ManifestFile {
            manifest_path: p.clone(),
            manifest_length: 0,
            partition_spec_id: 0,
            content: ManifestContent::Data,
            sequence_number: 0,
            min_sequence_number: 0,
            added_snapshot_id: None,
            added_files_count: None,
            existing_files_count: None,
            deleted_files_count: None,
            added_rows_count: None,
            existing_rows_count: None,
            deleted_rows_count: None,
            first_row_id: None,
        })
        .collect()
}
