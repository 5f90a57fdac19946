//! A table opened through a REST catalog, over real loopback sockets: what the catalog vends
//! (storage credentials, a remote signer) decides which host each read goes to and with which keys.
//! The table is the lab's `append-stream`, written by Flink through SeaweedFS's Iceberg REST catalog
//! to `s3://warehouse/icescope/append_stream/`; its files are served by key, path style, as an S3
//! endpoint serves them. The catalog here answers as the REST spec (`open-api/rest-catalog-open-api.yaml`)
//! says a catalog answers: `/v1/config`, LoadTable with `config` and `storage-credentials`, and the
//! signer's `{"uri", "headers"}` (Iceberg's `RemoteSignResponse`).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use icescope::load::{load_with_stats, LoadError, Loader};
use icescope::model::ReadMode;
use icescope::source::local::LocalFolder;
use icescope::source::remote::{self, RemoteFiles};
use icescope::source::rest_catalog::{CatalogAuth, CatalogOptions};
use icescope::source::transport::Ureq;
use icescope::source::{newest_metadata, FileSet};

const TABLE_ROOT: &str = "s3://warehouse/icescope/append_stream/";

/// One request as a server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Seen {
    /// The access key id a SigV4 `Authorization` names (`Credential=AK/date/…`).
    fn access_key(&self) -> Option<String> {
        let auth = self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("authorization"))?;
        Some(auth.1.split("Credential=").nth(1)?.split('/').next()?.to_string())
    }
}

type Handler = Arc<dyn Fn(&Seen) -> (u16, Vec<u8>) + Send + Sync>;

struct Server {
    origin: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(handler: Handler) -> Server {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let mut headers = Vec::new();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap() == 0 || h == "\r\n" {
                    break;
                }
                if let Some((k, v)) = h.trim_end().split_once(':') {
                    headers.push((k.trim().to_string(), v.trim().to_string()));
                }
            }
            let len = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length")).and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
            let mut body = vec![0; len];
            reader.read_exact(&mut body).unwrap();
            let mut parts = line.split(' ');
            let method = parts.next().unwrap_or("").to_string();
            let path = parts.next().unwrap_or("/").to_string();
            let req = Seen { method, path, headers, body };
            let (status, body) = handler(&req);
            log.lock().unwrap().push(req);
            let _ = write!(stream, "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            let _ = stream.write_all(&body);
        }
    });
    Server { origin, seen }
}

/// A full read opens the newest metadata.json and every manifest list and manifest: all of the
/// fixture's Avro files (its older metadata.json files and data files are not read).
fn full_read_files() -> usize {
    let (files, _) = table_files();
    1 + files.keys().filter(|k| k.ends_with(".avro")).count()
}

/// The fixture's files by their S3 key, and the newest metadata file's key.
fn table_files() -> (Arc<HashMap<String, Vec<u8>>>, String) {
    let f = LocalFolder::open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/append-stream")).unwrap();
    let key = |p: &str| format!("icescope/append_stream/{p}");
    let files = f.index().paths().map(|p| (key(p), f.read_path(p).unwrap())).collect();
    (Arc::new(files), key(&newest_metadata(&f).unwrap()))
}

/// An S3 endpoint, path style: `GET /warehouse/<key>`. Any signature is accepted; the test reads
/// which keys signed what from the log.
fn object_store(files: Arc<HashMap<String, Vec<u8>>>) -> Server {
    serve(Arc::new(move |r: &Seen| match r.path.strip_prefix("/warehouse/").and_then(|k| files.get(k)) {
        Some(b) if r.method == "GET" => (200, b.clone()),
        _ => (404, b"<Error><Code>NoSuchKey</Code></Error>".to_vec()),
    }))
}

