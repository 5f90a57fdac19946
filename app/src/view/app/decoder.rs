//! The page's side of the decoder workers (`bin/icescope-decoder`): a `session::Decoder` that
//! posts each job's bytes to the least busy of `POOL` workers (the buffer transferred) and awaits
//! its answer. A worker decodes its jobs in order; when it stops (a panic, or no answer in time)
//! only the job it was on is lost: that file's read becomes an error naming it, the worker is
//! terminated, a fresh worker takes its place, and the jobs posted to it after that one go there.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures::channel::oneshot;
use wasm_bindgen::closure::Closure;

use js_sys::{Array, Function, Promise, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};

use crate::decode::job::{from_wire, to_wire, Decoded, Job, Reply, Request};
use crate::decode::DecodeError;
use crate::session::Decoder;

/// Trunk names a worker's files after its binary (never hashed): the loader shim imports the
/// wasm-bindgen module and starts it.
const LOADER: &str = "./icescope-decoder_loader.js";
/// How long a worker may take to start (fetch and compile its wasm).
const START_MS: u32 = 30_000;
/// Workers at most: a day's 17,280 manifests decoded in one took 13.8–15.7 s while the page's
/// own thread mostly waited. Fewer where the machine has fewer cores (`hardwareConcurrency`).
const POOL: usize = 2;

thread_local! {
    /// One slot per worker, None until it is started (and after it stopped, until the next job).
    static LIVE: RefCell<Vec<Option<Live>>> = RefCell::new((0..pool_size()).map(|_| None).collect());
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
    /// Held while a slot's worker starts: one start at a time per slot.
    static STARTING: Vec<Rc<futures::lock::Mutex<()>>> = (0..pool_size()).map(|_| Rc::new(futures::lock::Mutex::new(()))).collect();
}

/// The workers this page runs: `POOL`, or fewer on a machine with fewer cores.
fn pool_size() -> usize {
    let cores = web_sys::window().map(|w| w.navigator().hardware_concurrency()).unwrap_or(1.0);
    (cores as usize).clamp(1, POOL)
}

/// The slot with the fewest jobs posted (a stopped or not yet started worker has none).
fn least_busy() -> usize {
    LIVE.with(|l| l.borrow().iter().enumerate().min_by_key(|(_, live)| live.as_ref().map_or(0, |x| x.posted.len())).map_or(0, |(i, _)| i))
}

/// Runs `f` on slot `slot`'s worker, where it runs.
fn with_live<R>(slot: usize, f: impl FnOnce(&mut Live) -> R) -> Option<R> {
    LIVE.with(|l| l.borrow_mut().get_mut(slot).and_then(Option::as_mut).map(f))
}

/// A job posted and not yet answered. Its request's bytes are kept: if the worker stops on an
/// earlier job, this one is posted again to the next worker.
struct Posted {
    id: u64,
    wire: Vec<u8>,
    path: String,
    ms: u32,
    metadata: bool,
    /// The folder a `Job::Read` reads from: handed to the worker before the job.
    folder: Option<u32>,
    answer: oneshot::Sender<Result<Decoded, DecodeError>>,
}

/// The running worker and the jobs posted to it, oldest first. It answers in order, so the oldest
/// is the one it is on: only that one's allowance runs, and only that one is lost if it stops.
/// Several jobs stay posted so that the worker never idles between two (one at a time, each
/// waiting for the page to post the next, made a day's read of manifests a fifth slower).
struct Live {
    worker: Worker,
    posted: VecDeque<Posted>,
    /// The folders handed to this worker.
    folders: Vec<u32>,
    timer: Option<i32>,
    handlers: Handlers,
}

struct Handlers {
    _message: Closure<dyn FnMut(MessageEvent)>,
    _error: Closure<dyn FnMut(ErrorEvent)>,
    /// Fires when the oldest job's allowance has passed.
    timeout: Closure<dyn FnMut()>,
}

/// The decoder worker, as a `Decoder`.
#[derive(Debug, Clone, Copy, Default)]
pub struct WorkerDecoder;

/// How long one job may take: generous, and longer for more bytes (20 s, plus 2 s a MiB). The
/// test switch `?decoder-ms=N&decoder-ms-for=NAME` sets the 20 s (at least 100 ms) for the jobs on
/// files named NAME only: a test of a hang need not wait, and no other job is held to a short one.
fn allowance_ms(path: &str, bytes: usize) -> u32 {
    let aimed = query("decoder-ms-for").is_some_and(|name| path.rsplit('/').next() == Some(name.as_str()));
    let base = query("decoder-ms").filter(|_| aimed).and_then(|v| v.parse::<u32>().ok()).map_or(20_000, |ms| ms.max(100));
    base.saturating_add(u32::try_from(bytes / (1 << 20)).unwrap_or(u32::MAX / 4).saturating_mul(2_000))
}

/// A parameter of the page's own address.
fn query(key: &str) -> Option<String> {
    let search = web_sys::window().and_then(|w| w.location().search().ok())?;
    search.trim_start_matches('?').split('&').find_map(|p| p.strip_prefix(key)?.strip_prefix('=').map(str::to_string))
}

