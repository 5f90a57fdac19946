//! A watched table's events: what changed since the last look, and what has stopped happening.
//! Pure: the history as it stands, the clock and the last look's state in; events and the next
//! state out (`icescope watch`, the app's Live switch). The state is serialisable, so a scheduler
//! can run one look at a time (`watch --once --state FILE`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::model::flink::END_OF_INPUT_CHECKPOINT;
use crate::model::{TableHistory, Writer};

use super::findings::{Finding, Severity};
use super::jobs::JobSpan;

/// How a look judges silence.
#[derive(Debug, Clone, Copy)]
pub struct LiveOptions {
    /// A writer is stalled after this many times its usual interval without a commit.
    pub stall_after: f64,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions { stall_after: 6.0 }
    }
}

/// Intervals a writer's usual pace is the median of (its most recent ones).
pub const PACE_INTERVALS: usize = 20;
/// Intervals needed before a writer's pace is judged at all: fewer say nothing reliable.
pub const MIN_INTERVALS: usize = 3;
/// The last intervals compared with the usual pace for `slowing`.
pub const RECENT_INTERVALS: usize = 5;
/// Recent intervals this many times the usual pace are a slowing writer …
pub const SLOWING_FACTOR: f64 = 2.0;
/// … and back under this factor, a steady one again.
pub const STEADY_FACTOR: f64 = 1.5;
/// Metadata growth is said once per this much time.
pub const GROWTH_EVERY_MS: i64 = 3_600_000;

/// Pairs of jobs writing at once a watch remembers (see `LiveState::overlapping`).
pub const MAX_OVERLAPPING: usize = 256;

/// What the last look saw. Snapshot ids as decimal text: they may pass 2^63.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LiveState {
    /// None before the first look.
    pub metadata_file: Option<String>,
    pub snapshot_ids: BTreeSet<String>,
    pub job_ids: BTreeSet<String>,
    /// Writer → the last commit it made when it was said to be stalled.
    pub stalled: BTreeMap<String, i64>,
    pub slowing: BTreeSet<String>,
    /// Jobs seen writing at once, `a b` (in order of first commit): the newest `MAX_OVERLAPPING`
    /// pairs by the later job's first commit.
    pub overlapping: BTreeSet<String>,
    /// Pairs whose later job first committed at or before this (ms) are taken as already said:
    /// those the bound left out of `overlapping`.
    #[serde(default)]
    pub overlapping_said_through_ms: Option<i64>,
    /// Findings that held: kind (and jobs) → its severity and title then.
    pub findings: BTreeMap<String, (Severity, String)>,
    /// Of those, the ones the last look did not see: said cleared if the next does not either.
    #[serde(default)]
    pub fading: BTreeSet<String>,
    /// When growth was last said (ms), and the metadata file's size then.
    pub growth_at: Option<(i64, u64)>,
}

/// A commit as an event carries it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Commit {
    pub snapshot_id: String,
    pub sequence_number: i64,
    pub committed_ms: i64,
    pub operation: String,
    pub writer: Writer,
    pub job_id: Option<String>,
    pub checkpoint_id: Option<i64>,
    pub added_data_files: Option<u64>,
    pub added_delete_files: Option<u64>,
    pub added_records: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The first look: what is there already.
    Watching {
        metadata_file: String,
        snapshots: usize,
        current_snapshot_id: Option<String>,
        writers: Vec<WriterPace>,
    },
    /// A newer metadata file was read: its size, and what reading it and what it adds took
    /// (files and bytes, the metadata file's included), where the caller says (`with_read`).
    Metadata {
        metadata_file: String,
        bytes: Option<u64>,
        read_files: Option<usize>,
        read_bytes: Option<u64>,
    },
    Commit(Commit),
    /// A rewrite (`replace`) or Flink's in-job maintenance: not the streaming writer's commit.
    Maintenance(Commit),
    /// Snapshots gone from the table since the last look (expire_snapshots).
    Expired {
        snapshots: usize,
    },
    /// A Flink job id first seen: a restart, a resume from a savepoint, or a second deployment.
    NewJob {
        job_id: String,
        first_checkpoint_id: Option<i64>,
        restored_state: bool,
        previous_job_id: Option<String>,
        previous_last_commit_ms: Option<i64>,
    },
    /// A job committed while another was still committing.
    SecondWriter {
        job_ids: Vec<String>,
        first_commit_ms: i64,
    },
    /// No commit for `stall_after` times the writer's usual interval.
    Stalled {
        writer: String,
        last_commit_ms: i64,
        usual_interval_ms: i64,
        silent_ms: i64,
    },
    /// A stalled writer committed again (or a new job took over after it stalled).
    Resumed {
        writer: String,
        last_commit_ms: i64,
        commit_ms: i64,
        gap_ms: i64,
        by_job: Option<String>,
    },
    /// Its last intervals are over twice its usual.
    Slowing {
        writer: String,
        recent_interval_ms: i64,
        usual_interval_ms: i64,
    },
    /// Back to its usual pace.
    Steady {
        writer: String,
        recent_interval_ms: i64,
        usual_interval_ms: i64,
    },
    /// metadata.json's size now, and how fast it grew since it was last said.
    MetadataGrowth {
        bytes: u64,
        bytes_per_hour: i64,
        since_ms: i64,
    },
    /// A finding newly holds.
    Finding(Box<Finding>),
    /// A finding that held no longer does: its title when it last held.
    FindingCleared {
        key: String,
        severity: Severity,
        title: String,
    },
}

