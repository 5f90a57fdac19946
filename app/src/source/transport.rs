//! The CLI's transport: HTTP(S) with ureq, each request on one of `IN_FLIGHT` threads, so that the
//! loader's reads (`load::Pump` keeps 64 asked for) are truly in flight at once. The browser's is
//! `source::browser::fetch`.

use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::Duration;

use super::http::{too_large, HttpError, HttpErrorKind, Request, Response, MAX_BODY};

/// Requests in flight at once, each on its own connection (kept for reuse: `max_idle_connections_per_host`).
/// Over a 40 ms round trip one at a time reads 22 small files a second. A day of fast appends names
/// 17,280 manifests in its current snapshot: over 40 ms round trips the whole load took 49.6 s
/// with 16 in flight and 14.1 s with 64 (docs/benchmark.md). 64 stays far below what a store allows one client (S3: 5,500
/// GETs a second per prefix) and below the connection limits of common proxies; past it the one
/// decoding thread, not the round trips, is the bound on this machine.
pub const IN_FLIGHT: usize = 64;

/// Each request thread's stack: ureq and rustls need far less than the default 2 MiB, and 64 of
/// them at the default would reserve 128 MiB of address space for nothing.
const STACK_BYTES: usize = 512 * 1024;

type Job = Box<dyn FnOnce() + Send>;

/// A clone shares the connection pool and the threads (`icescope serve`'s request threads use one).
#[derive(Clone)]
pub struct Ureq {
    agent: ureq::Agent,
    in_flight: usize,
    workers: Arc<OnceLock<mpsc::Sender<Job>>>,
}

impl Default for Ureq {
    fn default() -> Self {
        Ureq::with_in_flight(IN_FLIGHT)
    }
}

impl Ureq {
    /// Up to `in_flight` requests at once, each on its own connection, kept for reuse.
    pub fn with_in_flight(in_flight: usize) -> Self {
        let in_flight = in_flight.max(1);
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(REQUEST_TIMEOUT))
            .max_idle_connections_per_host(in_flight)
            .max_idle_connections(4 * in_flight)
            .build()
            .into();
        Ureq { agent, in_flight, workers: Arc::new(OnceLock::new()) }
    }

    /// The threads, started at the first request; they end when the last clone is dropped.
    fn workers(&self) -> &mpsc::Sender<Job> {
        self.workers.get_or_init(|| {
            let (tx, rx) = mpsc::channel::<Job>();
            let rx = Arc::new(Mutex::new(rx));
            for _ in 0..self.in_flight {
                let rx = rx.clone();
                let spawned = std::thread::Builder::new().stack_size(STACK_BYTES).spawn(move || loop {
                    let job = match rx.lock() {
                        Ok(r) => r.recv(),
                        Err(_) => return,
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => return,
                    }
                });
                // Fewer threads only mean fewer requests in flight; none at all is caught below,
                // where a job sent to no thread is answered as lost.
                if spawned.is_err() {
                    break;
                }
            }
            tx
        })
    }
}

impl super::remote::Transport for Ureq {
    fn in_flight(&self) -> super::InFlight {
        super::InFlight::NATIVE
    }

    async fn send(&self, req: &Request) -> Result<Response, HttpError> {
        let (tx, rx) = futures::channel::oneshot::channel();
        let (agent, owned) = (self.agent.clone(), req.clone());
        let job: Job = Box::new(move || {
            let _ = tx.send(send_with(&agent, &owned));
        });
        let lost = || HttpError { url: req.url.clone(), kind: HttpErrorKind::Other, message: "the request's thread ended without an answer".into() };
        self.workers().send(job).map_err(|_| lost())?;
        rx.await.map_err(|_| lost())?
    }

    fn now_ms(&self) -> u64 {
        super::s3::now_ms()
    }
}

/// The time the user gave the whole command (`watch --for`, `--once`): no request outlives it,
/// whatever the server does, and the one that would is refused by name.
static DEADLINE: Mutex<Option<(std::time::Instant, String)>> = Mutex::new(None);

