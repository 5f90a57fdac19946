//! Drives the shared loader (`crate::load`) in the browser: metadata first and drawn at once, then
//! the files the plan needs, a batch at a time, yielding to the page between batches. The report is
//! recomputed when the detail snapshots are counted, every few seconds of a long read, and at the end.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::analysis::diff::{diff, resolve, SnapshotDiff};
use crate::analysis::findings::TableRef;
use crate::analysis::walk::{walk, Walk};

/// Rows of a manifest list or manifest the walk shows.
const WALK_ROWS: usize = 500;
use crate::analysis::inspect::{inspect, Inspect, LoadInfo};
use crate::analysis::jobs::{job_spans, JobSpan};
use crate::analysis::markdown::markdown;
use crate::analysis::partitions::{partition_stats, partition_timeline, PartitionStat, PartitionTimeline};
use crate::analysis::GrowthSeries;
use crate::load::{pick_metadata, Loader, Pump, PARALLEL};
use crate::model::ReadMode;
use crate::source::metadata_pick::MetadataPick;
use crate::source::Fetch;

use super::decoder::WorkerDecoder;
use super::files::TableFiles;
use super::{marks, AppState};

/// What the view shows of an opened table: finished analysis results, cheap to clone.
#[derive(Clone, PartialEq)]
pub struct Opened {
    pub name: String,
    pub report: Arc<Inspect>,
    pub series: Arc<GrowthSeries>,
    /// Shared with the history (`Summary` clones are reference counts).
    pub summaries: Arc<Vec<crate::decode::Summary>>,
    pub jobs: Arc<Vec<JobSpan>>,
    pub partitions: Arc<Vec<PartitionStat>>,
    pub partition_timeline: Arc<PartitionTimeline>,
    /// Ticket-ready summary, with `<catalog>` for the user's catalog name.
    pub markdown: Arc<String>,
    /// Everything the plan asked for has been read (or failed).
    pub complete: bool,
    /// The two snapshots the user compares, once asked: the diff, or why there is none.
    pub diff: Option<Arc<Result<(SnapshotDiff, String), String>>>,
    /// The metadata walk at the snapshot and manifest chosen (the current snapshot at first).
    pub walk: Arc<Walk>,
    /// Manifests against the Parquet footers, once the user asked for them.
    pub footers: Option<Arc<crate::analysis::footers::FooterReport>>,
}

/// Reading progress: updated after every batch, without recomputing the report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    pub loading: bool,
    pub files_done: usize,
    pub files_queued: usize,
    pub bytes_read: u64,
    /// Bytes the queued manifests declare (manifest lists are not sized before they are read).
    pub bytes_expected: u64,
    pub all_snapshots: bool,
    /// What reading every snapshot would still cost: (files, bytes, exact).
    pub full_estimate: Option<(u64, u64, bool)>,
    /// Why loading stopped early, when it did.
    pub stopped: Option<String>,
}

/// What the user asked for after opening.
#[derive(Clone, Debug, PartialEq)]
pub enum LoadRequest {
    AllSnapshots,
    Select(usize),
    /// Two snapshots as a person names them (`analysis::diff::resolve`): read both, then diff.
    Compare(String, String),
    /// Walk down this snapshot (read in detail), into this manifest.
    Walk(usize, Option<String>),
}

pub(super) struct Session {
    generation: u64,
    name: String,
    /// Every snapshot's summary: it never changes while the table loads.
    summaries: Arc<Vec<crate::decode::Summary>>,
    pub(super) files: Rc<TableFiles>,
    pub(super) loader: Loader,
    /// Which of the folder's metadata files is open and why; None when the source named it.
    pick: Option<MetadataPick>,
    /// The pair asked for with `LoadRequest::Compare`.
    compare: Option<(String, String)>,
    /// Where the walk is: (snapshot, manifest); the current snapshot until one is chosen.
    walk: (Option<usize>, Option<String>),
    /// The Parquet and Puffin footers read for a snapshot ("Check footers"): their findings join the report.
    pub(super) footers: Option<(usize, Vec<crate::model::footers::FileFooter>, Vec<crate::model::footers::PuffinFileFooter>)>,
}

