//! Manifests that pile up one per commit. Every Flink sink commits through a merging producer
//! (`newAppend`, `newRowDelta`), which merges by the rule `analysis::merge` forecasts: by count
//! (`commit.manifest.min-count-to-merge`) or by size (`commit.manifest.target-size-bytes`), unless
//! the table turns merging off. Only a fast append never merges.

use serde::Serialize;

use super::{Context, Facts, Finding, FindingKind, Severity};
use crate::analysis::merge::{read_list, Forecast, MergeCause, MergePolicy};
use crate::decode::ManifestContent;

/// Manifests that grew one per streaming commit, with a merge due.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestsMergePending {
    pub manifests: u64,
    /// The streaming commits in a row that each added a manifest.
    pub run: u64,
    /// Whether the counts are the snapshot summaries' (the manifest list was not read).
    pub from_summaries: bool,
    pub policy: MergePolicy,
    /// The earliest merge.
    pub forecast: Forecast,
    /// The size of a manifest a commit adds, as the forecast assumes it (0 without the list).
    pub new_manifest_bytes: u64,
}

/// Manifests that grew one per streaming commit and that no commit will merge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestsNeverMerged {
    pub manifests: u64,
    pub run: u64,
    pub from_summaries: bool,
    pub manifest_bytes: Option<u64>,
    pub policy: MergePolicy,
    pub why: NotMerging,
}

/// Why no commit merges them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NotMerging {
    /// The table turns merging off.
    Off,
    /// The newest manifests are past the merge count, yet none merged: the writer fast-appends.
    FastAppend,
    /// No two of them fit one bin of the target size.
    NoTwoFit,
}

/// Job ids a finding names, at most: a hostile table may interleave thousands.
const MAX_JOBS: usize = 100;

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
    let policy = MergePolicy::of(&h.metadata.properties);
    if run < 5 || manifests < 6 {
        return Vec::new();
    }
    jobs.reverse();
    let on = policy.enabled.value;
    // With the list at hand the forecast packs its manifests by size as Iceberg does; from the
    // summaries alone only the count rule can be applied.
    let (past, next, new_bytes) = match h.list_of(cur) {
        Some(list) => {
            let r = read_list(list, &policy);
            (r.unmerged_newest_bin.is_some(), r.forecasts.into_iter().min_by_key(|f| f.commits), r.new_manifest_bytes)
        }
        None => {
            let min = u64::try_from(policy.min_count.value).unwrap_or(0);
            let next = (on && manifests < min).then(|| Forecast {
                content: ManifestContent::Data,
                commits: min - manifests,
                cause: MergeCause::Count,
                merged: min,
                assumed_size: false,
            });
            (on && manifests >= min, next, 0)
        }
    };
    if let (false, Some(f)) = (past, next.filter(|_| on)) {
        return vec![Finding::new(
            FindingKind::ManifestsMergePending,
            Severity::Info,
            Facts::ManifestsMergePending(ManifestsMergePending {
                manifests,
                run: run as u64,
                from_summaries: !exact,
                policy,
                forecast: f,
                new_manifest_bytes: new_bytes,
            }),
            vec![cx.id(i), cx.id(cur)],
            jobs,
            None,
        )];
    }
    let why = if !on {
        NotMerging::Off
    } else if past {
        NotMerging::FastAppend
    } else {
        NotMerging::NoTwoFit
    };
    vec![Finding::new(
        FindingKind::ManifestsNeverMerged,
        if manifests >= 100 { Severity::Warning } else { Severity::Info },
        Facts::ManifestsNeverMerged(ManifestsNeverMerged {
            manifests,
            run: run as u64,
            from_summaries: !exact,
            manifest_bytes: now.manifest_bytes,
            policy,
            why,
        }),
        vec![cx.id(i), cx.id(cur)],
        jobs,
        cx.table.statement("rewrite_manifests", Some(String::new())),
    )]
}
