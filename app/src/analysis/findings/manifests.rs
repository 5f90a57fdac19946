//! Manifests that pile up one per commit. Every Flink sink commits through a merging producer
//! (`newAppend`, `newRowDelta`): it merges once `commit.manifest-merge.min-count-to-merge`
//! manifests are reached, unless the table turns merging off. Only a fast append never merges.

use super::{Context, Finding, Severity};

/// Job ids a finding names, at most: a hostile table may interleave thousands.
const MAX_JOBS: usize = 100;

/// The table's merge settings, with Iceberg's defaults where a property is absent or unreadable.
struct MergePolicy {
    enabled: bool,
    min_count: u64,
    /// Whether each value came from the table's properties (else Iceberg's default).
    stated: (bool, bool),
}

impl MergePolicy {
    fn of(cx: &Context<'_>) -> MergePolicy {
        let props = &cx.history.metadata.properties;
        let enabled = props.get("commit.manifest-merge.enabled").and_then(|v| v.trim().parse::<bool>().ok());
        let min_count = props.get("commit.manifest-merge.min-count-to-merge").and_then(|v| v.trim().parse::<u64>().ok());
        MergePolicy { enabled: enabled.unwrap_or(true), min_count: min_count.unwrap_or(100), stated: (enabled.is_some(), min_count.is_some()) }
    }

    fn describe(&self) -> String {
        let src = |stated: bool| if stated { "table property" } else { "Iceberg's default" };
        if self.enabled {
            format!("commit.manifest-merge.enabled true ({}), min-count-to-merge {} ({})", src(self.stated.0), self.min_count, src(self.stated.1))
        } else {
            format!("commit.manifest-merge.enabled false ({})", src(self.stated.0))
        }
    }
}

/// Fires when the current snapshot's manifests grew by one per streaming commit over a run of at
/// least five commits and merging will not bring them down: merging is off, or the count is past
/// the merge threshold (the writer fast-appends). Below the threshold a merge is due, not missing.
pub(super) fn never_merged(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    let Some(cur) = h.current_index() else { return Vec::new() };
    let now = h.totals(cur);
    let (Some(manifests), exact) = (now.manifests, now.source.is_some_and(|s| s >= crate::model::CountSource::ManifestList)) else { return Vec::new() };
    // Walk back over Flink commits while each added a manifest.
    let mut run = 0usize;
    let mut i = cur;
    let mut jobs: Vec<String> = Vec::new();
    while i > 0 {
        let (Some(a), Some(b)) = (h.totals(i - 1).manifests, h.totals(i).manifests) else { break };
        let Some(f) = &h.snapshots[i].flink else { break };
        if b <= a {
            break;
        }
        if !jobs.iter().any(|j| **j == *f.job_id) && jobs.len() < MAX_JOBS {
            jobs.push(f.job_id.to_string());
        }
        run += 1;
        i -= 1;
    }
    let policy = MergePolicy::of(cx);
    if run < 5 || manifests < 6 {
        return Vec::new();
    }
    jobs.reverse();
    if policy.enabled && manifests < policy.min_count {
        let left = policy.min_count - manifests;
        return vec![Finding {
            kind: "manifests_merge_pending",
            severity: Severity::Info,
            title: format!("{manifests} manifests, one per commit: merged when there are {}", policy.min_count),
            snapshot_ids: vec![cx.id(i), cx.id(cur)],
            job_ids: jobs,
            evidence: format!(
                "the last {run} streaming commits each added a manifest (now {manifests}{}). The writer commits with a \
                 merging append ({}): the commit that reaches {} manifests merges the small ones, about {left} commit{} from now.",
                if exact { "" } else { ", as the snapshot summaries state" },
                policy.describe(),
                policy.min_count,
                if left == 1 { "" } else { "s" }
            ),
            action: "Nothing: the merge is due. Rewrite manifests only if planning is slow before then.".into(),
            statement: None,
        }];
    }
    let why = if policy.enabled {
        format!(
            "merging is on ({}) and {} manifests are past that threshold, yet none merged: the writer appends with a \
             fast append, which never merges (every Flink sink merges; a fast-appending writer or a tool does not).",
            policy.describe(),
            manifests
        )
    } else {
        format!("merging is off ({}): no commit will ever merge them.", policy.describe())
    };
    vec![Finding {
        kind: "manifests_never_merged",
        severity: if manifests >= 100 { Severity::Warning } else { Severity::Info },
        title: format!("{} manifests, one per commit, never merged", manifests),
        snapshot_ids: vec![cx.id(i), cx.id(cur)],
        job_ids: jobs,
        evidence: format!(
            "the last {run} streaming commits each added a manifest (now {} manifests{}{}); {why} Every query plans over all of them.",
            manifests,
            now.manifest_bytes.map(|b| format!(", {} KB", b / 1024)).unwrap_or_default(),
            if exact { "" } else { ", as the snapshot summaries state" }
        ),
        action: if policy.enabled {
            "Rewrite manifests hourly, after compaction.".into()
        } else {
            "Turn merging back on (or rewrite manifests hourly, after compaction).".into()
        },
        statement: cx.table.statement("rewrite_manifests", Some(String::new())),
    }]
}
