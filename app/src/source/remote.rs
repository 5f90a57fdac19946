//! Tables read over the network: a REST catalog session and the object store behind it, or a plain
//! metadata URL. One implementation for the CLI and the browser: the HTTP transport is passed in
//! (ureq on a pool of threads in the CLI and `icescope serve`, the browser's fetch in the app).

use std::cell::RefCell;

use super::fetch::Fetch;
use super::files::SourceError;
use super::http::{HttpError, HttpErrorKind, Request, Response};
use super::object_read::{ObjectAccess, Plan};
use super::range::{from_http, ByteRange, RangeRead};
use super::rest_catalog::{CatalogListing, CatalogOptions, CatalogSession, Lister, LoadTableResult};
use super::s3::Props;

/// Sends one request; the clock is the transport's too (the browser has no `SystemTime`).
#[allow(async_fn_in_trait)]
pub trait Transport {
    async fn send(&self, req: &Request) -> Result<Response, HttpError>;
    fn now_ms(&self) -> u64;
    /// Requests worth keeping out at once over it.
    fn in_flight(&self) -> super::InFlight {
        super::InFlight::BROWSER
    }

    async fn ok(&self, req: &Request) -> Result<Response, HttpError> {
        let resp = self.send(req).await?;
        if (200..300).contains(&resp.status) {
            Ok(resp)
        } else {
            Err(HttpError::status(&req.url, resp.status, &resp.body))
        }
    }
}

/// Token (if OAuth2), then `GET /v1/config`.
pub async fn connect<T: Transport>(t: &T, opts: &CatalogOptions) -> Result<CatalogSession, HttpError> {
    let token = match opts.token_request() {
        Some(req) => Some(opts.read_token(&req, &t.send(&req).await?)?),
        None => None,
    };
    let req = opts.config_request(token.as_deref(), t.now_ms())?;
    let resp = t.send(&req).await?;
    opts.session(token, &req, &resp)
}

/// Every namespace (nested ones too) and its tables, all pages, as far as the listing's bounds go.
pub async fn list<T: Transport>(t: &T, session: &CatalogSession) -> Result<CatalogListing, HttpError> {
    let mut lister = Lister::default();
    while let Some(req) = lister.next(session, t.now_ms())? {
        let resp = t.send(&req).await?;
        lister.feed(session, &req, &resp)?;
    }
    Ok(lister.finish())
}

pub async fn load_table<T: Transport>(t: &T, session: &CatalogSession, namespace: &[String], table: &str) -> Result<LoadTableResult, HttpError> {
    let req = session.load_table_request(namespace, table, t.now_ms())?;
    let resp = t.send(&req).await?;
    session.read_load_table(&req, &resp)
}

/// One table of a catalog, as LoadTable answered: what every front end opens it by.
pub struct CatalogTable {
    pub session: CatalogSession,
    pub namespace: Vec<String>,
    pub table: String,
    pub loaded: LoadTableResult,
    /// The current metadata file the answer names.
    pub location: String,
    /// The answer's ETag, for the next LoadTable (`load_table_if_changed`).
    pub etag: Option<String>,
}

/// `NS.NAME` (nested namespaces `a.b.NAME`) as the catalog's path names it, or why not.
pub fn identifier(ident: &str) -> Result<(Vec<String>, String), String> {
    super::rest_catalog::split_identifier(ident).ok_or_else(|| format!("`{ident}`: expected NAMESPACE.TABLE"))
}

impl LoadTableResult {
    /// The current metadata file, or why the answer names none.
    pub fn location(&self, table: &str) -> Result<String, String> {
        self.metadata_location.clone().ok_or_else(|| format!("{table}: the catalog returned no metadata-location"))
    }

    /// What the catalog vended, as shown: (where it came from, key, value masked unless plain).
    pub fn vended(&self) -> Vec<(String, String, String)> {
        use super::rest_catalog::masked;
        let config = self.config.iter().map(|(k, v)| ("table config".to_string(), k.clone(), masked(k, v)));
        let credentials =
            self.storage_credentials.iter().flat_map(|c| c.config.iter().map(move |(k, v)| (format!("credentials for {}", c.prefix), k.clone(), masked(k, v))));
        config.chain(credentials).collect()
    }
}