thread_local! {
    /// The open table's loader while no task drives it; a driving task takes it out.
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
    /// The open table's files and metadata versions, for the metadata picker (kept while a task
    /// drives the session).
    static CURRENT: RefCell<Option<(String, Rc<TableFiles>, MetadataPick)>> = const { RefCell::new(None) };
}

/// `in_flight`: reads still out; the plan's queues may be empty while they are.
pub(super) fn publish(state: AppState, s: &Session, in_flight: usize) {
    let history = &s.loader.history;
    // The report being replaced goes before its successor is built, unannounced: nothing runs in
    // between, and views read it through the signal without keeping a copy. On a day of
    // checkpoints each report holds about 11 MiB.
    state.opened.update_untracked(|o| *o = None);
    let table = TableRef::guess(history, None);
    let mut report = inspect(history, &table);
    let mut load = LoadInfo::of(history, s.loader.stats.files, s.loader.stats.bytes);
    load.metadata_pick = s.pick.clone();
    report.load = Some(load);
    let footers = s.footers.as_ref().map(|(i, f, p)| Arc::new(crate::analysis::footers::footer_report(history, *i, f, p, &table)));
    if in_flight == 0 {
        report.findings.extend(orphan_finding(s, &table));
        report.findings.extend(footers.iter().flat_map(|f| f.findings.iter().cloned()));
        // Most severe first, as `findings` orders them (a stable sort keeps the rest in place).
        report.findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    }
    let markdown = markdown(&report);
    let opened = Opened {
        name: s.name.clone(),
        report: Arc::new(report),
        series: Arc::new(GrowthSeries::of(history)),
        summaries: s.summaries.clone(),
        jobs: Arc::new(job_spans(history)),
        partitions: Arc::new(partition_stats(history)),
        partition_timeline: Arc::new(partition_timeline(history, 200)),
        markdown: Arc::new(markdown),
        complete: history.is_settled() && in_flight == 0,
        walk: Arc::new(walk(history, s.walk.0.or(history.current_index()).unwrap_or(0), s.walk.1.as_deref(), WALK_ROWS)),
        footers,
        diff: s.compare.as_ref().map(|(a, b)| {
            Arc::new((|| {
                let (x, y) = (resolve(history, a)?, resolve(history, b)?);
                let d = diff(history, x, y);
                let md = crate::analysis::diff::markdown(&d, &s.name);
                Ok((d, md))
            })())
        }),
    };
    state.opened.set(Some(opened));
}

/// Files in the picked or served folder that no snapshot references, once every snapshot's
/// manifests have been read (the full history); nothing before, and nothing for a remote table
/// (its store is not listed from the browser).
fn orphan_finding(s: &Session, table: &TableRef) -> Option<crate::analysis::findings::Finding> {
    use crate::analysis::orphans::{census, finding, table_root};
    let history = &s.loader.history;
    history.all_files_known().is_none().then_some(())?;
    let root = table_root(&history.metadata_file)?;
    let mut listing = crate::source::listing::Listing::default();
    for path in s.files.all_paths()? {
        listing.push(&path, None, None);
    }
    let report = census(history, &listing, &root, s.pick.as_ref()).ok()?.with_file_facts(s.files.file_facts());
    finding(&report, table)
}

/// Cheap enough for every batch; the full-history estimate (a pass over every snapshot) is
/// recomputed only when `estimate` is set: at the start and at the end of a read.
fn report_progress(state: AppState, s: &Session, loading: bool, stopped: Option<String>, estimate: bool) {
    let (done, queued, expected) = s.loader.history.progress();
    let all = s.loader.history.read_mode() == Some(ReadMode::All);
    let previous = state.progress.with_untracked(|p| p.full_estimate);
    let full_estimate = if all {
        None
    } else if estimate {
        Some(s.loader.history.estimate_all(|p| s.files.size_hint(p)))
    } else {
        previous
    };
    state.progress.set(Progress {
        loading,
        files_done: done,
        files_queued: queued,
        bytes_read: s.loader.stats.bytes,
        bytes_expected: expected,
        all_snapshots: all,
        full_estimate,
        stopped,
    });
}

