//! When Iceberg's merging producers merge manifests, forecast from a manifest list. Every producer
//! built on `MergingSnapshotProducer` (merge append — `newAppend`, which every Flink sink uses —,
//! row deltas, overwrites, rewrites) passes the new and kept manifests through `ManifestMergeManager`
//! once per commit: per content (data, deletes) and per partition spec, the manifests are packed
//! from the oldest into bins of `commit.manifest.target-size-bytes`, one bin open at a time; a bin
//! of one is kept, a bin holding the commit's own new manifest merges only once it holds
//! `commit.manifest.min-count-to-merge` manifests, and any other bin of two or more merges. So a
//! merge comes either by count (the newest bin reaches the minimum) or by size (the newest bin
//! fills the target and the next commit closes it). A fast append never merges.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::decode::{ManifestContent, ManifestFile};

/// Iceberg's keys and defaults (`TableProperties`).
pub const MERGE_ENABLED: &str = "commit.manifest-merge.enabled";
pub const MIN_COUNT_TO_MERGE: &str = "commit.manifest.min-count-to-merge";
pub const TARGET_SIZE_BYTES: &str = "commit.manifest.target-size-bytes";
const MIN_COUNT_DEFAULT: i64 = 100;
const TARGET_SIZE_DEFAULT: i64 = 8 * 1024 * 1024;

/// Forecasts stop here: a commit that far away is "not soon", whatever the table says.
pub const HORIZON: u64 = 1_000_000;

/// Where a setting's value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stated {
    /// Absent: Iceberg's default.
    Default,
    Table,
    /// Set to something Iceberg cannot parse as its type: a merging commit fails on it.
    Unparsable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Setting<T> {
    pub value: T,
    pub stated: Stated,
}

/// The merge settings a merging producer reads, as it reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MergePolicy {
    pub enabled: Setting<bool>,
    pub min_count: Setting<i64>,
    pub target_bytes: Setting<i64>,
}

impl MergePolicy {
    pub fn of(props: &BTreeMap<String, String>) -> MergePolicy {
        // Java's Boolean.parseBoolean: anything but "true" (any case) is false.
        let enabled = match props.get(MERGE_ENABLED) {
            None => Setting { value: true, stated: Stated::Default },
            Some(v) => Setting { value: v.eq_ignore_ascii_case("true"), stated: Stated::Table },
        };
        // Integer.parseInt / Long.parseLong: no whitespace allowed.
        let int = |key: &str, default: i64, parse: fn(&str) -> Option<i64>| match props.get(key) {
            None => Setting { value: default, stated: Stated::Default },
            Some(v) => match parse(v) {
                Some(n) => Setting { value: n, stated: Stated::Table },
                None => Setting { value: default, stated: Stated::Unparsable },
            },
        };
        MergePolicy {
            enabled,
            min_count: int(MIN_COUNT_TO_MERGE, MIN_COUNT_DEFAULT, |v| v.parse::<i32>().ok().map(i64::from)),
            target_bytes: int(TARGET_SIZE_BYTES, TARGET_SIZE_DEFAULT, |v| v.parse::<i64>().ok()),
        }
    }
}

/// Why the forecast merge happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MergeCause {
    /// The newest bin reaches `min-count-to-merge` manifests.
    Count,
    /// The newest bin fills the target size; the next commit closes it and merges it.
    Size,
    /// Older bins of two or more manifests already wait (a spec no longer written, or bins a
    /// smaller merged manifest left room in): the next commit merges them.
    Older,
}

/// The next merge of one content's manifests, if it comes within `HORIZON` commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Forecast {
    pub content: ManifestContent,
    /// Commits from now (1 = the next commit merges).
    pub commits: u64,
    pub cause: MergeCause,
    /// Manifests the merge folds into one (the largest bin merged).
    pub merged: u64,
    /// Whether the forecast assumed the size of future manifests (a size-driven merge).
    pub assumed_size: bool,
}

