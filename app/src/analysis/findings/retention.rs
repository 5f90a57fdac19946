//! Snapshot count and metadata.json size against the table's own retention properties.

use super::{thousands, Context, Finding, Severity};

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
        kind: "retention",
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
