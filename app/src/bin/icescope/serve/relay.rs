//! The relay's operations, run with the CLI's own code: the catalog session (`remote::connect`,
//! its OAuth token kept here), LoadTable, and each file read through `RemoteFiles`, whose
//! `ObjectAccess` decides which host a reference may reach and signs S3 requests. The page gets
//! bytes and non-secret facts; a credential — typed, a token, vended S3 keys — never leaves.

use std::sync::{Arc, Mutex};

use futures::executor::block_on;
use icescope::source::http::{HttpError, HttpErrorKind};
use icescope::source::range::ByteRange;
use icescope::source::relay::{self, Failed, Hello, Listing, Opened};
use icescope::source::remote::{self, RemoteFiles};
use icescope::source::rest_catalog::{CatalogAuth, CatalogOptions, CatalogSession, LoadTableResult};
use icescope::source::s3::Props;
use icescope::source::transport::Ureq;
use icescope::source::{Fetch, SourceError};

use super::budget;
use super::dist::{parse_range, Served};

/// `icescope serve`'s reads for the page: the page decodes in its own workers, so the relay only
/// waits on round trips, and six batches of `relay::MAX_BATCH` files are asked for at once. W1b
/// through serve over 40 ms round trips (tests/bench/LOG.md), paired runs on one upload: 64 in flight
/// 17.4, 19.4, 17.3, 20.9 s; 128 in flight 13.4, 15.0, 16.8, 17.8, 18.8 s (192: 13.4 s, no better).
const RELAY_IN_FLIGHT: usize = 128;

/// Tables opened in one run: each is a few kilobytes of settings; a page that opens without end
/// is stopped here.
const MAX_TABLES: usize = 10_000;

pub struct Relay {
    catalog: Option<CatalogOptions>,
    user_s3: Props,
    transport: Ureq,
    session: Mutex<Option<CatalogSession>>,
    tables: Mutex<Vec<Arc<OpenTable>>>,
}

// Each sits behind an `Arc`, one per table opened in a run: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
enum OpenTable {
    Catalog {
        session: CatalogSession,
        namespace: Vec<String>,
        table: String,
        /// LoadTable's answer, its `storage-credentials` replaced when a read refreshes them (they
        /// expire), so that the next read starts with the fresh ones.
        loaded: Mutex<LoadTableResult>,
        /// The ETag of the catalog's last answer for it, sent back by `/relay/reload`.
        etag: Mutex<Option<String>>,
    },
    /// A metadata file the page named by its location: read as `icescope inspect <location>`
    /// reads it, with the S3 settings serve was started with.
    Location(String),
}

impl Relay {
    pub fn new(catalog: Option<CatalogOptions>, user_s3: Props) -> Relay {
        Relay { catalog, user_s3, transport: Ureq::with_in_flight(RELAY_IN_FLIGHT), session: Mutex::new(None), tables: Mutex::new(Vec::new()) }
    }

    /// The answer to `/relay/<path>?query`, the token already checked.
    pub fn answer(&self, path: &str, query: &str, range: Option<&str>) -> Served {
        if query.len() > relay::MAX_QUERY {
            return failed(414, "the query is too long", None);
        }
        let q = |k: &str| relay::query_value(query, k);
        // Without a catalog, a location can still be opened (its host is checked when it is).
        let catalog_needed = path == relay::CATALOG || (path == relay::OPEN && q("location").is_none());
        if self.catalog.is_none() && catalog_needed {
            return failed(400, "icescope serve was started without --catalog: nothing to relay", None);
        }
        match path {
            relay::HELLO => json(&self.hello()),
            relay::CATALOG => self.listing().map_or_else(|e| upstream(&e), |l| json(&l)),
            relay::OPEN => match (q("table"), q("location")) {
                (Some(t), None) => self.open(&t),
                (None, Some(l)) => self.open_location(&l),
                _ => failed(400, "open needs ?table=NS.NAME or ?location=URL", None),
            },
            relay::FILE => match (q("table").and_then(|t| t.parse::<usize>().ok()), q("ref")) {
                (Some(id), Some(r)) => self.file(id, &r, range),
                _ => failed(400, "file needs ?table=ID&ref=REFERENCE", None),
            },
            relay::RELOAD => match q("table").and_then(|t| t.parse::<usize>().ok()) {
                Some(id) => self.reload(id),
                None => failed(400, "reload needs ?table=ID", None),
            },
            relay::FILES => match (q("table").and_then(|t| t.parse::<usize>().ok()), relay::query_values(query, "ref", relay::MAX_BATCH)) {
                (Some(id), Some(refs)) if !refs.is_empty() && refs.len() <= relay::MAX_BATCH && range.is_none() => self.files(id, &refs),
                _ => failed(400, &format!("files needs ?table=ID and 1 to {} &ref=REFERENCE, no Range", relay::MAX_BATCH), None),
            },
            _ => failed(404, "no such relay operation", None),
        }
    }

