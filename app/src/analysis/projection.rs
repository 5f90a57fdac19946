//! Slope and projection: what each checkpoint adds, and what a day of checkpoints comes to at the
//! observed interval. Snapshots, files and the metadata.json add up commit after commit; manifests
//! add up only where nothing merges them. Every Flink sink commits through a merging producer, so
//! where the table lets it merge, a day of its manifests is simulated with Iceberg's rule
//! (`merge_simulation`) rather than multiplied: a day at one commit a second is not 86,400
//! manifests but a count that rises to the merge threshold and falls back.

use serde::Serialize;

use super::merge::{read_list, MergePolicy, Setting, Stated};
use super::merge_simulation::{run_day, DayRun, Held, MergedSize, NewManifests, Simulation};
use crate::decode::ManifestContent;
use crate::model::TableHistory;

/// Growth of each series in one commit.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Rates {
    pub snapshots: f64,
    pub manifests: f64,
    pub manifest_bytes: f64,
    pub data_files: f64,
    pub delete_files: f64,
    pub records: f64,
    pub metadata_json_bytes: Option<f64>,
}

/// One series now, what a day of commits adds to it, and where that leaves it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DaySeries {
    pub now: f64,
    /// Net: negative where merges fold more manifests away than the day writes.
    pub added_in_a_day: f64,
    pub total_after_a_day: f64,
    /// Where merging makes the count rise and fall within the day: the fewest and the most
    /// after any of its commits.
    pub over_the_day: Option<Swing>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Swing {
    pub fewest: f64,
    pub most: f64,
}

impl DaySeries {
    fn linear(now: f64, per_commit: f64, commits: f64) -> DaySeries {
        // A writer only adds; a window that lost files to a rewrite is not a day's trend.
        let added = (per_commit * commits).max(0.0);
        DaySeries { now, added_in_a_day: added, total_after_a_day: now + added, over_the_day: None }
    }
}

/// Each series now and after a day: computed once here, worded by `report::projection` for the
/// sentence, the chart and the Markdown alike.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Day {
    pub snapshots: DaySeries,
    pub manifests: DaySeries,
    pub data_files: DaySeries,
    pub delete_files: DaySeries,
    pub records: DaySeries,
    pub metadata_json_bytes: Option<DaySeries>,
}

