//! `icescope serve`: the built app and a same-origin relay to the catalog and stores named on the
//! command line, on 127.0.0.1 only. The page then needs no CORS from them and holds no secret:
//! the relay runs catalog calls and reads with the CLI's code (`relay.rs`), and answers only
//! requests that name this server, come from its own page and carry the run's token (`guard.rs`).

mod budget;
mod dist;
mod guard;
mod relay;

use std::convert::Infallible;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Method, Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};

use super::args::ServeArgs;
use super::failure::Failure;

/// Answers made at once (tokio's blocking pool): the browser keeps six requests per origin in
/// flight, the rest is headroom for a second tab. More wait their turn, none is dropped.
const THREADS: usize = 16;
/// A connection that has not sent a whole request head in this long is closed.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);

pub fn serve(a: &ServeArgs) -> Result<(), Failure> {
    // The catalog first: a URL that must be refused is refused whether or not the app is built.
    let s3 = a.storage.s3();
    let catalog = match &a.catalog.catalog {
        Some(uri) => Some(super::open::options(&a.catalog, &s3, uri)?),
        None => None,
    };
    let dist = dist_folder(a.dist.as_ref())?;
    let token = guard::new_token().map_err(Failure::Unreadable)?;
    let cannot = |e: std::io::Error| Failure::Unreadable(format!("cannot listen on 127.0.0.1:{}: {e}", a.port));
    let listener = std::net::TcpListener::bind(("127.0.0.1", a.port)).map_err(cannot)?;
    listener.set_nonblocking(true).map_err(cannot)?;
    let port = listener.local_addr().map_err(cannot)?.port();
    let state = Arc::new(State { dist, guard: guard::Guard::new(port, token.clone()), relay: relay::Relay::new(catalog, s3) });
    let what = match &a.catalog.catalog {
        Some(uri) => format!("the app, relaying to {uri}"),
        None => "the app (no --catalog: nothing to relay)".to_string(),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(THREADS)
        .build()
        .map_err(|e| Failure::Unreadable(format!("cannot start the server's runtime: {e}")))?;
    let listener = {
        let _entered = runtime.enter();
        tokio::net::TcpListener::from_std(listener).map_err(cannot)?
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "icescope serve: {what}\nopen http://127.0.0.1:{port}/#{}={token}", icescope::source::relay::FRAGMENT_KEY);
    let _ = out.flush();
    runtime.block_on(accept(listener, state));
    Ok(())
}

/// Each connection served on its own task, for as long as the browser keeps it.
async fn accept(listener: tokio::net::TcpListener, state: Arc<State>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            // Out of file descriptors, or a connection reset before it was taken: wait a moment
            // rather than spin, and go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let state = state.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                let state = state.clone();
                async move { Ok::<_, Infallible>(answer(state, request).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEAD_TIMEOUT)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// The request's parts the answer needs, taken off the runtime's thread: reading a file or the
/// relay's reads upstream block, so they run on the blocking pool.
async fn answer(state: Arc<State>, request: Request<hyper::body::Incoming>) -> Response<Full<Bytes>> {
    let headers: Vec<(String, String)> = request.headers().iter().filter_map(|(k, v)| Some((k.as_str().to_string(), v.to_str().ok()?.to_string()))).collect();
    let is_get = request.method() == Method::GET;
    let url = request.uri().path_and_query().map_or_else(|| request.uri().path().to_string(), |pq| pq.as_str().to_string());
    let (served, is_relay) = match tokio::task::spawn_blocking(move || state.answer(is_get, &url, &headers)).await {
        Ok(answered) => answered,
        Err(_) => (dist::Served::text(500, "icescope serve failed to answer this request"), false),
    };
    respond(served, is_relay)
}

fn respond(served: dist::Served, is_relay: bool) -> Response<Full<Bytes>> {
    let mut builder = Response::builder()
        .status(served.status)
        .header("Content-Type", served.content_type)
        .header("Cache-Control", "no-store")
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "no-referrer");
    if let Some(r) = served.content_range {
        builder = builder.header("Content-Range", r);
    }
    if !is_relay {
        builder = builder.header("Accept-Ranges", "bytes");
    }
    let body = if served.held.bytes() > 0 { Bytes::from_owner(budget::Owned { body: served.body, _held: served.held }) } else { Bytes::from(served.body) };
    builder.body(Full::new(body)).unwrap_or_else(|_| {
        let mut fallback = Response::new(Full::new(Bytes::from_static(b"icescope serve could not write this answer")));
        *fallback.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        fallback
    })
}

/// `--dist`, else the checkout's `dist/` (where `trunk build --release` puts it). A folder rather
/// than the app embedded in the binary: the native build then needs no Trunk build before it,
/// and a rebuilt app is served without rebuilding the CLI.
fn dist_folder(given: Option<&PathBuf>) -> Result<PathBuf, Failure> {
    let dir = given.cloned().unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("dist"));
    if !dir.join("index.html").is_file() {
        return Err(Failure::Usage(format!("{}: no built app here (index.html missing): run `trunk build --release`, or give --dist DIR", dir.display())));
    }
    Ok(dir)
}

struct State {
    dist: PathBuf,
    guard: guard::Guard,
    relay: relay::Relay,
}

impl State {
    /// The answer to one request (its headers as text), and whether it was the relay's.
    fn answer(&self, is_get: bool, url: &str, headers: &[(String, String)]) -> (dist::Served, bool) {
        let header = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
        let (path, query) = url.split_once('?').unwrap_or((url, ""));
        let is_relay = path.starts_with("/relay/");
        let served = if let Err(refused) = self.guard.check(is_relay, header) {
            dist::Served::text(403, refused.message())
        } else if !is_get {
            dist::Served::text(405, "only GET")
        } else if is_relay {
            let range = header("Range");
            self.relay.answer(path, query, range.as_deref())
        } else {
            dist::serve(&self.dist, path, header("Range").as_deref())
        };
        (served, is_relay)
    }
}
