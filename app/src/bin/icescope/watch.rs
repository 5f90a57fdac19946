//! `icescope watch`: the table looked at every few seconds. Each look reads the newest metadata
//! file (a catalog's LoadTable with the last ETag, a folder's `metadata/` listed again, an S3
//! prefix listed, or `version-hint.text` beside an https:// file) and, when it is new, only the
//! lists and manifests it adds; then the events since the last look are printed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use futures::executor::block_on;
use icescope::analysis::live::{LiveOptions, LiveState};
use icescope::load::decoder::Inline;
use icescope::load::{pick_metadata, Loader};
use icescope::report::live::look;
use icescope::source::local::LocalFolder;
use icescope::source::metadata_pick::{is_metadata_file, metadata_version};
use icescope::source::remote::{self, RemoteFiles};
use icescope::source::rest_catalog::{split_identifier, Session};
use icescope::source::transport::Ureq;
use icescope::source::Fetch;

use super::args::{Watch, WatchFormat};
use super::failure::{print, Failure};
use super::open::{self, Files};

/// Reads in flight while a look reads what a commit added (as `inspect` keeps).
const IN_FLIGHT: usize = 64;

/// Where the newest metadata file is found, by the kind of source named.
enum Follow {
    /// A table folder (or a metadata file in one): its `metadata/` listed again.
    Folder(PathBuf),
    /// A REST catalog: LoadTable, with the last answer's ETag.
    Catalog { session: Box<Session>, namespace: Vec<String>, table: String, etag: Option<String> },
    /// An `s3://…/metadata/x.metadata.json`: the prefix listed.
    S3 { prefix: String },
    /// An https:// metadata file: `version-hint.text` beside it.
    Hint { url: String, dir: String },
}

fn folder_of(url: &str) -> Option<&str> {
    url.rsplit_once('/').map(|(d, _)| d)
}

impl Follow {
    fn of(w: &Watch) -> Result<Follow, Failure> {
        let a = &w.table.table;
        if a.metadata.is_some() {
            return Err(Failure::usage("watch follows the newest metadata file; --metadata pins one: leave it out"));
        }
        if let Some(uri) = &a.catalog.catalog {
            let ident = a.table.as_deref().ok_or_else(|| Failure::usage("--catalog needs --table NS.NAME"))?;
            let (namespace, table) = split_identifier(ident).ok_or_else(|| Failure::Usage(format!("--table `{ident}`: expected NAMESPACE.TABLE")))?;
            let session = block_on(remote::connect(&Ureq::default(), &open::options(&a.catalog, &a.s3(), uri)?)).map_err(Failure::unreadable)?;
            return Ok(Follow::Catalog { session: Box::new(session), namespace, table, etag: None });
        }
        let target = a
            .target
            .as_deref()
            .ok_or_else(|| Failure::usage("which table? Give a table folder, a metadata.json or its URL, or --catalog URI --table NS.NAME"))?;
        if remote::names_folder(target) {
            return Err(Failure::usage("an export prefix is a copy made once: watch the table itself (its folder, metadata URL or catalog)"));
        }
        if remote::is_remote(target) {
            let dir = folder_of(target).ok_or_else(|| Failure::Usage(format!("{target}: no folder in this URL")))?.to_string();
            return Ok(if icescope::source::s3::parse_s3(target).is_some() {
                Follow::S3 { prefix: format!("{dir}/") }
            } else {
                Follow::Hint { url: format!("{dir}/version-hint.text"), dir }
            });
        }
        let path = Path::new(target);
        let root = if path.is_dir() { path.to_path_buf() } else { open::folder_of_metadata_file(path).to_path_buf() };
        Ok(Follow::Folder(root))
    }

