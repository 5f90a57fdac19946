//! Growth per snapshot: the live counts a streaming writer piles up, on the axis a person thinks in.

use serde::Serialize;

use crate::decode::{Operation, SnapshotId};
use crate::model::{CountSource, PackedTotals, TableHistory, Totals};

/// Flink tables are read by checkpoint id; everything else by commit order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum XAxis {
    CommitOrder,
    CheckpointId,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GrowthPoint {
    /// Position in commit order (0-based).
    pub index: usize,
    /// The checkpoint id, where the snapshot was committed by Flink.
    pub checkpoint_id: Option<i64>,
    /// Shared with the history: a day of commits names the same few jobs 17,280 times.
    pub job_id: Option<std::sync::Arc<str>>,
    /// Not text: a day of commits keeps 17,280 points per published report.
    pub snapshot_id: SnapshotId,
    pub committed_at_ms: i64,
    pub operation: Operation,
    /// The best numbers known: counted, else from the manifest list, else the summary's totals.
    /// Packed: a day of commits keeps 17,280 points per published report (`totals()` unpacks).
    #[serde(rename = "totals")]
    pub packed: PackedTotals,
    /// Size of the metadata.json this commit wrote, when that file is among the table's files.
    pub metadata_json_bytes: Option<u64>,
    /// Sequence numbers skipped just before this snapshot: commits expired since (v2+).
    pub expired_before: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GrowthSeries {
    pub axis: XAxis,
    pub points: Vec<GrowthPoint>,
}

impl GrowthPoint {
    pub fn totals(&self) -> Totals {
        self.packed.unpack()
    }
}

impl GrowthSeries {
    pub fn of(history: &TableHistory) -> GrowthSeries {
        let axis = if history.has_flink_commits() { XAxis::CheckpointId } else { XAxis::CommitOrder };
        let mut prev_seq: Option<i64> = None;
        let sizes: std::collections::HashMap<i64, u64> = history.metadata_sizes.iter().map(|m| (m.timestamp_ms, m.bytes)).collect();
        let points = history
            .snapshots
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let seq = s.snapshot.sequence_number;
                let expired_before = match prev_seq.and_then(|p| seq.checked_sub(p)) {
                    Some(gap) if gap > 1 && history.metadata.format_version >= 2 => (gap - 1) as u64,
                    _ => 0,
                };
                prev_seq = Some(seq);
                (i, s, expired_before)
            })
            .map(|(i, s, expired_before)| GrowthPoint {
                index: i,
                checkpoint_id: s.flink.as_ref().and_then(|f| f.checkpoint_id),
                job_id: s.flink.as_ref().map(|f| f.job_id.clone()),
                snapshot_id: s.snapshot.snapshot_id,
                committed_at_ms: s.snapshot.timestamp_ms,
                operation: s.snapshot.operation.clone(),
                packed: PackedTotals::pack(&history.totals(i)),
                metadata_json_bytes: sizes.get(&s.snapshot.timestamp_ms).copied(),
                expired_before,
            })
            .collect();
        GrowthSeries { axis, points }
    }

    /// Distinct job ids in order of first commit.
    pub fn job_ids(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.points.iter().filter_map(|p| p.job_id.as_ref()).filter(|j| seen.insert(&***j)).map(|j| j.to_string()).collect()
    }

    /// How many points take their numbers from each source: a chart says what it drew.
    pub fn sources(&self) -> Vec<(Option<CountSource>, usize)> {
        let mut by: std::collections::BTreeMap<Option<CountSource>, usize> = Default::default();
        for p in &self.points {
            *by.entry(p.packed.source()).or_default() += 1;
        }
        by.into_iter().rev().collect()
    }
}

/// Where each point sits on the x axis, and how that position is labelled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct XPosition {
    pub x: f64,
    pub label: String,
}

impl GrowthSeries {
    /// Checkpoint tables: x = checkpoint id; a commit without one (a Spark rewrite, say) sits just
    /// after the checkpoint before it, and the end-of-input commit (Long.MAX_VALUE) one step past
    /// the last real checkpoint, so that it is labelled rather than stretching the axis to 9.2e18.
    /// Charts need only these numbers: 17,280 labels are text nobody draws.
    pub fn x_values(&self) -> Vec<f64> {
        if self.axis == XAxis::CommitOrder {
            return self.points.iter().map(|p| p.index as f64 + 1.0).collect();
        }
        let eoi = crate::model::flink::END_OF_INPUT_CHECKPOINT;
        // Each job's end-of-input commit sits one past that job's own last checkpoint.
        let mut last_by_job: std::collections::HashMap<Option<&str>, i64> = std::collections::HashMap::new();
        for p in &self.points {
            if let Some(c) = p.checkpoint_id.filter(|&c| c != eoi) {
                let e = last_by_job.entry(p.job_id.as_deref()).or_insert(0);
                *e = (*e).max(c);
            }
        }
        let last_real = |job: &Option<std::sync::Arc<str>>| last_by_job.get(&job.as_deref()).copied().unwrap_or(0);
        let mut prev = 0.0_f64;
        let mut between = 0;
        self.points
            .iter()
            .map(|p| match p.checkpoint_id {
                Some(c) => {
                    prev = if c == eoi { last_real(&p.job_id) as f64 + 1.0 } else { c as f64 };
                    between = 0;
                    prev
                }
                None => {
                    between += 1;
                    prev + 0.25 * f64::from(between.min(3))
                }
            })
            .collect()
    }

    /// `x_values`, each with the label the chart's axis gives it (exports carry both).
    pub fn x_positions(&self) -> Vec<XPosition> {
        let eoi = crate::model::flink::END_OF_INPUT_CHECKPOINT;
        let mut checkpoint_x = 0.0_f64;
        self.x_values()
            .into_iter()
            .zip(&self.points)
            .map(|(x, p)| {
                let label = match (self.axis, p.checkpoint_id) {
                    (XAxis::CommitOrder, _) => format!("#{}", p.index + 1),
                    (XAxis::CheckpointId, Some(c)) => {
                        checkpoint_x = x;
                        if c == eoi {
                            "end of input".into()
                        } else {
                            format!("cp {c}")
                        }
                    }
                    (XAxis::CheckpointId, None) => format!("{} after cp {}", p.operation, checkpoint_x),
                };
                XPosition { x, label }
            })
            .collect()
    }
}
