//! session: one open table and every request a table view makes of it — a snapshot selected in
//! detail, two compared, a walk, the full history, the footers, the duplicate keys, and the
//! assembled report with its orphans — answered the same way for the app and the CLI.
//! Imports load, analysis and report; the view wires it to signals, the CLI to stdout. It sits
//! after report rather than inside `load`, which stays below analysis.

pub mod assemble;
pub mod drive;
pub mod link;
pub mod live;
pub mod open;
pub mod savepoint;

// What a front end names of the reading below the session: the decoder it lends, the clock, the
// loader's statistics and a data scan's progress.
pub use crate::load::data_scan::ScanProgress;
pub use crate::load::decoder::{Decoder, Inline};
pub use crate::load::{now_ms, Loader};

use std::rc::Rc;
use std::sync::Arc;

use crate::analysis::diff::{compare, sides, Point, SnapshotDiff};
use crate::analysis::duplicates::{resolve_keys, DuplicateReport, KeyCounter};
use crate::analysis::findings::TableRef;
use crate::analysis::footers::FooterReport;
use crate::analysis::inspect::Inspect;
use crate::analysis::jobs::{job_spans, JobSpan};
use crate::analysis::partitions::{partition_stats, partition_timeline, PartitionStat, PartitionTimeline};
use crate::analysis::walk::{walk, Walk};
use crate::analysis::GrowthSeries;
use crate::load::data_scan::{read_footers, read_puffin_footers, scan_keys};
use crate::model::footers::{FileFooter, PuffinFileFooter};
use crate::model::ReadMode;
use crate::source::metadata_pick::MetadataPick;
use crate::source::Fetch;

/// Rows of a manifest list or manifest a walk shows.
pub const WALK_ROWS: usize = 500;

/// What a view asks of the open table after opening it.
#[derive(Clone, Debug, PartialEq)]
pub enum Ask {
    /// Every snapshot's manifests.
    AllSnapshots,
    /// This snapshot in detail (its files).
    Select(usize),
    /// Two snapshots as a person names them (`analysis::diff::sides`; an empty one takes the
    /// default, or beside a lone `job:<id>` makes it the job's range): read both, then diff.
    Compare(String, String),
    /// Walk down this snapshot (read in detail), into this manifest.
    Walk(usize, Option<String>),
    /// Savepoints read beside the table: every answer judges them against it (Before you resume).
    Savepoints(Arc<crate::analysis::savepoint::Savepoints>),
}

/// Everything shown of an open table at one moment: finished analysis results, cheap to clone.
#[derive(Clone, PartialEq)]
pub struct Answer {
    pub name: String,
    pub report: Arc<Inspect>,
    pub series: Arc<GrowthSeries>,
    /// Shared with the history (`Summary` clones are reference counts).
    pub summaries: Arc<Vec<crate::decode::Summary>>,
    pub jobs: Arc<Vec<JobSpan>>,
    pub partitions: Arc<Vec<PartitionStat>>,
    pub partition_timeline: Arc<PartitionTimeline>,
    /// Everything the plan asked for has been read (or failed).
    pub complete: bool,
    /// Every chart and finding not counted from the current snapshot's files is final: only the
    /// bulk of its data manifests is still being read (`Inspect::files_wait`).
    pub charts_final: bool,
    /// The two snapshots compared, once asked: the diff and its Markdown, or why there is none.
    pub diff: Option<Arc<Result<(SnapshotDiff, String), String>>>,
    /// The metadata walk at the snapshot and manifest chosen (the current snapshot at first).
    pub walk: Arc<Walk>,
    /// Manifests against the Parquet footers, once they were read.
    pub footers: Option<Arc<FooterReport>>,
    /// While the table is watched: its events and writers.
    pub live: Option<Arc<live::LiveView>>,
}