/// An event and when the look that saw it ran.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observed {
    pub at_ms: i64,
    #[serde(flatten)]
    pub event: Event,
}

/// A writer's pace as the last look saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WriterPace {
    pub writer: String,
    pub commits: usize,
    pub last_commit_ms: i64,
    /// The median of its last `PACE_INTERVALS` intervals; None below `MIN_INTERVALS`.
    pub usual_interval_ms: Option<i64>,
    /// The median of its last `RECENT_INTERVALS`, and of up to `PACE_INTERVALS` before those:
    /// what slowing is judged by. None below `MIN_INTERVALS` before the recent ones.
    pub recent_interval_ms: Option<i64>,
    pub earlier_interval_ms: Option<i64>,
    /// Another job's first commit came after its last: it was replaced, not stalled.
    pub replaced: bool,
    pub finished: bool,
}

impl Event {
    /// The event's machine name, as its JSON line's `event` carries it.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Watching { .. } => "watching",
            Event::Metadata { .. } => "metadata",
            Event::Commit(_) => "commit",
            Event::Maintenance(_) => "maintenance",
            Event::Expired { .. } => "expired",
            Event::NewJob { .. } => "new_job",
            Event::SecondWriter { .. } => "second_writer",
            Event::Stalled { .. } => "stalled",
            Event::Resumed { .. } => "resumed",
            Event::Slowing { .. } => "slowing",
            Event::Steady { .. } => "steady",
            Event::MetadataGrowth { .. } => "metadata_growth",
            Event::Finding(_) => "finding",
            Event::FindingCleared { .. } => "finding_cleared",
        }
    }

    /// Worth a non-zero exit: a writer stalled, or a critical finding newly holds.
    pub fn is_alarm(&self) -> bool {
        match self {
            Event::Stalled { .. } => true,
            Event::Finding(f) => f.severity == Severity::Critical,
            _ => false,
        }
    }
}

/// The writer a streaming commit is counted under: its Flink job, else the engine it names.
/// None for maintenance.
fn writer_key(s: &crate::model::SnapshotState) -> Option<String> {
    let op = s.snapshot.operation.to_string();
    let (writer, _) = Writer::of(&s.snapshot.summary, &op);
    if op == "replace" || writer == Writer::FlinkMaintenance {
        return None;
    }
    Some(match &s.flink {
        Some(f) => format!("job {}", f.job_id),
        // A commit that names no writer and changes no file is no writer's pace: Iceberg's dynamic
        // sink makes one to create its branch on an empty table (TableUpdater.java:103-108).
        None if changes_no_file(s) => return None,
        None => format!("{} writer", writer.label()),
    })
}

fn changes_no_file(s: &crate::model::SnapshotState) -> bool {
    ["added-data-files", "added-delete-files", "deleted-data-files", "removed-delete-files", "added-records", "deleted-records"]
        .iter()
        .all(|k| s.snapshot.summary_i64(k).unwrap_or(0) == 0)
}

fn median(v: &mut [i64]) -> Option<i64> {
    if v.is_empty() {
        return None;
    }
    v.sort_unstable();
    Some(v[v.len() / 2])
}

