//! Manifests that pile up one per commit. Every Flink sink commits through a merging producer
//! (`newAppend`, `newRowDelta`), which merges by the rule `analysis::merge` forecasts: by count
//! (`commit.manifest.min-count-to-merge`) or by size (`commit.manifest.target-size-bytes`), unless
//! the table turns merging off. Only a fast append never merges.

use super::{Context, Finding, FindingKind, Severity};
use crate::analysis::merge::{read_list, Forecast, MergeCause, MergePolicy, Setting, Stated, MERGE_ENABLED, MIN_COUNT_TO_MERGE, TARGET_SIZE_BYTES};
use crate::decode::ManifestContent;

/// Job ids a finding names, at most: a hostile table may interleave thousands.
const MAX_JOBS: usize = 100;

fn source(stated: Stated) -> &'static str {
    match stated {
        Stated::Default => "Iceberg's default",
        Stated::Table => "table property",
        Stated::Unparsable => "Iceberg's default; the table's value is not a number, and a merging commit fails on it",
    }
}

/// `commit.manifest-merge.enabled true (Iceberg's default), commit.manifest.min-count-to-merge 100 (…), …`
fn describe(p: &MergePolicy) -> String {
    let Setting { value: on, stated } = p.enabled;
    if !on {
        return format!("{MERGE_ENABLED} false ({})", source(stated));
    }
    format!(
        "{MERGE_ENABLED} true ({}), {MIN_COUNT_TO_MERGE} {} ({}), {TARGET_SIZE_BYTES} {} ({})",
        source(stated),
        p.min_count.value,
        source(p.min_count.stated),
        bytes(p.target_bytes.value),
        source(p.target_bytes.stated)
    )
}

fn bytes(n: i64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// "about 65 commits from now, by count: …" for the earliest merge forecast.
fn when(f: &Forecast, p: &MergePolicy, new_bytes: u64) -> String {
    let what = if f.content == ManifestContent::Deletes { "delete manifests" } else { "manifests" };
    let commits = if f.commits == 1 { "the next commit".to_string() } else { format!("{} commits from now", super::thousands(f.commits)) };
    match f.cause {
        MergeCause::Count => format!("{commits} the newest bin reaches {} {what} and that commit merges them into one", p.min_count.value),
        MergeCause::Size => format!(
            "about {commits} the newest bin of {what} fills the {} target (at about {} KB a manifest) and the commit after it merges its {} {what}",
            bytes(p.target_bytes.value),
            new_bytes.div_ceil(1024),
            f.merged
        ),
        MergeCause::Older => format!("{commits} merges {} older {what} that already fill a bin", f.merged),
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
        let title = match f.commits {
            1 => format!("{manifests} manifests, one per commit: the next commit merges them"),
            k => format!("{manifests} manifests, one per commit: merged in {}{} commits", if f.assumed_size { "about " } else { "" }, super::thousands(k)),
        };
        return vec![Finding {
            kind: FindingKind::ManifestsMergePending,
            facts: crate::analysis::findings::Facts::Worded,
            severity: Severity::Info,
            title,
            snapshot_ids: vec![cx.id(i), cx.id(cur)],
            job_ids: jobs,
            evidence: format!(
                "the last {run} streaming commits each added a manifest (now {manifests}{}). The writer commits with a \
                 merging append ({}): {}.",
                if exact { "" } else { ", as the snapshot summaries state" },
                describe(&policy),
                when(&f, &policy, new_bytes)
            ),
            action: "Nothing: the merge is due. Rewrite manifests only if planning is slow before then.".into(),
            statement: None,
        }];
    }
    let why = if !on {
        format!("merging is off ({}): no commit will ever merge them.", describe(&policy))
    } else if past {
        format!(
            "merging is on ({}) and the newest manifests are past that count, yet none merged: the writer appends with a \
             fast append, which never merges (every Flink sink merges; a fast-appending writer or a tool does not).",
            describe(&policy)
        )
    } else {
        format!(
            "merging is on ({}), but no two of these manifests fit one {} bin, so no commit merges them.",
            describe(&policy),
            bytes(policy.target_bytes.value)
        )
    };
    vec![Finding {
        kind: FindingKind::ManifestsNeverMerged,
        facts: crate::analysis::findings::Facts::Worded,
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
        action: if on {
            "Rewrite manifests hourly, after compaction.".into()
        } else {
            "Turn merging back on (or rewrite manifests hourly, after compaction).".into()
        },
        statement: cx.table.statement("rewrite_manifests", Some(String::new())),
    }]
}
