//! The CLI's transport: blocking HTTP(S) with ureq. The browser's is `view::app::fetch`.

use std::io::Read;
use std::time::Duration;

use super::http::{HttpError, HttpErrorKind, Request, Response};

/// Responses above this are refused: metadata files are megabytes, not gigabytes.
const MAX_BODY: u64 = 512 << 20;

pub fn send(req: &Request) -> Result<Response, HttpError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(120)))
        .build()
        .into();
    let err = |kind: HttpErrorKind, e: &dyn std::fmt::Display| HttpError { url: req.url.clone(), kind, message: e.to_string() };
    let mut builder = ureq::http::Request::builder().method(req.method).uri(&req.url);
    for (k, v) in &req.headers {
        builder = builder.header(k, v);
    }
    let request = builder.body(req.body.clone().unwrap_or_default()).map_err(|e| err(HttpErrorKind::Other, &e))?;
    let response = agent.run(request).map_err(|e| {
        let kind = match &e {
            ureq::Error::Io(_) | ureq::Error::HostNotFound | ureq::Error::ConnectionFailed => HttpErrorKind::Unreachable,
            _ => HttpErrorKind::Other,
        };
        err(kind, &e)
    })?;
    let status = response.status().as_u16();
    let mut body = Vec::new();
    response
        .into_body()
        .into_reader()
        .take(MAX_BODY)
        .read_to_end(&mut body)
        .map_err(|e| err(HttpErrorKind::Other, &e))?;
    Ok(Response { status, body })
}
