//! Manifests that pile up one per commit: a merge due, or none coming.

use super::Words;
use crate::analysis::findings::{ManifestsMergePending, ManifestsNeverMerged, NotMerging};
use crate::analysis::merge::{Forecast, MergeCause, MergePolicy, Setting, Stated, MERGE_ENABLED, MIN_COUNT_TO_MERGE, TARGET_SIZE_BYTES};
use crate::decode::ManifestContent;
use crate::report::format::{bytes_setting, thousands};

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
        bytes_setting(p.target_bytes.value),
        source(p.target_bytes.stated)
    )
}

/// "about 65 commits from now, by count: …" for the earliest merge forecast.
fn when(f: &Forecast, p: &MergePolicy, new_bytes: u64) -> String {
    let what = if f.content == ManifestContent::Deletes { "delete manifests" } else { "manifests" };
    let commits = if f.commits == 1 { "the next commit".to_string() } else { format!("{} commits from now", thousands(f.commits)) };
    match f.cause {
        MergeCause::Count => format!("{commits} the newest bin reaches {} {what} and that commit merges them into one", p.min_count.value),
        MergeCause::Size => format!(
            "about {commits} the newest bin of {what} fills the {} target (at about {} KB a manifest) and the commit after it merges its {} {what}",
            bytes_setting(p.target_bytes.value),
            new_bytes.div_ceil(1024),
            f.merged
        ),
        MergeCause::Older => format!("{commits} merges {} older {what} that already fill a bin", f.merged),
    }
}

fn as_summaries_state(from_summaries: bool) -> &'static str {
    if from_summaries {
        ", as the snapshot summaries state"
    } else {
        ""
    }
}

pub(super) fn merge_pending(f: &ManifestsMergePending) -> Words {
    let manifests = f.manifests;
    Words {
        title: match f.forecast.commits {
            1 => format!("{manifests} manifests, one per commit: the next commit merges them"),
            k => format!("{manifests} manifests, one per commit: merged in {}{} commits", if f.forecast.assumed_size { "about " } else { "" }, thousands(k)),
        },
        evidence: format!(
            "the last {} streaming commits each added a manifest (now {manifests}{}). The writer commits with a \
             merging append ({}): {}.",
            f.run,
            as_summaries_state(f.from_summaries),
            describe(&f.policy),
            when(&f.forecast, &f.policy, f.new_manifest_bytes)
        ),
        action: "Nothing: the merge is due. Rewrite manifests only if planning is slow before then.".into(),
    }
}

pub(super) fn never_merged(f: &ManifestsNeverMerged) -> Words {
    let why = match f.why {
        NotMerging::Off => format!("merging is off ({}): no commit will ever merge them.", describe(&f.policy)),
        NotMerging::FastAppend => format!(
            "merging is on ({}) and the newest manifests are past that count, yet none merged: the writer appends with a \
             fast append, which never merges (every Flink sink merges; a fast-appending writer or a tool does not).",
            describe(&f.policy)
        ),
        NotMerging::NoTwoFit => format!(
            "merging is on ({}), but no two of these manifests fit one {} bin, so no commit merges them.",
            describe(&f.policy),
            bytes_setting(f.policy.target_bytes.value)
        ),
    };
    Words {
        title: format!("{} manifests, one per commit, never merged", f.manifests),
        evidence: format!(
            "the last {} streaming commits each added a manifest (now {} manifests{}{}); {why} Every query plans over all of them.",
            f.run,
            f.manifests,
            f.manifest_bytes.map(|b| format!(", {} KB", b / 1024)).unwrap_or_default(),
            as_summaries_state(f.from_summaries)
        ),
        action: if f.policy.enabled.value {
            "Rewrite manifests hourly, after compaction.".into()
        } else {
            "Turn merging back on (or rewrite manifests hourly, after compaction).".into()
        },
    }
}