/// The test switch `?decoders=unchecked`: the worker skips the pre-validation, so the known panics
/// and hangs of the `parquet` crate reach it (and end the worker, not the page).
fn checked() -> bool {
    query("decoders").as_deref() != Some("unchecked")
}

/// Posts `message` (its buffer transferred) and waits for the worker's next message, its error
/// event, or `ms` to pass. Ok: the message's data; Err: why there was none.
async fn exchange(worker: &Worker, message: Option<&Uint8Array>, ms: u32) -> Result<JsValue, String> {
    let timer = Rc::new(Cell::new(None));
    let set_timer = timer.clone();
    let mut posted = Ok(());
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        worker.set_onmessage(Some(&resolve));
        worker.set_onerror(Some(&reject));
        // Without a window (never on the page) there is no timer: the worker's answer or error ends the wait.
        if let Some(window) = web_sys::window() {
            let why = JsValue::from_str(&format!("no answer within {} s", ms / 1000));
            set_timer.set(window.set_timeout_with_callback_and_timeout_and_arguments_1(&reject, ms as i32, &why).ok());
        }
        if let Some(m) = message {
            posted = worker.post_message_with_transfer(m, &Array::of1(&m.buffer()));
        }
    });
    let answer = if posted.is_err() { Err(JsValue::from_str("the job could not be posted")) } else { JsFuture::from(promise).await };
    if let (Some(w), Some(t)) = (web_sys::window(), timer.get()) {
        w.clear_timeout_with_handle(t);
    }
    worker.set_onmessage(None);
    worker.set_onerror(None);
    match answer {
        Ok(ev) => Ok(ev.unchecked_into::<MessageEvent>().data()),
        Err(e) => Err(match e.dyn_ref::<ErrorEvent>() {
            Some(ev) => format!("it failed: {}", ev.message()),
            None => e.as_string().unwrap_or_else(|| "it failed".into()),
        }),
    }
}

/// A new worker for `slot`, once it said it is ready, with the page's handlers set.
async fn start(slot: usize) -> Result<Live, String> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let w = Worker::new_with_options(LOADER, &options).map_err(|e| format!("{e:?}"))?;
    match exchange(&w, None, START_MS).await {
        Ok(v) if v.as_string().as_deref() == Some("ready") => {}
        Ok(_) => {
            w.terminate();
            return Err("it sent something before saying it was ready".into());
        }
        Err(e) => {
            w.terminate();
            return Err(e);
        }
    }
    let message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| answered(slot, ev.data()));
    let error = Closure::<dyn FnMut(ErrorEvent)>::new(move |ev: ErrorEvent| {
        let why = format!("it failed: {}", ev.message());
        stopped_on_oldest(slot, move |_| why.clone())
    });
    let timeout = Closure::<dyn FnMut()>::new(move || stopped_on_oldest(slot, |p| format!("no answer within {} s", p.ms / 1000)));
    w.set_onmessage(Some(message.as_ref().unchecked_ref()));
    w.set_onerror(Some(error.as_ref().unchecked_ref()));
    Ok(Live { worker: w, posted: VecDeque::new(), folders: Vec::new(), timer: None, handlers: Handlers { _message: message, _error: error, timeout } })
}

fn is_running(slot: usize) -> bool {
    LIVE.with(|l| l.borrow().get(slot).is_some_and(Option::is_some))
}

/// Makes sure slot `slot`'s worker runs (starting one if none does).
async fn running(slot: usize) -> Result<(), String> {
    if is_running(slot) {
        return Ok(());
    }
    let Some(starting) = STARTING.with(|s| s.get(slot).cloned()) else { return Err(format!("no decoder slot {slot}")) };
    let _one = starting.lock().await;
    if is_running(slot) {
        return Ok(());
    }
    let live = start(slot).await?;
    LIVE.with(|l| {
        if let Some(at) = l.borrow_mut().get_mut(slot) {
            *at = Some(live);
        }
    });
    Ok(())
}

/// Posts a job to the running worker (its bytes copied and transferred); its allowance starts if
/// it is the oldest.
fn post(live: &mut Live, job: Posted) {
    if let Some(id) = job.folder.filter(|id| !live.folders.contains(id)) {
        hand(live, id);
    }
    let message = Uint8Array::from(&job.wire[..]);
    let posted = live.worker.post_message_with_transfer(&message, &Array::of1(&message.buffer()));
    if posted.is_err() {
        let _ = job.answer.send(Err(DecodeError::new(&job.path, "", "the job could not be posted to the decoder worker".to_string())));
        return;
    }
    live.posted.push_back(job);
    if live.posted.len() == 1 {
        arm(live);
    }
}

/// Hands folder `id` to the worker (posted before the jobs that read it; a folder no longer kept
/// is not, and the worker answers its jobs that it was not handed).
fn hand(live: &mut Live, id: u32) {
    let Some(handle) = crate::source::browser::handle::handed(id) else { return };
    let message = js_sys::Object::new();
    let set = js_sys::Reflect::set(&message, &"folder".into(), &JsValue::from_f64(f64::from(id)))
        .and_then(|_| js_sys::Reflect::set(&message, &"handle".into(), &handle));
    if set.is_ok() && live.worker.post_message(&message).is_ok() {
        live.folders.push(id);
    }
}