/// Connects (a token where OAuth2, then the config) and loads the table `ident` names.
pub async fn open_table<T: Transport>(t: &T, opts: &CatalogOptions, ident: &str) -> Result<CatalogTable, String> {
    let (namespace, table) = identifier(ident)?;
    let session = connect(t, opts).await.map_err(|e| e.to_string())?;
    let (loaded, etag) = load_table_if_changed(t, &session, &namespace, &table, None).await.map_err(|e| e.to_string())?.ok_or_else(|| {
        // Asked without an ETag, a 304 is no answer.
        format!("{ident}: the catalog answered 304 Not Modified to a first LoadTable")
    })?;
    let location = loaded.location(ident)?;
    Ok(CatalogTable { session, namespace, table, loaded, location, etag })
}

/// LoadTable again, with the ETag of the last answer as `If-None-Match`: None when the catalog
/// answers 304 (the table's metadata is as it was), else the answer and its ETag. A catalog that
/// keeps no ETags answers in full every time.
pub async fn load_table_if_changed<T: Transport>(
    t: &T,
    session: &CatalogSession,
    namespace: &[String],
    table: &str,
    etag: Option<&str>,
) -> Result<Option<(LoadTableResult, Option<String>)>, HttpError> {
    let mut req = session.load_table_request(namespace, table, t.now_ms())?;
    if let Some(tag) = etag {
        req = req.header("If-None-Match", super::rest_catalog::as_sent_back(tag));
    }
    let resp = t.send(&req).await?;
    if resp.status == 304 && etag.is_some() {
        return Ok(None);
    }
    session.read_load_table(&req, &resp).map(|l| Some((l, resp.etag.clone())))
}

/// The files of a table on an object store or web server, addressed by full URLs.
pub struct RemoteFiles<T: Transport> {
    transport: T,
    access: RefCell<ObjectAccess>,
    /// The catalog, for remote signing and credential refresh.
    catalog: Option<(CatalogSession, Vec<String>, String)>,
}

impl<T: Transport> RemoteFiles<T> {
    /// Files read from the URL the user typed (`metadata`): its origin is the one named.
    pub fn direct(transport: T, user: Props, metadata: &str) -> Self {
        let mut access = ObjectAccess { user, ..ObjectAccess::default() };
        access.name(metadata);
        RemoteFiles { transport, access: RefCell::new(access), catalog: None }
    }

    /// Other files on the store an open table's files are read from, with what its reads may use
    /// (a savepoint folder beside the table, say); no catalog: remote signing is not followed.
    pub fn with_access(transport: T, access: ObjectAccess, location: &str) -> Self {
        let mut access = access;
        access.name(location);
        RemoteFiles { transport, access: RefCell::new(access), catalog: None }
    }

    pub fn from_catalog(transport: T, user: Props, session: CatalogSession, namespace: Vec<String>, table: String, loaded: &LoadTableResult) -> Self {
        let mut access = ObjectAccess { user, table_config: loaded.config.clone(), storage: loaded.storage_credentials.clone(), named: Vec::new() };
        access.name(&session.uri);
        if let Some(m) = &loaded.metadata_location {
            access.name(m);
        }
        RemoteFiles { transport, access: RefCell::new(access), catalog: Some((session, namespace, table)) }
    }

    pub fn transport(&self) -> &T {
        &self.transport
    }

    /// Opened through a catalog: `reload` can ask it again.
    pub fn has_catalog(&self) -> bool {
        self.catalog.is_some()
    }

