//! Reads kept in flight across the loader's batches: a batch that waited for its slowest read
//! before the next began left the browser idle for seconds over a day of 17,280 manifests.

use std::future::Future;
use std::pin::Pin;

use futures::stream::{FuturesUnordered, StreamExt};

use super::Loader;
use crate::model::Need;
use crate::source::{Fetch, SourceError};

type Arrival<'f> = Pin<Box<dyn Future<Output = (Need, Result<Vec<u8>, SourceError>)> + 'f>>;

/// Up to `parallel` reads in flight; each arrival is decoded as it comes, and the plan is asked
/// for more at once, so the source never waits for the page between batches.
pub struct Pump<'f, F: Fetch> {
    files: &'f F,
    parallel: usize,
    inflight: FuturesUnordered<Arrival<'f>>,
    since_settle: usize,
}

impl<'f, F: Fetch> Pump<'f, F> {
    pub fn new(files: &'f F, parallel: usize) -> Self {
        Pump { files, parallel: parallel.max(1), inflight: FuturesUnordered::new(), since_settle: 0 }
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
            Some((need, bytes)) => {
                loader.deliver(&need, bytes);
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
        if room == 0 {
            return;
        }
        for need in loader.history.next_needs(room) {
            let path = loader.own_path(self.files, need.path());
            let files = self.files;
            self.inflight.push(Box::pin(async move {
                let bytes = files.fetch(&path).await;
                (need, bytes)
            }));
        }
    }
}
