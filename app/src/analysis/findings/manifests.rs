//! One manifest per checkpoint: the Flink sink fast-appends and never merges.

use super::{Context, Finding, Severity};

/// Fires when the current snapshot's manifests grew by one per streaming commit over a run of at
/// least five commits with no rewrite in between.
pub(super) fn never_merged(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    let Some(cur) = h.current_index() else { return Vec::new() };
    let now = h.totals(cur);
    let (Some(manifests), exact) = (now.manifests, now.source.is_some_and(|s| s >= crate::model::CountSource::ManifestList)) else { return Vec::new() };
    // Walk back over Flink commits while each added a manifest.
    let mut run = 0usize;
    let mut i = cur;
    while i > 0 {
        let (Some(a), Some(b)) = (h.totals(i - 1).manifests, h.totals(i).manifests) else { break };
        if h.snapshots[i].flink.is_none() || b <= a {
            break;
        }
        run += 1;
        i -= 1;
    }
    if run < 5 || manifests < 6 {
        return Vec::new();
    }
    vec![Finding {
        kind: "manifests_never_merged",
        severity: if manifests >= 100 { Severity::Warning } else { Severity::Info },
        title: format!("{} manifests, one per checkpoint, never merged", manifests),
        snapshot_ids: vec![cx.id(i), cx.id(cur)],
        job_ids: h.snapshots[cur].flink.iter().map(|f| f.job_id.clone()).collect(),
        evidence: format!(
            "the last {run} streaming commits each added a manifest (now {} manifests{}{}) and none merged: a fast \
             append never does. Every query plans over all of them.",
            manifests,
            now.manifest_bytes.map(|b| format!(", {} KB", b / 1024)).unwrap_or_default(),
            if exact { "" } else { ", as the snapshot summaries state" }
        ),
        action: "Rewrite manifests hourly, after compaction.".into(),
        statement: cx.table.statement("rewrite_manifests", Some(String::new())),
    }]
}
