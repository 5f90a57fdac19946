//! Iceberg's merge rule (`analysis::merge`) run forward commit by commit, for a growth projection
//! that follows a merging writer: each commit puts its new manifests before the kept ones, and
//! per content and partition spec `ManifestMergeManager` packs them from the oldest into bins of
//! `commit.manifest.target-size-bytes`; a bin of one is kept, the bin holding the commit's first
//! manifest merges once it holds `commit.manifest.min-count-to-merge`, any other bin of two or more
//! merges. What a merge writes is a manifest of all the bin's live files; its size is the one thing
//! the list does not say, so `MergedSize` says how it was had.
//!
//! A day of commits can be a hundred thousand steps, so the run is bounded twice: by commits and by
//! manifests visited. It stops early once the list comes back to a state it already had, apart from
//! manifests too full to ever share a bin again (they only add to the count), and the rest of the
//! day repeats that cycle.

use std::collections::HashMap;

use serde::Serialize;

use super::merge::{bin_sizes, MergePolicy};
use crate::decode::{ManifestContent, ManifestFile};

/// Commits simulated at most: a day at one commit every 432 ms.
pub const COMMITS_MAX: u64 = 200_000;
/// Manifests visited at most, over all commits: what bounds the time a long list takes.
pub const VISITS_MAX: u64 = 20_000_000;
/// States remembered to find a cycle, and how long one may be: a cycle passes through the short
/// state right after a merge, so short states are enough.
const MEMO_MAX: usize = 4_096;
const KEY_MAX: usize = 32;

/// A manifest as the simulation holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Held {
    pub bytes: u64,
    /// Live files (added and existing): what a merge carries over.
    pub files: u64,
}

impl Held {
    pub fn of(m: &ManifestFile) -> Held {
        let n = |v: Option<i64>| v.and_then(|v| u64::try_from(v).ok());
        let files = match (n(m.added_files_count), n(m.existing_files_count)) {
            // Unknown counts only weigh in the merged size estimate; one file is the least a kept
            // manifest holds.
            (None, None) => 1,
            (a, e) => a.unwrap_or(0).saturating_add(e.unwrap_or(0)),
        };
        Held { bytes: u64::try_from(m.manifest_length).unwrap_or(0), files }
    }

    /// A merging commit drops manifests with no live files before it packs (`shouldKeep`).
    fn kept(m: &ManifestFile) -> bool {
        !(m.added_files_count == Some(0) && m.existing_files_count == Some(0))
    }
}

/// How the size of a manifest a merge writes is had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MergedSize {
    /// The list's manifests hold different numbers of files: their bytes fitted as a fixed part
    /// (Avro header, schema, spec) and a part per file.
    Fitted { header_bytes: u64, bytes_per_file: u64 },
    /// The list cannot tell (every manifest holds as many files): a merged manifest taken as no
    /// larger than the largest it folds, as if its header were all its bytes. Less than it is.
    Largest,
    /// The list cannot tell: a merged manifest taken as large as all it folds, one header per
    /// input. More than it is, so merges by size come sooner than they will.
    SumOfInputs,
    /// From counts alone: every manifest weighs nothing, so only the count rule merges.
    CountRuleOnly,
}

impl MergedSize {
    /// Fits bytes = header + per file × files through the manifests holding the fewest and the
    /// most files; `unknown` where they hold as many.
    fn fit(held: &[Held], unknown: MergedSize) -> MergedSize {
        let (Some(lo), Some(hi)) = (held.iter().min_by_key(|h| (h.files, h.bytes)), held.iter().max_by_key(|h| (h.files, h.bytes))) else {
            return unknown;
        };
        let (Some(df), Some(db)) = (hi.files.checked_sub(lo.files), hi.bytes.checked_sub(lo.bytes)) else { return unknown };
        if df == 0 || db == 0 {
            return unknown;
        }
        let per = db / df;
        MergedSize::Fitted { header_bytes: lo.bytes.saturating_sub(per.saturating_mul(lo.files)), bytes_per_file: per }
    }

    fn merged(self, bin: &[Held]) -> Held {
        let files = bin.iter().fold(0u64, |a, h| a.saturating_add(h.files));
        let sum = bin.iter().fold(0u64, |a, h| a.saturating_add(h.bytes));
        // It holds every entry of its largest input, so it is at least that large.
        let largest = bin.iter().map(|h| h.bytes).max().unwrap_or(0);
        let bytes = match self {
            MergedSize::Fitted { header_bytes, bytes_per_file } => header_bytes.saturating_add(bytes_per_file.saturating_mul(files)).max(largest),
            MergedSize::Largest => largest,
            MergedSize::SumOfInputs | MergedSize::CountRuleOnly => sum,
        };
        Held { bytes, files }
    }
}

