//! Export: the report's snapshot rows, the series behind each chart and the findings as tables,
//! written as CSV or Parquet. A pure conversion of analysis results to bytes — it lives after
//! analysis (it reads `inspect`, `growth`, `jobs`, `partitions`, `findings`) and imports no view;
//! the CLI writes the bytes to files, the app hands them to the browser as downloads.
//!
//! Files and their columns are listed in docs/export.md; a column's name is the JSON
//! report's name for the same value wherever the report has one.

mod csv;
mod findings;
mod parquet;
mod series;
mod snapshots;
mod table;

pub use csv::{csv, guard_formula};
pub use parquet::parquet;
pub use table::{Column, Table, Values};

use crate::analysis::growth::GrowthSeries;
use crate::analysis::inspect::Inspect;
use crate::analysis::jobs::{job_spans, JobSpan};
use crate::analysis::partitions::{partition_stats, PartitionStat};
use crate::model::TableHistory;

/// Which tables to export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum What {
    Snapshots,
    /// The growth, delete-debt, job and partition series.
    Series,
    Findings,
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Parquet,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        Some(match s {
            "csv" => Format::Csv,
            "parquet" => Format::Parquet,
            _ => return None,
        })
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::Parquet => "parquet",
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            Format::Csv => "text/csv;charset=utf-8",
            Format::Parquet => "application/vnd.apache.parquet",
        }
    }
}

/// What the chart series are made of: the growth series, the job spans, the current snapshot's partitions.
pub struct Charted<'a> {
    pub growth: &'a GrowthSeries,
    pub jobs: &'a [JobSpan],
    pub partitions: &'a [PartitionStat],
}

/// The tables `what` names: `snapshots`, then `growth`, `deletes`, `jobs`, `partitions`, then
/// `findings` (the report's, as `session::assemble` made them, orphans and footers included);
/// statements name `catalog` where one is given (typed in the app), else the one the analysis had.
pub fn tables(report: &Inspect, charted: &Charted<'_>, catalog: Option<&str>, what: What) -> Vec<Table> {
    let mut out = Vec::new();
    if matches!(what, What::Snapshots | What::All) {
        out.push(snapshots::snapshots(&report.snapshots));
    }
    if matches!(what, What::Series | What::All) {
        out.extend(series::series(charted.growth, charted.jobs, charted.partitions));
    }
    if matches!(what, What::Findings | What::All) {
        out.push(findings::findings(&report.findings, catalog));
    }
    out
}

/// `tables` for a history: the series computed as the charts compute them.
pub fn tables_of(report: &Inspect, history: &TableHistory, catalog: Option<&str>, what: What) -> Vec<Table> {
    let growth = GrowthSeries::of(history);
    let jobs = job_spans(history);
    let partitions = partition_stats(history);
    tables(report, &Charted { growth: &growth, jobs: &jobs, partitions: &partitions }, catalog, what)
}

/// One table as a file: (file name, bytes).
pub fn file(table: &Table, format: Format) -> Result<(String, Vec<u8>), String> {
    let bytes = match format {
        Format::Csv => csv(table).into_bytes(),
        Format::Parquet => parquet(table)?,
    };
    Ok((format!("{}.{}", table.name, format.extension()), bytes))
}