/// How the manifests were projected.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum ManifestModel {
    /// Nothing merges them: each commit's manifests add up.
    Linear { why: Unmerged },
    /// The writer merges: a day of commits simulated with the table's merge settings.
    Merging(Box<Merging>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Unmerged {
    /// `commit.manifest-merge.enabled` is false.
    MergingOff { stated: Stated },
    /// Merging is on, yet the newest bin holds `newest_bin` manifests, at least the count that
    /// merges: the writer appends without merging (a fast append).
    WriterDoesNotMerge { newest_bin: u64, min_count: i64 },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Merging {
    pub min_count: Setting<i64>,
    pub target_bytes: Setting<i64>,
    /// Where the simulation started.
    pub start: Start,
    /// What each simulated commit writes (the writer's last commits show it).
    pub new_data_manifests: Vec<Held>,
    pub new_delete_manifests: Vec<Held>,
    pub merged_size: MergedSize,
    /// The day, a merged manifest sized as `merged_size` says.
    pub run: DayRun,
    /// Where the list cannot tell a merged manifest's size (`merged_size` is `Largest`, less than
    /// it is), the day again with it as large as all it folds (more than it is), if that differs:
    /// the truth lies between.
    pub at_most: Option<DayRun>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// From the current manifest list, packed by size and count.
    List,
    /// From the current count alone, by the count rule alone (no list at hand).
    Count,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Projection {
    /// The streaming job whose last commits were measured.
    pub job_id: String,
    /// Commits in the window (at most `WINDOW`).
    pub commits: usize,
    pub interval_ms: f64,
    pub per_commit: Rates,
    /// A day at `interval_ms`, in whole commits.
    pub commits_in_a_day: u64,
    pub day: Day,
    /// How `day.manifests` was had: added up, or simulated with the writer's merging.
    pub manifest_model: ManifestModel,
}

pub const WINDOW: usize = 20;
const DAY_MS: f64 = 86_400_000.0;

/// None unless the last Flink job committed at least three consecutive snapshots with known counts.
pub fn projection(history: &TableHistory) -> Option<Projection> {
    let last = history.snapshots.iter().rposition(|s| s.flink.is_some())?;
    let job = history.snapshots[last].flink.as_ref()?.job_id.to_string();
    let mut window: Vec<usize> = Vec::new();
    for i in (0..=last).rev() {
        let s = &history.snapshots[i];
        let same_job = s.flink.as_ref().is_some_and(|f| *f.job_id == *job && !f.is_end_of_input());
        if !same_job || !history.totals(i).has_core() || window.len() == WINDOW {
            if s.flink.as_ref().is_some_and(|f| f.is_end_of_input()) && window.is_empty() {
                continue; // the final flush is not a checkpoint interval
            }
            break;
        }
        window.push(i);
    }
    window.reverse();
    if window.len() < 3 {
        return None;
    }
    let (a, b) = (window[0], *window.last()?);
    let steps = (window.len() - 1) as f64;
    let (ca, cb) = (history.totals(a), history.totals(b));
    let (ta, tb) = (history.snapshots[a].snapshot.timestamp_ms, history.snapshots[b].snapshot.timestamp_ms);
    let interval_ms = (tb as f64 - ta as f64) / steps;
    if interval_ms <= 0.0 {
        return None;
    }
    let d = |x: Option<u64>, y: Option<u64>| match (x, y) {
        (Some(x), Some(y)) => (y as f64 - x as f64) / steps,
        _ => 0.0,
    };
    // metadata.json sizes written during the window: each commit writes one.
    let sizes: Vec<&crate::model::MetadataSize> = history.metadata_sizes.iter().filter(|m| m.timestamp_ms >= ta && m.timestamp_ms <= tb).collect();
    let metadata_json_bytes = (sizes.len() >= 2).then(|| (sizes[sizes.len() - 1].bytes as f64 - sizes[0].bytes as f64) / (sizes.len() - 1) as f64);
    let per_commit = Rates {
        snapshots: 1.0,
        manifests: d(ca.manifests, cb.manifests),
        manifest_bytes: d(ca.manifest_bytes, cb.manifest_bytes),
        data_files: d(ca.data_files, cb.data_files),
        delete_files: d(ca.deletes(), cb.deletes()),
        records: d(ca.records, cb.records),
        metadata_json_bytes,
    };
    // Whole commits: the simulation runs whole commits, and every series counts the same ones.
    // `as` saturates; a day is at most 86,400,000 commits of one millisecond.
    let commits_in_a_day = (DAY_MS / interval_ms).round() as u64;
    let n = commits_in_a_day as f64;
    let cur = history.current_index().filter(|&c| history.totals(c).has_core()).unwrap_or(b);
    let now = history.totals(cur);
    let (manifest_model, manifests_day) = manifests(history, &window, cur, &per_commit, commits_in_a_day);
    let count = |v: Option<u64>| v.unwrap_or(0) as f64;
    let day = Day {
        snapshots: DaySeries::linear(history.snapshots.len() as f64, 1.0, n),
        manifests: manifests_day,
        data_files: DaySeries::linear(count(now.data_files), per_commit.data_files, n),
        delete_files: DaySeries::linear(count(now.deletes()), per_commit.delete_files, n),
        records: DaySeries::linear(count(now.records), per_commit.records, n),
        metadata_json_bytes: history.metadata_sizes.last().zip(per_commit.metadata_json_bytes).map(|(m, g)| DaySeries::linear(m.bytes as f64, g, n)),
    };
    Some(Projection { job_id: job, commits: window.len(), interval_ms, per_commit, commits_in_a_day, day, manifest_model })
}

/// The manifests' model and their day: linear where nothing merges them, else simulated.
fn manifests(history: &TableHistory, window: &[usize], cur: usize, per_commit: &Rates, commits: u64) -> (ManifestModel, DaySeries) {
    let policy = MergePolicy::of(&history.metadata.properties);
    let now = history.totals(cur).manifests.unwrap_or(0);
    let linear = |why| (ManifestModel::Linear { why }, DaySeries::linear(now as f64, per_commit.manifests, commits as f64));
    if !policy.enabled.value {
        return linear(Unmerged::MergingOff { stated: policy.enabled.stated });
    }
    let list = history.list_of(cur);
    // The same reading as the never-merged finding: a newest bin past the count did not merge.
    let min = policy.min_count.value;
    let past = match list {
        Some(list) => read_list(list, &policy).unmerged_newest_bin,
        None => (now > 1 && i64::try_from(now).unwrap_or(i64::MAX) >= min).then_some(now),
    };
    if let Some(newest_bin) = past {
        return linear(Unmerged::WriterDoesNotMerge { newest_bin, min_count: min });
    }
    let new = new_manifests(history, window, per_commit.delete_files > 0.0);
    let (mut sim, start) = match (list, &new) {
        (Some(list), Some(new)) => (Simulation::from_list(list, new, &policy, MergedSize::Largest), Start::List),
        _ => (Simulation::from_count(now, added_per_commit(history, window), &policy), Start::Count),
    };
    let run = run_day(&mut sim, commits);
    let at_most = match (list, &new) {
        (Some(list), Some(new)) if sim.size_unknown(MergedSize::Largest) => {
            let mut upper = Simulation::from_list(list, new, &policy, MergedSize::SumOfInputs);
            Some(run_day(&mut upper, commits)).filter(|u| (u.fewest, u.most, u.end) != (run.fewest, run.most, run.end))
        }
        _ => None,
    };
    let both = std::iter::once(&run).chain(at_most.as_ref());
    let fewest = both.clone().map(|r| r.fewest).min().unwrap_or(run.fewest);
    let most = both.map(|r| r.most).max().unwrap_or(run.most);
    let day = DaySeries {
        now: now as f64,
        added_in_a_day: run.end as f64 - now as f64,
        total_after_a_day: run.end as f64,
        over_the_day: Some(Swing { fewest: fewest as f64, most: most as f64 }),
    };
    let new = new.unwrap_or_default();
    let model = Merging {
        min_count: policy.min_count,
        target_bytes: policy.target_bytes,
        start,
        new_data_manifests: new.data,
        new_delete_manifests: new.deletes,
        merged_size: sim.merged_size(),
        run,
        at_most,
    };
    (ManifestModel::Merging(Box::new(model)), day)
}

/// The manifests the newest of `window`'s commits wrote themselves (added by that snapshot, holding
/// nothing older), per content: what each simulated commit writes. Delete manifests only with
/// `deletes` (the window's commits added delete files). None unless some list in the window shows
/// new data manifests.
pub fn new_manifests(history: &TableHistory, window: &[usize], deletes: bool) -> Option<NewManifests> {
    let own = |i: usize, content: ManifestContent| -> Option<(i32, Vec<Held>)> {
        let list = history.list_of(i)?;
        let mine: Vec<_> = list
            .iter()
            .filter(|m| m.content == content && m.existing_files_count == Some(0))
            .filter(|m| m.added_snapshot_id.and_then(|id| history.index_of_avro_id(id)) == Some(i))
            .collect();
        let spec = mine.first()?.partition_spec_id;
        Some((spec, mine.into_iter().filter(|m| m.partition_spec_id == spec).map(Held::of).collect()))
    };
    let newest = |content| window.iter().rev().find_map(|&i| own(i, content));
    let (data_spec, data) = newest(ManifestContent::Data)?;
    let (deletes_spec, deletes) = if deletes { newest(ManifestContent::Deletes).unwrap_or((0, Vec::new())) } else { (0, Vec::new()) };
    Some(NewManifests { data, data_spec, deletes, deletes_spec })
}

/// From counts alone: the most manifests one commit of the window added (a commit that merged
/// added fewer, or none).
fn added_per_commit(history: &TableHistory, window: &[usize]) -> u64 {
    window.windows(2).filter_map(|w| history.totals(w[1]).manifests?.checked_sub(history.totals(w[0]).manifests?)).max().unwrap_or(1).min(1_000)
}