    fn hello(&self) -> Hello {
        let auth = match self.catalog.as_ref().map(|c| &c.auth) {
            None | Some(CatalogAuth::None) => "none",
            Some(CatalogAuth::Bearer(_)) => "token",
            Some(CatalogAuth::OAuth2 { .. }) => "oauth2",
            Some(CatalogAuth::SigV4 { .. }) => "sigv4",
        };
        Hello { catalog: self.catalog.as_ref().map(|c| c.base()), warehouse: self.catalog.as_ref().and_then(|c| c.warehouse.clone()), auth: auth.into() }
    }

    /// The catalog's session, connected once and kept (with its token) for the run.
    fn session(&self) -> Result<CatalogSession, HttpError> {
        let Some(opts) = &self.catalog else {
            return Err(HttpError { url: "icescope serve".into(), kind: HttpErrorKind::Other, message: "started without --catalog".into() });
        };
        let mut held = self.session.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = held.as_ref() {
            return Ok(s.clone());
        }
        let s = block_on(remote::connect(&self.transport, opts))?;
        *held = Some(s.clone());
        Ok(s)
    }

    /// `call` with the session; once more with a fresh one when the catalog says the token expired
    /// (a run lasts longer than an OAuth token).
    fn with_session<T>(&self, call: impl Fn(&CatalogSession) -> Result<T, HttpError>) -> Result<T, HttpError> {
        match call(&self.session()?) {
            Err(e) if matches!(e.kind, HttpErrorKind::Status(401 | 419)) => {
                *self.session.lock().unwrap_or_else(|p| p.into_inner()) = None;
                call(&self.session()?)
            }
            other => other,
        }
    }

    fn listing(&self) -> Result<Listing, HttpError> {
        let listed = self.with_session(|s| block_on(remote::list(&self.transport, s)))?;
        Ok(Listing { namespaces: listed.namespaces, incomplete: listed.incomplete })
    }

    fn open(&self, ident: &str) -> Served {
        let (namespace, table) = match remote::identifier(ident) {
            Ok(t) => t,
            Err(why) => return failed(400, &why, None),
        };
        let loaded = self.with_session(|s| Ok((s.clone(), block_on(remote::load_table(&self.transport, s, &namespace, &table))?)));
        let (session, loaded) = match loaded {
            Ok(l) => l,
            Err(e) => return upstream(&e),
        };
        let metadata_location = match loaded.location(ident) {
            Ok(l) => l,
            Err(why) => return failed(502, &why, None),
        };
        let vended = loaded.vended();
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        if tables.len() >= MAX_TABLES {
            return failed(429, &format!("{MAX_TABLES} tables opened in this run; restart icescope serve"), None);
        }
        tables.push(Arc::new(OpenTable::Catalog { session, namespace, table, loaded: Mutex::new(loaded), etag: Mutex::new(None) }));
        json(&Opened { id: (tables.len() - 1) as u32, metadata_location, vended })
    }

    /// Table `id` asked of its catalog again, with the last answer's ETag: its entry is updated
    /// in place (what the catalog vends now included), so the page keeps reading by the same id.
    fn reload(&self, id: usize) -> Served {
        let Some(open) = self.tables.lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned() else {
            return failed(404, "no table opened with that id in this run", None);
        };
        let OpenTable::Catalog { namespace, table, loaded, etag, .. } = &*open else {
            return failed(400, "a metadata file opened by its location names one version: open the table from its catalog to follow it", None);
        };
        let tag = etag.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let answer = self.with_session(|s| block_on(remote::load_table_if_changed(&self.transport, s, namespace, table, tag.as_deref())));
        match answer {
            Ok(Some((fresh, new_tag))) => {
                let location = match fresh.location(table) {
                    Ok(l) => l,
                    Err(why) => return failed(502, &why, None),
                };
                *loaded.lock().unwrap_or_else(|p| p.into_inner()) = fresh;
                *etag.lock().unwrap_or_else(|p| p.into_inner()) = new_tag;
                json(&relay::Reloaded { metadata_location: location })
            }
            Ok(None) => {
                let location = loaded.lock().unwrap_or_else(|p| p.into_inner()).metadata_location.clone().unwrap_or_default();
                json(&relay::Reloaded { metadata_location: location })
            }
            Err(e) => upstream(&e),
        }
    }

