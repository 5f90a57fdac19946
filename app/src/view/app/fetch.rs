//! The browser's transport for source-layer requests, with the one error a browser hides: CORS.

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::source::http::{origin, HttpError, HttpErrorKind, Request, Response};

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
    let request = web_sys::Request::new_with_str_and_init(&req.url, &init).map_err(|e| err(HttpErrorKind::Other, js_message(&e)))?;
    let window = web_sys::window().ok_or_else(|| err(HttpErrorKind::Other, "no window".into()))?;
    let response = match JsFuture::from(window.fetch_with_request(&request)).await {
        Ok(r) => r.unchecked_into::<web_sys::Response>(),
        // The browser says only "Failed to fetch": for another origin that is CORS or a dead host.
        Err(_) => return Err(blocked(req, &window)),
    };
    if response.type_() == web_sys::ResponseType::Opaqueredirect {
        return Err(HttpError::redirect(&req.url, None, None));
    }
    let content_range = response.headers().get("content-range").ok().flatten();
    let buffer = JsFuture::from(response.array_buffer().map_err(|e| err(HttpErrorKind::Other, js_message(&e)))?)
        .await
        .map_err(|e| err(HttpErrorKind::Other, format!("body: {}", js_message(&e))))?;
    Ok(Response { status: response.status(), body: Uint8Array::new(&buffer).to_vec(), content_range })
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