/// Starts the oldest job's allowance.
fn arm(live: &mut Live) {
    if let (Some(window), Some(oldest)) = (web_sys::window(), live.posted.front()) {
        live.timer = window.set_timeout_with_callback_and_timeout_and_arguments_0(live.handlers.timeout.as_ref().unchecked_ref(), oldest.ms as i32).ok();
    }
}

fn disarm(live: &mut Live) {
    if let (Some(w), Some(t)) = (web_sys::window(), live.timer.take()) {
        w.clear_timeout_with_handle(t);
    }
}

/// Slot `slot`'s worker's answer to its oldest job.
fn answered(slot: usize, data: JsValue) {
    if with_live(slot, |l| l.posted.front().is_some_and(|p| p.metadata)).unwrap_or(false) {
        super::marks::mark("icescope:phase:metadata-received");
    }
    let reply = from_wire::<Reply>(&Uint8Array::new(&data).to_vec());
    let done = with_live(slot, |live| match reply {
        Ok(Reply::Done { id, result }) if live.posted.front().is_some_and(|p| p.id == id) => {
            disarm(live);
            let oldest = live.posted.pop_front()?;
            arm(live);
            Some(Ok((oldest, result)))
        }
        Ok(Reply::Done { .. }) => Some(Err("it answered another job".to_string())),
        Ok(Reply::Panicked { message }) => Some(Err(format!("it panicked: {message}"))),
        Err(e) => Some(Err(e)),
    })
    .flatten();
    match done {
        Some(Ok((oldest, result))) => {
            // What receiving a table's metadata costs the page (the benchmark reads these marks).
            if oldest.metadata {
                super::marks::mark("icescope:phase:metadata-decoded");
            }
            let _ = oldest.answer.send(result);
        }
        Some(Err(why)) => stopped_on_oldest(slot, move |_| why.clone()),
        None => {}
    }
}

/// Slot `slot`'s worker stopped (or must be stopped) while on its oldest job: that file's read
/// becomes an error naming it, the worker ends, and the jobs posted to it after that one go to a
/// fresh worker in its slot.
fn stopped_on_oldest(slot: usize, why: impl Fn(&Posted) -> String) {
    let Some(mut live) = LIVE.with(|l| l.borrow_mut().get_mut(slot).and_then(Option::take)) else { return };
    disarm(&mut live);
    live.worker.set_onmessage(None);
    live.worker.set_onerror(None);
    live.worker.terminate();
    let mut rest = std::mem::take(&mut live.posted);
    if let Some(oldest) = rest.pop_front() {
        let message = format!("the decoder stopped on this file: {}; a fresh decoder takes the next file", why(&oldest));
        let _ = oldest.answer.send(Err(DecodeError::new(&oldest.path, "", message)));
    }
    // The slot gets a fresh worker at once: the pool stays whole for the jobs to come.
    super::tasks::spawn(async move {
        match running(slot).await {
            Ok(()) => {
                let _ = with_live(slot, |live| rest.into_iter().for_each(|job| post(live, job)));
            }
            Err(e) => {
                for job in rest {
                    let _ = job.answer.send(Err(DecodeError::new(&job.path, "", format!("the decoder worker did not start: {e}"))));
                }
            }
        }
    });
}

/// Starts the workers before the first job (their wasm fetched and compiled off the page
/// meanwhile), so that opening a table does not wait for them.
pub fn warm_up() {
    for slot in 0..pool_size() {
        super::tasks::spawn(async move {
            if let Err(e) = running(slot).await {
                web_sys::console::warn_1(&format!("icescope: the decoder worker did not start: {e}").into());
            }
        });
    }
}

impl Decoder for WorkerDecoder {
    async fn decode(&self, job: Job) -> Result<Decoded, DecodeError> {
        let path = job.path().to_string();
        let ms = allowance_ms(job.path(), job.byte_len());
        let metadata = matches!(job.inner(), Job::TableMetadata { .. });
        let folder = if let Job::Read { folder, .. } = &job { Some(*folder) } else { None };
        let err = |m: String| DecodeError::new(&path, "", m);
        let id = NEXT_ID.with(|n| n.replace(n.get() + 1));
        let wire = to_wire(&Request { id, checked: checked(), job }).map_err(err)?;
        let slot = least_busy();
        running(slot).await.map_err(|e| err(format!("the decoder worker did not start: {e}")))?;
        let (answer, answered) = oneshot::channel();
        if metadata {
            super::marks::mark("icescope:phase:metadata-posted");
        }
        let job = Posted { id, wire, path: path.clone(), ms, metadata, folder, answer };
        // None: the slot's worker stopped meanwhile (the job, unposted, is dropped with it).
        if with_live(slot, move |live| post(live, job)).is_none() {
            return Err(err("the decoder worker stopped before the job was posted".into()));
        }
        answered.await.unwrap_or_else(|_| Err(err("the decoder worker ended without answering".into())))
    }

    fn reads_folders(&self) -> bool {
        true
    }
}
