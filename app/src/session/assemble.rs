//! The report as every reader gets it: the history's analysis, how it was read, which metadata
//! file was picked, and the findings that need more than the history (orphan files need the
//! folder's listing, footers need the data files), most severe first.

use crate::analysis::findings::{Finding, TableRef};
use crate::analysis::inspect::{inspect, Inspect, LoadInfo};
use crate::load::ReadStats;
use crate::model::TableHistory;
use crate::source::metadata_pick::MetadataPick;

pub fn report(history: &TableHistory, table: &TableRef, stats: &ReadStats, pick: Option<MetadataPick>, mut extra: Vec<Finding>) -> Inspect {
    let mut report = inspect(history, table);
    crate::analysis::findings::note_refusal(&mut extra, table);
    report.findings.extend(extra);
    // A stable sort: within a severity, the order `findings` gives.
    report.findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    let mut load = LoadInfo::of(history, stats.files, stats.bytes);
    load.metadata_pick = pick;
    report.load = Some(load);
    report
}
