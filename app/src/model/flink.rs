//! The keys Flink's Iceberg sink writes into every snapshot summary it commits.


use serde::Serialize;

pub const JOB_ID: &str = "flink.job-id";
pub const OPERATOR_ID: &str = "flink.operator-id";
pub const MAX_COMMITTED_CHECKPOINT_ID: &str = "flink.max-committed-checkpoint-id";

/// A bounded job's final flush commits under Long.MAX_VALUE instead of a checkpoint id.
pub const END_OF_INPUT_CHECKPOINT: i64 = i64::MAX;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlinkCommit {
    pub job_id: String,
    pub operator_id: Option<String>,
    pub checkpoint_id: Option<i64>,
}

impl FlinkCommit {
    /// None unless the summary carries a Flink job id: other keys alone prove nothing.
    pub fn from_summary(summary: &crate::decode::Summary) -> Option<FlinkCommit> {
        let job_id = summary.get(JOB_ID)?.to_string();
        Some(FlinkCommit {
            job_id,
            operator_id: summary.get(OPERATOR_ID).map(str::to_string),
            checkpoint_id: summary.get(MAX_COMMITTED_CHECKPOINT_ID).and_then(|c| c.trim().parse().ok()),
        })
    }

    pub fn is_end_of_input(&self) -> bool {
        self.checkpoint_id == Some(END_OF_INPUT_CHECKPOINT)
    }
}