/// Each writer's pace: commit times in commit order, per writer.
pub fn paces(history: &TableHistory) -> Vec<WriterPace> {
    let mut times: Vec<(String, Vec<i64>, bool)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for s in &history.snapshots {
        let Some(key) = writer_key(s) else { continue };
        let i = *at.entry(key.clone()).or_insert_with(|| {
            times.push((key, Vec::new(), false));
            times.len() - 1
        });
        if s.flink.as_ref().is_some_and(|f| f.checkpoint_id == Some(END_OF_INPUT_CHECKPOINT)) {
            times[i].2 = true;
        }
        times[i].1.push(s.snapshot.timestamp_ms);
    }
    let firsts: Vec<(bool, i64)> = times.iter().map(|(k, t, _)| (k.starts_with("job "), t.first().copied().unwrap_or(i64::MIN))).collect();
    times
        .iter()
        .map(|(writer, t, finished)| {
            let last = t.last().copied().unwrap_or(i64::MIN);
            let intervals: Vec<i64> = t.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
            let usual_from = intervals.len().saturating_sub(PACE_INTERVALS);
            let usual = if intervals.len() >= MIN_INTERVALS { median(&mut intervals[usual_from..].to_vec()) } else { None };
            let (recent, earlier) = match intervals.len().checked_sub(RECENT_INTERVALS).filter(|&before| before >= MIN_INTERVALS) {
                Some(before) => (median(&mut intervals[before..].to_vec()), median(&mut intervals[before.saturating_sub(PACE_INTERVALS)..before].to_vec())),
                None => (None, None),
            };
            let is_job = writer.starts_with("job ");
            WriterPace {
                writer: writer.clone(),
                commits: t.len(),
                last_commit_ms: last,
                usual_interval_ms: usual,
                recent_interval_ms: recent,
                earlier_interval_ms: earlier,
                replaced: is_job && firsts.iter().any(|&(job, first)| job && first > last),
                finished: *finished,
            }
        })
        .collect()
}

fn commit_of(s: &crate::model::SnapshotState) -> Commit {
    let op = s.snapshot.operation.to_string();
    let added = |k: &str| s.snapshot.summary_i64(k).and_then(|v| u64::try_from(v).ok());
    Commit {
        snapshot_id: s.snapshot.snapshot_id.0.to_string(),
        sequence_number: s.snapshot.sequence_number,
        committed_ms: s.snapshot.timestamp_ms,
        writer: Writer::of(&s.snapshot.summary, &op).0,
        operation: op,
        job_id: s.flink.as_ref().map(|f| f.job_id.to_string()),
        checkpoint_id: s.flink.as_ref().and_then(|f| f.checkpoint_id),
        added_data_files: added("added-data-files"),
        added_delete_files: added("added-delete-files"),
        added_records: added("added-records"),
    }
}

/// Which finding a later look's is the same one: its kind, and for the kinds about what a pair
/// of jobs did, the jobs. A finding about the table (small files, merges pending, end-of-input
/// commits) is the same one while it holds, whatever its numbers and jobs grow to.
fn finding_key(f: &Finding) -> String {
    use super::findings::FindingKind as K;
    let per_jobs = matches!(f.kind, K::SavepointReplayed | K::ConcurrentWriters | K::JobResumed | K::RestoredWorkCommittedLate | K::CheckpointGaps);
    let mut jobs = f.job_ids.clone();
    jobs.sort();
    if per_jobs && !jobs.is_empty() {
        format!("{} {}", f.kind.as_str(), jobs.join(" "))
    } else {
        f.kind.as_str().to_string()
    }
}

/// The look's new-metadata event with what the step that read it cost.
pub fn with_read(events: &mut [Observed], files: usize, bytes: u64) {
    for o in events {
        if let Event::Metadata { read_files, read_bytes, .. } = &mut o.event {
            *read_files = Some(files);
            *read_bytes = Some(bytes);
        }
    }
}

/// What a look reads of the history that a report made of it next shows too: made once.
#[derive(Clone, Copy)]
pub struct Made<'a> {
    pub spans: &'a [JobSpan],
    pub findings: &'a [Finding],
    pub paces: &'a [WriterPace],
}

