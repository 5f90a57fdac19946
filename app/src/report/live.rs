//! A watched table's events as people read them: one line each for the CLI's ticker and the app's
//! event list, and one JSON object per line for machines (`watch --format jsonl`).

pub use super::format::duration;
use super::format::thousands;
use crate::analysis::findings::TableRef;
use crate::analysis::live::{look_with, paces, Commit, Event, LiveOptions, LiveState, Made, Observed, WriterPace};
use crate::model::time::rfc3339_ms;
use crate::model::TableHistory;

use super::text::visible;

/// One look at the table: the events since `state` (every finding, worded, on the first look),
/// and the state to keep for the next.
pub fn look(history: &TableHistory, table: &TableRef, state: &LiveState, now_ms: i64, options: LiveOptions) -> (Vec<Observed>, LiveState) {
    let spans = crate::analysis::jobs::job_spans(history);
    let holding = super::findings::findings_with(history, table, &spans);
    look_with(history, state, now_ms, options, Made { spans: &spans, findings: &holding, paces: &paces(history) })
}

/// `job 3d02fc…` for a Flink job's writer key, the rest as they are.
fn writer(w: &str) -> String {
    match w.strip_prefix("job ") {
        Some(id) => format!("job {}", super::format::short_job(id)),
        None => w.to_string(),
    }
}

fn count(v: Option<u64>, one: &str, many: &str) -> Option<String> {
    v.map(|n| format!("{} {}", thousands(n), if n == 1 { one } else { many }))
}

