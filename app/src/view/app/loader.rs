//! Wires the open table's session (`crate::session`) to the page: metadata first and drawn at
//! once, then the files the plan needs, yielding to the page between batches. The session answers
//! every view; this file only decides when to ask it, and puts the answer in the signals.

use std::rc::Rc;
use std::sync::Arc;

use super::tasks::spawn;
use futures::lock::Mutex;
use leptos::prelude::*;

use crate::analysis::savepoint::Savepoints;
use crate::model::ReadMode;
use crate::session::drive::{drive as drive_session, Ended, Host};
use crate::session::open::{Naming, Version};
use crate::session::TableSession;
use crate::source::metadata_pick::MetadataPick;
use crate::source::Fetch;

use super::decoder::WorkerDecoder;
use super::files::TableFiles;
use super::{marks, AppState};

pub use crate::session::{Answer, Ask};

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
    let version = metadata.map_or(Version::Newest, Version::File);
    open_files(state, name, Rc::new(files), version, None).await
}

/// Opens another of the open table's metadata files (the picker): time travel through versions.
pub fn switch_metadata(state: AppState, path: String) {
    let Some(Current { files, pick: Some(pick), savepoints, .. }) = state.session.get_value() else { return };
    let name = state.shell.get_untracked().map(|(n, _)| n).unwrap_or_default();
    let version = Version::Named { name: path, by: Naming::Picker, versions: Some(pick) };
    spawn(open_files(state, name, files, version, savepoints));
}

/// Opens the folder's newest metadata file by content, where it is not the one first opened.
pub fn reopen_picked(state: AppState, pick: MetadataPick) {
    let Some(Current { files, savepoints, .. }) = state.session.get_value().filter(|c| c.generation == state.generation.get_untracked()) else { return };
    let name = state.shell.get_untracked().map(|(n, _)| n).unwrap_or_default();
    spawn(open_files(state, name, files, Version::Picked(pick), savepoints));
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
    request(state, Ask::Savepoints(savepoints));
}

async fn open_files(state: AppState, name: String, files: Rc<TableFiles>, version: Version, savepoints: Option<Arc<Savepoints>>) {
    let generation = state.generation.get_untracked() + 1;
    state.generation.set(generation);
    state.requests.set(Vec::new());
    state.opened.set(None);
    state.charted.set(false);
    state.shell.set(Some((name.clone(), generation)));
    state.progress.set(Progress { loading: true, ..Progress::default() });
    state.session.set_value(None);
    let opened = crate::session::open::open(&name, &*files, &WorkerDecoder, version, false).await;
    if state.generation.get_untracked() != generation {
        return;
    }
    let (loader, pick) = match opened {
        Ok(o) => o,
        Err(e) => {
            state.progress.set(Progress::default());
            state.shell.set(None);
            return state.error(e.to_string());
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
    let queued = || state.requests.with_untracked(|q| q.iter().rev().find_map(|r| if let Ask::Savepoints(s) = r { Some(s.clone()) } else { None }));
    let savepoints = savepoints.or_else(queued);
    if let Some(s) = &savepoints {
        session.request(Ask::Savepoints(s.clone()));
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
pub fn request(state: AppState, r: Ask) {
    state.requests.update(|q| q.push(r));
    spawn(drive(state, false));
}

/// After a task that held the session: requests made meanwhile are served.
pub(super) fn released(state: AppState) {
    if !state.requests.get_untracked().is_empty() {
        spawn(drive(state, false));
    }
}

/// The page as the session's drive sees it: the table's generation, the person's cancel and
/// requests, the signals answers go to.
struct Page {
    state: AppState,
    generation: u64,
}

impl Host<TableFiles, WorkerDecoder> for Page {
    fn now_ms(&self) -> f64 {
        marks::now_ms()
    }

    fn gone(&self) -> bool {
        self.state.generation.get_untracked() != self.generation
    }

    fn cancelled(&self) -> Option<String> {
        (self.state.cancelled.get_untracked() == self.generation).then(|| "cancelled: what was read until then is shown".to_string())
    }

    fn requests(&mut self) -> Vec<Ask> {
        self.state.requests.try_update(std::mem::take).unwrap_or_default()
    }

    fn publish(&mut self, s: &mut TableSession<TableFiles, WorkerDecoder>, in_flight: usize) {
        publish(self.state, s, in_flight)
    }

    fn progress(&mut self, s: &TableSession<TableFiles, WorkerDecoder>, loading: bool, stopped: Option<String>, estimate: bool) {
        report_progress(self.state, s, loading, stopped, estimate)
    }

    async fn yield_now(&mut self) {
        yield_to_page().await
    }

    fn census_refused(&mut self, why: String) {
        self.state.error(why)
    }

    fn mark(&self, name: &str) {
        marks::mark(name)
    }
}

/// Reads until the plan is complete, the user cancels, or another table is opened. `first`: the
/// table has just been opened and nothing of it is shown yet.
async fn drive(state: AppState, first: bool) {
    let Some(shared) = session(state) else { return };
    // Another task holds it: a reader picks the requests up; a borrower hands them on (`released`).
    let Some(mut s) = shared.try_lock() else { return };
    let generation = state.generation.get_untracked();
    if drive_session(&mut s, &mut Page { state, generation }, first).await == Ended::Gone {
        return;
    }
    if state.cancelled.get_untracked() == generation {
        state.cancelled.set(0);
    }
    drop(s);
    released(state);
}
