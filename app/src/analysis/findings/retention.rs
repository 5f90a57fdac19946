//! Snapshot count and metadata.json size against the table's own retention properties.

use super::{thousands, Context, Finding, FindingKind, Severity};

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
    vec![Finding {
        kind: FindingKind::Retention,
        facts: crate::analysis::findings::Facts::Worded,
        severity: if expirable >= 1000 || metadata_bytes >= 8 << 20 { Severity::Warning } else { Severity::Info },
        title: format!("{} snapshots, {} past the table's retention", thousands(n as u64), thousands(expirable as u64)),
        snapshot_ids: Vec::new(),
        job_ids: Vec::new(),
        evidence: format!(
            "{} snapshots are kept; {} are older than history.expire.max-snapshot-age-ms ({} h) at the newest commit. The \
             metadata.json is {} KB and is read on every load and rewritten on every commit.",
            thousands(n as u64),
            thousands(expirable as u64),
            max_age / 3_600_000,
            metadata_bytes / 1024
        ),
        action: "Expire snapshots on a schedule with the table's own properties (no arguments), and remove the files they free.".into(),
        statement: cx.table.statement(
            "expire_snapshots",
            newest.checked_sub(max_age).and_then(crate::analysis::sql::timestamp).map(|t| format!("older_than => {t}, retain_last => {}", min_keep.max(1))),
        ),
    }]
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
    let cp = match checkpoint {
        Some(crate::model::flink::END_OF_INPUT_CHECKPOINT) => "its end-of-input commit".to_string(),
        Some(c) => format!("checkpoint {c}"),
        None => "its last commit".to_string(),
    };
    vec![Finding {
        kind: FindingKind::RestorePointExpiry,
        facts: crate::analysis::findings::Facts::Worded,
        severity: if expirable { Severity::Warning } else { Severity::Info },
        title: if expirable {
            format!("Job {}'s last committed checkpoint is past the retention", Context::short(&job.job_id))
        } else {
            format!("Job {}'s last committed checkpoint passes the retention at {}", Context::short(&job.job_id), crate::model::time::rfc3339_ms(at))
        },
        snapshot_ids: vec![cx.id(last), cx.id(cur)],
        job_ids: vec![job.job_id.clone()],
        evidence: format!(
            "snapshot {} carries {cp} of job {}; {} commit{} by others followed it. With history.expire.max-snapshot-age-ms {} h \
             and min-snapshots-to-keep {min_keep}, expire_snapshots {}. A restore of this job from a savepoint or checkpoint \
             walks back from the current snapshot for its flink.max-committed-checkpoint-id: without this snapshot it finds \
             none and commits the restored checkpoints again (apache/iceberg#5846), duplicating their rows.",
            cx.id(last),
            Context::short(&job.job_id),
            thousands(newer as u64),
            if newer == 1 { "" } else { "s" },
            max_age / 3_600_000,
            if expirable { "now removes it".to_string() } else { format!("removes it from {}", crate::model::time::rfc3339_ms(at)) },
        ),
        action: "Resume or finish the job before its restore point expires (its next commit carries the id forward), or keep \
                 more snapshots: retain_last past the commits made since."
            .into(),
        statement: cx.table.statement("expire_snapshots", Some(format!("retain_last => {}", newer.saturating_add(1).max(min_keep)))),
    }]
}
