//! The CLI's transport: blocking HTTP(S) with ureq. The browser's is `view::app::fetch`.

use std::io::Read;
use std::time::Duration;

use super::http::{too_large, HttpError, HttpErrorKind, Request, Response, MAX_BODY};

/// Blocking requests: the CLI reads one file at a time, so the async wrapper never waits on another.
/// A clone shares the agent's connection pool (`icescope serve`'s threads use one).
#[derive(Clone)]
pub struct Ureq {
    agent: ureq::Agent,
}

impl Default for Ureq {
    fn default() -> Self {
        let agent = ureq::Agent::config_builder().http_status_as_error(false).max_redirects(0).timeout_global(Some(Duration::from_secs(120))).build().into();
        Ureq { agent }
    }
}

impl super::remote::Transport for Ureq {
    async fn send(&self, req: &Request) -> Result<Response, HttpError> {
        send_with(&self.agent, req)
    }

    fn now_ms(&self) -> u64 {
        super::s3::now_ms()
    }
}

fn send_with(agent: &ureq::Agent, req: &Request) -> Result<Response, HttpError> {
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
    // A 3xx without a Location (S3's PermanentRedirect for a bucket in another region) is no
    // redirect to follow: its body says what is wrong, and is read as any other error's.
    if let Some(location) = response.headers().get("location").filter(|_| super::http::is_redirect(status)) {
        return Err(HttpError::redirect(&req.url, Some(status), location.to_str().ok()));
    }
    let content_range = response.headers().get("content-range").and_then(|v| v.to_str().ok()).map(str::to_string);
    let declared = response.headers().get("content-length").and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY) {
        return Err(too_large(&req.url, declared));
    }
    let mut body = Vec::new();
    // One byte past the bound tells a body at the bound from one that goes on.
    response.into_body().into_reader().take(MAX_BODY + 1).read_to_end(&mut body).map_err(|e| err(HttpErrorKind::Other, &e))?;
    if body.len() as u64 > MAX_BODY {
        return Err(too_large(&req.url, None));
    }
    Ok(Response { status, body, content_range })
}
