//! A watched table in a session: the next metadata file read into it, and the events each look
//! finds (`analysis::live`), kept for the view (the app's Live switch).

use std::collections::VecDeque;
use std::rc::Rc;

use crate::analysis::live::{look, paces, LiveOptions, LiveState, Observed, WriterPace};
use crate::load::decoder::Decoder;
use crate::source::Fetch;

use super::TableSession;

/// Events kept for the list, newest first: a day of 5 s commits would be 17,280.
pub const KEPT_EVENTS: usize = 500;

/// What the view shows of the watch: the events (newest first), each writer's pace, and when the
/// last look ran.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveView {
    pub events: Vec<Observed>,
    pub writers: Vec<WriterPace>,
    pub looked_ms: i64,
    /// Looks taken.
    pub looks: u64,
}

#[derive(Default)]
pub struct Live {
    state: LiveState,
    events: VecDeque<Observed>,
    looked_ms: i64,
    looks: u64,
}

impl Live {
    pub fn view(&self, history: &crate::model::TableHistory) -> LiveView {
        LiveView { events: self.events.iter().cloned().collect(), writers: paces(history), looked_ms: self.looked_ms, looks: self.looks }
    }
}

impl<F: Fetch, D: Decoder> TableSession<F, D> {
    /// Reads the table's newer metadata file `path` from `files` (the source as it lists now) into
    /// what is held, and what it adds. Snapshot indexes may move (expired snapshots): the footers
    /// read for one are dropped.
    pub async fn advance(&mut self, files: Rc<F>, path: &str, parallel: usize) -> Result<(), String> {
        self.files = files;
        self.loader.advance(&*self.files, &self.dec, path, parallel).await.map_err(|e| e.to_string())?;
        self.summaries = super::summaries_of(&self.loader.history);
        self.footers = None;
        self.asked = true;
        Ok(())
    }

    /// One look at the table as held now: its events join the list.
    pub fn look(&mut self, now_ms: i64, options: LiveOptions) {
        let table = self.table_ref();
        let live = self.live.get_or_insert_with(Live::default);
        let (mut events, next) = look(&self.loader.history, &table, &live.state, now_ms, options);
        crate::analysis::live::with_read(&mut events, self.loader.stats.files, self.loader.stats.bytes);
        live.state = next;
        live.looked_ms = now_ms;
        live.looks += 1;
        for e in events {
            live.events.push_front(e);
        }
        live.events.truncate(KEPT_EVENTS);
        self.asked = true;
    }

    /// Stops watching: the events are dropped with it.
    pub fn stop_watching(&mut self) {
        self.live = None;
        self.asked = true;
    }
}
