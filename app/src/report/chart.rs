//! The words on the charts: each picture's title (the finding it shows), its caption, the notes on
//! job lanes, and what a legend says of series that coincide. The view draws these; it words none.

use super::format::thousands;
use crate::analysis::findings::{Finding, FindingKind};
use crate::analysis::job_overlaps::JobOverlap;
use crate::analysis::jobs::JobSpan;

/// The charts a picture can be made of, as the app's tabs and `icescope chart --chart` name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChartKind {
    Growth,
    Jobs,
    Partitions,
    Deletes,
    Projection,
}

impl ChartKind {
    pub const ALL: [ChartKind; 5] = [ChartKind::Growth, ChartKind::Jobs, ChartKind::Partitions, ChartKind::Deletes, ChartKind::Projection];

    /// The name in file names, permalinks and the CLI.
    pub fn name(self) -> &'static str {
        match self {
            ChartKind::Growth => "growth",
            ChartKind::Jobs => "jobs",
            ChartKind::Partitions => "partitions",
            ChartKind::Deletes => "deletes",
            ChartKind::Projection => "projection",
        }
    }

    pub fn named(name: &str) -> Option<ChartKind> {
        ChartKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The findings whose story this chart tells, most telling first.
    fn finding_kinds(self) -> &'static [FindingKind] {
        use FindingKind::*;
        match self {
            ChartKind::Growth => &[SavepointReplayed, ConcurrentWriters, DeleteDebt],
            ChartKind::Jobs => &[SavepointReplayed, ConcurrentWriters, RestoredWorkCommittedLate, JobResumed],
            ChartKind::Partitions => &[LateOneRowFiles],
            ChartKind::Deletes => &[DeleteDebt],
            ChartKind::Projection => &[],
        }
    }
}

/// The picture's title: the title of the finding it shows, when the table has one.
pub fn title(kind: ChartKind, findings: &[Finding]) -> Option<String> {
    kind.finding_kinds().iter().find_map(|k| findings.iter().find(|f| f.kind == *k)).map(|f| f.title.clone())
}

pub fn growth_caption(table: &str, flink: bool) -> String {
    if flink {
        format!("{table} — live contents per snapshot, in commit order; each Flink job's checkpoint ids in its lane")
    } else {
        format!("{table} — live contents per snapshot, in commit order")
    }
}

pub fn deletes_caption(table: &str) -> String {
    format!("{table} — delete files and the files a full scan opens, per snapshot in commit order")
}

pub fn jobs_caption(table: &str) -> String {
    format!("{table} — Flink jobs by commit time, one tick per commit")
}

pub fn partitions_caption(table: &str, shown: usize, all: usize, wait: Option<&crate::model::FilesWait>) -> String {
    if let Some(w) = wait {
        return format!("{table} — data files per partition: waiting for {}", super::load::current_manifests(w));
    }
    if shown < all {
        format!("{table} — data files per partition (the newest {shown} of {all}), one-row files in red")
    } else {
        format!("{table} — data files per partition in the current snapshot, one-row files in red")
    }
}

/// What the partitions chart shows in place of its bars while the current snapshot's manifests
/// are read: `Counted once the current snapshot's 17,280 manifests are read: 4,210 so far.`
pub fn partitions_waiting(w: &crate::model::FilesWait) -> String {
    format!("Counted once {} are read: {} so far.", super::load::current_manifests(w), thousands(w.manifests_read as u64))
}

pub fn projection_caption(table: &str, interval_ms: f64) -> String {
    format!("{table} — now and after one more day at one commit every {:.1} s", interval_ms / 1000.0)
}