/// As `look`, with the history's job spans, findings and writers' paces already made.
pub fn look_with(history: &TableHistory, state: &LiveState, now_ms: i64, options: LiveOptions, made: Made<'_>) -> (Vec<Observed>, LiveState) {
    let Made { spans, findings: now_holding, paces } = made;
    let mut out = Vec::new();
    let mut next = LiveState::default();
    let first = state.metadata_file.is_none();
    next.metadata_file = Some(history.metadata_file.clone());
    if first {
        out.push(Event::Watching {
            metadata_file: history.metadata_file.clone(),
            snapshots: history.snapshots.len(),
            current_snapshot_id: history.metadata.current_snapshot_id.map(|s| s.0.to_string()),
            writers: paces.to_vec(),
        });
    } else if state.metadata_file.as_deref() != Some(history.metadata_file.as_str()) {
        let bytes = history.metadata_sizes.iter().find(|m| m.file == history.metadata_file).map(|m| m.bytes);
        out.push(Event::Metadata { metadata_file: history.metadata_file.clone(), bytes, read_files: None, read_bytes: None });
    }
    next.snapshot_ids = history.snapshots.iter().map(|s| s.snapshot.snapshot_id.0.to_string()).collect();
    if !first {
        let gone = state.snapshot_ids.iter().filter(|id| !next.snapshot_ids.contains(*id)).count();
        if gone > 0 {
            out.push(Event::Expired { snapshots: gone });
        }
    }
    // New jobs, in order of first commit; the job that wrote last before each is the one it follows.
    next.job_ids = spans.iter().map(|j| j.job_id.clone()).collect();
    let mut new_jobs: HashMap<String, Event> = HashMap::new();
    if !first {
        for j in spans.iter().filter(|j| !state.job_ids.contains(&j.job_id)) {
            let previous =
                spans.iter().filter(|p| p.job_id != j.job_id && p.first_commit_ms <= j.first_commit_ms).max_by_key(|p| p.last_commit_ms.min(j.first_commit_ms));
            new_jobs.insert(
                j.job_id.clone(),
                Event::NewJob {
                    job_id: j.job_id.clone(),
                    first_checkpoint_id: j.first_checkpoint(),
                    restored_state: j.first_checkpoint().is_some_and(|c| c > 1),
                    previous_job_id: previous.map(|p| p.job_id.clone()),
                    previous_last_commit_ms: previous.map(|p| p.last_commit_ms),
                },
            );
        }
    }
    // Commits new since the last look, in commit order; a new job is said before its first commit.
    let mut resumed_by_commit: HashMap<String, (i64, i64)> = HashMap::new();
    if !first {
        for s in &history.snapshots {
            if state.snapshot_ids.contains(&s.snapshot.snapshot_id.0.to_string()) {
                continue;
            }
            if let Some(job) = s.flink.as_ref().map(|f| f.job_id.to_string()) {
                if let Some(e) = new_jobs.remove(&job) {
                    out.push(e);
                }
            }
            let c = commit_of(s);
            match writer_key(s) {
                None => out.push(Event::Maintenance(c)),
                Some(w) => {
                    if let Some(&last) = state.stalled.get(&w) {
                        resumed_by_commit.entry(w).or_insert((last, s.snapshot.timestamp_ms));
                    }
                    out.push(Event::Commit(c));
                }
            }
        }
    }
    // A stalled writer is back: by committing again, or replaced by a job that now commits.
    for (w, &last) in &state.stalled {
        let pace = paces.iter().find(|p| &p.writer == w);
        if let Some(&(last, at)) = resumed_by_commit.get(w) {
            out.push(Event::Resumed { writer: w.clone(), last_commit_ms: last, commit_ms: at, gap_ms: at.saturating_sub(last), by_job: None });
        } else if pace.is_some_and(|p| p.replaced) {
            let by = spans.iter().filter(|j| j.first_commit_ms > last).min_by_key(|j| j.first_commit_ms);
            if let Some(j) = by {
                out.push(Event::Resumed {
                    writer: w.clone(),
                    last_commit_ms: last,
                    commit_ms: j.first_commit_ms,
                    gap_ms: j.first_commit_ms.saturating_sub(last),
                    by_job: Some(j.job_id.clone()),
                });
            }
        } else if pace.is_some() {
            next.stalled.insert(w.clone(), last);
        }
    }
    // Jobs writing at once: a job's first commit before another's last. Thousands of jobs that all
    // overlap make millions of pairs: only the newest `MAX_OVERLAPPING` (by the later job's first
    // commit) are kept, in a heap of that size; the rest are counted as said.
    let mut newest: std::collections::BinaryHeap<std::cmp::Reverse<(i64, usize, usize)>> = std::collections::BinaryHeap::new();
    for (i, a) in spans.iter().enumerate() {
        for (j, b) in spans.iter().enumerate().skip(i + 1) {
            let ((ia, a), (ib, b)) = if a.first_commit_ms <= b.first_commit_ms { ((i, a), (j, b)) } else { ((j, b), (i, a)) };
            if b.first_commit_ms < a.last_commit_ms {
                newest.push(std::cmp::Reverse((b.first_commit_ms, ia, ib)));
                if newest.len() > MAX_OVERLAPPING {
                    let std::cmp::Reverse((dropped, ..)) = newest.pop().unwrap_or(std::cmp::Reverse((i64::MIN, 0, 0)));
                    next.overlapping_said_through_ms = next.overlapping_said_through_ms.max(Some(dropped));
                }
            }
        }
    }
    next.overlapping_said_through_ms = next.overlapping_said_through_ms.max(state.overlapping_said_through_ms);
    let said_through = state.overlapping_said_through_ms.unwrap_or(i64::MIN);
    let mut kept: Vec<(i64, usize, usize)> = newest.into_iter().map(|std::cmp::Reverse(p)| p).collect();
    kept.sort_unstable();
    for (b_first, ia, ib) in kept {
        let (a, b) = (&spans[ia], &spans[ib]);
        let key = format!("{} {}", a.job_id, b.job_id);
        if !first && b_first > said_through && !state.overlapping.contains(&key) {
            out.push(Event::SecondWriter { job_ids: vec![a.job_id.clone(), b.job_id.clone()], first_commit_ms: b.first_commit_ms });
        }
        next.overlapping.insert(key);
    }
    // Silence and pace, for the writers still expected to commit.
    for p in paces.iter().filter(|p| !p.replaced && !p.finished) {
        let Some(usual) = p.usual_interval_ms.filter(|&u| u > 0) else { continue };
        let silent = now_ms.saturating_sub(p.last_commit_ms);
        let stalled = silent as f64 > options.stall_after * usual as f64;
        if stalled && !next.stalled.contains_key(&p.writer) && !resumed_by_commit.contains_key(&p.writer) {
            if state.stalled.get(&p.writer) != Some(&p.last_commit_ms) {
                out.push(Event::Stalled { writer: p.writer.clone(), last_commit_ms: p.last_commit_ms, usual_interval_ms: usual, silent_ms: silent });
            }
            next.stalled.insert(p.writer.clone(), p.last_commit_ms);
        }
        if let (Some(recent), Some(before)) = (p.recent_interval_ms, p.earlier_interval_ms) {
            let was = state.slowing.contains(&p.writer);
            if recent as f64 > SLOWING_FACTOR * before as f64 {
                if !was {
                    out.push(Event::Slowing { writer: p.writer.clone(), recent_interval_ms: recent, usual_interval_ms: before });
                }
                next.slowing.insert(p.writer.clone());
            } else if was && (recent as f64) < STEADY_FACTOR * before as f64 {
                out.push(Event::Steady { writer: p.writer.clone(), recent_interval_ms: recent, usual_interval_ms: before });
            } else if was {
                next.slowing.insert(p.writer.clone());
            }
        }
    }
    // Findings that newly hold, and those that stopped.
    for f in now_holding {
        let key = finding_key(f);
        if !state.findings.contains_key(&key) {
            out.push(Event::Finding(Box::new(f.clone())));
        }
        next.findings.insert(key, (f.severity, f.title.clone()));
    }
    // A finding is cleared once two looks in a row do not see it: between a maintenance job's
    // partial-progress commits one can hold, clear and hold again within seconds (the lab's
    // live-watch run saw restore_point_expiry do so), and each of those is no news.
    let gone: Vec<(&String, &(Severity, String))> = state.findings.iter().filter(|(k, _)| !next.findings.contains_key(*k)).collect();
    for (key, (severity, title)) in gone {
        if state.fading.contains(key) {
            out.push(Event::FindingCleared { key: key.clone(), severity: *severity, title: title.clone() });
        } else {
            next.findings.insert(key.clone(), (*severity, title.clone()));
            next.fading.insert(key.clone());
        }
    }
    // Growth of metadata.json, once an hour of watching.
    let bytes = history.metadata_sizes.last().map(|m| m.bytes);
    next.growth_at = state.growth_at;
    if let Some(bytes) = bytes {
        match state.growth_at {
            None => next.growth_at = Some((now_ms, bytes)),
            Some((since, then)) if now_ms.saturating_sub(since) >= GROWTH_EVERY_MS => {
                let per_hour = (bytes as i128 - then as i128) * GROWTH_EVERY_MS as i128 / now_ms.saturating_sub(since).max(1) as i128;
                out.push(Event::MetadataGrowth { bytes, bytes_per_hour: per_hour.clamp(i64::MIN as i128, i64::MAX as i128) as i64, since_ms: since });
                next.growth_at = Some((now_ms, bytes));
            }
            _ => {}
        }
    }
    (out.into_iter().map(|event| Observed { at_ms: now_ms, event }).collect(), next)
}