/// What the current list shows about the commits that made it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListReading {
    /// The newest bin of the written spec holds at least `min-count-to-merge` manifests: a merging
    /// commit would have merged it, so the writer did not merge (fast append, or merging was off).
    pub unmerged_newest_bin: Option<u64>,
    /// The next merge of data manifests, and of delete manifests.
    pub forecasts: Vec<Forecast>,
    /// Each manifest of the newest bin (bytes), the size future manifests are assumed to have.
    pub new_manifest_bytes: u64,
}

#[derive(Debug, Clone, Copy)]
struct Item {
    len: u64,
}

/// Packs oldest first with one bin open, as `ListPacker.packEnd(…, lookback 1)`: returns the closed
/// bins' item counts (oldest first) and the open (newest) bin as (weight, count).
fn pack(oldest_first: &[Item], target: u64) -> (Vec<u64>, (u64, u64)) {
    let mut bins = Vec::new();
    let open = bin_sizes(oldest_first.iter().map(|it| it.len), target, &mut bins);
    let last = bins.pop().map_or(0, |c| c as u64);
    (bins.into_iter().map(|c| c as u64).collect(), (open, last))
}

/// The packing rule itself, shared with the simulation: `bins` receives each bin's item count,
/// oldest first, the open (newest) bin last; returns the open bin's weight. An item joins the open
/// bin while the bin's weight stays within the target (`Bin.canAdd`), else it opens the next.
pub(crate) fn bin_sizes(oldest_first: impl IntoIterator<Item = u64>, target: u64, bins: &mut Vec<usize>) -> u64 {
    bins.clear();
    let (mut w, mut c) = (0u64, 0usize);
    for len in oldest_first {
        if c > 0 && w.saturating_add(len) > target {
            bins.push(c);
            (w, c) = (0, 0);
        }
        w = w.saturating_add(len);
        c += 1;
    }
    if c > 0 {
        bins.push(c);
    }
    w
}

/// Reads the list: whether its newest bin is past the count, and when each content merges next.
pub fn read_list(list: &[ManifestFile], policy: &MergePolicy) -> ListReading {
    let target = u64::try_from(policy.target_bytes.value).unwrap_or(0);
    let min = policy.min_count.value;
    let mut reading = ListReading { unmerged_newest_bin: None, forecasts: Vec::new(), new_manifest_bytes: 0 };
    for content in [ManifestContent::Data, ManifestContent::Deletes] {
        // A merging commit drops manifests with no live files before it packs.
        let kept: Vec<&ManifestFile> =
            list.iter().filter(|m| m.content == content).filter(|m| !(m.added_files_count == Some(0) && m.existing_files_count == Some(0))).collect();
        let Some(newest) = kept.first() else { continue };
        let written = newest.partition_spec_id;
        let new_len = u64::try_from(newest.manifest_length).unwrap_or(0);
        if content == ManifestContent::Data {
            reading.new_manifest_bytes = new_len;
        }
        let mut older_merge: u64 = 0;
        let mut open = (0, 0);
        let specs: std::collections::BTreeSet<i32> = kept.iter().map(|m| m.partition_spec_id).collect();
        for spec in specs {
            let items: Vec<Item> =
                kept.iter().rev().filter(|m| m.partition_spec_id == spec).map(|m| Item { len: u64::try_from(m.manifest_length).unwrap_or(0) }).collect();
            let (closed, last) = pack(&items, target);
            older_merge = older_merge.max(closed.iter().copied().filter(|&c| c > 1).max().unwrap_or(0));
            if spec == written {
                open = last;
            } else if last.1 > 1 {
                // No new manifest joins another spec's newest bin: it merges like any other.
                older_merge = older_merge.max(last.1);
            }
        }
        if content == ManifestContent::Data && i64::try_from(open.1).unwrap_or(i64::MAX) >= min && open.1 > 1 && policy.enabled.value {
            reading.unmerged_newest_bin = Some(open.1);
        }
        if !policy.enabled.value {
            continue;
        }
        if older_merge > 1 {
            reading.forecasts.push(Forecast { content, commits: 1, cause: MergeCause::Older, merged: older_merge, assumed_size: false });
            continue;
        }
        if let Some(f) = forecast(open, new_len, target, min) {
            reading.forecasts.push(Forecast { content, ..f });
        }
    }
    reading
}