    /// The hosts a location may name: the catalog's and the S3 endpoint given to serve (an
    /// `s3://` location goes to that endpoint, or to AWS's when none was given, as the CLI's).
    /// The page cannot send the relay to a host of its choosing.
    fn location_allowed(&self, location: &str) -> Result<(), String> {
        use icescope::source::http::origin;
        if !remote::is_remote(location) || remote::names_folder(location) {
            return Err(format!("`{location}`: through icescope serve, name a metadata file (s3://… or https://…/vN.metadata.json)"));
        }
        if icescope::source::s3::parse_s3(location).is_some() {
            return Ok(());
        }
        let named: Vec<String> = self
            .catalog
            .iter()
            .map(|c| origin(&c.uri).to_ascii_lowercase())
            .chain(self.user_s3.get("s3.endpoint").map(|e| origin(e).to_ascii_lowercase()))
            .collect();
        if named.iter().any(|n| *n == origin(location).to_ascii_lowercase()) {
            Ok(())
        } else {
            Err(format!(
                "`{location}`: icescope serve reads only from the hosts named on its command line ({})",
                if named.is_empty() { "none".into() } else { named.join(", ") }
            ))
        }
    }

    fn open_location(&self, location: &str) -> Served {
        if let Err(e) = self.location_allowed(location) {
            return failed(403, &e, None);
        }
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        if tables.len() >= MAX_TABLES {
            return failed(429, &format!("{MAX_TABLES} tables opened in this run; restart icescope serve"), None);
        }
        tables.push(Arc::new(OpenTable::Location(location.to_string())));
        json(&Opened { id: (tables.len() - 1) as u32, metadata_location: location.to_string(), vended: Vec::new() })
    }

    /// The files of table `id` as the CLI reads them. A fresh `RemoteFiles` per request (its
    /// planning is a few map lookups): reads run on many threads at once, none waits on another.
    fn files_of(&self, id: usize) -> Result<(Arc<OpenTable>, RemoteFiles<Ureq>), Served> {
        let Some(open) = self.tables.lock().unwrap_or_else(|p| p.into_inner()).get(id).cloned() else {
            return Err(failed(404, "no table opened with that id in this run", None));
        };
        let files = match &*open {
            OpenTable::Catalog { session, namespace, table, loaded, .. } => {
                let loaded = loaded.lock().unwrap_or_else(|p| p.into_inner()).clone();
                RemoteFiles::from_catalog(self.transport.clone(), self.user_s3.clone(), session.clone(), namespace.clone(), table.clone(), &loaded)
            }
            OpenTable::Location(location) => RemoteFiles::direct(self.transport.clone(), self.user_s3.clone(), location),
        };
        Ok((open, files))
    }

    /// Storage credentials a read refreshed: the table's next reads start with them.
    fn keep_credentials(open: &OpenTable, files: &RemoteFiles<Ureq>) {
        let storage = files.access().storage.clone();
        if let (OpenTable::Catalog { loaded, .. }, false) = (open, storage.is_empty()) {
            loaded.lock().unwrap_or_else(|p| p.into_inner()).storage_credentials = storage;
        }
    }