fn commit(c: &Commit) -> String {
    let by = match (&c.job_id, c.checkpoint_id) {
        (Some(j), Some(cp)) if cp == crate::model::flink::END_OF_INPUT_CHECKPOINT => {
            format!("job {} (its end-of-input commit)", super::format::short_job(j))
        }
        (Some(j), Some(cp)) => format!("job {} checkpoint {cp}", super::format::short_job(j)),
        (Some(j), None) => format!("job {}", super::format::short_job(j)),
        (None, _) if c.writer == crate::model::Writer::Unknown => "a writer that names no engine".to_string(),
        (None, _) => c.writer.label().to_string(),
    };
    let added: Vec<String> = [
        count(c.added_data_files, "data file", "data files"),
        count(c.added_delete_files, "delete file", "delete files"),
        count(c.added_records, "record", "records"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let added = if added.is_empty() { String::new() } else { format!(": +{}", added.join(", +")) };
    format!("snapshot {} ({}) by {by}{added}, committed {}", c.snapshot_id, visible(&c.operation), rfc3339_ms(c.committed_ms))
}

fn pace(p: &WriterPace, now_ms: i64) -> String {
    let state = if p.finished {
        "finished".to_string()
    } else if p.replaced {
        "replaced by a later job".to_string()
    } else {
        format!("last commit {} ago", duration(now_ms.saturating_sub(p.last_commit_ms)))
    };
    let every = p.usual_interval_ms.map(|u| format!(", one every {}", duration(u))).unwrap_or_default();
    format!("{} ({} commits{every}; {state})", writer(&p.writer), thousands(p.commits as u64))
}

/// `job 3d02fc8b… last committed 4.2 s ago (one every 5.0 s)`: a writer in the live badge.
pub fn since_last(p: &WriterPace, now_ms: i64) -> String {
    let every = p.usual_interval_ms.map(|u| format!(" (one every {})", duration(u))).unwrap_or_default();
    format!("{} last committed {} ago{every}", writer(&p.writer), duration(now_ms.saturating_sub(p.last_commit_ms)))
}

/// The live event list's heading.
pub fn events_heading(events: usize, looks: u64) -> String {
    format!(
        "Live: {} event{} in {} look{}, newest first",
        thousands(events as u64),
        if events == 1 { "" } else { "s" },
        thousands(looks),
        if looks == 1 { "" } else { "s" }
    )
}

/// One line: the time the look ran, then what it saw.
pub fn line(o: &Observed) -> String {
    let what = match &o.event {
        Event::Watching { metadata_file, snapshots, current_snapshot_id, writers } => {
            let writers: Vec<String> = writers.iter().map(|p| pace(p, o.at_ms)).collect();
            format!(
                "watching {}: {} snapshots, current {}{}",
                visible(metadata_file),
                thousands(*snapshots as u64),
                current_snapshot_id.as_deref().unwrap_or("none"),
                if writers.is_empty() { String::new() } else { format!("; writers: {}", writers.join("; ")) }
            )
        }
        Event::Metadata { metadata_file, bytes, read_files, read_bytes } => {
            let read = match (read_files, read_bytes) {
                (Some(f), Some(b)) => format!("; read {} file{}, {}", thousands(*f as u64), if *f == 1 { "" } else { "s" }, super::text::bytes(*b)),
                _ => String::new(),
            };
            format!("new metadata file {}{}{read}", visible(metadata_file), bytes.map(|b| format!(" ({})", super::text::bytes(b))).unwrap_or_default())
        }
        Event::Commit(c) => format!("commit: {}", commit(c)),
        Event::Maintenance(c) => format!("maintenance: {}", commit(c)),
        Event::Expired { snapshots } => format!("{} snapshot{} expired from the table", thousands(*snapshots as u64), if *snapshots == 1 { "" } else { "s" }),
        Event::NewJob { job_id, first_checkpoint_id, restored_state, previous_job_id, previous_last_commit_ms } => {
            let from = match (first_checkpoint_id, restored_state) {
                (Some(c), true) => format!("starting at checkpoint {c}: it restored state (a savepoint or retained checkpoint)"),
                (Some(c), false) => format!("starting at checkpoint {c}: it restored no state"),
                (None, _) => "committing without checkpoint ids".to_string(),
            };
            let after = match (previous_job_id, previous_last_commit_ms) {
                (Some(p), Some(t)) => format!("; job {} last committed {}", super::format::short_job(p), rfc3339_ms(*t)),
                _ => String::new(),
            };
            format!("new Flink job {job_id}, {from}{after}")
        }
        Event::SecondWriter { job_ids, first_commit_ms } => format!(
            "two jobs writing at once: {} committed at {} while {} was still committing",
            job_ids.get(1).map(String::as_str).unwrap_or(""),
            rfc3339_ms(*first_commit_ms),
            job_ids.first().map(String::as_str).unwrap_or("")
        ),
        Event::Stalled { writer: w, last_commit_ms, usual_interval_ms, silent_ms } => format!(
            "STALLED: {} has not committed for {} (since {}), {:.0} times its usual {}",
            writer(w),
            duration(*silent_ms),
            rfc3339_ms(*last_commit_ms),
            *silent_ms as f64 / (*usual_interval_ms).max(1) as f64,
            duration(*usual_interval_ms)
        ),
        Event::Resumed { writer: w, last_commit_ms, commit_ms, gap_ms, by_job } => match by_job {
            Some(j) => format!(
                "resumed: job {} took over from {} at {}, {} after its last commit ({})",
                super::format::short_job(j),
                writer(w),
                rfc3339_ms(*commit_ms),
                duration(*gap_ms),
                rfc3339_ms(*last_commit_ms)
            ),
            None => format!("resumed: {} committed again at {}, after a gap of {}", writer(w), rfc3339_ms(*commit_ms), duration(*gap_ms)),
        },
        Event::Slowing { writer: w, recent_interval_ms, usual_interval_ms } => format!(
            "slowing: {} now commits every {} against its usual {} (backpressure or long checkpoints)",
            writer(w),
            duration(*recent_interval_ms),
            duration(*usual_interval_ms)
        ),
        Event::Steady { writer: w, recent_interval_ms, usual_interval_ms } => {
            format!("steady again: {} commits every {} (usual {})", writer(w), duration(*recent_interval_ms), duration(*usual_interval_ms))
        }
        Event::MetadataGrowth { bytes, bytes_per_hour, since_ms } => format!(
            "metadata.json is {}, growing {}/h since {}",
            super::text::bytes(*bytes),
            if *bytes_per_hour < 0 { format!("-{}", super::text::bytes(bytes_per_hour.unsigned_abs())) } else { super::text::bytes(*bytes_per_hour as u64) },
            rfc3339_ms(*since_ms)
        ),
        Event::Finding(f) => format!("[{}] {}: {}", f.severity.label(), visible(&f.title), visible(&f.evidence)),
        Event::FindingCleared { severity, title, .. } => format!("[{}] no longer holds: {}", severity.label(), visible(title)),
    };
    // Job ids, writer names and snapshot ids come from the table: the whole line is shown with its
    // control characters as `\u{…}`, so that none clears a terminal or forges a line (idempotent
    // over the parts already made visible).
    visible(&format!("{}  {what}", rfc3339_ms(o.at_ms)))
}

/// One JSON object per event, the time the look ran first (`at`, `at_ms`).
pub fn jsonl(o: &Observed) -> String {
    let mut v = serde_json::to_value(o).unwrap_or_default();
    if let Some(m) = v.as_object_mut() {
        m.insert("at".into(), serde_json::Value::String(rfc3339_ms(o.at_ms)));
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ticker_line_shows_control_characters_from_the_table_as_text() {
        let hostile = "\u{1b}[2J\u{1b}]0;owned\u{7}\nnew Flink job forged".to_string();
        let events = [
            Event::NewJob {
                job_id: hostile.clone(),
                first_checkpoint_id: Some(1),
                restored_state: false,
                previous_job_id: Some(hostile.clone()),
                previous_last_commit_ms: Some(0),
            },
            Event::SecondWriter { job_ids: vec![hostile.clone(), hostile.clone()], first_commit_ms: 0 },
            Event::Stalled { writer: format!("job {hostile}"), last_commit_ms: 0, usual_interval_ms: 1000, silent_ms: 5000 },
        ];
        for event in events {
            let l = line(&Observed { at_ms: 0, event });
            assert!(!l.chars().any(|c| c.is_control()), "{l:?}");
            assert!(l.contains("\\u{001b}") || l.contains("\\u{000a}"), "{l:?}");
        }
    }
}