/// Every request of this process from now on ends by `at`; `what` says whose deadline it is
/// (`--for 10s`), for the error a request past it gets.
pub fn set_deadline(at: std::time::Instant, what: &str) {
    if let Ok(mut d) = DEADLINE.lock() {
        *d = Some((at, what.to_string()));
    }
}

/// The time a request may take now: the transport's own bound, or what is left of the deadline.
fn time_left(url: &str) -> Result<Duration, HttpError> {
    let Some((at, what)) = DEADLINE.lock().ok().and_then(|d| d.clone()) else { return Ok(REQUEST_TIMEOUT) };
    match at.checked_duration_since(std::time::Instant::now()).filter(|d| !d.is_zero()) {
        Some(left) => Ok(left.min(REQUEST_TIMEOUT)),
        None => Err(HttpError { url: url.to_string(), kind: HttpErrorKind::Other, message: format!("not asked: the time {what} gave ran out") }),
    }
}

/// One request's bound when the user gave none.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// Requests this process sent (catalog, signer, storage): the CLI reports them with the load.
pub static REQUESTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fn send_with(agent: &ureq::Agent, req: &Request) -> Result<Response, HttpError> {
    REQUESTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let err = |kind: HttpErrorKind, e: &dyn std::fmt::Display| HttpError { url: req.url.clone(), kind, message: e.to_string() };
    let mut builder = ureq::http::Request::builder().method(req.method).uri(&req.url);
    for (k, v) in &req.headers {
        builder = builder.header(k, v);
    }
    let request = builder.body(req.body.clone().unwrap_or_default()).map_err(|e| err(HttpErrorKind::Other, &e))?;
    let left = time_left(&req.url)?;
    let request = agent.configure_request(request).timeout_global(Some(left)).build();
    let response = agent.run(request).map_err(|e| {
        let kind = match &e {
            ureq::Error::Timeout(_) if left < REQUEST_TIMEOUT => return deadline_passed(&req.url),
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
    let etag = response.headers().get("etag").and_then(|v| v.to_str().ok()).map(str::to_string);
    let declared = response.headers().get("content-length").and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY) {
        return Err(too_large(&req.url, declared));
    }
    let mut body = Vec::new();
    let mut reader = response.into_body().into_reader();
    let mut held = Held(0);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = reader.read(&mut chunk).map_err(|e| match e.kind() {
            std::io::ErrorKind::TimedOut if left < REQUEST_TIMEOUT => deadline_passed(&req.url),
            _ => err(HttpErrorKind::Other, &e),
        })?;
        if n == 0 {
            break;
        }
        // One byte past the bound tells a body at the bound from one that goes on.
        if body.len() as u64 + n as u64 > MAX_BODY {
            return Err(too_large(&req.url, None));
        }
        if !held.add(n as u64) {
            let message = format!("the bodies being received at once passed {} MiB; icescope reads at most that much at a time", IN_FLIGHT_BYTES >> 20);
            return Err(HttpError { url: req.url.clone(), kind: HttpErrorKind::Other, message });
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Ok(Response { status, body, content_range, etag })
}

/// A request cut at the user's deadline, named as such (not as the server's timeout).
fn deadline_passed(url: &str) -> HttpError {
    let what = DEADLINE.lock().ok().and_then(|d| d.as_ref().map(|(_, w)| w.clone())).unwrap_or_default();
    HttpError { url: url.to_string(), kind: HttpErrorKind::Other, message: format!("no whole answer within the time {what} gave") }
}

/// Bytes of all bodies being received at once: with `IN_FLIGHT` requests, each bounded by
/// `MAX_BODY`, hostile servers answering together could otherwise fill 16 × 512 MiB before any
/// one passed its bound. Table files are kilobytes to megabytes; one read at the bound still fits.
const IN_FLIGHT_BYTES: u64 = 2 * MAX_BODY;

static RECEIVING: AtomicU64 = AtomicU64::new(0);

/// This body's share of `RECEIVING`, given back when it is handed over or dropped.
struct Held(u64);

impl Held {
    fn add(&mut self, n: u64) -> bool {
        let before = RECEIVING.fetch_add(n, Ordering::SeqCst);
        self.0 += n;
        before + n <= IN_FLIGHT_BYTES
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        RECEIVING.fetch_sub(self.0, Ordering::SeqCst);
    }
}