/// An open table: its files, what has been read, and what the views asked for. `D` decodes the
/// data files' footers and columns (the browser's worker; `Inline` natively).
pub struct TableSession<F: Fetch, D: Decoder = Inline> {
    pub(crate) dec: D,
    pub name: String,
    /// Shared: a pump reads through it while the loader is updated.
    pub files: Rc<F>,
    pub loader: Loader,
    /// Which of the folder's metadata files is open and why; None when the source named it.
    pub pick: Option<MetadataPick>,
    /// Every snapshot's summary: it never changes while the table loads.
    summaries: Arc<Vec<crate::decode::Summary>>,
    compare: Option<(String, String)>,
    walk: (Option<usize>, Option<String>),
    /// The footers read for a snapshot: their findings join the report.
    footers: Option<(usize, Vec<FileFooter>, Vec<PuffinFileFooter>)>,
    /// Whether a request was made since the last answer (a walk or comparison is shown then).
    asked: bool,
    savepoints: Option<Arc<crate::analysis::savepoint::Savepoints>>,
    /// Set while the table is watched (`live`).
    live: Option<live::Live>,
    /// Made by the last look, for the answer that follows it.
    analysed: Option<Analysed>,
    /// How statements name the table, where the reader said (else guessed from its location).
    table: Option<TableRef>,
}

/// The history's job spans and findings as made at one revision of one metadata file: a live look
/// makes them for its events, and the answer published next takes them instead of making them again
/// (on a day of commits each is a pass over 17,280 summaries).
struct Analysed {
    revision: u64,
    metadata_file: String,
    jobs: Arc<Vec<JobSpan>>,
    findings: Vec<crate::analysis::findings::Finding>,
}

impl Analysed {
    fn of(history: &crate::model::TableHistory, findings: Vec<crate::analysis::findings::Finding>, jobs: Arc<Vec<JobSpan>>) -> Analysed {
        Analysed { revision: history.revision(), metadata_file: history.metadata_file.clone(), jobs, findings }
    }

    /// Still the history's, or None.
    fn still(self, history: &crate::model::TableHistory) -> Option<Analysed> {
        (self.revision == history.revision() && self.metadata_file == history.metadata_file).then_some(self)
    }
}

/// Every snapshot's summary, in commit order (each clone a reference count).
fn summaries_of(history: &crate::model::TableHistory) -> Arc<Vec<crate::decode::Summary>> {
    Arc::new(history.snapshots.iter().map(|s| s.snapshot.summary.clone()).collect())
}

impl<F: Fetch, D: Decoder> TableSession<F, D> {
    /// A session over an opened loader, planning what `mode` reads.
    pub fn new(name: String, files: Rc<F>, dec: D, mut loader: Loader, pick: Option<MetadataPick>, mode: ReadMode) -> Self {
        loader.history.plan(mode);
        let summaries = summaries_of(&loader.history);
        TableSession {
            dec,
            name,
            files,
            loader,
            pick,
            summaries,
            compare: None,
            walk: (None, None),
            footers: None,
            asked: false,
            savepoints: None,
            live: None,
            analysed: None,
            table: None,
        }
    }

    /// Takes a request: what it needs is queued for reading; the next answer shows it.
    pub fn request(&mut self, r: Ask) {
        self.asked = true;
        let h = &mut self.loader.history;
        match r {
            Ask::AllSnapshots => h.plan(ReadMode::All),
            Ask::Select(i) => h.select(i),
            Ask::Compare(a, b) => {
                if let Ok(pair) = sides(h, &a, &b) {
                    for p in [pair.0, pair.1] {
                        if let Point::At(i) = p {
                            h.select(i);
                        }
                    }
                }
                self.compare = Some((a, b));
            }
            Ask::Walk(i, manifest) => {
                h.select(i);
                self.walk = (Some(i), manifest);
            }
            Ask::Savepoints(s) => self.savepoints = Some(s),
        }
    }

    /// Whether a request came since the last answer.
    pub fn asked(&self) -> bool {
        self.asked
    }

    /// How statements name the table: as the reader named it, else guessed from its location
    /// with the catalog left for the reader to fill in.
    pub fn table_ref(&self) -> TableRef {
        self.table.clone().unwrap_or_else(|| TableRef::guess(&self.loader.history, None))
    }

    /// Names the table for statements (a catalog, an identifier the reader gave).
    pub fn name_table(&mut self, table: TableRef) {
        self.table = Some(table);
    }