    /// Several whole files at once, read concurrently on the transport's threads, answered in
    /// frames in the order asked (`relay::frames`); a file that fails is its own frame's error.
    /// Each body is counted the moment it is in, whichever comes first, so the answer holds at
    /// most `budget::BATCH_BYTES`: a file past that is dropped at once and answered as a
    /// `relay::READ_ALONE` frame, which the page reads on its own.
    fn files(&self, id: usize, references: &[String]) -> Served {
        use futures::StreamExt;
        let (open, files) = match self.files_of(id) {
            Ok(f) => f,
            Err(refused) => return refused,
        };
        let mut held = budget::Held::default();
        let mut parts: Vec<(u16, Vec<u8>)> = vec![(relay::READ_ALONE, Vec::new()); references.len()];
        let fetching = &files;
        let mut reads: futures::stream::FuturesUnordered<_> = references.iter().enumerate().map(|(i, r)| async move { (i, fetching.fetch(r).await) }).collect();
        block_on(async {
            while let Some((i, read)) = reads.next().await {
                parts[i] = match read {
                    Ok(body) if held.bytes() + body.len() as u64 > budget::BATCH_BYTES => (relay::READ_ALONE, Vec::new()),
                    Ok(body) if !held.take(body.len() as u64) => {
                        let s = busy(body.len());
                        (s.status, s.body)
                    }
                    Ok(body) => (200, body),
                    Err(e) => {
                        let s = source_failed(&e);
                        (s.status, s.body)
                    }
                };
            }
        });
        drop(reads);
        Self::keep_credentials(&open, &files);
        let mut body = Vec::with_capacity(parts.iter().map(|(_, b)| b.len() + 6).sum());
        for (status, part) in parts {
            relay::frame(&mut body, status, &part);
        }
        Served { status: 200, content_type: "application/octet-stream", body, content_range: None, held }
    }

    /// One file the table names, whole or a range of it.
    fn file(&self, id: usize, reference: &str, range: Option<&str>) -> Served {
        let (open, files) = match self.files_of(id) {
            Ok(f) => f,
            Err(refused) => return refused,
        };
        let served = match range {
            None => match block_on(files.fetch(reference)) {
                Ok(body) => holding(Served { status: 200, content_type: "application/octet-stream", body, content_range: None, held: Default::default() }),
                Err(e) => source_failed(&e),
            },
            Some(range) => match parse_range(range) {
                None => failed(400, "unreadable Range header", None),
                Some(range) => match block_on(files.fetch_range(reference, range)) {
                    Ok(r) => holding(ranged(range, r.bytes, r.object_size)),
                    Err(e) => source_failed(&e),
                },
            },
        };
        Self::keep_credentials(&open, &files);
        served
    }
}

/// `served` counted against `budget::TOTAL_BYTES` until it is sent, or a 503 when it would pass it.
fn holding(mut served: Served) -> Served {
    if served.held.take(served.body.len() as u64) {
        served
    } else {
        busy(served.body.len())
    }
}

/// The answer when `n` more bytes would pass what serve holds of answers at once.
fn busy(n: usize) -> Served {
    failed(
        503,
        &format!(
            "icescope serve holds {} MiB of answers now ({} MiB at most) and this one is {} MiB: ask again when the page has read the others",
            budget::Held::all() >> 20,
            budget::TOTAL_BYTES >> 20,
            n >> 20
        ),
        None,
    )
}

/// A ranged answer the browser's `range::from_http` checks as any server's.
fn ranged(range: ByteRange, body: Vec<u8>, size: Option<u64>) -> Served {
    let (status, content_range) = match (size, body.is_empty()) {
        (Some(size), true) => (416, Some(format!("bytes */{size}"))),
        (Some(size), false) => {
            let start = match range {
                ByteRange::At { offset, .. } => offset,
                ByteRange::Tail { .. } => size.saturating_sub(body.len() as u64),
            };
            (206, Some(format!("bytes {start}-{}/{size}", start + body.len() as u64 - 1)))
        }
        (None, _) => (206, None),
    };
    Served { status, content_type: "application/octet-stream", body, content_range, held: Default::default() }
}

fn json<T: serde::Serialize>(v: &T) -> Served {
    Served { status: 200, content_type: "application/json", body: serde_json::to_vec(v).unwrap_or_default(), content_range: None, held: Default::default() }
}

/// What the page is told of a failure: every credential this process holds removed from the words
/// and from the upstream error it carries (a server's body may quote the request back).
fn failed(status: u16, message: &str, error: Option<HttpError>) -> Served {
    use icescope::source::secrets::scrub;
    let error = error.map(|e| HttpError { message: scrub(&e.message), ..e });
    let body = serde_json::to_vec(&Failed { message: scrub(message), error }).unwrap_or_default();
    Served { status, content_type: "application/json", body, content_range: None, held: Default::default() }
}

fn upstream(e: &HttpError) -> Served {
    failed(502, &e.to_string(), Some(e.clone()))
}

fn source_failed(e: &SourceError) -> Served {
    match e {
        SourceError::Http { error, .. } => upstream(error),
        other => failed(502, &other.to_string(), None),
    }
}