    /// The files to read from and the newest metadata file, when it is not `current`.
    fn newer(&mut self, w: &Watch, files: &Files, current: &str) -> Result<Option<(Option<Files>, String)>, Failure> {
        let a = &w.table.table;
        match self {
            Follow::Folder(root) => {
                let folder = LocalFolder::open(root).map_err(Failure::unreadable)?;
                let pick =
                    block_on(pick_metadata(&folder)).ok_or_else(|| Failure::Unreadable(format!("{}: no *.metadata.json file any more", root.display())))?;
                Ok((pick.path != current).then(|| (Some(Files::Local(folder)), pick.path)))
            }
            Follow::Catalog { session, namespace, table, etag } => {
                let t = Ureq::default();
                // The first look asks in full (the table may have moved on since it was opened);
                // later ones send the last answer's ETag and a 304 costs no metadata.
                let answer = match block_on(remote::load_table_if_changed(&t, session, namespace, table, etag.as_deref())) {
                    // An OAuth2 token expires within hours: a watch outlives it.
                    Err(e) if matches!(e.kind, icescope::source::http::HttpErrorKind::Status(401 | 419)) => {
                        let uri = a.catalog.catalog.as_deref().unwrap_or_default();
                        **session = block_on(remote::connect(&t, &open::options(&a.catalog, &a.s3(), uri)?)).map_err(Failure::unreadable)?;
                        block_on(remote::load_table_if_changed(&t, session, namespace, table, etag.as_deref()))
                    }
                    r => r,
                };
                let Some((loaded, tag)) = answer.map_err(Failure::unreadable)? else {
                    return Ok(None);
                };
                *etag = tag;
                let location =
                    loaded.metadata_location.clone().ok_or_else(|| Failure::Unreadable(format!("{table}: the catalog returned no metadata-location")))?;
                if location == current {
                    return Ok(None);
                }
                // Vended credentials and the location's host come with each answer.
                let files = RemoteFiles::from_catalog(t, a.s3(), (**session).clone(), namespace.clone(), table.clone(), &loaded);
                Ok(Some((Some(Files::Remote(Box::new(files))), location)))
            }
            Follow::S3 { prefix } => {
                let Files::Remote(remote) = files else { return Ok(None) };
                let listed = block_on(remote.list_prefix(prefix, a.s3_list_page_size)).map_err(Failure::unreadable)?;
                let now = metadata_version(current);
                let newest = (0..listed.len())
                    .map(|i| listed.path(i))
                    .filter(|p| is_metadata_file(p) && metadata_version(p) > now)
                    .max_by_key(|p| (metadata_version(p), p.to_string()));
                Ok(newest.map(|p| (None, p.to_string())))
            }
            Follow::Hint { url, dir } => {
                let hint = block_on(files.fetch(url))
                    .map_err(|e| Failure::Unreadable(format!("{e}: watching an https:// table needs version-hint.text beside its metadata files")))?;
                let hint = String::from_utf8_lossy(&hint).trim().to_string();
                if hint.is_empty() || hint.contains('/') || hint.len() > 200 {
                    return Err(Failure::Unreadable(format!("{url}: not a version hint")));
                }
                let name = if hint.bytes().all(|b| b.is_ascii_digit()) { format!("v{hint}.metadata.json") } else { hint };
                let path = format!("{dir}/{name}");
                Ok((path != current).then_some((None, path)))
            }
        }
    }
}

fn read_state(path: &str) -> Result<LiveState, Failure> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| Failure::Unreadable(format!("{path}: not a watch state file: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(LiveState::default()),
        Err(e) => Err(Failure::Unreadable(format!("{path}: {e}"))),
    }
}

/// Written beside and renamed over: a scheduler killed mid-write leaves the last whole state.
fn write_state(path: &str, state: &LiveState) -> Result<(), Failure> {
    let tmp = format!("{path}.tmp");
    let json = serde_json::to_vec(state).map_err(|e| Failure::Output(e.to_string()))?;
    std::fs::write(&tmp, json).and_then(|_| std::fs::rename(&tmp, path)).map_err(|e| Failure::Output(format!("{path}: {e}")))
}

/// `--once` without `--for`: the whole look, however many requests it makes, ends within this.
const ONCE_DEADLINE: Duration = Duration::from_secs(120);

pub fn watch(w: &Watch) -> Result<(), Failure> {
    let started = std::time::Instant::now();
    // The user's time, not each request's: a catalog that never answers ends the watch on time.
    match (w.for_ms, w.once) {
        (Some(ms), _) => icescope::source::transport::set_deadline(started + Duration::from_millis(ms), &format!("--for {}", seconds(ms))),
        (None, true) => icescope::source::transport::set_deadline(started + ONCE_DEADLINE, "--once (2 minutes)"),
        (None, false) => {}
    }
    let mut follow = Follow::of(w)?;
    let (mut files, mut loader, _) = open::open(&w.table.table)?;
    let table = w.table.table_ref(&loader.history);
    let options = LiveOptions { stall_after: w.stall_after };
    let mut state = match &w.state {
        Some(p) => read_state(p)?,
        None => LiveState::default(),
    };
    let mut alarms = 0;
    loop {
        let now = icescope::load::now_ms() as i64;
        let (mut events, next) = look(&loader.history, &table, &state, now, options);
        icescope::analysis::live::with_read(&mut events, loader.stats.files, loader.stats.bytes);
        state = next;
        let mut out = String::new();
        for e in &events {
            alarms += e.event.is_alarm() as usize;
            out += &match w.format {
                WatchFormat::Text => icescope::report::live::line(e),
                WatchFormat::Jsonl => icescope::report::live::jsonl(e),
            };
            out.push('\n');
        }
        print(&out)?;
        if let Some(p) = &w.state {
            write_state(p, &state)?;
        }
        let out_of_time = w.for_ms.is_some_and(|f| started.elapsed() + Duration::from_millis(w.every) > Duration::from_millis(f));
        if w.once || out_of_time || (w.stop_on_alarm && alarms > 0) {
            break;
        }
        std::thread::sleep(Duration::from_millis(w.every));
        let current = loader.history.metadata_file.clone();
        if let Some((new_files, path)) = follow.newer(w, &files, &current)? {
            if let Some(f) = new_files {
                files = f;
            }
            advance(&mut loader, &files, &path)?;
        }
    }
    // The process ends next: a day of history is not freed object by object.
    std::mem::forget(loader);
    if alarms > 0 {
        return Err(Failure::Alarms(alarms));
    }
    Ok(())
}

fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

fn advance(loader: &mut Loader, files: &Files, path: &str) -> Result<(), Failure> {
    block_on(loader.advance(files, &Inline, path, IN_FLIGHT)).map_err(Failure::unreadable)
}
