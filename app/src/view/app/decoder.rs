//! The page's side of the decoder worker (`bin/icescope-decoder`): a `load::decoder::Decoder` that
//! posts each job's bytes to the worker (the buffer transferred) and awaits its answer. The worker
//! decodes its jobs in order; when it stops (a panic, or no answer in time) only the job it was on
//! is lost: that file's read becomes an error naming it, the worker is terminated, and the jobs
//! posted after it go to a fresh one.

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
use crate::load::decoder::Decoder;

/// Trunk names a worker's files after its binary (never hashed): the loader shim imports the
/// wasm-bindgen module and starts it.
const LOADER: &str = "./icescope-decoder_loader.js";
/// How long a worker may take to start (fetch and compile its wasm).
const START_MS: u32 = 30_000;

thread_local! {
    static LIVE: RefCell<Option<Live>> = const { RefCell::new(None) };
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
    /// Held while a worker starts: one start at a time.
    static STARTING: Rc<futures::lock::Mutex<()>> = Rc::new(futures::lock::Mutex::new(()));
}

/// A job posted and not yet answered. Its request's bytes are kept: if the worker stops on an
/// earlier job, this one is posted again to the next worker.
struct Posted {
    id: u64,
    wire: Vec<u8>,
    path: String,
    ms: u32,
    metadata: bool,
    answer: oneshot::Sender<Result<Decoded, DecodeError>>,
}

/// The running worker and the jobs posted to it, oldest first. It answers in order, so the oldest
/// is the one it is on: only that one's allowance runs, and only that one is lost if it stops.
/// Several jobs stay posted so that the worker never idles between two (one at a time, each
/// waiting for the page to post the next, made a day's read of manifests a fifth slower).
struct Live {
    worker: Worker,
    posted: VecDeque<Posted>,
    timer: Option<i32>,
    _handlers: Handlers,
}

struct Handlers {
    _message: Closure<dyn FnMut(MessageEvent)>,
    _error: Closure<dyn FnMut(ErrorEvent)>,
}

thread_local! {
    /// Fires when the oldest job's allowance has passed.
    static TIMEOUT: Closure<dyn FnMut()> = Closure::new(|| stopped_on_oldest(|p| format!("no answer within {} s", p.ms / 1000)));
}

/// The decoder worker, as a `Decoder`.
#[derive(Debug, Clone, Copy, Default)]
pub struct WorkerDecoder;

