//! Small files beyond one per partition (the fleet score).

use std::collections::BTreeSet;

use crate::decode::DataContent;

use super::{thousands, Context, Finding, FindingKind, Severity};

pub(super) fn small_files(cx: &Context<'_>) -> Vec<Finding> {
    let Some(cur) = cx.history.current_index() else { return Vec::new() };
    let files: Vec<_> = cx.history.live_files(cur).into_iter().filter(|f| f.file.content == DataContent::Data).collect();
    let partitions: BTreeSet<String> = files.iter().map(|f| partition_key(f.partition_spec_id, &f.file.partition)).collect();
    let score = files.len().saturating_sub(partitions.len());
    if files.is_empty() || score < 10 {
        return Vec::new();
    }
    let bytes: u64 = files.iter().map(|f| u64::try_from(f.file.file_size_in_bytes).unwrap_or(0)).fold(0, u64::saturating_add);
    let avg = bytes / files.len() as u64;
    let partial = cx.partial_note(cur);
    vec![Finding {
        kind: FindingKind::SmallFiles,
        severity: if score >= 1000 { Severity::Warning } else { Severity::Info },
        title: format!("{}{} data files beyond one per partition", if partial.is_empty() { "" } else { "At least " }, thousands(score as u64)),
        snapshot_ids: vec![cx.id(cur)],
        job_ids: Vec::new(),
        evidence: format!(
            "{} live data files in {} partitions (fleet score {}), {} bytes each on average: {}{partial}",
            thousands(files.len() as u64),
            partitions.len(),
            thousands(score as u64),
            thousands(avg),
            if cx.streaming() {
                "a streaming writer leaves a file per partition touched per checkpoint."
            } else {
                "each write leaves at least a file per partition it touches, and small writes leave small files."
            }
        ),
        action: if cx.streaming() {
            "Compact hourly with partial progress, scoped to the partitions the writer fills (and a wider pass for late data).".into()
        } else {
            "Compact with partial progress after the writes, scoped to the partitions they touched.".into()
        },
        statement: cx.table.statement("rewrite_data_files", Some("options => map('partial-progress.enabled', 'true')".into())),
    }]
}

pub(super) fn partition_key(spec: i32, values: &[(std::sync::Arc<str>, crate::decode::PartitionValue)]) -> String {
    let v: Vec<String> = values.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{spec}:{}", v.join("/"))
}
