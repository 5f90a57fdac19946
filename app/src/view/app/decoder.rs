//! The page's side of the decoder worker (`bin/icescope-decoder`): a `load::decoder::Decoder` that
//! posts each job's bytes to the worker (the buffer transferred, not copied) and awaits its answer.
//! One job at a time: the jobs queued behind one wait their turn here, so when the worker stops
//! (a panic, or no answer in time) only the job it was on is lost. That file's read becomes an
//! error naming it; the worker is terminated and a fresh one started for the next job.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

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
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
    static TURN: Rc<futures::lock::Mutex<()>> = Rc::new(futures::lock::Mutex::new(()));
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

/// The running worker, or a new one once it said it is ready.
async fn worker() -> Result<Worker, String> {
    if let Some(w) = WORKER.with(|w| w.borrow().clone()) {
        return Ok(w);
    }
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let w = Worker::new_with_options(LOADER, &options).map_err(|e| format!("{e:?}"))?;
    match exchange(&w, None, START_MS).await {
        Ok(v) if v.as_string().as_deref() == Some("ready") => {
            WORKER.with(|slot| *slot.borrow_mut() = Some(w.clone()));
            Ok(w)
        }
        Ok(_) => {
            w.terminate();
            Err("it sent something before saying it was ready".into())
        }
        Err(e) => {
            w.terminate();
            Err(e)
        }
    }
}

/// Starts the worker before the first job (its wasm fetched and compiled off the page meanwhile),
/// so that opening a table does not wait for it.
pub fn warm_up() {
    leptos::task::spawn_local(async {
        let turn = TURN.with(Rc::clone);
        let _turn = turn.lock().await;
        if let Err(e) = worker().await {
            web_sys::console::warn_1(&format!("icescope: the decoder worker did not start: {e}").into());
        }
    });
}

/// Ends the worker: the next job starts a fresh one.
fn stop() {
    if let Some(w) = WORKER.with(|w| w.borrow_mut().take()) {
        w.terminate();
    }
}

impl Decoder for WorkerDecoder {
    async fn decode(&self, job: Job) -> Result<Decoded, DecodeError> {
        let turn = TURN.with(Rc::clone);
        let _turn = turn.lock().await;
        let path = job.path().to_string();
        let ms = allowance_ms(job.byte_len());
        let metadata = matches!(job, Job::TableMetadata { .. });
        let err = |m: String| DecodeError::new(&path, "", m);
        let worker = worker().await.map_err(|e| err(format!("the decoder worker did not start: {e}")))?;
        let id = NEXT_ID.with(|n| n.replace(n.get() + 1));
        let message = Uint8Array::from(&to_wire(&Request { id, checked: checked(), job }).map_err(err)?[..]);
        let stopped = |why: String| {
            stop();
            err(format!("the decoder stopped on this file: {why}; a fresh decoder takes the next file"))
        };
        let data = exchange(&worker, Some(&message), ms).await.map_err(stopped)?;
        // What receiving a table's metadata costs the page (the benchmark reads these marks).
        if metadata {
            super::marks::mark("icescope:phase:metadata-received");
        }
        let reply = from_wire::<Reply>(&Uint8Array::new(&data).to_vec());
        if metadata {
            super::marks::mark("icescope:phase:metadata-decoded");
        }
        match reply {
            Ok(Reply::Done { id: got, result }) if got == id => result,
            Ok(Reply::Panicked { message }) => Err(stopped(format!("it panicked: {message}"))),
            Ok(Reply::Done { .. }) => Err(stopped("it answered another job".into())),
            Err(e) => Err(stopped(e)),
        }
    }
}