/// Sizes of the metadata log's files (the metadata.json strip under the growth chart), asked one
/// at a time with the page served in between: a picked file's size can take milliseconds.
async fn record_metadata_sizes(files: &TableFiles, loader: &mut Loader) {
    let mut sizes = std::collections::HashMap::new();
    let mut last_yield = marks::now_ms();
    for e in &loader.history.metadata.metadata_log {
        if let Some(b) = files.size_hint(&e.metadata_file) {
            sizes.insert(e.metadata_file.clone(), b);
        }
        if marks::now_ms() - last_yield > 25.0 {
            yield_to_page().await;
            last_yield = marks::now_ms();
        }
    }
    let current = loader.history.metadata_sizes.last().map(|m| m.bytes).unwrap_or(0);
    loader.history.record_metadata_sizes(current, |f| sizes.get(f).copied());
}

/// Lets the page paint and handle input: a macrotask, not a microtask. A message to a channel,
/// not `setTimeout(0)`: measured on a 17,280-snapshot table, Chromium held a zero timeout back for
/// over five seconds behind the rendering work it had queued, while a message runs next.
pub(super) async fn yield_to_page() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        match web_sys::MessageChannel::new() {
            Ok(channel) => {
                channel.port1().set_onmessage(Some(&resolve));
                let _ = channel.port2().post_message(&wasm_bindgen::JsValue::NULL);
                // The ports must outlive this closure until the message arrives; the promise's
                // resolve function holds port1 through `onmessage`.
                std::mem::forget(channel);
            }
            Err(_) => {
                if let Some(w) = web_sys::window() {
                    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
                }
            }
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Opens a table: the metadata file `metadata` (or the newest one among the files), drawn at once
/// from its summaries, then whatever the plan reads. Only an unreadable metadata file stops it.
pub async fn open_table(state: AppState, name: String, files: TableFiles, metadata: Option<String>) {
    open_files(state, name, Rc::new(files), metadata, None).await
}

/// How a pick the person made in the picker starts its reason.
const CHOSEN: &str = "chosen in the app";

/// Opens another of the open table's metadata files (the picker): time travel through versions.
pub fn switch_metadata(state: AppState, path: String) {
    let Some((name, files, mut pick)) = CURRENT.with(|c| c.borrow().clone()) else { return };
    pick.why = format!("{CHOSEN} (the newest by content is {})", pick.path);
    spawn_local(open_files(state, name, files, Some(path), Some(pick)));
}

async fn open_files(state: AppState, name: String, files: Rc<TableFiles>, metadata: Option<String>, chosen: Option<MetadataPick>) {
    let generation = state.generation.get_untracked() + 1;
    state.generation.set(generation);
    state.requests.set(Vec::new());
    state.opened.set(None);
    state.charted.set(false);
    state.shell.set(Some((name.clone(), generation)));
    state.progress.set(Progress { loading: true, ..Progress::default() });
    SESSION.with(|c| c.borrow_mut().take());
    CURRENT.with(|c| c.borrow_mut().take());
    // A folder Spark wrote (`icescope spark-export`): its tables stand in for the manifests.
    let export = if metadata.is_none() { files.listing().and_then(crate::load::spark_export::detect) } else { None };
    let (metadata, mut pick) = match (metadata, chosen) {
        (Some(m), pick) => (Some(m), pick),
        (None, _) if export.is_some() => (export.as_ref().map(|l| format!("{}snapshots", l.root)), None),
        (None, _) => match pick_metadata(&*files).await {
            Some(p) => (Some(p.path.clone()), Some(p)),
            None => (None, None),
        },
    };
    if state.generation.get_untracked() != generation {
        return;
    }
    let Some(metadata) = metadata else {
        state.progress.set(Progress::default());
        state.shell.set(None);
        return state.error(format!(
            "{name}: none of the {} files is a table metadata file (*.metadata.json or *.metadata.json.gz)",
            files.listing().map(|i| i.paths().len()).unwrap_or(0)
        ));
    };
    let opened = match (&export, pick.as_mut()) {
        (Some(layout), _) => Loader::open_spark_export(&*files, layout, false).await,
        // The folder's own pick (not a version chosen in the picker): the newest that reads.
        // Decoded in the worker: a day of snapshots is a long parse, and a hostile file's panic
        // there ends the worker, not the page.
        (None, Some(p)) if p.path == metadata && !p.why.starts_with(CHOSEN) => Loader::open_pick_with(&*files, &WorkerDecoder, p, false).await,
        (None, _) => Loader::open_with(&*files, &WorkerDecoder, &metadata, false).await,
    };
    if let Some(p) = &pick {
        CURRENT.with(|c| *c.borrow_mut() = Some((name.clone(), files.clone(), p.clone())));
    }
    let mut loader = match opened {
        Ok(l) => l,
        Err(e) => {
            state.progress.set(Progress::default());
            state.shell.set(None);
            return state.error(e.to_string());
        }
    };
    if state.generation.get_untracked() != generation {
        return;
    }
    marks::mark(marks::METADATA_READ);
    // Parsing a day of snapshots is a long task of its own: let the page breathe before the next.
    yield_to_page().await;
    if state.generation.get_untracked() != generation {
        return;
    }
    loader.history.plan(ReadMode::Auto);
    let summaries = loader.history.snapshots.iter().map(|sn| sn.snapshot.summary.clone()).collect();
    marks::mark("icescope:phase:summaries");
    let session = Session { generation, name, summaries: Arc::new(summaries), files, loader, pick, compare: None, walk: (None, None), footers: None };
    SESSION.with(|c| *c.borrow_mut() = Some(session));
    drive(state, true).await;
}

/// Takes the open table's session for work of its own (counting duplicates), while no task reads
/// for it: None while one does. Give it back with `return_session`.
pub(super) fn with_session(state: AppState) -> Option<Session> {
    let s = SESSION.with(|c| c.borrow_mut().take())?;
    if s.generation != state.generation.get_untracked() {
        return None;
    }
    Some(s)
}

/// Puts a borrowed session back, and serves requests made meanwhile.
pub(super) fn return_session(state: AppState, s: Session) {
    if s.generation != state.generation.get_untracked() {
        return; // another table was opened meanwhile
    }
    SESSION.with(|c| *c.borrow_mut() = Some(s));
    if !state.requests.get_untracked().is_empty() {
        spawn_local(drive(state, false));
    }
}

/// Asks the loader for more (the full history, or a snapshot in detail), now or when it is free.
pub fn request(state: AppState, r: LoadRequest) {
    state.requests.update(|q| q.push(r));
    spawn_local(drive(state, false));
}

/// Reads until the plan is complete, the user cancels, or another table is opened. `first`: the
/// table has just been opened and nothing of it is shown yet.
async fn drive(state: AppState, first: bool) {
    // Another task is driving it: that task picks the requests up.
    let Some(mut s) = SESSION.with(|c| c.borrow_mut().take()) else { return };
    if s.generation != state.generation.get_untracked() {
        return;
    }
    let current = s.loader.history.current_index();
    let mut detail_published = current.is_some_and(|c| s.loader.history.counts(c).is_some());
    let mut last_publish = marks::now_ms();
    let mut last_progress = 0.0;
    let mut publish_every = 3_000.0;
    let mut last_yield = marks::now_ms();
    let mut stopped = None;
    let mut sizes_recorded = s.loader.history.metadata_sizes.len() > 1 || s.loader.history.metadata.metadata_log.is_empty();
    state.progress.update(|p| p.loading = true);
    // A picked file is read by the browser process, not over a connection: more reads in flight
    // keep it busy while the page decodes what has arrived.
    let parallel = if matches!(*s.files, TableFiles::Picked(_)) { 4 * PARALLEL } else { PARALLEL };
    let mut pump = Pump::new(&*s.files, parallel);
    // What metadata.json says is drawn before any read goes out: measured on a 17,280-snapshot
    // folder, reads in flight during the first layout made it no sooner and the load no faster.
    if first {
        report_progress(state, &s, true, None, false);
        publish(state, &s, pump.in_flight());
        marks::mark("icescope:phase:published");
        yield_to_page().await;
        marks::mark("icescope:phase:yielded");
        report_progress(state, &s, true, None, true);
        marks::mark("icescope:phase:estimated");
        yield_to_page().await;
    }
    let mut delivered = 0usize;
    let mut published_revision = s.loader.history.revision();
    let mut asked = false;
    loop {
        if state.generation.get_untracked() != s.generation {
            return; // another table was opened: this one is no longer shown
        }
        if state.cancelled.get_untracked() == s.generation {
            stopped = Some("cancelled: what was read until then is shown".to_string());
            break;
        }
        let requests = state.requests.try_update(std::mem::take).unwrap_or_default();
        // A walk, comparison or selection asked for is shown at the next publish, changed or not.
        asked |= !requests.is_empty();
        for r in requests {
            match r {
                LoadRequest::AllSnapshots => s.loader.history.plan(ReadMode::All),
                LoadRequest::Select(i) => s.loader.history.select(i),
                LoadRequest::Compare(a, b) => {
                    for spec in [&a, &b] {
                        if let Ok(i) = resolve(&s.loader.history, spec) {
                            s.loader.history.select(i);
                        }
                    }
                    s.compare = Some((a, b));
                }
                LoadRequest::Walk(i, manifest) => {
                    s.loader.history.select(i);
                    s.walk = (Some(i), manifest);
                }
            }
        }
        if !pump.next(&mut s.loader).await {
            break;
        }
        delivered += 1;
        // Once the first reads are in: by then the first chart is on screen.
        if !sizes_recorded && delivered >= parallel {
            sizes_recorded = true;
            record_metadata_sizes(&s.files, &mut s.loader).await;
        }
        if state.generation.get_untracked() != s.generation {
            return;
        }
        let now = marks::now_ms();
        // Each update re-renders the progress line and lays the page out: updating after every
        // batch of a 17,280-manifest read cost seconds.
        if now - last_progress > 250.0 {
            report_progress(state, &s, true, None, false);
            last_progress = now;
        }
        let detail_done = current.is_some_and(|c| s.loader.history.counts(c).is_some());
        // Between two completed lists a report says what the last one said: redrawing every view
        // for it cost a 17,280-manifest read seconds and showed nothing new.
        let changed = asked || s.loader.history.revision() != published_revision;
        if changed && ((detail_done && !detail_published) || now - last_publish > publish_every) {
            detail_published |= detail_done;
            s.loader.history.settle_batch();
            publish(state, &s, pump.in_flight());
            published_revision = s.loader.history.revision();
            asked = false;
            last_publish = marks::now_ms();
            // Re-rendering every view costs more as the table grows: keep it under a tenth of the time.
            publish_every = ((last_publish - now) * 10.0).max(3_000.0);
        }
        // Reads stay in flight while the page gets its turn.
        if marks::now_ms() - last_yield > 25.0 {
            yield_to_page().await;
            last_yield = marks::now_ms();
        }
    }
    drop(pump);
    if !sizes_recorded {
        record_metadata_sizes(&s.files, &mut s.loader).await;
    }
    s.loader.history.settle_batch();
    publish(state, &s, 0);
    report_progress(state, &s, false, stopped, true);
    if state.cancelled.get_untracked() == s.generation {
        state.cancelled.set(0);
    }
    SESSION.with(|c| *c.borrow_mut() = Some(s));
    if !state.requests.get_untracked().is_empty() {
        spawn_local(drive(state, false));
    }
}