/// How long one job may take: generous, and longer for more bytes (20 s, plus 2 s a MiB). The
/// test switch `?decoder-ms=N` sets the 20 s (at least 100 ms): a test of a hang need not wait.
fn allowance_ms(bytes: usize) -> u32 {
    let base = query("decoder-ms").and_then(|v| v.parse::<u32>().ok()).map_or(20_000, |ms| ms.max(100));
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

/// A new worker, once it said it is ready, with the page's handlers set.
async fn start() -> Result<Live, String> {
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
    let message = Closure::<dyn FnMut(MessageEvent)>::new(|ev: MessageEvent| answered(ev.data()));
    let error = Closure::<dyn FnMut(ErrorEvent)>::new(|ev: ErrorEvent| {
        let why = format!("it failed: {}", ev.message());
        stopped_on_oldest(move |_| why.clone())
    });
    w.set_onmessage(Some(message.as_ref().unchecked_ref()));
    w.set_onerror(Some(error.as_ref().unchecked_ref()));
    Ok(Live { worker: w, posted: VecDeque::new(), timer: None, _handlers: Handlers { _message: message, _error: error } })
}

/// Makes sure a worker runs (starting one if none does).
async fn running() -> Result<(), String> {
    if LIVE.with(|l| l.borrow().is_some()) {
        return Ok(());
    }
    let starting = STARTING.with(Rc::clone);
    let _one = starting.lock().await;
    if LIVE.with(|l| l.borrow().is_some()) {
        return Ok(());
    }
    let live = start().await?;
    LIVE.with(|l| *l.borrow_mut() = Some(live));
    Ok(())
}

/// Posts a job to the running worker (its bytes copied and transferred); its allowance starts if
/// it is the oldest.
fn post(live: &mut Live, job: Posted) {
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

/// Starts the oldest job's allowance.
fn arm(live: &mut Live) {
    if let (Some(window), Some(oldest)) = (web_sys::window(), live.posted.front()) {
        live.timer = TIMEOUT.with(|t| window.set_timeout_with_callback_and_timeout_and_arguments_0(t.as_ref().unchecked_ref(), oldest.ms as i32).ok());
    }
}

fn disarm(live: &mut Live) {
    if let (Some(w), Some(t)) = (web_sys::window(), live.timer.take()) {
        w.clear_timeout_with_handle(t);
    }
}

/// The worker's answer to the oldest job.
fn answered(data: JsValue) {
    if LIVE.with(|l| l.borrow().as_ref().and_then(|l| l.posted.front()).is_some_and(|p| p.metadata)) {
        super::marks::mark("icescope:phase:metadata-received");
    }
    let reply = from_wire::<Reply>(&Uint8Array::new(&data).to_vec());
    let done = LIVE.with(|l| {
        let mut l = l.borrow_mut();
        let live = l.as_mut()?;
        match reply {
            Ok(Reply::Done { id, result }) if live.posted.front().is_some_and(|p| p.id == id) => {
                disarm(live);
                let oldest = live.posted.pop_front()?;
                arm(live);
                Some(Ok((oldest, result)))
            }
            Ok(Reply::Done { .. }) => Some(Err("it answered another job".to_string())),
            Ok(Reply::Panicked { message }) => Some(Err(format!("it panicked: {message}"))),
            Err(e) => Some(Err(e)),
        }
    });
    match done {
        Some(Ok((oldest, result))) => {
            // What receiving a table's metadata costs the page (the benchmark reads these marks).
            if oldest.metadata {
                super::marks::mark("icescope:phase:metadata-decoded");
            }
            let _ = oldest.answer.send(result);
        }
        Some(Err(why)) => stopped_on_oldest(move |_| why.clone()),
        None => {}
    }
}

/// The worker stopped (or must be stopped) while on the oldest job: that file's read becomes an
/// error naming it, the worker ends, and the jobs posted after it go to a fresh one.
fn stopped_on_oldest(why: impl Fn(&Posted) -> String) {
    let Some(mut live) = LIVE.with(|l| l.borrow_mut().take()) else { return };
    disarm(&mut live);
    live.worker.set_onmessage(None);
    live.worker.set_onerror(None);
    live.worker.terminate();
    let mut rest = std::mem::take(&mut live.posted);
    if let Some(oldest) = rest.pop_front() {
        let message = format!("the decoder stopped on this file: {}; a fresh decoder takes the next file", why(&oldest));
        let _ = oldest.answer.send(Err(DecodeError::new(&oldest.path, "", message)));
    }
    if rest.is_empty() {
        return;
    }
    leptos::task::spawn_local(async move {
        match running().await {
            Ok(()) => LIVE.with(|l| {
                if let Some(live) = l.borrow_mut().as_mut() {
                    rest.into_iter().for_each(|job| post(live, job));
                }
            }),
            Err(e) => {
                for job in rest {
                    let _ = job.answer.send(Err(DecodeError::new(&job.path, "", format!("the decoder worker did not start: {e}"))));
                }
            }
        }
    });
}

/// Starts the worker before the first job (its wasm fetched and compiled off the page meanwhile),
/// so that opening a table does not wait for it.
pub fn warm_up() {
    leptos::task::spawn_local(async {
        if let Err(e) = running().await {
            web_sys::console::warn_1(&format!("icescope: the decoder worker did not start: {e}").into());
        }
    });
}

impl Decoder for WorkerDecoder {
    async fn decode(&self, job: Job) -> Result<Decoded, DecodeError> {
        let path = job.path().to_string();
        let ms = allowance_ms(job.byte_len());
        let metadata = matches!(job, Job::TableMetadata { .. });
        let err = |m: String| DecodeError::new(&path, "", m);
        let id = NEXT_ID.with(|n| n.replace(n.get() + 1));
        let wire = to_wire(&Request { id, checked: checked(), job }).map_err(err)?;
        running().await.map_err(|e| err(format!("the decoder worker did not start: {e}")))?;
        let (answer, answered) = oneshot::channel();
        if metadata {
            super::marks::mark("icescope:phase:metadata-posted");
        }
        let job = Posted { id, wire, path: path.clone(), ms, metadata, answer };
        let refused = LIVE.with(|l| match l.borrow_mut().as_mut() {
            Some(live) => {
                post(live, job);
                None
            }
            None => Some(job),
        });
        if refused.is_some() {
            return Err(err("the decoder worker stopped before the job was posted".into()));
        }
        answered.await.unwrap_or_else(|_| Err(err("the decoder worker ended without answering".into())))
    }
}
