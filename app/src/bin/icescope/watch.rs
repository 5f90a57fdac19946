//! `icescope watch`: the table looked at every few seconds. Each look reads the newest metadata
//! file (a catalog's LoadTable with the last ETag, a folder's `metadata/` listed again, an S3
//! prefix listed, or `version-hint.text` beside an https:// file) and, when it is new, only the
//! lists and manifests it adds; then the events since the last look are printed.

use std::time::Duration;

use futures::executor::block_on;
use icescope::analysis::live::{LiveOptions, LiveState};
use icescope::source::follow::{Follow, Follows};
use icescope::source::remote;

use super::args::{WatchArgs, WatchFormat};
use super::failure::{print, Failure};
use super::open::{self, Files};

/// What `watch` refuses before anything is read.
fn refused(w: &WatchArgs) -> Result<(), Failure> {
    let a = &w.table.table;
    if a.metadata.is_some() {
        return Err(Failure::usage("watch follows the newest metadata file; --metadata pins one: leave it out"));
    }
    if a.catalog.catalog.is_some() {
        open::catalog_identifier(a)?;
    } else if a.target.as_deref().is_some_and(remote::names_folder) {
        return Err(Failure::usage("an export prefix is a copy made once: watch the table itself (its folder, metadata URL or catalog)"));
    }
    Ok(())
}

impl Follows for Files {
    async fn newer(&self, current: &str, follow: &mut Follow) -> Result<Option<icescope::source::follow::Newer<Self>>, String> {
        match self {
            Files::Local(f) => Ok(f.newer(current, follow).await?.map(|n| n.map(Files::Local))),
            Files::Remote(f) => Ok(f.newer(current, follow).await?.map(|n| n.map(|f| Files::Remote(Box::new(f))))),
            Files::Listed(_) => Err("an export prefix is a copy made once".into()),
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

pub fn watch(w: &WatchArgs) -> Result<(), Failure> {
    let started = std::time::Instant::now();
    // The user's time, not each request's: a catalog that never answers ends the watch on time.
    match (w.for_ms, w.once) {
        (Some(ms), _) => icescope::source::transport::set_deadline(started + Duration::from_millis(ms), &format!("--for {}", seconds(ms))),
        (None, true) => icescope::source::transport::set_deadline(started + ONCE_DEADLINE, "--once (2 minutes)"),
        (None, false) => {}
    }
    refused(w)?;
    let a = &w.table.table;
    let mut s = open::open(a)?;
    s.name_table(w.table.table_ref(&s.loader.history));
    let reconnect = a.catalog.catalog.as_deref().map(|uri| open::options(&a.catalog, &a.s3(), uri)).transpose()?;
    let mut follow = Follow::new(a.s3_list_page_size, reconnect);
    if let Some(p) = &w.state {
        s.watch_from(read_state(p)?);
    }
    let options = LiveOptions { stall_after: w.stall_after };
    let mut alarms = 0;
    loop {
        let events = s.look(icescope::session::now_ms() as i64, options);
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
            write_state(p, &s.watch_state())?;
        }
        let out_of_time = w.for_ms.is_some_and(|f| started.elapsed() + Duration::from_millis(w.every) > Duration::from_millis(f));
        if w.once || out_of_time || (w.stop_on_alarm && alarms > 0) {
            break;
        }
        std::thread::sleep(Duration::from_millis(w.every));
        let current = s.loader.history.metadata_file.clone();
        if let Some(newer) = block_on(s.files.newer(&current, &mut follow)).map_err(Failure::Unreadable)? {
            let files = newer.files.map(std::rc::Rc::new).unwrap_or_else(|| s.files.clone());
            block_on(s.advance(files, &newer.path)).map_err(Failure::Unreadable)?;
        }
    }
    // The process ends next: a day of history is not freed object by object.
    std::mem::forget(s);
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
