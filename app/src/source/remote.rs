//! Tables read over the network from the CLI: a REST catalog session and the object store behind
//! it, or a plain metadata URL. The browser drives the same request builders asynchronously.

use std::cell::RefCell;

use super::files::{FileSet, SourceError};
use super::http::{HttpError, HttpErrorKind, Request, Response};
use super::resolve::PathIndex;
use super::object_read::{ObjectAccess, Plan};
use super::rest_catalog::{CatalogOptions, Lister, LoadTableResult, Session};
use super::s3::{apply_remote_signature, now_ms, Props};
use super::transport::send;

fn ok(req: &Request) -> Result<Response, HttpError> {
    let resp = send(req)?;
    if (200..300).contains(&resp.status) {
        Ok(resp)
    } else {
        Err(HttpError::status(&req.url, resp.status, &resp.body))
    }
}

/// Token (if OAuth2), then `GET /v1/config`.
pub fn connect(opts: &CatalogOptions) -> Result<Session, HttpError> {
    let token = match opts.token_request() {
        Some(req) => Some(opts.read_token(&req, &send(&req)?)?),
        None => None,
    };
    let req = opts.config_request(token.as_deref(), now_ms())?;
    let resp = send(&req)?;
    opts.session(token, &req, &resp)
}

/// Every namespace (nested ones too) and its tables, all pages.
pub fn list(session: &Session) -> Result<Vec<(Vec<String>, Vec<String>)>, HttpError> {
    let mut lister = Lister::default();
    while let Some(req) = lister.next(session, now_ms())? {
        let resp = send(&req)?;
        lister.feed(session, &req, &resp)?;
    }
    Ok(lister.listing)
}

pub fn load_table(session: &Session, namespace: &[String], table: &str) -> Result<LoadTableResult, HttpError> {
    let req = session.load_table_request(namespace, table, now_ms())?;
    let resp = send(&req)?;
    session.read_load_table(&req, &resp)
}

/// The files of a table on an object store or web server, addressed by full URLs.
pub struct RemoteFiles {
    access: RefCell<ObjectAccess>,
    /// The catalog, for remote signing and credential refresh.
    catalog: Option<(Session, Vec<String>, String)>,
    index: PathIndex,
}

impl RemoteFiles {
    pub fn direct(user: Props) -> RemoteFiles {
        RemoteFiles { access: RefCell::new(ObjectAccess { user, ..ObjectAccess::default() }), catalog: None, index: PathIndex::default() }
    }

    pub fn from_catalog(user: Props, session: Session, namespace: Vec<String>, table: String, loaded: &LoadTableResult) -> RemoteFiles {
        let access = ObjectAccess { user, table_config: loaded.config.clone(), storage: loaded.storage_credentials.clone() };
        RemoteFiles { access: RefCell::new(access), catalog: Some((session, namespace, table)), index: PathIndex::default() }
    }

    fn request(&self, reference: &str) -> Result<Request, HttpError> {
        let err = |m: String| HttpError { url: reference.to_string(), kind: HttpErrorKind::Other, message: m };
        match self.access.borrow().plan(reference, self.catalog.as_ref().map(|c| &c.0), now_ms()).map_err(err)? {
            Plan::Get(req) => Ok(req),
            Plan::RemoteSign { unsigned, sign } => apply_remote_signature(unsigned, &ok(&sign)?.body).map_err(err),
        }
    }

    fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let io = |e: HttpError| SourceError::Io { path: reference.to_string(), message: e.to_string() };
        let req = self.request(reference).map_err(io)?;
        let resp = send(&req).map_err(io)?;
        if resp.status == 403 && self.refresh_credentials() {
            let req = self.request(reference).map_err(io)?;
            return ok(&req).map(|r| r.body).map_err(io);
        }
        if (200..300).contains(&resp.status) {
            Ok(resp.body)
        } else {
            Err(io(HttpError::status(&req.url, resp.status, &resp.body)))
        }
    }

    /// Vended credentials expire: ask the catalog once for fresh ones.
    fn refresh_credentials(&self) -> bool {
        let Some((session, ns, table)) = &self.catalog else { return false };
        if self.access.borrow().storage.is_empty() {
            return false;
        }
        let Ok(req) = session.credentials_request(ns, table, now_ms()) else { return false };
        match send(&req).ok().and_then(|resp| session.read_credentials(&req, &resp).ok()) {
            Some(fresh) if !fresh.is_empty() => {
                self.access.borrow_mut().storage = fresh;
                true
            }
            _ => false,
        }
    }
}

impl FileSet for RemoteFiles {
    fn index(&self) -> &PathIndex {
        &self.index
    }

    fn read_path(&self, path: &str) -> Result<Vec<u8>, SourceError> {
        self.fetch(path)
    }

    fn size_of(&self, _path: &str) -> Option<u64> {
        None
    }

    fn read_reference(&self, reference: &str) -> Result<(String, Vec<u8>), SourceError> {
        self.fetch(reference).map(|b| (reference.to_string(), b))
    }
}
