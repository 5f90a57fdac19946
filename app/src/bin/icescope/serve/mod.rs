//! `icescope serve`: the built app and a same-origin relay to the catalog and stores named on the
//! command line, on 127.0.0.1 only. The page then needs no CORS from them and holds no secret:
//! the relay runs catalog calls and reads with the CLI's code (`relay.rs`), and answers only
//! requests that name this server, come from its own page and carry the run's token (`guard.rs`).

mod dist;
mod guard;
mod relay;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use super::args::Serve;
use super::failure::Failure;

/// Requests answered at once: the browser keeps six per origin in flight, the rest is headroom
/// for the static files and a second tab.
const THREADS: usize = 12;

pub fn serve(a: &Serve) -> Result<(), Failure> {
    let dist = dist_folder(a.dist.as_ref())?;
    let s3 = a.storage.s3();
    let catalog = match &a.catalog.catalog {
        Some(uri) => Some(super::open::options(&a.catalog, &s3, uri)?),
        None => None,
    };
    let token = guard::new_token().map_err(Failure::Unreadable)?;
    let server = tiny_http::Server::http(("127.0.0.1", a.port)).map_err(|e| Failure::Unreadable(format!("cannot listen on 127.0.0.1:{}: {e}", a.port)))?;
    let port = server.server_addr().to_ip().map(|a| a.port()).ok_or_else(|| Failure::Unreadable("no TCP address to listen on".into()))?;
    let state = Arc::new(State { dist, guard: guard::Guard::new(port, token.clone()), relay: relay::Relay::new(catalog, s3) });
    let what = match &a.catalog.catalog {
        Some(uri) => format!("the app, relaying to {uri}"),
        None => "the app (no --catalog: nothing to relay)".to_string(),
    };
    let mut out = std::io::stdout();
    let _ = writeln!(out, "icescope serve: {what}\nopen http://127.0.0.1:{port}/#{}={token}", icescope::source::relay::FRAGMENT_KEY);
    let _ = out.flush();
    let server = Arc::new(server);
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let (server, state) = (server.clone(), state.clone());
            std::thread::spawn(move || {
                while let Ok(request) = server.recv() {
                    state.answer(request);
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    Ok(())
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
    fn answer(&self, request: tiny_http::Request) {
        let header = |name: &str| request.headers().iter().find(|h| h.field.as_str().as_str().eq_ignore_ascii_case(name)).map(|h| h.value.as_str().to_string());
        let url = request.url().to_string();
        let (path, query) = url.split_once('?').unwrap_or((&url, ""));
        let is_relay = path.starts_with("/relay/");
        let served = if let Err(refused) = self.guard.check(is_relay, header) {
            dist::Served::text(403, refused.message())
        } else if *request.method() != tiny_http::Method::Get {
            dist::Served::text(405, "only GET")
        } else if is_relay {
            let range = header("Range");
            self.relay.answer(path, query, range.as_deref())
        } else {
            dist::serve(&self.dist, path, header("Range").as_deref())
        };
        let mut response = tiny_http::Response::from_data(served.body).with_status_code(served.status);
        let mut headers = vec![
            ("Content-Type", served.content_type.to_string()),
            ("Cache-Control", "no-store".to_string()),
            ("X-Content-Type-Options", "nosniff".to_string()),
            ("Referrer-Policy", "no-referrer".to_string()),
        ];
        if let Some(r) = served.content_range {
            headers.push(("Content-Range", r));
        }
        if !is_relay {
            headers.push(("Accept-Ranges", "bytes".to_string()));
        }
        for (k, v) in headers {
            if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
                response.add_header(h);
            }
        }
        let _ = request.respond(response);
    }
}