    pub fn access(&self) -> std::cell::Ref<'_, ObjectAccess> {
        self.access.borrow()
    }

    /// The table these files came from, asked of its catalog again (the last answer's ETag sent
    /// back): the files of a new version (with what the catalog vends now) and its location, or
    /// None when it answers 304 or still names `current`; and the answer's ETag (None on a 304:
    /// keep the last). An error for files not opened through a catalog.
    /// `session`: one that replaced the files' own (connected again after the token expired).
    pub async fn reload(
        &self,
        transport: T,
        session: Option<&CatalogSession>,
        current: &str,
        etag: Option<&str>,
    ) -> Result<(Option<(RemoteFiles<T>, String)>, Option<String>), HttpError> {
        let Some((own, namespace, table)) = &self.catalog else {
            return Err(HttpError { url: current.to_string(), kind: HttpErrorKind::Other, message: "not opened through a catalog".into() });
        };
        let session = session.unwrap_or(own);
        let Some((loaded, tag)) = load_table_if_changed(&transport, session, namespace, table, etag).await? else { return Ok((None, None)) };
        let location = loaded.location(table).map_err(|message| HttpError { url: session.uri.clone(), kind: HttpErrorKind::Other, message })?;
        if location == current {
            return Ok((None, tag));
        }
        let user = self.access.borrow().user.clone();
        let files = RemoteFiles::from_catalog(transport, user, session.clone(), namespace.clone(), table.clone(), &loaded);
        Ok((Some((files, location)), tag))
    }

    async fn request(&self, reference: &str) -> Result<Request, HttpError> {
        let err = |m: String| HttpError { url: reference.to_string(), kind: HttpErrorKind::Other, message: m };
        let plan = self.access.borrow().plan(reference, self.catalog.as_ref().map(|c| &c.0), self.transport.now_ms()).map_err(err)?;
        match plan {
            Plan::Get(req) => Ok(req),
            Plan::RemoteSign { unsigned, sign } => {
                let answer = self.transport.ok(&sign).await?.body;
                self.access.borrow().signed(unsigned, &answer).map_err(err)
            }
        }
    }

    async fn ranged(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        let Some(value) = range.header() else { return Ok(RangeRead::default()) };
        let headers = [("Range".to_string(), value)];
        let http = |error: HttpError| SourceError::Http { path: reference.to_string(), error };
        let err = |m: String| http(HttpError { url: reference.to_string(), kind: HttpErrorKind::Other, message: m });
        let plan = self.access.borrow().plan_with(reference, &headers, self.catalog.as_ref().map(|c| &c.0), self.transport.now_ms()).map_err(err)?;
        let req = match plan {
            Plan::Get(req) => req,
            Plan::RemoteSign { unsigned, sign } => {
                let answer = self.transport.ok(&sign).await.map_err(http)?.body;
                self.access.borrow().signed(unsigned, &answer).map_err(err)?
            }
        };
        let resp = self.transport.send(&req).await.map_err(http)?;
        if !matches!(resp.status, 200 | 206 | 416) {
            return Err(http(HttpError::status(&req.url, resp.status, &resp.body)));
        }
        from_http(reference, range, resp.status, resp.content_range.as_deref(), resp.body)
    }

    async fn once(&self, reference: &str) -> Result<Vec<u8>, HttpError> {
        let req = self.request(reference).await?;
        self.transport.ok(&req).await.map(|r| r.body)
    }

    /// Vended credentials expire: ask the catalog once for fresh ones.
    async fn refresh_credentials(&self) -> bool {
        let Some((session, ns, table)) = &self.catalog else { return false };
        if self.access.borrow().storage.is_empty() {
            return false;
        }
        let Ok(req) = session.credentials_request(ns, table, self.transport.now_ms()) else { return false };
        let Ok(resp) = self.transport.send(&req).await else { return false };
        match session.read_credentials(&req, &resp) {
            Ok(fresh) if !fresh.is_empty() => {
                self.access.borrow_mut().storage = fresh;
                true
            }
            _ => false,
        }
    }
}

/// The schemes a location typed by a person (CLI argument, the app's location field) is read
/// over the network by.
const REMOTE_SCHEMES: [&str; 5] = ["s3://", "s3a://", "s3n://", "http://", "https://"];

pub fn is_remote(location: &str) -> bool {
    REMOTE_SCHEMES.iter().any(|p| location.get(..p.len()).is_some_and(|s| s.eq_ignore_ascii_case(p)))
}

