//! Snapshot count and metadata.json size against the table's own retention properties.

use serde::Serialize;

use super::{Context, Facts, Finding, FindingKind, Severity};
use crate::decode::SnapshotId;

/// The snapshots kept and the metadata file against the table's retention properties.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Retention {
    pub snapshots: u64,
    /// Snapshots older than the maximum age at the newest commit, beyond those always kept.
    pub expirable: u64,
    pub max_snapshot_age_ms: i64,
    /// The newest metadata.json's size.
    pub metadata_bytes: u64,
}

/// The most recent job's restore point (the snapshot with its last committed checkpoint) against
/// the retention.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RestorePointExpiry {
    pub job_id: String,
    pub snapshot_id: SnapshotId,
    /// The checkpoint the snapshot commits (`END_OF_INPUT_CHECKPOINT` for end of input), if any.
    pub checkpoint_id: Option<i64>,
    /// Commits by others after it.
    pub commits_after: u64,
    pub max_snapshot_age_ms: i64,
    pub min_snapshots_to_keep: u64,
    /// Whether expire_snapshots removes it now.
    pub expirable: bool,
    /// When it becomes old enough to expire.
    pub expires_at_ms: i64,
}

const DEFAULT_MAX_AGE_MS: i64 = 5 * 86_400_000;

pub(super) fn retention(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    let props = &h.metadata.properties;
    let max_age = props.get("history.expire.max-snapshot-age-ms").and_then(|v| v.parse().ok()).unwrap_or(DEFAULT_MAX_AGE_MS);
    let min_keep: usize = props.get("history.expire.min-snapshots-to-keep").and_then(|v| v.parse().ok()).unwrap_or(1);
    let Some(newest) = h.snapshots.iter().map(|s| s.snapshot.timestamp_ms).max() else { return Vec::new() };
    let n = h.snapshots.len();
    // Expirable as of the newest commit, not of today: the finding must not change with the clock.
    let Some(cutoff_ms) = newest.checked_sub(max_age) else { return Vec::new() };
    let expirable = h.snapshots.iter().take(n.saturating_sub(min_keep)).filter(|s| s.snapshot.timestamp_ms < cutoff_ms).count();
    let metadata_bytes = h.metadata_sizes.last().map(|m| m.bytes).unwrap_or(0);
    if expirable == 0 && metadata_bytes < 1 << 20 {
        return Vec::new();
    }
    let facts = Retention { snapshots: n as u64, expirable: expirable as u64, max_snapshot_age_ms: max_age, metadata_bytes };
    vec![Finding::new(
        FindingKind::Retention,
        if expirable >= 1000 || metadata_bytes >= 8 << 20 { Severity::Warning } else { Severity::Info },
        Facts::Retention(facts),
        Vec::new(),
        Vec::new(),
        cx.table.statement(
            "expire_snapshots",
            newest.checked_sub(max_age).and_then(crate::analysis::sql::timestamp).map(|t| format!("older_than => {t}, retain_last => {}", min_keep.max(1))),
        ),
    )]
}

/// The snapshot that carries a job's last `flink.max-committed-checkpoint-id` is what its sink reads
/// on restore (walking back from the current snapshot). Once other commits follow it, retention can
/// expire it; a restore then finds no committed checkpoint and commits the restored ones again
/// (apache/iceberg#5846). Warned for the most recent job, the one a restore would bring back.
pub(super) fn restore_point_expiry(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    let Some(job) = cx.jobs.iter().max_by_key(|j| j.last_commit_ms) else { return Vec::new() };
    let (Some(cur), last) = (h.current_index(), job.last_index()) else { return Vec::new() };
    if last >= cur {
        return Vec::new(); // its commit is the current snapshot, which expiry never removes
    }
    let props = &h.metadata.properties;
    let max_age = props.get("history.expire.max-snapshot-age-ms").and_then(|v| v.parse::<i64>().ok()).unwrap_or(DEFAULT_MAX_AGE_MS);
    let min_keep: usize = props.get("history.expire.min-snapshots-to-keep").and_then(|v| v.parse().ok()).unwrap_or(1);
    let Some(newest) = h.snapshots.iter().map(|s| s.snapshot.timestamp_ms).max() else { return Vec::new() };
    let at = h.snapshots[last].snapshot.timestamp_ms.saturating_add(max_age);
    let newer = h.snapshots.len() - 1 - last;
    let expirable = newest >= at && newer >= min_keep;
    let checkpoint = h.snapshots[last].flink.as_ref().and_then(|f| f.checkpoint_id);
    let facts = RestorePointExpiry {
        job_id: job.job_id.clone(),
        snapshot_id: cx.id(last),
        checkpoint_id: checkpoint,
        commits_after: newer as u64,
        max_snapshot_age_ms: max_age,
        min_snapshots_to_keep: min_keep as u64,
        expirable,
        expires_at_ms: at,
    };
    vec![Finding::new(
        FindingKind::RestorePointExpiry,
        if expirable { Severity::Warning } else { Severity::Info },
        Facts::RestorePointExpiry(facts),
        vec![cx.id(last), cx.id(cur)],
        vec![job.job_id.clone()],
        cx.table.statement("expire_snapshots", Some(format!("retain_last => {}", newer.saturating_add(1).max(min_keep)))),
    )]
}