    /// The report at this moment, with the findings that need more than the history (orphans
    /// once every file is known and nothing is in flight, footers once read). `in_flight`: reads
    /// still out.
    pub fn report(&mut self, in_flight: usize) -> Inspect {
        let table = self.table_ref();
        let footers = self.footer_report(&table);
        let (jobs, findings) = self.jobs_and_findings(&table);
        self.report_with(in_flight, &table, footers.as_deref(), &jobs, findings)
    }

    fn report_with(
        &self,
        in_flight: usize,
        table: &TableRef,
        footers: Option<&FooterReport>,
        jobs: &[JobSpan],
        findings: Vec<crate::analysis::findings::Finding>,
    ) -> Inspect {
        let extra = if in_flight == 0 {
            let orphans = self.orphan_finding(table);
            orphans.into_iter().chain(footers.iter().flat_map(|f| f.findings.iter().cloned())).collect()
        } else {
            Vec::new()
        };
        let history = &self.loader.history;
        let inspected = crate::analysis::inspect::inspect_with(history, table, jobs, findings);
        let mut report = assemble::finish(history, inspected, table, &self.loader.stats, self.pick.clone(), extra);
        report.savepoints = self.savepoints.clone().map(|s| crate::analysis::savepoint::judge(s, Some((history, table))));
        report
    }

    fn footer_report(&self, table: &TableRef) -> Option<Arc<FooterReport>> {
        self.footers.as_ref().map(|(i, f, p)| Arc::new(crate::report::findings::footer_report(&self.loader.history, *i, f, p, table)))
    }

    /// The history's job spans and findings: those the last look made, where the history is
    /// still as it was then, else made now.
    fn jobs_and_findings(&mut self, table: &TableRef) -> (Arc<Vec<JobSpan>>, Vec<crate::analysis::findings::Finding>) {
        let history = &self.loader.history;
        match self.analysed.take().and_then(|a| a.still(history)) {
            Some(a) => (a.jobs, a.findings),
            None => {
                let jobs = Arc::new(job_spans(history));
                let findings = crate::report::findings::findings_with(history, table, &jobs);
                (jobs, findings)
            }
        }
    }

    /// The answer to every view at this moment. `in_flight`: reads still out (the plan's queues may
    /// be empty while they are); findings that need every file read wait for none.
    pub fn answer(&mut self, in_flight: usize) -> Answer {
        self.asked = false;
        let table = self.table_ref();
        let footers = self.footer_report(&table);
        // The job spans the report's findings were made with, for the charts: made once.
        let (jobs, findings) = self.jobs_and_findings(&table);
        let report = self.report_with(in_flight, &table, footers.as_deref(), &jobs, findings);
        let history = &self.loader.history;
        let complete = history.is_settled() && in_flight == 0;
        Answer {
            name: self.name.clone(),
            report: Arc::new(report),
            series: Arc::new(GrowthSeries::of(history)),
            summaries: self.summaries.clone(),
            jobs,
            partitions: Arc::new(partition_stats(history)),
            partition_timeline: Arc::new(partition_timeline(history, 200)),
            complete,
            charts_final: complete || history.lists_settled(),
            walk: Arc::new(walk(history, self.walk.0.or(history.current_index()).unwrap_or(0), self.walk.1.as_deref(), WALK_ROWS)),
            footers,
            live: self.live.as_ref().map(|l| Arc::new(l.view(history))),
            diff: self.compare.as_ref().map(|(a, b)| {
                Arc::new(compare(history, a, b).map_err(|r| crate::report::diff::refusal(&r)).map(|d| {
                    let md = crate::report::diff::markdown(&d, &self.name);
                    (d, md)
                }))
            }),
        }
    }

    /// Files in the listed folder that no snapshot references, once every snapshot's manifests
    /// have been read (the full history); nothing before, and nothing for a source that is not
    /// listed (a remote table's store is not listed from here).
    fn orphan_finding(&self, table: &TableRef) -> Option<crate::analysis::findings::Finding> {
        use crate::analysis::orphans::{census, table_root};
        let history = &self.loader.history;
        history.all_files_known().is_none().then_some(())?;
        let root = table_root(&history.metadata_file)?;
        let (paths, facts) = self.files.census()?;
        let mut listing = crate::source::listing::Listing::default();
        for path in &paths {
            listing.push(path, None, None);
        }
        let report = census(history, &listing, &root, self.pick.as_ref()).ok()?.with_file_facts(facts);
        crate::report::findings::orphan_finding(&report, table)
    }

