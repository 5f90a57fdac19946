//! Wires the open table's session (`crate::session`) to the page: metadata first and drawn at
//! once, then the files the plan needs, yielding to the page between batches. The session answers
//! every view; this file only decides when to ask it, and puts the answer in the signals.

use std::rc::Rc;
use std::sync::Arc;

use super::tasks::spawn;
use futures::lock::Mutex;
use leptos::prelude::*;

use crate::analysis::savepoint::Savepoints;
use crate::load::{Loader, Pump, PARALLEL};
use crate::model::ReadMode;
use crate::session::{open::choose, TableSession};
use crate::source::metadata_pick::MetadataPick;
use crate::source::Fetch;

use super::decoder::WorkerDecoder;
use super::files::TableFiles;
use super::{marks, AppState};

pub use crate::session::{Request as LoadRequest, TableView as Opened};

/// The open table's session. Locked by whichever task reads for it or borrows it (counting
/// duplicates, reading footers); the others find it busy.
pub type Shared = Rc<Mutex<TableSession<TableFiles, WorkerDecoder>>>;

/// The open table: its generation, its session, and for the metadata picker its versions.
#[derive(Clone)]
pub struct Current {
    pub(super) generation: u64,
    pub(super) session: Shared,
    pub(super) files: Rc<TableFiles>,
    pub(super) pick: Option<MetadataPick>,
    /// Savepoints read for this table: judged again against the version the picker opens.
    savepoints: Option<Arc<Savepoints>>,
}

/// Reading progress: updated after every batch, without recomputing the report.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    pub loading: bool,
    pub read: crate::report::load::ReadProgress,
    pub all_snapshots: bool,
    /// What reading every snapshot would still cost: (files, bytes, exact).
    pub full_estimate: Option<(u64, u64, bool)>,
    /// Why loading stopped early, when it did.
    pub stopped: Option<String>,
}

/// Puts the session's answer in the signal. `in_flight`: reads still out.
pub(super) fn publish(state: AppState, s: &mut TableSession<TableFiles, WorkerDecoder>, in_flight: usize) {
    // The answer being replaced goes before its successor is built, unannounced: nothing runs in
    // between, and views read it through the signal without keeping a copy. On a day of
    // checkpoints each report holds about 11 MiB.
    state.opened.update_untracked(|o| *o = None);
    state.opened.set(Some(s.answer(in_flight)));
}

/// Cheap enough for every batch; the full-history estimate (a pass over every snapshot) is
/// recomputed only when `estimate` is set: at the start and at the end of a read.
pub(super) fn report_progress(state: AppState, s: &TableSession<TableFiles, WorkerDecoder>, loading: bool, stopped: Option<String>, estimate: bool) {
    let h = &s.loader.history;
    let (done, queued, expected) = h.progress();
    let all = h.read_mode() == Some(ReadMode::All);
    let previous = state.progress.with_untracked(|p| p.full_estimate);
    let full_estimate = if all {
        None
    } else if estimate {
        Some(h.estimate_all(|p| s.files.size_hint(p)))
    } else {
        previous
    };
    let st = &s.loader.stats;
    let read = crate::report::load::ReadProgress {
        files_done: done,
        files_queued: queued,
        metadata_bytes: st.metadata_bytes,
        list_bytes: st.list_bytes,
        manifest_bytes: st.manifest_bytes,
        manifest_bytes_declared: expected,
    };
    state.progress.set(Progress { loading, read, all_snapshots: all, full_estimate, stopped });
}

