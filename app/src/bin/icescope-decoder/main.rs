//! The browser app's decoder worker (built by Trunk as `data-type="worker"`): the third-party
//! decoders (the `parquet` crate, Puffin, deletion vectors) run here, off the page. Each message is
//! one `decode::job::Request`; each answer one `Reply`. A panic posts `Reply::Panicked` naming the
//! file, then ends this worker (wasm aborts); the page terminates it and starts another
//! (`view::app::decoder`). Natively there is nothing to run.

#[cfg(target_arch = "wasm32")]
mod queue;

#[cfg(target_arch = "wasm32")]
fn main() {
    use icescope::decode::job::{to_wire, Reply};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    std::panic::set_hook(Box::new(move |info| {
        let message = match icescope::decode::decoding_file() {
            Some(file) => format!("{info} (decoding {file})"),
            None => info.to_string(),
        };
        web_sys::console::error_1(&format!("icescope decoder worker: {message}").into());
        if let Ok(bytes) = to_wire(&Reply::Panicked { message }) {
            queue::post(&bytes);
        }
    }));
    let handler = Closure::<dyn Fn(MessageEvent)>::new(move |ev: MessageEvent| queue::received(ev.data()));
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    // Messages sent before the wasm is running would be dropped: the page waits for this one.
    let _ = scope.post_message(&JsValue::from_str("ready"));
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("icescope-decoder is the browser app's decoder worker: Trunk builds it with the app.");
}