/// One partition spec's manifests of one content, newest first as the list orders them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Group {
    spec: i32,
    held: Vec<Held>,
}

/// One content's manifests (data, or deletes: Iceberg merges them apart, by the same settings).
#[derive(Debug, Clone)]
struct Lane {
    /// By spec id, highest first: the order `ManifestMergeManager.groupBySpec` writes them in.
    groups: Vec<Group>,
    /// What each commit writes, in the spec it writes.
    new: Vec<Held>,
    written: i32,
    size: MergedSize,
}

impl Lane {
    fn of(list: &[ManifestFile], content: ManifestContent, new: Vec<Held>, written: i32, unknown: MergedSize) -> Lane {
        let mut groups: Vec<Group> = Vec::new();
        for m in list.iter().filter(|m| m.content == content && Held::kept(m)) {
            match groups.iter_mut().find(|g| g.spec == m.partition_spec_id) {
                Some(g) => g.held.push(Held::of(m)),
                None => groups.push(Group { spec: m.partition_spec_id, held: vec![Held::of(m)] }),
            }
        }
        groups.sort_by_key(|g| std::cmp::Reverse(g.spec));
        let all: Vec<Held> = groups.iter().flat_map(|g| g.held.iter().copied()).chain(new.iter().copied()).collect();
        let size = MergedSize::fit(&all, unknown);
        Lane { groups, new, written, size }
    }

    fn count(&self) -> u64 {
        self.groups.iter().map(|g| g.held.len() as u64).sum()
    }
}

/// What one commit did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Step {
    /// Manifests in the list after it, data and delete.
    pub manifests: u64,
    /// The bin holding the commit's first manifest reached the count and merged.
    pub by_count: bool,
    /// Another bin merged: filled by size, or of a spec no longer written.
    pub by_size: bool,
}

/// A list carried forward commit by commit.
#[derive(Debug, Clone)]
pub struct Simulation {
    lanes: Vec<Lane>,
    /// From counts alone, the lanes stay empty and this is the list.
    counted: Option<Counted>,
    target: u64,
    min_count: i64,
    /// The smallest manifest the list can ever hold: a manifest that cannot share a bin even with
    /// it is full, alone in every packing, never merged again.
    floor: u64,
    visits: u64,
    bins: Vec<usize>,
    items: Vec<Held>,
}

/// A list known by its count alone: one bin of weightless manifests.
#[derive(Debug, Clone, Copy)]
struct Counted {
    manifests: u64,
    new: u64,
}

/// The new manifests one commit writes, per content, and the spec they are written in.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NewManifests {
    pub data: Vec<Held>,
    pub data_spec: i32,
    pub deletes: Vec<Held>,
    pub deletes_spec: i32,
}

impl Simulation {
    /// From a manifest list, each commit writing `new`; a merged manifest sized as `unknown` says
    /// where the list cannot tell.
    pub fn from_list(list: &[ManifestFile], new: &NewManifests, policy: &MergePolicy, unknown: MergedSize) -> Simulation {
        let lanes = vec![
            Lane::of(list, ManifestContent::Data, new.data.clone(), new.data_spec, unknown),
            Lane::of(list, ManifestContent::Deletes, new.deletes.clone(), new.deletes_spec, unknown),
        ];
        Simulation::with(lanes, u64::try_from(policy.target_bytes.value).unwrap_or(0), policy.min_count.value)
    }

    /// From a count alone: `manifests` in one bin, each commit adding `new` more. Sizes are unknown,
    /// so only the count rule can merge (none at all where the target is not positive: no two
    /// manifests share a bin).
    pub fn from_count(manifests: u64, new: u64, policy: &MergePolicy) -> Simulation {
        let target = if policy.target_bytes.value > 0 { u64::MAX } else { 0 };
        let mut sim = Simulation::with(Vec::new(), target, policy.min_count.value);
        sim.counted = Some(Counted { manifests, new });
        sim
    }

    fn with(lanes: Vec<Lane>, target: u64, min_count: i64) -> Simulation {
        let floor = lanes.iter().flat_map(|l| l.groups.iter().flat_map(|g| g.held.iter()).chain(l.new.iter())).map(|h| h.bytes).min().unwrap_or(0);
        Simulation { lanes, counted: None, target, min_count, floor, visits: 0, bins: Vec::new(), items: Vec::new() }
    }

