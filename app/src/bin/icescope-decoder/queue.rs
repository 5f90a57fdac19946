//! The worker's jobs in the order the page posted them. A job that reads a file from a folder the
//! page handed over (`Job::Read`) starts its read at once, so that many reads are in flight; jobs
//! are decoded and answered strictly in order, so the job a panic or a hang stops the worker on is
//! always the oldest one the page is waiting for (the page blames that one and no other).

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use icescope::decode::job::{answer, from_wire, read_then, to_wire, Job, Reply, Request};
use icescope::decode::DecodeError;
use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{DedicatedWorkerGlobalScope, FileSystemDirectoryHandle};

/// Folders handed over, the newest kept: the page hands each again to a worker that lacks it.
const FOLDERS_KEPT: usize = 8;

type ReadResult = Result<Vec<u8>, (bool, String)>;

struct Entry {
    request: Result<Request, String>,
    /// A `Read`'s file: None while it is being read.
    read: Option<Rc<RefCell<Option<ReadResult>>>>,
}

thread_local! {
    static QUEUE: RefCell<VecDeque<Entry>> = const { RefCell::new(VecDeque::new()) };
    static FOLDERS: RefCell<Vec<(u32, FileSystemDirectoryHandle)>> = const { RefCell::new(Vec::new()) };
}

pub fn post(bytes: &[u8]) {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let out = Uint8Array::from(bytes);
    let _ = scope.post_message_with_transfer(&out, &Array::of1(&out.buffer()));
}

/// A message from the page: a job's bytes, or `{folder, handle}` handing over a folder.
pub fn received(data: JsValue) {
    if let Some(bytes) = data.dyn_ref::<Uint8Array>() {
        job(bytes.to_vec());
        return;
    }
    let id = Reflect::get(&data, &"folder".into()).ok().and_then(|v| v.as_f64());
    let handle = Reflect::get(&data, &"handle".into()).ok().and_then(|h| h.dyn_into::<FileSystemDirectoryHandle>().ok());
    if let (Some(id), Some(handle)) = (id, handle) {
        FOLDERS.with(|f| {
            let mut f = f.borrow_mut();
            f.retain(|(i, _)| *i != id as u32);
            if f.len() >= FOLDERS_KEPT {
                f.remove(0);
            }
            f.push((id as u32, handle));
        });
    }
}

fn job(wire: Vec<u8>) {
    let request = from_wire::<Request>(&wire);
    let read = match &request {
        Ok(Request { job: Job::Read { folder, name, then }, .. }) => {
            let cell = Rc::new(RefCell::new(None));
            let dir = FOLDERS.with(|f| f.borrow().iter().find(|(i, _)| i == folder).map(|(_, d)| d.clone()));
            let (name, path, into) = (name.clone(), then.path().to_string(), cell.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let got = match dir {
                    Some(dir) => icescope::source::browser::handle::read_handed(&dir, &name, &path).await,
                    None => Err((false, "its folder was not handed to this decoder".to_string())),
                };
                *into.borrow_mut() = Some(got);
                flush();
            });
            Some(cell)
        }
        _ => None,
    };
    QUEUE.with(|q| q.borrow_mut().push_back(Entry { request, read }));
    flush();
}

/// Answers the oldest jobs while they are ready (decoding them here, in order).
fn flush() {
    loop {
        let ready = QUEUE.with(|q| q.borrow().front().map(|e| e.read.as_ref().is_none_or(|c| c.borrow().is_some())));
        if ready != Some(true) {
            return;
        }
        let Some(entry) = QUEUE.with(|q| q.borrow_mut().pop_front()) else { return };
        let reply = match (entry.request, entry.read) {
            (Ok(r), Some(cell)) => {
                let got = cell.borrow_mut().take().unwrap_or_else(|| Err((false, "read twice".to_string())));
                read_then(r, got)
            }
            (Ok(r), None) => answer(r),
            (Err(e), _) => Reply::Done { id: u64::MAX, result: Err(DecodeError::new("", "", e)) },
        };
        post(&to_wire(&reply).unwrap_or_default());
    }
}