/// Steps the newest bin one commit at a time, each adding one manifest of `new_len` bytes.
fn forecast((mut w, mut c): (u64, u64), new_len: u64, target: u64, min: i64) -> Option<Forecast> {
    for k in 1..=HORIZON {
        if c > 0 && w.saturating_add(new_len) > target {
            if c > 1 {
                return Some(Forecast { content: ManifestContent::Data, commits: k, cause: MergeCause::Size, merged: c, assumed_size: true });
            }
            (w, c) = (0, 0);
        }
        w = w.saturating_add(new_len);
        c += 1;
        if c > 1 && i64::try_from(c).unwrap_or(i64::MAX) >= min {
            return Some(Forecast { content: ManifestContent::Data, commits: k, cause: MergeCause::Count, merged: c, assumed_size: false });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(lens: &[i64]) -> Vec<ManifestFile> {
        lens.iter()
            .map(|&l| ManifestFile {
                manifest_path: String::new(),
                manifest_length: l,
                partition_spec_id: 0,
                content: ManifestContent::Data,
                sequence_number: 0,
                min_sequence_number: 0,
                added_snapshot_id: None,
                added_files_count: Some(1),
                existing_files_count: Some(0),
                deleted_files_count: Some(0),
                added_rows_count: None,
                existing_rows_count: None,
                deleted_rows_count: None,
                first_row_id: None,
            })
            .collect()
    }

    fn policy(pairs: &[(&str, &str)]) -> MergePolicy {
        MergePolicy::of(&pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect())
    }

    #[test]
    fn a_merge_comes_by_count_below_the_target() {
        // 35 small manifests (the merge-append-long fixture's list): the 100th merges, 65 from now.
        let r = read_list(&list(&[7_000; 35]), &policy(&[]));
        assert_eq!(r.unmerged_newest_bin, None);
        assert_eq!(r.forecasts[0].commits, 65);
        assert_eq!(r.forecasts[0].cause, MergeCause::Count);
        assert_eq!(r.forecasts[0].merged, 100);
        let r = read_list(&list(&[7_000; 35]), &policy(&[(MIN_COUNT_TO_MERGE, "20")]));
        assert_eq!(r.unmerged_newest_bin, Some(35));
        assert_eq!(r.forecasts[0].commits, 1);
    }

    #[test]
    fn a_merge_comes_by_size_when_manifests_fill_the_target_first() {
        // 1 MB manifests against an 8 MB target: eight fill a bin, the ninth closes and merges it.
        let r = read_list(&list(&[1 << 20; 3]), &policy(&[]));
        assert_eq!((r.forecasts[0].commits, r.forecasts[0].cause, r.forecasts[0].merged), (6, MergeCause::Size, 8));
        // Manifests over half the target never share a bin: nothing ever merges.
        assert!(read_list(&list(&[5 << 20; 3]), &policy(&[])).forecasts.is_empty());
    }

    #[test]
    fn older_bins_merge_at_the_next_commit_and_off_means_never() {
        // Newest first: a merged 5 MB manifest is the oldest; two 2 MB ones fill its bin.
        let r = read_list(&list(&[3 << 20, 2 << 20, 2 << 20, 5 << 20]), &policy(&[]));
        assert_eq!((r.forecasts[0].commits, r.forecasts[0].cause), (1, MergeCause::Older));
        assert!(read_list(&list(&[7_000; 150]), &policy(&[(MERGE_ENABLED, "no")])).forecasts.is_empty());
        assert_eq!(policy(&[(MIN_COUNT_TO_MERGE, " 20")]).min_count.stated, Stated::Unparsable);
        assert!(policy(&[(MERGE_ENABLED, "TRUE")]).enabled.value);
    }
}