/// A REST catalog: `/v1/config`, LoadTable answering `load_table`, and a signer answering each
/// request to sign with `sign` (given the `uri` it was asked to sign).
fn catalog(load_table: serde_json::Value, sign: impl Fn(&str) -> String + Send + Sync + 'static) -> Server {
    let body = serde_json::to_vec(&load_table).unwrap();
    serve(Arc::new(move |r: &Seen| match (r.method.as_str(), r.path.as_str()) {
        ("GET", "/v1/config") => (200, br#"{"defaults":{},"overrides":{}}"#.to_vec()),
        ("GET", "/v1/namespaces/icescope/tables/append_stream") => (200, body.clone()),
        ("POST", "/v1/aws/s3/sign") => {
            let asked: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
            let uri = sign(asked["uri"].as_str().unwrap());
            let answer = serde_json::json!({"uri": uri, "headers": {"Authorization": ["AWS4-HMAC-SHA256 Credential=SIGNER/20261204/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=00"]}});
            (200, serde_json::to_vec(&answer).unwrap())
        }
        _ => (404, b"{}".to_vec()),
    }))
}

/// What the CLI does for `icescope inspect <catalog> icescope.append_stream`.
fn open(catalog: &Server, metadata_key: &str) -> Result<Loader, LoadError> {
    let t = Ureq::default();
    let opts = CatalogOptions { uri: catalog.origin.clone(), warehouse: None, auth: CatalogAuth::None };
    let session = futures::executor::block_on(remote::connect(&t, &opts)).unwrap();
    let ns = vec!["icescope".to_string()];
    let loaded = futures::executor::block_on(remote::load_table(&t, &session, &ns, "append_stream")).unwrap();
    let files = RemoteFiles::from_catalog(t, Default::default(), session, ns, "append_stream".into(), &loaded);
    load_with_stats(&files, &format!("s3://warehouse/{metadata_key}"), ReadMode::All, true)
}

fn load_table(metadata_key: &str, config: serde_json::Value, credentials: serde_json::Value) -> serde_json::Value {
    serde_json::json!({"metadata-location": format!("s3://warehouse/{metadata_key}"), "metadata": {}, "config": config, "storage-credentials": credentials})
}

#[test]
fn a_remote_signers_answer_is_read_only_from_a_host_the_user_named_or_the_catalog_vended() {
    let (files, metadata) = table_files();
    let store = object_store(files.clone());
    let stranger = object_store(files);
    let config = serde_json::json!({"s3.endpoint": store.origin, "s3.path-style-access": "true", "s3.remote-signing-enabled": "true"});

    // A signer that answers with the address it was asked to sign: the table is read in full.
    let honest = catalog(load_table(&metadata, config.clone(), serde_json::json!([])), |uri| uri.to_string());
    let loader = open(&honest, &metadata).unwrap();
    let reads = loader.stats.files;
    assert_eq!(reads, full_read_files());
    let signed = honest.seen().iter().filter(|r| r.path == "/v1/aws/s3/sign").count();
    assert_eq!(signed, reads, "one signature per file read");
    assert_eq!(store.seen().len(), reads);
    assert!(store.seen().iter().all(|r| r.access_key().as_deref() == Some("SIGNER")), "the signer's headers are sent");

    // A signer that sends each read to another host: nothing goes there, and the error names it.
    let to = stranger.origin.clone();
    let from = store.origin.clone();
    let redirecting = catalog(load_table(&metadata, config, serde_json::json!([])), move |uri| uri.replacen(&from, &to, 1));
    let before = store.seen().len();
    let err = open(&redirecting, &metadata).err().expect("a read from a host nobody named").to_string();
    assert_eq!(stranger.seen().len(), 0, "no request reached the host the signer named");
    assert_eq!(store.seen().len(), before, "nor was the unsigned request sent instead");
    assert_eq!(redirecting.seen().iter().filter(|r| r.path == "/v1/aws/s3/sign").count(), 1, "the first read stops the load");
    let expected = format!(
        "the remote signer answered with another address: {}/warehouse/{metadata}: not read — {} is not a host you named",
        stranger.origin, stranger.origin
    );
    assert!(err.contains(&expected), "{err}");
}

/// Reads per access key, in the order first seen.
fn signed_by(store: &Server) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for key in store.seen().iter().map(|r| r.access_key().unwrap_or_else(|| "anonymous".into())) {
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => out.push((key, 1)),
        }
    }
    out
}

#[test]
fn vended_credentials_apply_to_their_bucket_and_whole_path_segments_only() {
    let (files, metadata) = table_files();
    let config = |store: &Server| serde_json::json!({"s3.endpoint": store.origin, "s3.path-style-access": "true", "s3.access-key-id": "TABLE", "s3.secret-access-key": "t"});
    let credential = |prefix: &str, key: &str| serde_json::json!({"prefix": prefix, "config": {"s3.access-key-id": key, "s3.secret-access-key": "s"}});
    // Keys for bucket `ware`, and for a sibling folder `append` of the table's `append_stream`:
    // neither covers the table, whose reads are signed with the table config's keys.
    let store = object_store(files.clone());
    let strangers = serde_json::json!([credential("s3://ware", "WARE"), credential("s3://warehouse/icescope/append", "APPEND")]);
    let c = catalog(load_table(&metadata, config(&store), strangers.clone()), |u| u.to_string());
    assert_eq!(open(&c, &metadata).unwrap().stats.files, full_read_files());
    assert_eq!(signed_by(&store), [("TABLE".to_string(), full_read_files())]);

    // A credential for the table's own folder (the longest that covers it) is the one used.
    let store = object_store(files);
    let mut vended = strangers.as_array().unwrap().clone();
    vended.push(credential(TABLE_ROOT.trim_end_matches('/'), "OWN"));
    vended.push(credential("s3://warehouse/", "BUCKET"));
    let c = catalog(load_table(&metadata, config(&store), vended.into()), |u| u.to_string());
    assert_eq!(open(&c, &metadata).unwrap().stats.files, full_read_files());
    assert_eq!(signed_by(&store), [("OWN".to_string(), full_read_files())]);
}
