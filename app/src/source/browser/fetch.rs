//! The browser's transport for source-layer requests, with the one error a browser hides: CORS.

use std::cell::Cell;

use js_sys::Uint8Array;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use crate::source::http::{origin, too_large, HttpError, HttpErrorKind, Request, Response, MAX_BODY};

/// A server that sends nothing for this long is given up on: a load must end in an answer or an
/// error, not wait for ever on a connection that stalls.
const IDLE_MS: i32 = 60_000;

/// Aborts the request when `IDLE_MS` pass without progress; `arm` again after each chunk.
struct Watchdog {
    window: web_sys::Window,
    controller: web_sys::AbortController,
    timer: Cell<Option<i32>>,
    fire: Closure<dyn FnMut()>,
}

impl Watchdog {
    fn new(window: &web_sys::Window) -> Option<Watchdog> {
        let controller = web_sys::AbortController::new().ok()?;
        let c = controller.clone();
        let fire = Closure::<dyn FnMut()>::new(move || c.abort());
        let dog = Watchdog { window: window.clone(), controller, timer: Cell::new(None), fire };
        dog.arm();
        Some(dog)
    }

    fn arm(&self) {
        self.disarm();
        let id = self.window.set_timeout_with_callback_and_timeout_and_arguments_0(self.fire.as_ref().unchecked_ref(), IDLE_MS).ok();
        self.timer.set(id);
    }

    fn disarm(&self) {
        if let Some(id) = self.timer.take() {
            self.window.clear_timeout_with_handle(id);
        }
    }

    fn fired(&self) -> bool {
        self.controller.signal().aborted()
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.disarm();
    }
}

fn stalled(req: &Request) -> HttpError {
    HttpError {
        url: req.url.clone(),
        kind: HttpErrorKind::Other,
        message: format!("nothing arrived for {} s; gave up (the server stalled or the network is down)", IDLE_MS / 1000),
    }
}

/// The message of a JS exception, without the stack the browser attaches.
pub fn js_message(e: &wasm_bindgen::JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|err| String::from(err.message())).or_else(|| e.as_string()).unwrap_or_else(|| "the browser refused the request".into())
}

pub async fn send(req: &Request) -> Result<Response, HttpError> {
    let err = |kind: HttpErrorKind, message: String| HttpError { url: req.url.clone(), kind, message };
    let init = web_sys::RequestInit::new();
    init.set_method(req.method);
    let headers = web_sys::Headers::new().map_err(|e| err(HttpErrorKind::Other, js_message(&e)))?;
    for (k, v) in &req.headers {
        headers.append(k, v).map_err(|e| err(HttpErrorKind::Other, format!("header {k}: {}", js_message(&e))))?;
    }
    init.set_headers(&headers);
    // The browser would follow a redirect to any host; it is refused instead, as in the CLI.
    init.set_redirect(web_sys::RequestRedirect::Manual);
    if let Some(body) = &req.body {
        init.set_body(&Uint8Array::from(body.as_slice()).into());
    }
    let window = web_sys::window().ok_or_else(|| err(HttpErrorKind::Other, "no window".into()))?;
    let dog = Watchdog::new(&window);
    if let Some(d) = &dog {
        init.set_signal(Some(&d.controller.signal()));
    }
    let fired = || dog.as_ref().is_some_and(Watchdog::fired);
    let request = web_sys::Request::new_with_str_and_init(&req.url, &init).map_err(|e| err(HttpErrorKind::Other, js_message(&e)))?;
    let response = match JsFuture::from(window.fetch_with_request(&request)).await {
        Ok(r) => r.unchecked_into::<web_sys::Response>(),
        Err(_) if fired() => return Err(stalled(req)),
        // The browser says only "Failed to fetch": for another origin that is CORS or a dead host.
        Err(_) => return Err(blocked(req, &window)),
    };
    if response.type_() == web_sys::ResponseType::Opaqueredirect {
        return Err(HttpError::redirect(&req.url, None, None));
    }
    let content_range = response.headers().get("content-range").ok().flatten();
    let declared = response.headers().get("content-length").ok().flatten().and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY) {
        if let Some(d) = &dog {
            d.controller.abort();
        }
        return Err(too_large(&req.url, declared));
    }
    let body = match response.body() {
        Some(stream) => read_bounded(req, stream, dog.as_ref()).await?,
        None => Vec::new(),
    };
    let etag = response.headers().get("etag").ok().flatten();
    Ok(Response { status: response.status(), body, content_range, etag })
}

/// The body chunk by chunk, so that one past `MAX_BODY` is refused before it is all in memory and
/// a stall between chunks ends in an error.
async fn read_bounded(req: &Request, stream: web_sys::ReadableStream, dog: Option<&Watchdog>) -> Result<Vec<u8>, HttpError> {
    let failed = |e: JsValue| {
        if dog.is_some_and(Watchdog::fired) {
            stalled(req)
        } else {
            HttpError { url: req.url.clone(), kind: HttpErrorKind::Other, message: format!("body: {}", js_message(&e)) }
        }
    };
    let reader = stream.get_reader().unchecked_into::<web_sys::ReadableStreamDefaultReader>();
    let mut body = Vec::new();
    loop {
        let chunk = JsFuture::from(reader.read()).await.map_err(failed)?;
        if js_sys::Reflect::get(&chunk, &"done".into()).map_err(failed)?.is_truthy() {
            return Ok(body);
        }
        let value = js_sys::Reflect::get(&chunk, &"value".into()).map_err(failed)?.unchecked_into::<Uint8Array>();
        if body.len() as u64 + u64::from(value.length()) > MAX_BODY {
            let _ = reader.cancel();
            return Err(too_large(&req.url, None));
        }
        let at = body.len();
        body.resize(at + value.length() as usize, 0);
        value.copy_to(&mut body[at..]);
        if let Some(d) = dog {
            d.arm();
        }
    }
}

fn blocked(req: &Request, window: &web_sys::Window) -> HttpError {
    let page = window.location().origin().unwrap_or_default();
    let target = origin(&req.url).to_string();
    let same = target.is_empty() || target == page || !req.url.contains("://");
    let message = if same {
        "the request failed (the server is down or the connection was refused)".to_string()
    } else {
        format!(
            "Failed to fetch: either nothing answers at {target}, or it does not allow this page's origin {page} (CORS). \
             The server must answer preflight requests from {page} for methods GET, POST and headers Authorization, \
             Content-Type, Range, X-Iceberg-Access-Delegation, x-amz-date, x-amz-content-sha256, x-amz-security-token, \
             and expose Content-Range (footers and key columns are read by range). \
             S3: a bucket CORS rule (aws s3api put-bucket-cors); MinIO/SeaweedFS: their CORS settings; a REST catalog \
             (Polaris, Nessie, Lakekeeper, Gravitino): its HTTP server's CORS option, or a reverse proxy on this origin \
             (trunk serve proxies /catalog to 127.0.0.1:8181 in development)."
        )
    };
    HttpError { url: req.url.clone(), kind: if same { HttpErrorKind::Unreachable } else { HttpErrorKind::Cors }, message }
}

/// The browser's transport for the shared remote code (catalog calls, object reads).
#[derive(Clone, Copy, Default)]
pub struct Browser;

impl crate::source::remote::Transport for Browser {
    async fn send(&self, req: &Request) -> Result<Response, HttpError> {
        send(req).await
    }

    fn now_ms(&self) -> u64 {
        js_sys::Date::now() as u64
    }
}
