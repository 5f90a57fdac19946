//! A watched table in a session: the next metadata file read into it, and the events each look
//! finds (`analysis::live`), kept for the view (the app's Live switch).

use std::collections::VecDeque;
use std::rc::Rc;

use std::sync::Arc;

use crate::analysis::jobs::job_spans;
use crate::analysis::live::{look_with, paces, LiveOptions, LiveState, Made, Observed, WriterPace};
use crate::load::decoder::Decoder;
use crate::report::findings::findings_with;
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
    /// The writers' paces the last look found, and the metadata file it read them from.
    paces: Option<(String, Vec<WriterPace>)>,
}

impl Live {
    pub fn view(&self, history: &crate::model::TableHistory) -> LiveView {
        let writers = match &self.paces {
            Some((file, p)) if *file == history.metadata_file => p.clone(),
            _ => paces(history),
        };
        LiveView { events: self.events.iter().cloned().collect(), writers, looked_ms: self.looked_ms, looks: self.looks }
    }
}

impl<F: Fetch, D: Decoder> TableSession<F, D> {
    /// Reads the table's newer metadata file `path` from `files` (the source as it lists now) into
    /// what is held, and what it adds. Snapshot indexes may move (expired snapshots): the footers
    /// read for one are dropped.
    pub async fn advance(&mut self, files: Rc<F>, path: &str) -> Result<(), String> {
        self.files = files;
        self.loader.advance(&*self.files, &self.dec, path).await.map_err(|e| e.to_string())?;
        self.summaries = super::summaries_of(&self.loader.history);
        self.footers = None;
        self.asked = true;
        Ok(())
    }

    /// One look at the table as held now: its events join the list, and are returned.
    pub fn look(&mut self, now_ms: i64, options: LiveOptions) -> Vec<Observed> {
        // Settled first: the look's findings are the ones the answer after it shows.
        self.loader.history.settle_batch();
        let table = self.table_ref();
        let history = &self.loader.history;
        // The report published after the look shows the same spans and findings: made once.
        let jobs = Arc::new(job_spans(history));
        let made = super::Analysed::of(history, findings_with(history, &table, &jobs), jobs);
        let writers = paces(history);
        let live = self.live.get_or_insert_with(Live::default);
        let (mut events, next) = look_with(history, &live.state, now_ms, options, Made { spans: &made.jobs, findings: &made.findings, paces: &writers });
        live.paces = Some((history.metadata_file.clone(), writers));
        crate::analysis::live::with_read(&mut events, self.loader.stats.files, self.loader.stats.bytes);
        live.state = next;
        live.looked_ms = now_ms;
        live.looks += 1;
        for e in &events {
            live.events.push_front(e.clone());
        }
        live.events.truncate(KEPT_EVENTS);
        self.analysed = Some(made);
        self.asked = true;
        events
    }

    /// Watches from a state an earlier watch left (`icescope watch --state`).
    pub fn watch_from(&mut self, state: LiveState) {
        self.live.get_or_insert_with(Live::default).state = state;
    }

    /// What the next watch needs to go on from here.
    pub fn watch_state(&self) -> LiveState {
        self.live.as_ref().map(|l| l.state.clone()).unwrap_or_default()
    }

    /// Stops watching: the events are dropped with it.
    pub fn stop_watching(&mut self) {
        self.live = None;
        self.asked = true;
    }
}