/// A job's lane: its id, then what it overlaps or else the checkpoints it committed, and how many
/// snapshots.
pub fn lane_label(job: &JobSpan, overlaps: &[&JobOverlap], jobs: &[JobSpan]) -> String {
    let n = job.snapshot_indexes.len();
    let snapshots = format!("{} snapshot{}", thousands(n as u64), if n == 1 { "" } else { "s" });
    let notes: Vec<String> = overlaps.iter().map(|o| lane_note(o, jobs)).filter(|s| !s.is_empty()).collect();
    if !notes.is_empty() {
        return format!("job {} {} · {snapshots}", short(&job.job_id), notes.join("; "));
    }
    let cps = match (job.first_checkpoint(), job.last_checkpoint()) {
        (Some(f), Some(l)) if f == l => format!("checkpoint {f}"),
        (Some(f), Some(l)) => format!("checkpoints {f}–{l}"),
        _ => "no checkpoint ids".into(),
    };
    format!("job {} · {cps}{} · {snapshots}", short(&job.job_id), if job.end_of_input { " + end of input" } else { "" })
}

/// What a job's lane says of an earlier job it overlaps.
fn lane_note(o: &JobOverlap, jobs: &[JobSpan]) -> String {
    let other = jobs.get(o.earlier).map(|j| short(&j.job_id)).unwrap_or_default();
    let ids = o.checkpoints.map(|(lo, hi, _)| if lo == hi { format!("checkpoint {lo}") } else { format!("checkpoints {lo}–{hi}") });
    match (o.interleaved, ids) {
        (true, Some(ids)) => format!("writes alongside job {other}, {ids} again"),
        (true, None) => format!("writes at the same time as job {other}"),
        (false, Some(ids)) => format!("replays {ids} of job {other}"),
        (false, None) => String::new(),
    }
}

/// A series drawn inside another it equals at `shared` of its `of` snapshots.
pub fn coinciding(name: &str, same_as: &str, shared: usize, of: usize) -> String {
    if shared == of {
        format!("{name} (= {same_as} throughout, drawn inside it)")
    } else {
        format!("{name} (= {same_as} at {shared} of {of} snapshots, drawn inside it)")
    }
}

/// The growth chart's legend for records (right axis); `on`: the series its line lies on, at how
/// many snapshots of how many, where the two axes' scales put it there.
pub fn records_legend(on: Option<(&str, usize, usize)>) -> String {
    match on {
        None => "records (right axis)".to_string(),
        Some((line, shared, of)) if shared == of => format!("records (right axis; on the {line} line throughout, drawn inside it)"),
        Some((line, shared, of)) => format!("records (right axis; on the {line} line at {shared} of {of} snapshots, drawn inside it)"),
    }
}

/// The note over a partition's bar where one-row files arrived late.
pub fn late_bar(one_row_files: u64, lateness_ms: Option<i64>) -> String {
    let n = thousands(one_row_files);
    match lateness_ms {
        Some(ms) => format!("{n} one-row · {} late", lateness(ms)),
        None => format!("{n} one-row"),
    }
}

pub fn partition_bar(data_files: u64, rows: u64) -> String {
    format!("{} files · {} rows", thousands(data_files), thousands(rows))
}

fn lateness(ms: i64) -> String {
    match ms / 3_600_000 {
        h if h >= 48 => format!("{} d", h / 24),
        h => format!("{h} h"),
    }
}

fn short(job: &str) -> String {
    format!("{}…", job.chars().take(8).collect::<String>())
}

/// Under the last lane, when there are more jobs than lanes.
pub fn more_jobs(n: usize) -> String {
    format!("and {} more jobs (the Flink jobs chart shows all)", thousands(n as u64))
}

pub const NO_FLINK_JOBS: &str = "No flink.job-id in any snapshot summary: not written by Flink's Iceberg sink.";

pub const NO_PROJECTION: &str = "No projection: it needs at least three consecutive commits of one Flink job with readable manifests.";

/// The maintenance lane of the job timeline.
pub fn maintenance_lane(commits: usize) -> String {
    format!("Flink maintenance · {} commits (rewrite, expire; engine-name flink, no flink.* keys)", thousands(commits as u64))
}
