//! Reads kept in flight across the loader's batches: a batch that waited for its slowest read
//! before the next began left the browser idle for seconds over a day of 17,280 manifests.

use std::future::Future;
use std::pin::Pin;

use futures::stream::{FuturesUnordered, StreamExt};

use super::decoder::Decoder;
use super::{Arrival, Loader};
use crate::model::Need;
use crate::source::Fetch;

type InFlight<'f> = Pin<Box<dyn Future<Output = Arrival> + 'f>>;

/// Up to `parallel` reads in flight; each is decoded as it arrives (by the decoder, off the page in
/// the browser) and absorbed, and the plan is asked for more at once, so the source never waits
/// for the page between batches.
pub struct Pump<'f, F: Fetch, D: Decoder> {
    files: &'f F,
    dec: &'f D,
    parallel: usize,
    inflight: FuturesUnordered<InFlight<'f>>,
    since_settle: usize,
    /// Reads are asked for only once this many can be (`refill_by`).
    refill: usize,
}

impl<'f, F: Fetch, D: Decoder> Pump<'f, F, D> {
    pub fn new(files: &'f F, dec: &'f D, parallel: usize) -> Self {
        Pump { files, dec, parallel: parallel.max(1), inflight: FuturesUnordered::new(), since_settle: 0, refill: 1 }
    }

    /// Asks for reads `n` at a time: a source that sends the reads asked for together in one
    /// request (`icescope serve`'s batches) would otherwise send one a request as each arrives.
    pub fn refill_by(mut self, n: usize) -> Self {
        self.refill = n.clamp(1, self.parallel);
        self
    }

    /// Reads in flight now.
    pub fn in_flight(&self) -> usize {
        self.inflight.len()
    }

    /// Tops the reads up from the plan, waits for one to arrive and delivers it. False once the
    /// plan is complete and nothing is in flight.
    pub async fn next(&mut self, loader: &mut Loader) -> bool {
        self.fill(loader);
        match self.inflight.next().await {
            Some(arrival) => {
                loader.deliver(arrival);
                self.since_settle += 1;
                // Settling re-derives delete kinds over every snapshot: once per batch, not per file.
                if self.since_settle >= self.parallel * 4 {
                    self.since_settle = 0;
                    loader.history.settle_batch();
                }
                self.fill(loader);
                true
            }
            None => {
                loader.history.settle_batch();
                false
            }
        }
    }

    /// Starts as many reads as there is room for.
    pub fn fill(&mut self, loader: &mut Loader) {
        let room = self.parallel.saturating_sub(self.inflight.len());
        if room == 0 || (room < self.refill && !self.inflight.is_empty()) {
            return;
        }
        for need in loader.history.next_needs(room) {
            let path = loader.own_path(self.files, need.path());
            let ask = match &need {
                Need::Manifest { path, .. } => loader.history.manifest_ask(path),
                Need::ManifestList { .. } => Default::default(),
            };
            let (files, dec) = (self.files, self.dec);
            // A folder the decoder holds is read there: the bytes never pass through here.
            let folder = if dec.reads_folders() { files.in_folder(&path) } else { None };
            self.inflight.push(Box::pin(async move {
                let decoded = match folder {
                    Some(at) => super::read_arrival(dec, &need, ask, at, &path).await,
                    None => match files.fetch(&path).await {
                        Ok(bytes) => Ok(super::decode_arrival(dec, &need, ask, bytes).await),
                        Err(e) => Err(e),
                    },
                };
                Arrival { need, ask, decoded }
            }));
        }
    }
}