    /// The current snapshot in detail, or why its files are not at hand yet.
    fn current_in_detail(&self) -> Result<usize, String> {
        let index = self.loader.history.current_index().ok_or("the table has no snapshots")?;
        self.in_detail(index)
    }

    /// Snapshot `index` in detail, or why its files are not at hand.
    fn in_detail(&self, index: usize) -> Result<usize, String> {
        let h = &self.loader.history;
        if index >= h.snapshots.len() {
            return Err(format!("no snapshot {index} in {}", h.metadata_file));
        }
        if !h.has_files(index) {
            let gaps: Vec<String> = h.gaps().iter().map(|g| g.message.clone()).collect();
            let id = h.snapshots[index].snapshot.snapshot_id;
            return Err(if gaps.is_empty() {
                format!("the manifests of snapshot {id} are not all read")
            } else {
                format!("the manifests of snapshot {id} could not all be read: {}", gaps.join("; "))
            });
        }
        Ok(index)
    }

    /// Reads the current snapshot's Parquet and Puffin footers (ranged reads); the next answer
    /// carries the report and its findings. `progress(done, total)`; `stop` ends it early.
    pub async fn read_footers(&mut self, progress: &mut dyn FnMut(usize, usize), stop: &dyn Fn() -> bool) -> Result<(), String> {
        let index = self.current_in_detail()?;
        self.read_footers_at(index, progress, stop).await
    }

    /// As `read_footers`, for snapshot `index` (read in detail first: `Ask::Select`).
    pub async fn read_footers_at(&mut self, index: usize, progress: &mut dyn FnMut(usize, usize), stop: &dyn Fn() -> bool) -> Result<(), String> {
        let index = self.in_detail(index)?;
        let h = &self.loader.history;
        let (footers, _) = read_footers(&*self.files, &self.dec, h, index, progress, stop).await;
        let parquet = footers.len();
        let mut more = |done: usize, total: usize| progress(parquet + done, parquet + total);
        let (puffins, _) = if stop() { Default::default() } else { read_puffin_footers(&*self.files, &self.dec, h, index, &mut more, stop).await };
        // What the files carry replaces what their metrics name, for the schema findings.
        self.loader.history.record_footers(&footers);
        self.footers = Some((index, footers, puffins));
        Ok(())
    }

    /// The manifests against the footers read, with their findings.
    pub fn footers(&self) -> Option<FooterReport> {
        self.footer_report(&self.table_ref()).map(Arc::unwrap_or_clone)
    }

    /// Counts the current snapshot's keys from its data files (the schema's identifier fields
    /// unless `named`), deletes applied, duplicates split by the job that added each copy.
    pub async fn count_duplicates(
        &self,
        named: &[String],
        budget: usize,
        progress: &mut dyn FnMut(ScanProgress),
        stop: &dyn Fn() -> bool,
    ) -> Result<DuplicateReport, String> {
        let index = self.current_in_detail()?;
        self.count_duplicates_at(index, named, budget, progress, stop).await
    }

    /// As `count_duplicates`, for snapshot `index` (read in detail first: `Ask::Select`).
    pub async fn count_duplicates_at(
        &self,
        index: usize,
        named: &[String],
        budget: usize,
        progress: &mut dyn FnMut(ScanProgress),
        stop: &dyn Fn() -> bool,
    ) -> Result<DuplicateReport, String> {
        let index = self.in_detail(index)?;
        let h = &self.loader.history;
        let keys = resolve_keys(h, (!named.is_empty()).then_some(named))?;
        let mut counter = KeyCounter::new(h, budget);
        let scan = scan_keys(&*self.files, &self.dec, h, index, &keys, &mut counter, progress, stop).await?;
        Ok(counter.finish(h.snapshots[index].snapshot.snapshot_id, keys.into_iter().map(|(_, n)| n).collect(), scan))
    }
}
