//! Reading an open table until its plan is complete, for every front end: the app lends its clock,
//! its turn-taking with the page, its cancel and where answers are shown; the CLI lends a clock
//! and nothing else. How many reads are out at once is the source's to say (`Fetch::in_flight`).

use crate::load::decoder::Decoder;
use crate::load::{Loader, Pump};
use crate::source::Fetch;

use super::{Ask, TableSession};

/// What a front end lends the drive.
#[allow(async_fn_in_trait)] // used with concrete hosts only; no Send bound wanted in the browser
pub trait Host<F: Fetch, D: Decoder> {
    /// Milliseconds, for pacing (publishing, yielding) only.
    fn now_ms(&self) -> f64;
    /// The table is no longer the one shown (another was opened): stop at once, finish nothing.
    fn gone(&self) -> bool {
        false
    }
    /// The person stopped the read: why, as shown.
    fn cancelled(&self) -> Option<String> {
        None
    }
    /// Requests made since the last call.
    fn requests(&mut self) -> Vec<Ask> {
        Vec::new()
    }
    /// Shows the answer at this moment; `in_flight`: reads still out.
    fn publish(&mut self, _session: &mut TableSession<F, D>, _in_flight: usize) {}
    /// Shows how far the read is (cheap); `estimate`: what reading every snapshot would still
    /// cost is worth recomputing now.
    fn progress(&mut self, _session: &TableSession<F, D>, _loading: bool, _stopped: Option<String>, _estimate: bool) {}
    /// Lets the front end's other work run (the page paints and takes input).
    async fn yield_now(&mut self) {}
    /// The orphan census cannot be made: why.
    fn census_refused(&mut self, _why: String) {}
    /// Names a moment for the benchmark's timeline.
    fn mark(&self, _name: &str) {}
}

/// How a drive ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Everything the plan asked for was read (or failed); the last answer is published.
    Complete,
    /// Stopped by the person: what was read until then is published.
    Stopped(String),
    /// The table is no longer shown: nothing more was published.
    Gone,
}

/// Publishing again within this says nothing new often enough to pay for the re-render.
const FIRST_PUBLISH_EVERY_MS: f64 = 3_000.0;
/// The progress line is updated at most this often: each update lays the page out.
const PROGRESS_EVERY_MS: f64 = 250.0;
/// Reads stay in flight while the front end gets its turn this often.
const YIELD_EVERY_MS: f64 = 25.0;

