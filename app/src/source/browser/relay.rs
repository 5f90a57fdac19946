//! The page's side of `icescope serve`'s relay (`source::relay` is the protocol): the run's token,
//! the catalog's listing, a table opened, and its files read by reference. Every request goes to
//! the page's own origin; the relay decides where it goes from there and signs it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::channel::oneshot;

use crate::source::files::SourceError;
use crate::source::http::{HttpError, HttpErrorKind, Request, Response};
use crate::source::range::{from_http, ByteRange, RangeRead};
use crate::source::relay::{self, Failed, Hello, Listing, Opened, FRAGMENT_KEY, TOKEN_HEADER};
use crate::source::Fetch;

/// Where a reload of this tab finds the token again; per tab, gone when the tab closes.
const SESSION_KEY: &str = "icescope.relay";

thread_local! {
    static TOKEN: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// The run's token: taken from the address `icescope serve` printed (`#relay=…`) and removed from
/// it at once, so that a link copied from the address bar never carries it. Call before anything
/// rewrites the fragment.
pub fn take_token() -> Option<String> {
    if let Some(t) = TOKEN.with(|t| t.borrow().clone()) {
        return Some(t);
    }
    let window = web_sys::window()?;
    let session = window.session_storage().ok().flatten();
    let hash = window.location().hash().ok().unwrap_or_default();
    let params = web_sys::UrlSearchParams::new_with_str(hash.trim_start_matches('#')).ok()?;
    let from_url = params.get(FRAGMENT_KEY).filter(|t| !t.is_empty() && t.len() <= 128 && t.chars().all(|c| c.is_ascii_hexdigit()));
    if params.has(FRAGMENT_KEY) {
        params.delete(FRAGMENT_KEY);
        let rest = String::from(params.to_string());
        let url = if rest.is_empty() { window.location().pathname().unwrap_or_default() } else { format!("#{rest}") };
        if let Ok(h) = window.history() {
            let _ = h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    }
    let token = match from_url {
        Some(t) => {
            if let Some(s) = &session {
                let _ = s.set_item(SESSION_KEY, &t);
            }
            Some(t)
        }
        None => session.and_then(|s| s.get_item(SESSION_KEY).ok().flatten()),
    };
    TOKEN.with(|t| t.borrow_mut().clone_from(&token));
    token
}

fn get(path: &str, token: &str) -> Request {
    Request::get(path).header(TOKEN_HEADER, token)
}

/// The relay's error as the CLI saw it, else its message.
fn failure(path: &str, resp: &Response) -> HttpError {
    failure_of(path, resp.status, &resp.body)
}

fn failure_of(path: &str, status: u16, body: &[u8]) -> HttpError {
    match serde_json::from_slice::<Failed>(body) {
        Ok(Failed { error: Some(e), .. }) => e,
        Ok(Failed { message, .. }) => HttpError { url: path.to_string(), kind: HttpErrorKind::Other, message },
        Err(_) => HttpError::status(path, status, body),
    }
}

async fn json<T: serde::de::DeserializeOwned>(path: &str, token: &str) -> Result<T, HttpError> {
    let resp = super::fetch::send(&get(path, token)).await?;
    if resp.status != 200 {
        return Err(failure(path, &resp));
    }
    serde_json::from_slice(&resp.body).map_err(|e| HttpError { url: path.to_string(), kind: HttpErrorKind::Malformed, message: e.to_string() })
}

/// The relay, if this page was served by `icescope serve` and has its token.
pub async fn detect() -> Option<(String, Hello)> {
    let token = take_token()?;
    let hello = json::<Hello>(relay::HELLO, &token).await.ok()?;
    Some((token, hello))
}

pub async fn listing(token: &str) -> Result<Listing, HttpError> {
    json(relay::CATALOG, token).await
}

pub async fn open(token: &str, table: &str) -> Result<(Opened, RelayFiles), HttpError> {
    let opened: Opened = json(&relay::open_path(table), token).await?;
    let mut files = RelayFiles::new(token, opened.id);
    files.from_catalog = true;
    Ok((opened, files))
}

/// A metadata file by its location, read by the relay with the S3 settings serve was given.
pub async fn open_location(token: &str, location: &str) -> Result<(Opened, RelayFiles), HttpError> {
    let opened: Opened = json(&relay::open_location_path(location), token).await?;
    let files = RelayFiles::new(token, opened.id);
    Ok((opened, files))
}

type Answer = Result<Vec<u8>, SourceError>;

/// Whole-file reads asked for in one turn of the page, sent together as `/relay/files` requests.
#[derive(Default)]
struct Batch {
    waiting: RefCell<Vec<(String, oneshot::Sender<Answer>)>>,
    scheduled: Cell<bool>,
}

/// A table's files through the relay, by the references its metadata names. Whole files go in
/// batches of up to `relay::MAX_BATCH` a request, so the browser's six connections to the relay
/// carry six batches at once while the relay reads their files concurrently.
pub struct RelayFiles {
    token: String,
    id: u32,
    batch: Rc<Batch>,
    /// Opened as a catalog table (not a location).
    from_catalog: bool,
}

impl RelayFiles {
    fn new(token: &str, id: u32) -> RelayFiles {
        RelayFiles { token: token.to_string(), id, batch: Rc::default(), from_catalog: false }
    }

    /// Opened from the relay's catalog: `reload` can ask it again.
    pub fn has_catalog(&self) -> bool {
        self.from_catalog
    }

    /// The table's metadata file now, as its catalog answers the relay (which sends the last
    /// answer's ETag): the same id keeps reading it.
    pub async fn reload(&self) -> Result<String, HttpError> {
        json::<relay::Reloaded>(&relay::reload_path(self.id), &self.token).await.map(|r| r.metadata_location)
    }
}

/// Sends what waits, in requests of at most `MAX_BATCH` references and `MAX_QUERY` bytes.
fn send_waiting(batch: &Batch, token: &str, id: u32) {
    batch.scheduled.set(false);
    let mut all = std::mem::take(&mut *batch.waiting.borrow_mut()).into_iter().peekable();
    while all.peek().is_some() {
        let mut group = Vec::new();
        let mut query = relay::files_path(id, &[]).len();
        while let Some((r, _)) = all.peek() {
            let more = "&ref=".len() + crate::source::http::encode(r).len();
            if !group.is_empty() && (group.len() == relay::MAX_BATCH || query + more > relay::MAX_QUERY) {
                break;
            }
            query += more;
            group.extend(all.next());
        }
        wasm_bindgen_futures::spawn_local(send_group(group, token.to_string(), id));
    }
}

async fn send_group(group: Vec<(String, oneshot::Sender<Answer>)>, token: String, id: u32) {
    let refs: Vec<&str> = group.iter().map(|(r, _)| r.as_str()).collect();
    let path = relay::files_path(id, &refs);
    let answered = super::fetch::send(&get(&path, &token)).await;
    let framed = match &answered {
        Ok(resp) if resp.status == 200 => {
            relay::unframe(&resp.body, group.len()).map_err(|message| HttpError { url: relay::FILES.into(), kind: HttpErrorKind::Malformed, message })
        }
        Ok(resp) => Err(failure(relay::FILES, resp)),
        Err(e) => Err(e.clone()),
    };
    match framed {
        Ok(frames) => {
            let mut alone = Vec::new();
            for ((reference, tx), (status, bytes)) in group.into_iter().zip(frames) {
                let answer = match status {
                    200 => Ok(bytes.to_vec()),
                    // The batch had reached its size at the relay: this file comes on its own.
                    relay::READ_ALONE => {
                        alone.push((reference, tx));
                        continue;
                    }
                    _ => Err(SourceError::Http { path: reference.clone(), error: failure_of(&reference, status, bytes) }),
                };
                let _ = tx.send(answer);
            }
            for (reference, tx) in alone {
                let _ = tx.send(read_alone(&reference, &token, id).await);
            }
        }
        Err(error) => {
            for (reference, tx) in group {
                let _ = tx.send(Err(SourceError::Http { path: reference, error: error.clone() }));
            }
        }
    }
}

/// One whole file through `/relay/file`.
async fn read_alone(reference: &str, token: &str, id: u32) -> Result<Vec<u8>, SourceError> {
    let io = |error: HttpError| SourceError::Http { path: reference.to_string(), error };
    let resp = super::fetch::send(&get(&relay::file_path(id, reference), token)).await.map_err(io)?;
    match resp.status {
        200 => Ok(resp.body),
        _ => Err(io(failure(reference, &resp))),
    }
}

impl Fetch for RelayFiles {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        let (tx, rx) = oneshot::channel();
        self.batch.waiting.borrow_mut().push((reference.to_string(), tx));
        // Sent once the page's turn ends: every read asked for in it joins the same batches.
        if !self.batch.scheduled.replace(true) {
            let (batch, token, id) = (self.batch.clone(), self.token.clone(), self.id);
            wasm_bindgen_futures::spawn_local(async move { send_waiting(&batch, &token, id) });
        }
        rx.await.unwrap_or_else(|_| {
            Err(SourceError::Http {
                path: reference.to_string(),
                error: HttpError { url: relay::FILES.into(), kind: HttpErrorKind::Other, message: "the batch was dropped".into() },
            })
        })
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        let Some(value) = range.header() else { return Ok(RangeRead::default()) };
        let path = relay::file_path(self.id, reference);
        let io = |error: HttpError| SourceError::Http { path: reference.to_string(), error };
        let resp = super::fetch::send(&get(&path, &self.token).header("Range", value)).await.map_err(io)?;
        match resp.status {
            200 | 206 | 416 => from_http(reference, range, resp.status, resp.content_range.as_deref(), resp.body),
            _ => Err(io(failure(reference, &resp))),
        }
    }

    fn size_hint(&self, _reference: &str) -> Option<u64> {
        None
    }
}
