//! The report as every reader gets it: the history's analysis, how it was read, which metadata
//! file was picked, and the findings that need more than the history (orphan files need the
//! folder's listing, footers need the data files, a newest metadata file that does not read
//! needs the pick), most severe first.

use crate::analysis::findings::{Finding, TableRef};
use crate::analysis::inspect::{inspect, Inspect, LoadInfo, ReadPhase};
use crate::load::ReadStats;
use crate::model::TableHistory;
use crate::source::metadata_pick::MetadataPick;

pub fn report(history: &TableHistory, table: &TableRef, stats: &ReadStats, pick: Option<MetadataPick>, extra: Vec<Finding>) -> Inspect {
    finish(history, inspect(history, table), table, stats, pick, extra)
}

/// The history's analysis (`inspect` or `inspect_with`) made a report.
pub fn finish(history: &TableHistory, mut report: Inspect, table: &TableRef, stats: &ReadStats, pick: Option<MetadataPick>, extra: Vec<Finding>) -> Inspect {
    // Known from the moment the table opens: it waits for no read. First of its severity: every
    // other finding is of the older version shown.
    let damaged: Vec<Finding> = pick.as_ref().and_then(|p| crate::analysis::findings::newest_metadata_unreadable(history, p)).into_iter().collect();
    report.findings.splice(0..0, damaged);
    report.findings.extend(extra);
    // A stable sort: within a severity, the order `findings` gives.
    report.findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    crate::report::findings::word_all(&mut report.findings, table);
    let mut load = LoadInfo::of(history, stats.files, stats.bytes);
    load.metadata_pick = pick;
    // A Spark export is read as its tables, not in these phases.
    if load.mode != crate::analysis::inspect::LoadMode::SparkExport {
        load.phases = phases(stats);
    }
    report.load = Some(load);
    report
}

/// The read's phases as the report states them.
fn phases(stats: &ReadStats) -> Vec<ReadPhase> {
    let t = &stats.times;
    let since = |ms: Option<u64>| ms.map(|m| m.saturating_sub(t.started_ms) as f64 / 1000.0);
    vec![
        ReadPhase { phase: "metadata", files: 1, bytes: stats.metadata_bytes, done_s: since(Some(t.metadata_ms)) },
        ReadPhase { phase: "manifest_lists", files: stats.list_files, bytes: stats.list_bytes, done_s: since(t.lists_ms) },
        ReadPhase { phase: "manifests", files: stats.manifest_files, bytes: stats.manifest_bytes, done_s: since(t.manifests_ms) },
    ]
}