/// Sizes of the metadata log's files (the metadata.json strip under the growth chart), with the
/// page served in between: a picked file's size can take milliseconds.
async fn record_metadata_sizes(files: &TableFiles, loader: &mut Loader) {
    if let TableFiles::Handle(h) = files {
        let log: Vec<String> = loader.history.metadata.metadata_log.iter().map(|e| e.metadata_file.clone()).collect();
        h.prepare_sizes(&log).await;
        marks::mark("icescope:phase:sizes");
    }
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
    // Held across the await: the channel lives until its message arrives, then is closed and
    // released (forgetting it leaked one JS handle per yield, thousands over a long read).
    let channel = web_sys::MessageChannel::new().ok();
    let promise = js_sys::Promise::new(&mut |resolve, _| match &channel {
        Some(c) => {
            c.port1().set_onmessage(Some(&resolve));
            let _ = c.port2().post_message(&wasm_bindgen::JsValue::NULL);
        }
        None => {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
            }
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    if let Some(c) = channel {
        c.port1().set_onmessage(None);
        c.port1().close();
        c.port2().close();
    }
}

/// Opens a table: the metadata file `metadata` (or the newest one among the files), drawn at once
/// from its summaries, then whatever the plan reads. Only an unreadable metadata file stops it.
pub async fn open_table(state: AppState, name: String, files: TableFiles, metadata: Option<String>) {
    open_files(state, name, Rc::new(files), metadata, None, None).await
}

/// Opens another of the open table's metadata files (the picker): time travel through versions.
pub fn switch_metadata(state: AppState, path: String) {
    let Some(Current { files, pick: Some(pick), savepoints, .. }) = state.session.get_value() else { return };
    let name = state.shell.get_untracked().map(|(n, _)| n).unwrap_or_default();
    spawn(open_files(state, name, files, Some(path), Some(choose(pick)), savepoints));
}

/// Opens the folder's newest metadata file by content, where it is not the one first opened.
pub fn reopen_picked(state: AppState, pick: MetadataPick) {
    let Some(Current { files, savepoints, .. }) = state.session.get_value().filter(|c| c.generation == state.generation.get_untracked()) else { return };
    let name = state.shell.get_untracked().map(|(n, _)| n).unwrap_or_default();
    spawn(open_files(state, name, files, Some(pick.path.clone()), Some(pick), savepoints));
}

/// The folder's metadata files, listed after the table was opened by name: the picker's versions.
pub async fn set_pick(state: AppState, pick: MetadataPick) {
    let Some(current) = state.session.get_value().filter(|c| c.generation == state.generation.get_untracked()) else { return };
    let mut s = current.session.lock().await;
    if state.generation.get_untracked() != current.generation {
        return;
    }
    s.pick = Some(pick.clone());
    state.session.update_value(|c| {
        if let Some(c) = c.as_mut().filter(|c| c.generation == current.generation) {
            c.pick = Some(pick);
        }
    });
    publish(state, &mut s, 0);
}

/// Savepoints read for the open table (Before you resume): the session judges them from its next
/// answer on, against whichever version is open.
pub fn judge_savepoints(state: AppState, savepoints: Savepoints) {
    let savepoints = Arc::new(savepoints);
    state.session.update_value(|c| {
        if let Some(c) = c {
            c.savepoints = Some(savepoints.clone());
        }
    });
    request(state, LoadRequest::Savepoints(savepoints));
}

async fn open_files(
    state: AppState,
    name: String,
    files: Rc<TableFiles>,
    metadata: Option<String>,
    chosen: Option<MetadataPick>,
    savepoints: Option<Arc<Savepoints>>,
) {
    let generation = state.generation.get_untracked() + 1;
    state.generation.set(generation);
    state.requests.set(Vec::new());
    state.opened.set(None);
    state.charted.set(false);
    state.shell.set(Some((name.clone(), generation)));
    state.progress.set(Progress { loading: true, ..Progress::default() });
    state.session.set_value(None);
    let opened = crate::session::open::open(&name, &*files, &WorkerDecoder, metadata, chosen).await;
    if state.generation.get_untracked() != generation {
        return;
    }
    let (loader, pick) = match opened {
        Ok(o) => o,
        Err(e) => {
            state.progress.set(Progress::default());
            state.shell.set(None);
            return state.error(e);
        }
    };
    marks::mark(marks::METADATA_READ);
    // Parsing a day of snapshots is a long task of its own: let the page breathe before the next.
    yield_to_page().await;
    if state.generation.get_untracked() != generation {
        return;
    }
    let mut session = TableSession::new(name, files.clone(), WorkerDecoder, loader, pick.clone(), ReadMode::Auto);
    // Savepoints dropped with the table may have been read while it opened: kept for the picker too.
    let queued = || state.requests.with_untracked(|q| q.iter().rev().find_map(|r| if let LoadRequest::Savepoints(s) = r { Some(s.clone()) } else { None }));
    let savepoints = savepoints.or_else(queued);
    if let Some(s) = &savepoints {
        session.request(LoadRequest::Savepoints(s.clone()));
    }
    marks::mark("icescope:phase:summaries");
    state.session.set_value(Some(Current { generation, session: Rc::new(Mutex::new(session)), files, pick, savepoints }));
    drive(state, true).await;
}

/// What reads of the open table may use, where it was opened from an object store by the page
/// itself (a location, a catalog): other files on that store are read with it.
pub(super) fn store_access(state: AppState) -> Option<crate::source::object_read::ObjectAccess> {
    let current = state.session.get_value().filter(|c| c.generation == state.generation.get_untracked())?;
    match &*current.files {
        TableFiles::Remote(r) => Some(r.access().clone()),
        TableFiles::Listed(l) => Some(l.inner.access().clone()),
        _ => None,
    }
}

/// The open table's session for a task of its own (counting duplicates, reading footers) while
/// no other task holds it: None while one does, or when another table is open.
pub(super) fn session(state: AppState) -> Option<Shared> {
    state.session.get_value().filter(|c| c.generation == state.generation.get_untracked()).map(|c| c.session)
}

/// Asks the session for more (the full history, a snapshot in detail), now or when it is free.
pub fn request(state: AppState, r: LoadRequest) {
    state.requests.update(|q| q.push(r));
    spawn(drive(state, false));
}

/// After a task that held the session: requests made meanwhile are served.
pub(super) fn released(state: AppState) {
    if !state.requests.get_untracked().is_empty() {
        spawn(drive(state, false));
    }
}

/// Reads until the plan is complete, the user cancels, or another table is opened. `first`: the
/// table has just been opened and nothing of it is shown yet.
async fn drive(state: AppState, first: bool) {
    let Some(shared) = session(state) else { return };
    // Another task holds it: a reader picks the requests up; a borrower hands them on (`released`).
    let Some(mut s) = shared.try_lock() else { return };
    let generation = state.generation.get_untracked();
    let files = s.files.clone();
    let current = s.loader.history.current_index();
    let mut detail_published = current.is_some_and(|c| s.loader.history.counts(c).is_some());
    // The lists read while the current snapshot's manifests are not: every chart but the
    // partitions is final then, and is shown at once.
    let mut lists_published = s.loader.history.lists_settled();
    let mut last_publish = marks::now_ms();
    let mut last_progress = 0.0;
    let mut publish_every = 3_000.0;
    let mut last_yield = marks::now_ms();
    let mut stopped = None;
    let mut sizes_recorded = s.loader.history.metadata_sizes.len() > 1 || s.loader.history.metadata.metadata_log.is_empty();
    state.progress.update(|p| p.loading = true);
    // A picked file is read by the browser process, not over a connection: more reads in flight
    // keep it busy while the page decodes what has arrived. A folder handle's are asked for by
    // the decoder workers: 48 in flight had W1b's charts in 11.8 s from the drop, 24 in 15.0, 96
    // no sooner than 48. Through the relay, each of the browser's connections carries a batch of
    // whole files, asked for a batch at a time.
    let (parallel, refill) = match *files {
        TableFiles::Picked(_) => (4 * PARALLEL, 1),
        TableFiles::Handle(_) => (8 * PARALLEL, 1),
        TableFiles::Relay(_) => (PARALLEL * crate::source::relay::MAX_BATCH, crate::source::relay::MAX_BATCH),
        _ => (PARALLEL, 1),
    };
    let mut pump = Pump::new(&*files, &WorkerDecoder, parallel).refill_by(refill);
    // What metadata.json says is drawn before any read goes out: measured on a 17,280-snapshot
    // folder, reads in flight during the first layout made it no sooner and the load no faster.
    if first {
        report_progress(state, &s, true, None, false);
        publish(state, &mut s, pump.in_flight());
        marks::mark("icescope:phase:published");
        yield_to_page().await;
        marks::mark("icescope:phase:yielded");
        report_progress(state, &s, true, None, true);
        marks::mark("icescope:phase:estimated");
        yield_to_page().await;
    }
    let mut delivered = 0usize;
    let mut published_revision = s.loader.history.revision();
    loop {
        if state.generation.get_untracked() != generation {
            return; // another table was opened: this one is no longer shown
        }
        if state.cancelled.get_untracked() == generation {
            stopped = Some("cancelled: what was read until then is shown".to_string());
            break;
        }
        for r in state.requests.try_update(std::mem::take).unwrap_or_default() {
            s.request(r);
        }
        if !pump.next(&mut s.loader).await {
            break;
        }
        delivered += 1;
        // Once the first reads are in: by then the first chart is on screen.
        if !sizes_recorded && delivered >= parallel {
            sizes_recorded = true;
            record_metadata_sizes(&files, &mut s.loader).await;
        }
        if state.generation.get_untracked() != generation {
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
        // for it cost a 17,280-manifest read seconds and showed nothing new. A walk, comparison or
        // selection asked for is shown at the next publish, changed or not.
        let changed = s.asked() || s.loader.history.revision() != published_revision;
        let lists_done = !lists_published && s.loader.history.lists_settled();
        if lists_done || (changed && ((detail_done && !detail_published) || now - last_publish > publish_every)) {
            detail_published |= detail_done;
            lists_published |= lists_done;
            s.loader.history.settle_batch();
            publish(state, &mut s, pump.in_flight());
            published_revision = s.loader.history.revision();
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
        record_metadata_sizes(&files, &mut s.loader).await;
    }
    s.loader.history.settle_batch();
    // A folder picked as a handle is listed whole only now, for the orphan census, once every
    // snapshot's files are known (as the folder input's census waits for them).
    if let TableFiles::Handle(h) = &*files {
        if s.loader.history.all_files_known().is_none() {
            marks::mark("icescope:phase:census");
            if let Err(e) = h.list_others().await {
                state.error(format!("the folder was not listed for the orphan census: {e}"));
            }
        }
    }
    publish(state, &mut s, 0);
    report_progress(state, &s, false, stopped, true);
    if state.cancelled.get_untracked() == generation {
        state.cancelled.set(0);
    }
    drop(s);
    released(state);
}