/// Reads until the plan is complete, the host stops it, or the table is no longer shown, serving
/// the host's requests between reads. `first`: the table has just been opened and nothing of it
/// is shown yet: what its metadata says is published before any read goes out.
pub async fn drive<F: Fetch, D: Decoder + Clone, H: Host<F, D>>(s: &mut TableSession<F, D>, host: &mut H, first: bool) -> Ended {
    let files = s.files.clone();
    let dec = s.dec.clone();
    let current = s.loader.history.current_index();
    let mut detail_published = current.is_some_and(|c| s.loader.history.counts(c).is_some());
    // The lists read while the current snapshot's manifests are not: every chart but the
    // partitions is final then, and is shown at once.
    let mut lists_published = s.loader.history.lists_settled();
    let mut last_publish = host.now_ms();
    let mut last_progress = 0.0;
    let mut publish_every = FIRST_PUBLISH_EVERY_MS;
    let mut last_yield = host.now_ms();
    let mut stopped = None;
    let mut sizes_recorded = s.loader.history.metadata_sizes.len() > 1 || s.loader.history.metadata.metadata_log.is_empty();
    host.progress(s, true, None, false);
    let in_flight = files.in_flight();
    let mut pump = Pump::new(&*files, &dec, in_flight.reads).refill_by(in_flight.refill);
    // Measured on a 17,280-snapshot folder: reads in flight during the first layout made the
    // first chart no sooner and the load no faster.
    if first {
        host.publish(s, pump.in_flight());
        host.mark("icescope:phase:published");
        host.yield_now().await;
        host.mark("icescope:phase:yielded");
        host.progress(s, true, None, true);
        host.mark("icescope:phase:estimated");
        host.yield_now().await;
    }
    let mut delivered = 0usize;
    let mut published_revision = s.loader.history.revision();
    loop {
        if host.gone() {
            return Ended::Gone;
        }
        if let Some(why) = host.cancelled() {
            stopped = Some(why);
            break;
        }
        for r in host.requests() {
            s.request(r);
        }
        if !pump.next(&mut s.loader).await {
            break;
        }
        delivered += 1;
        // Once the first reads are in: by then the first chart is on screen.
        if !sizes_recorded && delivered >= in_flight.reads {
            sizes_recorded = true;
            record_metadata_sizes(&*files, &mut s.loader, host).await;
        }
        if host.gone() {
            return Ended::Gone;
        }
        let now = host.now_ms();
        if now - last_progress > PROGRESS_EVERY_MS {
            host.progress(s, true, None, false);
            last_progress = now;
        }
        let detail_done = current.is_some_and(|c| s.loader.history.counts(c).is_some());
        // Between two completed lists a report says what the last one said: redrawing every view
        // for it cost a 17,280-manifest read seconds and showed nothing new. A walk, comparison or
        // selection asked for is shown at the next publish, changed or not.
        let changed = s.asked() || s.loader.history.revision() != published_revision;
        let lists_done = !lists_published && s.loader.history.lists_settled();
        if lists_done || (changed && ((detail_done && !detail_published) || now - last_publish > publish_every)) {
            detail_published |= detail_done;
            lists_published |= lists_done;
            s.loader.history.settle_batch();
            host.publish(s, pump.in_flight());
            published_revision = s.loader.history.revision();
            last_publish = host.now_ms();
            // Re-rendering every view costs more as the table grows: keep it under a tenth of the time.
            publish_every = ((last_publish - now) * 10.0).max(FIRST_PUBLISH_EVERY_MS);
        }
        if host.now_ms() - last_yield > YIELD_EVERY_MS {
            host.yield_now().await;
            last_yield = host.now_ms();
        }
    }
    drop(pump);
    if !sizes_recorded {
        record_metadata_sizes(&*files, &mut s.loader, host).await;
    }
    s.loader.history.settle_batch();
    // Once every snapshot's files are known, as the census waits for them.
    if s.loader.history.all_files_known().is_none() {
        host.mark("icescope:phase:census");
        if let Err(e) = files.list_for_census().await {
            host.census_refused(format!("the folder was not listed for the orphan census: {e}"));
        }
    }
    host.publish(s, 0);
    host.progress(s, false, stopped.clone(), true);
    match stopped {
        Some(why) => Ended::Stopped(why),
        None => Ended::Complete,
    }
}

/// Sizes of the metadata log's files (the metadata.json strip under the growth chart), the host
/// given its turn in between: a picked file's size can take milliseconds.
async fn record_metadata_sizes<F: Fetch, D: Decoder, H: Host<F, D>>(files: &F, loader: &mut Loader, host: &mut H) {
    let log: Vec<String> = loader.history.metadata.metadata_log.iter().map(|e| e.metadata_file.clone()).collect();
    files.prepare_sizes(&log).await;
    host.mark("icescope:phase:sizes");
    let mut sizes = std::collections::HashMap::new();
    let mut last_yield = host.now_ms();
    for file in log {
        if let Some(b) = files.size_hint(&file) {
            sizes.insert(file, b);
        }
        if host.now_ms() - last_yield > YIELD_EVERY_MS {
            host.yield_now().await;
            last_yield = host.now_ms();
        }
    }
    let current = loader.history.metadata_sizes.last().map(|m| m.bytes).unwrap_or(0);
    loader.history.record_metadata_sizes(current, |f| sizes.get(f).copied());
}

/// The CLI's host: nothing to show until the end, no page to yield to, nothing to cancel.
pub struct Batch;

impl<F: Fetch, D: Decoder> Host<F, D> for Batch {
    fn now_ms(&self) -> f64 {
        crate::load::now_ms() as f64
    }
}

/// Reads the plan through, as the CLI does.
pub async fn read_all<F: Fetch, D: Decoder + Clone>(s: &mut TableSession<F, D>) {
    drive(s, &mut Batch, false).await;
}