/// `s3://bucket/prefix/`: a folder, listed to find what it holds (a table's metadata files or a
/// Spark export); any other remote location names one file.
pub fn names_folder(location: &str) -> bool {
    is_remote(location) && super::s3::parse_s3(location).is_some() && location.ends_with('/')
}

impl<T: Transport> RemoteFiles<T> {
    /// These files with the listing of `prefix` (`list_prefix`), as a picked folder has one.
    pub async fn listed(self, prefix: &str, page_size: usize) -> Result<super::fetch::Listed<Self>, HttpError> {
        let objects = self.list_prefix(prefix, page_size).await?;
        Ok(super::fetch::Listed::new(self, (0..objects.len()).map(|i| (objects.path(i).to_string(), objects.size(i)))))
    }

    /// Every object under `prefix` (an `s3://bucket/key-prefix/` URL) with the same credentials
    /// its reads use: ListObjectsV2 pages of `page_size` keys, at most `MAX_PAGES` of them and
    /// `MAX_OBJECTS` objects. Paths are full `s3://bucket/key` URLs. Remote signing is not
    /// followed for listings.
    pub async fn list_prefix(&self, prefix: &str, page_size: usize) -> Result<super::listing::Listing, HttpError> {
        use super::s3_list::{parse_list, MAX_OBJECTS, MAX_PAGES};
        let err = |m: String| HttpError { url: prefix.to_string(), kind: HttpErrorKind::Other, message: m };
        let (bucket, key_prefix) = super::s3::parse_s3(prefix).ok_or_else(|| err(format!("{prefix}: only s3:// locations can be listed")))?;
        let cfg = self.access.borrow().s3_config_for(prefix);
        if cfg.remote_signing && cfg.access_key_id.is_none() {
            return Err(err(format!("{prefix}: the catalog signs this table's requests remotely; listing its store needs S3 keys (--s3-access-key-id)")));
        }
        let mut out = super::listing::Listing::default();
        let mut path = String::new();
        let mut token: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let req = cfg.list_request(bucket, key_prefix, token.as_deref(), page_size.max(1), self.transport.now_ms()).map_err(err)?;
            let page = parse_list(&self.transport.ok(&req).await?.body).map_err(err)?;
            if out.len().saturating_add(page.objects.len()) > MAX_OBJECTS {
                return Err(err(format!(
                    "{prefix}: more than {MAX_OBJECTS} objects; listing stopped (the census keeps each object's path, size and time: this many take about a gigabyte)"
                )));
            }
            for o in &page.objects {
                path.clear();
                path.push_str("s3://");
                path.push_str(bucket);
                path.push('/');
                path.push_str(&o.key);
                out.push(&path, o.size, o.modified_ms);
            }
            match (page.truncated, page.next_token) {
                (true, Some(t)) if Some(&t) != token.as_ref() => token = Some(t),
                (true, _) => return Err(err(format!("{prefix}: the listing says it is truncated but gives no new continuation token"))),
                (false, _) => {
                    out.shrink_to_fit();
                    return Ok(out);
                }
            }
        }
        Err(err(format!("{prefix}: more than {MAX_PAGES} pages of objects; listing stopped")))
    }
}

impl<T: Transport> Fetch for RemoteFiles<T> {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let io = |error: HttpError| SourceError::Http { path: reference.to_string(), error };
        match self.once(reference).await {
            Err(e) if e.kind == HttpErrorKind::Status(403) && self.refresh_credentials().await => self.once(reference).await.map_err(io),
            other => other.map_err(io),
        }
    }

    /// An HTTP `Range` GET, signed with the range for S3; a server that ignores `Range` answers 200
    /// with the whole file, which is cut to the range and counted in full (`RangeRead::transferred`).
    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        match self.ranged(reference, range).await {
            Err(SourceError::Http { error, .. }) if error.kind == HttpErrorKind::Status(403) && self.refresh_credentials().await => {
                self.ranged(reference, range).await
            }
            other => other,
        }
    }

    fn size_hint(&self, _reference: &str) -> Option<u64> {
        None
    }

    fn in_flight(&self) -> super::InFlight {
        self.transport.in_flight()
    }
}