    /// How a merged data manifest's size is had.
    pub fn merged_size(&self) -> MergedSize {
        match (&self.counted, self.lanes.first()) {
            (None, Some(l)) => l.size,
            _ => MergedSize::CountRuleOnly,
        }
    }

    /// Whether a content with manifests to merge had its merged size from `unknown`, not the list.
    pub fn size_unknown(&self, unknown: MergedSize) -> bool {
        self.lanes.iter().any(|l| l.size == unknown && (l.count() > 0 || !l.new.is_empty()))
    }

    pub fn manifests(&self) -> u64 {
        match &self.counted {
            Some(c) => c.manifests,
            None => self.lanes.iter().map(Lane::count).sum(),
        }
    }

    /// Manifests visited so far.
    pub fn visits(&self) -> u64 {
        self.visits
    }

    fn full(&self, h: &Held) -> bool {
        h.bytes.saturating_add(self.floor) > self.target
    }

    /// One commit: its new manifests first, then every group packed and merged as Iceberg does.
    pub fn commit(&mut self) -> Step {
        let mut step = Step::default();
        let (target, min) = (self.target, self.min_count);
        if let Some(c) = &mut self.counted {
            self.visits = self.visits.saturating_add(1);
            let n = c.manifests.saturating_add(c.new);
            step.by_count = target > 0 && n > 1 && i64::try_from(n).unwrap_or(i64::MAX) >= min;
            c.manifests = if step.by_count { 1 } else { n };
            step.manifests = c.manifests;
            return step;
        }
        for lane in &mut self.lanes {
            let new_first = !lane.new.is_empty();
            if new_first && !lane.groups.iter().any(|g| g.spec == lane.written) {
                let at = lane.groups.iter().position(|g| g.spec < lane.written).unwrap_or(lane.groups.len());
                lane.groups.insert(at, Group { spec: lane.written, held: Vec::new() });
            }
            for (gi, g) in lane.groups.iter_mut().enumerate() {
                let gets_new = new_first && g.spec == lane.written;
                // `first` is the commit's first manifest: its new one, else the list's first.
                let has_first = gets_new || (!new_first && gi == 0);
                self.items.clear();
                if gets_new {
                    self.items.extend_from_slice(&lane.new);
                }
                self.items.append(&mut g.held);
                self.visits = self.visits.saturating_add(self.items.len() as u64);
                bin_sizes(self.items.iter().rev().map(|h| h.bytes), target, &mut self.bins);
                // Bins come oldest first; the list is newest first, so walk them from the end.
                let mut start = 0usize;
                for &c in self.bins.iter().rev() {
                    let Some(bin) = self.items.get(start..start.saturating_add(c)) else { break };
                    let with_first = has_first && start == 0;
                    if c == 1 || (with_first && i64::try_from(c).unwrap_or(i64::MAX) < min) {
                        g.held.extend_from_slice(bin);
                    } else {
                        g.held.push(lane.size.merged(bin));
                        if with_first {
                            step.by_count = true;
                        } else {
                            step.by_size = true;
                        }
                    }
                    start = start.saturating_add(c);
                }
            }
            lane.groups.retain(|g| !g.held.is_empty());
        }
        step.manifests = self.manifests();
        step
    }

    /// The state apart from full manifests, which only add to the count (a run of them packs like
    /// one), and how many full manifests there are.
    fn key(&self, out: &mut Vec<Token>) -> u64 {
        out.clear();
        if let Some(c) = &self.counted {
            if self.target == 0 {
                out.push(Token::Full);
                return c.manifests;
            }
            out.push(Token::Count(c.manifests));
            return 0;
        }
        let mut full = 0u64;
        for lane in &self.lanes {
            out.push(Token::Lane);
            // Only a fitted size reads a manifest's files; elsewhere they are no part of the state.
            let files = |h: &Held| if matches!(lane.size, MergedSize::Fitted { .. }) { h.files } else { 0 };
            for g in &lane.groups {
                out.push(Token::Group(g.spec));
                for h in &g.held {
                    if self.full(h) {
                        full += 1;
                        if out.last() != Some(&Token::Full) {
                            out.push(Token::Full);
                        }
                    } else {
                        out.push(Token::Held(Held { bytes: h.bytes, files: files(h) }));
                    }
                }
            }
        }
        full
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Token {
    Count(u64),
    Lane,
    Group(i32),
    Held(Held),
    Full,
}

/// How the day's end was reached.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ended {
    /// Every commit of the day was simulated.
    Day,
    /// After `at_commit` commits the list was as it had been `period` commits before, apart from
    /// `full_per_period` more full manifests: the rest of the day repeats that cycle.
    Repeats { at_commit: u64, period: u64, full_per_period: u64 },
    /// The bound stopped the run after `simulated` commits; the rest of the day is assumed to go
    /// on as the second half of them did: the count moving `manifests_per_commit`, within the
    /// same swing.
    Bounded { simulated: u64, manifests_per_commit: f64 },
}

/// A day of commits, run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DayRun {
    pub commits: u64,
    /// Manifests after the last commit, and the fewest and most after any commit of the day.
    pub end: u64,
    pub fewest: u64,
    pub most: u64,
    pub merges_by_count: u64,
    pub merges_by_size: u64,
    /// Commits from now to the first merge, if one comes within the day.
    pub first_merge: Option<u64>,
    pub ended: Ended,
}

