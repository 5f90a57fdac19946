//! The keys Flink's Iceberg sink writes into every snapshot summary it commits.

use serde::Serialize;

pub const JOB_ID: &str = "flink.job-id";
pub const OPERATOR_ID: &str = "flink.operator-id";
pub const MAX_COMMITTED_CHECKPOINT_ID: &str = "flink.max-committed-checkpoint-id";

/// A bounded job's final flush commits under Long.MAX_VALUE instead of a checkpoint id.
pub const END_OF_INPUT_CHECKPOINT: i64 = i64::MAX;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FlinkCommit {
    pub job_id: std::sync::Arc<str>,
    pub operator_id: Option<std::sync::Arc<str>>,
    pub checkpoint_id: Option<i64>,
}

impl FlinkCommit {
    /// The same ids, sharing `other`'s copies where they are equal.
    pub fn sharing(mut self, other: &FlinkCommit) -> FlinkCommit {
        if self.job_id == other.job_id {
            self.job_id = other.job_id.clone();
        }
        if let (Some(a), Some(b)) = (&self.operator_id, &other.operator_id) {
            if a == b {
                self.operator_id = Some(b.clone());
            }
        }
        self
    }

    /// None unless the summary carries a Flink job id: other keys alone prove nothing.
    pub fn from_summary(summary: &crate::decode::Summary) -> Option<FlinkCommit> {
        let job_id: std::sync::Arc<str> = summary.get(JOB_ID)?.into();
        Some(FlinkCommit {
            job_id,
            operator_id: summary.get(OPERATOR_ID).map(Into::into),
            checkpoint_id: summary.get(MAX_COMMITTED_CHECKPOINT_ID).and_then(|c| c.trim().parse().ok()),
        })
    }

    pub fn is_end_of_input(&self) -> bool {
        self.checkpoint_id == Some(END_OF_INPUT_CHECKPOINT)
    }
}
