//! *Before you resume*: each savepoint's verdict as a sentence, what to do instead, and the rows
//! for JSON, the terminal and the ticket's Markdown. One function words each verdict; the surfaces
//! only differ in how text from the files (paths, ids) is escaped.

mod render;
mod words;

pub use render::{behind, behind_sentence, markdown, section, text_report};
pub use words::{advice, facts, kind, removal, resume_sentence, summary};

use serde::Serialize;

use crate::analysis::savepoint::{Judged, SavepointRead, Verdict};
use crate::decode::flink_savepoint::committer::{PendingCheckpoint, SinkKind};
use crate::decode::flink_savepoint::properties::CheckpointProperties;

/// The JSON contract: one row per savepoint, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavepointReport {
    /// The table the verdicts were taken against (its metadata file), when one was given.
    pub table: Option<String>,
    pub savepoints: Vec<Row>,
    /// Savepoints that could not be read, with the error naming file and field.
    pub unreadable: Vec<Unreadable>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unreadable {
    pub path: String,
    pub error: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub savepoint: SavepointJson,
    pub committer: Option<CommitterJson>,
    pub verdict: Verdict,
    /// The verdict in one sentence, and what to do.
    pub summary: String,
    pub advice: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavepointJson {
    pub path: String,
    pub checkpoint_id: i64,
    pub format_version: u32,
    /// What Flink's checkpoint properties say it was (format 4 and later).
    pub properties: Option<CheckpointProperties>,
    /// The same in words: "a savepoint taken by stop-with-savepoint, canonical format".
    pub taken_as: String,
    pub operators: Vec<OperatorJson>,
    pub gaps: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperatorJson {
    pub operator_id: String,
    pub uid: Option<String>,
    pub name: Option<String>,
    pub parallelism: i32,
    pub max_parallelism: i32,
    pub state_names: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommitterJson {
    pub sink: SinkKind,
    /// The id the table's `flink.operator-id` carries for this committer.
    pub operator_id: Option<String>,
    /// The operator holding the state (FlinkSink: the same; sink v2: the `Committer` operator).
    pub state_operator_id: String,
    pub job_id: Option<String>,
    pub pending_checkpoints: Vec<PendingCheckpoint>,
}

/// The rows, in the order the verdicts come (newest first).
pub fn report(table: Option<&str>, reads: &[SavepointRead], verdicts: &[(usize, Verdict)], unreadable: Vec<Unreadable>) -> SavepointReport {
    let savepoints = verdicts
        .iter()
        .filter_map(|(i, v)| {
            let r = reads.get(*i)?;
            let m = &r.metadata;
            let matching = r.committers.iter().find(|c| c.table_operator_id() == v.operator_id.as_deref()).or(r.committers.first());
            Some(Row {
                savepoint: SavepointJson {
                    path: r.path.clone(),
                    checkpoint_id: m.checkpoint_id,
                    format_version: m.format_version,
                    properties: m.properties.clone(),
                    taken_as: taken_as(m.properties.as_ref()),
                    operators: m
                        .operators
                        .iter()
                        .map(|o| OperatorJson {
                            operator_id: o.operator_id.clone(),
                            uid: o.uid.clone(),
                            name: o.name.clone(),
                            parallelism: o.parallelism,
                            max_parallelism: o.max_parallelism,
                            state_names: o.state_names(),
                        })
                        .collect(),
                    gaps: m.gaps.clone(),
                },
                committer: matching.map(|c| CommitterJson {
                    sink: c.sink,
                    operator_id: c.table_operator_id().map(str::to_string),
                    state_operator_id: c.operator_id.clone(),
                    job_id: c.job_id.clone(),
                    pending_checkpoints: c.pending_checkpoints.clone(),
                }),
                summary: summary(v, &|s| s.to_string()),
                advice: advice(v, &|s| s.to_string()),
                verdict: v.clone(),
            })
        })
        .collect();
    SavepointReport { table: table.map(str::to_string), savepoints, unreadable }
}

/// The rows of savepoints a session judged against the table read from `table` (its metadata file).
pub fn of(j: &Judged, table: Option<&str>) -> SavepointReport {
    let unreadable = j.savepoints.unreadable.iter().map(|(path, error)| Unreadable { path: path.clone(), error: error.clone() }).collect();
    report(table, &j.savepoints.reads, &j.verdicts, unreadable)
}

/// What a savepoint's or checkpoint's properties say it was; empty where they were not read.
pub fn taken_as(p: Option<&CheckpointProperties>) -> String {
    let Some(p) = p else { return String::new() };
    let lower = |s: &Option<String>| s.as_deref().map(str::to_lowercase);
    if p.savepoint {
        let how = match p.post_checkpoint_action.as_deref() {
            Some("SUSPEND") => "by stop-with-savepoint",
            Some("TERMINATE") => "by stop-with-savepoint --drain",
            Some("NONE") => "while the job ran on",
            _ => "",
        };
        let format = lower(&p.format_type).map(|f| format!(", {f} format")).unwrap_or_default();
        format!("a savepoint{}{format}", if how.is_empty() { String::new() } else { format!(" taken {how}") })
    } else {
        let name = p.type_name.as_deref().filter(|n| *n != "Checkpoint").map(|n| format!(" ({})", n.to_lowercase())).unwrap_or_default();
        format!("a retained checkpoint{name}")
    }
}