/// Runs `commits` commits, within the bounds.
pub fn run_day(sim: &mut Simulation, commits: u64) -> DayRun {
    let mut counts: Vec<u64> = Vec::new();
    let mut fulls: Vec<u64> = Vec::new();
    let mut flags: Vec<(bool, bool)> = Vec::new();
    let mut memo: HashMap<Vec<Token>, u64> = HashMap::new();
    let mut key = Vec::new();
    let at_start = sim.key(&mut key);
    if key.len() <= KEY_MAX {
        memo.insert(key.clone(), 0);
    }
    let mut t = 0u64;
    while t < commits {
        if t >= COMMITS_MAX || sim.visits() >= VISITS_MAX {
            return bounded(&counts, &flags, commits);
        }
        let step = sim.commit();
        t += 1;
        let full = sim.key(&mut key);
        counts.push(step.manifests);
        fulls.push(full);
        flags.push((step.by_count, step.by_size));
        if key.len() <= KEY_MAX {
            if let Some(&j) = memo.get(&key) {
                let before = match j.checked_sub(1) {
                    None => at_start,
                    Some(i) => fulls.get(usize::try_from(i).unwrap_or(usize::MAX)).copied().unwrap_or(full),
                };
                return repeated(&counts, &flags, commits, j, full.saturating_sub(before));
            }
            if memo.len() < MEMO_MAX {
                memo.insert(key.clone(), t);
            }
        }
    }
    summarize(&counts, &flags, commits, Ended::Day)
}

fn summarize(counts: &[u64], flags: &[(bool, bool)], commits: u64, ended: Ended) -> DayRun {
    DayRun {
        commits,
        end: counts.last().copied().unwrap_or(0),
        fewest: counts.iter().copied().min().unwrap_or(0),
        most: counts.iter().copied().max().unwrap_or(0),
        merges_by_count: flags.iter().filter(|f| f.0).count() as u64,
        merges_by_size: flags.iter().filter(|f| f.1).count() as u64,
        first_merge: flags.iter().position(|f| f.0 || f.1).map(|i| i as u64 + 1),
        ended,
    }
}

/// The state after commit t (the last recorded) is the one after commit j, `grown` full
/// manifests higher: every later commit c repeats commit c − period, `grown` higher. So commit
/// j + 1 + r + q·period (r < period, q ≥ 1) repeats the recorded commit j + 1 + r, q·grown higher.
fn repeated(counts: &[u64], flags: &[(bool, bool)], commits: u64, j: u64, grown: u64) -> DayRun {
    let t = counts.len() as u64;
    let period = t.saturating_sub(j).max(1);
    let mut run = summarize(counts, flags, commits, Ended::Repeats { at_commit: t, period, full_per_period: grown });
    if commits <= t {
        return run;
    }
    // 0-based: commit j + 1 + r is recorded at index j + r.
    let at = |r: u64| usize::try_from(j.saturating_add(r)).unwrap_or(usize::MAX);
    for r in 0..period {
        let (Some(&base), Some(&(by_count, by_size))) = (counts.get(at(r)), flags.get(at(r))) else { continue };
        let Some(span) = commits.checked_sub(j.saturating_add(1).saturating_add(r)) else { continue };
        let cycles = span / period;
        if cycles == 0 {
            continue;
        }
        run.fewest = run.fewest.min(base.saturating_add(grown));
        run.most = run.most.max(base.saturating_add(grown.saturating_mul(cycles)));
        run.merges_by_count = run.merges_by_count.saturating_add(if by_count { cycles } else { 0 });
        run.merges_by_size = run.merges_by_size.saturating_add(if by_size { cycles } else { 0 });
    }
    let span = commits.saturating_sub(j.saturating_add(1));
    run.end = counts.get(at(span % period)).copied().unwrap_or(run.end).saturating_add(grown.saturating_mul(span / period));
    run
}

/// Stopped by a bound: the rest of the day goes on as the second half of the simulated commits
/// did, the count moving at their net rate (full manifests, or a count no merge comes to) within
/// the swing they showed.
fn bounded(counts: &[u64], flags: &[(bool, bool)], commits: u64) -> DayRun {
    let s = counts.len();
    let half = s / 2;
    let rate = match (counts.get(half), counts.last()) {
        (Some(&a), Some(&b)) if s > half + 1 => (b as f64 - a as f64) / (s - 1 - half) as f64,
        _ => 0.0,
    };
    let rest = commits.saturating_sub(s as u64) as f64;
    let mut run = summarize(counts, flags, commits, Ended::Bounded { simulated: s as u64, manifests_per_commit: rate });
    let shift = |v: u64| (v as f64 + rate * rest).round().max(0.0) as u64;
    let recent_most = counts.get(half..).and_then(|c| c.iter().copied().max()).unwrap_or(run.most);
    run.end = shift(run.end);
    run.most = run.most.max(shift(recent_most));
    if s > 0 {
        let scale = commits as f64 / s as f64;
        run.merges_by_count = (run.merges_by_count as f64 * scale).round() as u64;
        run.merges_by_size = (run.merges_by_size as f64 * scale).round() as u64;
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::merge::{read_list, MIN_COUNT_TO_MERGE};

    fn list(manifests: &[(i64, i64)]) -> Vec<ManifestFile> {
        manifests
            .iter()
            .map(|&(bytes, files)| ManifestFile {
                manifest_path: String::new(),
                manifest_length: bytes,
                partition_spec_id: 0,
                content: ManifestContent::Data,
                sequence_number: 0,
                min_sequence_number: 0,
                added_snapshot_id: None,
                added_files_count: Some(files),
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

    fn writes(bytes: u64, files: u64) -> NewManifests {
        NewManifests { data: vec![Held { bytes, files }], ..NewManifests::default() }
    }

    /// The day stepped commit by commit with nothing skipped: what `run_day` must agree with.
    fn plain(mut sim: Simulation, commits: u64) -> (u64, u64, u64, u64, u64, Option<u64>) {
        let (mut fewest, mut most, mut end, mut by_count, mut by_size, mut first) = (u64::MAX, 0, 0, 0, 0, None);
        for t in 1..=commits {
            let s = sim.commit();
            (fewest, most, end) = (fewest.min(s.manifests), most.max(s.manifests), s.manifests);
            by_count += u64::from(s.by_count);
            by_size += u64::from(s.by_size);
            if first.is_none() && (s.by_count || s.by_size) {
                first = Some(t);
            }
        }
        (end, fewest, most, by_count, by_size, first)
    }

    #[test]
    fn the_count_rule_merges_the_hundredth_and_agrees_with_the_forecast() {
        // 35 manifests of 7 KB (the merge-append-long fixture's list): the forecast says 65 commits.
        let l = list(&[(7_000, 1); 35]);
        let p = policy(&[]);
        let forecast = read_list(&l, &p).forecasts[0].commits;
        let mut sim = Simulation::from_list(&l, &writes(7_000, 1), &p, MergedSize::Largest);
        let counts: Vec<u64> = (0..300).map(|_| sim.commit().manifests).collect();
        assert_eq!(counts.iter().position(|&c| c == 1).map(|i| i as u64 + 1), Some(forecast));
        // Then 2, 3, … 99, and the 100th in the bin merges again: 99 commits a cycle.
        assert_eq!(counts[64..64 + 100], (1..=99).chain([1]).collect::<Vec<u64>>()[..]);
        // The count alone says the same where sizes do not matter.
        let mut by_count = Simulation::from_count(35, 1, &p);
        assert_eq!((0..300).map(|_| by_count.commit().manifests).collect::<Vec<_>>(), counts);
    }

    #[test]
    fn manifests_filling_the_target_merge_by_size_and_those_over_half_never_merge() {
        let p = policy(&[(MIN_COUNT_TO_MERGE, "1000")]);
        // 1 MB manifests, 8 MB target: the ninth closes a bin of eight, which merges.
        let mut sim = Simulation::from_list(&list(&[(1 << 20, 1)]), &writes(1 << 20, 1), &p, MergedSize::SumOfInputs);
        let steps: Vec<Step> = (0..8).map(|_| sim.commit()).collect();
        assert_eq!(steps.iter().map(|s| s.manifests).collect::<Vec<_>>(), [2, 3, 4, 5, 6, 7, 8, 2]);
        assert!(steps[7].by_size && !steps[7].by_count);
        // 5 MB manifests never share a bin: one more per commit, found as a cycle of one commit.
        let mut sim = Simulation::from_list(&list(&[(5 << 20, 1); 3]), &writes(5 << 20, 1), &p, MergedSize::SumOfInputs);
        let run = run_day(&mut sim, 17_280);
        assert_eq!((run.end, run.fewest, run.most, run.first_merge), (3 + 17_280, 4, 3 + 17_280, None));
        assert!(matches!(run.ended, Ended::Repeats { period: 1, full_per_period: 1, .. }), "{:?}", run.ended);
    }

    #[test]
    fn a_day_skipped_by_its_cycle_is_the_day_stepped_through() {
        // Sizes that make merged manifests fill the target now and then, so the cycle carries
        // full manifests; counts that merge often; a target that never fills.
        let cases: [(&[(i64, i64)], (u64, u64), &[(&str, &str)], MergedSize); 5] = [
            (&[(7_500, 3); 19], (7_500, 3), &[], MergedSize::SumOfInputs),
            (&[(7_500, 3); 19], (7_500, 3), &[], MergedSize::Largest),
            (&[(11_600, 100), (7_276, 1), (7_276, 1)], (7_276, 1), &[], MergedSize::Largest),
            (&[(300_000, 3); 4], (300_000, 3), &[(MIN_COUNT_TO_MERGE, "7")], MergedSize::SumOfInputs),
            (&[(7_000, 1); 5], (7_000, 1), &[(MIN_COUNT_TO_MERGE, "2")], MergedSize::SumOfInputs),
        ];
        for (i, (l, (b, f), props, unknown)) in cases.into_iter().enumerate() {
            let p = policy(props);
            for commits in [1, 50, 99, 1_000, 5_003, 17_254] {
                let sim = Simulation::from_list(&list(l), &writes(b, f), &p, unknown);
                let run = run_day(&mut sim.clone(), commits);
                let got = (run.end, run.fewest, run.most, run.merges_by_count, run.merges_by_size, run.first_merge);
                assert_eq!(got, plain(sim, commits), "case {i}, {commits} commits: {:?}", run.ended);
            }
        }
    }

    #[test]
    fn the_bounds_stop_a_run_and_say_so() {
        // Sizes that never repeat a state: the commit bound ends the run.
        let p = policy(&[(MIN_COUNT_TO_MERGE, "2147483647")]);
        let mut sim = Simulation::from_list(&list(&[(1, 1)]), &writes(1, 1), &p, MergedSize::SumOfInputs);
        let run = run_day(&mut sim, COMMITS_MAX + 10_000);
        assert!(matches!(run.ended, Ended::Bounded { .. }), "{:?}", run.ended);
        assert!(sim.visits() <= VISITS_MAX.saturating_add(COMMITS_MAX + 1));
        // A not-positive target: no two manifests share a bin, the count alone never merges.
        let mut sim = Simulation::from_count(10, 1, &policy(&[("commit.manifest.target-size-bytes", "0")]));
        assert_eq!(run_day(&mut sim, 500).end, 510);
        // A count no merge comes to within the bound goes on as it went: 2 a commit.
        let p = policy(&[(MIN_COUNT_TO_MERGE, "2147483647")]);
        let run = run_day(&mut Simulation::from_count(10, 2, &p), 86_400_000);
        assert_eq!((run.end, run.most, run.first_merge), (10 + 2 * 86_400_000, 10 + 2 * 86_400_000, None));
        assert!(matches!(run.ended, Ended::Bounded { simulated: COMMITS_MAX, manifests_per_commit } if manifests_per_commit == 2.0));
        // A count a summary may claim is held as a number: it merges at once.
        let run = run_day(&mut Simulation::from_count(u64::MAX - 5, 2, &p), 86_400_000);
        assert_eq!((run.end, run.first_merge), (1 + 2 * (86_400_000 - 1), Some(1)));
    }
}
