//! What was read and how each number was had: the sentences of the app's read status, the
//! Markdown's load lines and the terminal's, made once.

use super::text::{mb, thousands};
use crate::analysis::inspect::{LoadInfo, LoadMode};

/// Where Spark read the table instead of icescope.
pub const READ_BY_SPARK: &str =
    "Read by Spark (icescope spark-export): every snapshot's manifest counts from all_manifests, the current snapshot's files from entries.";

/// Where a table was opened from Spark's export: its data files are elsewhere.
pub const DATA_NOT_HERE: &str = "Spark read this table: its data files are not in an export folder. Open the table's own folder or catalog to read them.";

/// What waits for the current snapshot's manifests once every list is read (the progress line
/// counts them as they come; a report is not redrawn for each).
pub fn files_wait(w: &crate::model::FilesWait) -> String {
    format!(
        "Every chart and finding is final except the partitions, small files, late files and dangling deletes: they are counted from {} once all are read.",
        current_manifests(w)
    )
}

/// `the current snapshot's 17,280 manifests`.
pub fn current_manifests(w: &crate::model::FilesWait) -> String {
    match w.manifests {
        Some(total) => format!("the current snapshot's {} manifest{}", thousands(total as u64), if total == 1 { "" } else { "s" }),
        None => "the current snapshot's manifests".to_string(),
    }
}

/// How the numbers per snapshot were had: `3 counted from manifests, 12 from manifest lists (a
/// sample of 10 across the history), 985 as the snapshot summaries state`.
pub fn count_sources(l: &LoadInfo) -> String {
    let mut parts = Vec::new();
    if l.counted_from_manifests > 0 {
        parts.push(format!("{} counted from manifests", thousands(l.counted_from_manifests as u64)));
    }
    if l.counted_from_manifest_lists > 0 {
        let sample = if l.sampled > 0 { format!(" (a sample of {} across the history)", thousands(l.sampled as u64)) } else { String::new() };
        parts.push(format!("{} from manifest lists{sample}", thousands(l.counted_from_manifest_lists as u64)));
    }
    if l.from_summaries > 0 {
        parts.push(format!("{} as the snapshot summaries state", thousands(l.from_summaries as u64)));
    }
    if l.unknown > 0 {
        parts.push(format!("{} unknown", thousands(l.unknown as u64)));
    }
    if parts.is_empty() {
        parts.push("none (the table has no snapshots)".into());
    }
    let by = if l.mode == LoadMode::SparkExport { format!("{READ_BY_SPARK} ") } else { String::new() };
    format!("{by}Numbers per snapshot: {}.", parts.join(", "))
}

/// Files and bytes read so far, by kind, against what the manifest lists declare for the
/// manifests: the two numbers compared are of the same files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadProgress {
    pub files_done: usize,
    pub files_queued: usize,
    pub metadata_bytes: u64,
    pub list_bytes: u64,
    pub manifest_bytes: u64,
    /// `manifest_length` of every manifest queued, as its list states it.
    pub manifest_bytes_declared: u64,
}

impl ReadProgress {
    pub fn bytes(&self) -> u64 {
        self.metadata_bytes.saturating_add(self.list_bytes).saturating_add(self.manifest_bytes)
    }
}

/// What each phase of the read took, from the reader's start: `metadata 1 file, 16.4 MB by
/// 0.42 s; manifest lists …; 103 HTTP requests`. None before anything was timed (a Spark export).
pub fn phases_line(l: &LoadInfo) -> Option<String> {
    if l.phases.is_empty() {
        return None;
    }
    let mut parts: Vec<String> = l
        .phases
        .iter()
        .map(|p| {
            let name = p.phase.replace('_', " ");
            let files = if p.files == 1 { "1 file".to_string() } else { format!("{} files", thousands(p.files as u64)) };
            let by = p.done_s.map(|s| format!(" by {s:.2} s")).unwrap_or_default();
            format!("{name} {files}, {}{by}", mb(p.bytes))
        })
        .collect();
    if let Some(r) = l.requests {
        parts.push(format!("{} HTTP requests", thousands(r)));
    }
    Some(parts.join("; "))
}

/// `120 of 480 files read · 214 MB: metadata.json 190 MB, manifest lists 3.1 MB, manifests 21 of 88 MB`.
pub fn progress_line(p: &ReadProgress) -> String {
    let manifests = if p.manifest_bytes_declared > 0 {
        format!("manifests {} of {} their lists declare", mb(p.manifest_bytes), mb(p.manifest_bytes_declared))
    } else {
        format!("manifests {}", mb(p.manifest_bytes))
    };
    format!(
        "{} of {} files read · {}: metadata.json {}, manifest lists {}, {manifests}",
        thousands(p.files_done as u64),
        thousands(p.files_queued as u64),
        mb(p.bytes()),
        mb(p.metadata_bytes),
        mb(p.list_bytes)
    )
}

/// The offer to read every snapshot's manifests, with what it costs.
pub fn full_history_offer(files: u64, bytes: u64, exact: bool) -> String {
    format!(
        "counts every snapshot from its manifests: {} more files, {}{}. Until then, snapshots between the sampled ones show what their summaries state.",
        thousands(files),
        if exact { "" } else { "about " },
        mb(bytes)
    )
}

/// Above the list of files that could not be read: what the snapshots needing them show instead.
pub fn gaps_heading(n: usize) -> String {
    format!(
        "{} file{} could not be read — a snapshot that needs one shows its manifest list's counts where that list was read, \
         else its summary's (the snapshot table's “from” column says which)",
        thousands(n as u64),
        if n == 1 { "" } else { "s" }
    )
}

/// Snapshots a file that could not be read leaves uncounted, in the same words on every surface
/// (`needed by snapshot 12`, `needed by snapshots 12, 13 and 40 more`), at most `NAMED` of them
/// named; `id` dresses each (backticks in Markdown).
pub fn needed_by<T: std::fmt::Display>(ids: &[T], id: impl Fn(String) -> String) -> String {
    const NAMED: usize = 20;
    let shown: Vec<String> = ids.iter().take(NAMED).map(|s| id(s.to_string())).collect();
    let more = ids.len().saturating_sub(NAMED);
    let rest = if more > 0 { format!(" and {} more", thousands(more as u64)) } else { String::new() };
    format!("needed by snapshot{} {}{rest}", if ids.len() == 1 { "" } else { "s" }, shown.join(", "))
}

/// One summary total the files contradict, as every surface says it.
pub fn disagreement_line(x: &crate::analysis::inspect::DisagreementRow) -> String {
    format!("snapshot {}: {} — summary says {}, the {} say {}", x.snapshot_id, x.field, x.summary, x.counted_from.label(), x.counted)
}

/// Above the summaries the files contradict.
pub fn disagreements_heading(n: usize) -> String {
    format!("{} snapshot total{} disagree with the files read — a writer bug or a damaged file", thousands(n as u64), if n == 1 { "" } else { "s" })
}

/// Under a chart: how many snapshots' numbers came from where (`snapshots: 54 counted from
/// manifests · 17,226 from snapshot summaries (dots: counted from files)`); nothing when every
/// one was counted from its manifests.
pub fn chart_sources_note(series: &crate::analysis::GrowthSeries) -> Option<String> {
    use crate::model::CountSource;
    let s = series.sources();
    if s.len() < 2 && s.first().is_none_or(|(src, _)| *src == Some(CountSource::Manifests)) {
        return None;
    }
    let part = |(src, n): &(Option<CountSource>, usize)| {
        let n = thousands(*n as u64);
        match src {
            Some(CountSource::Manifests) => format!("{n} counted from manifests"),
            Some(CountSource::ManifestList) => format!("{n} from manifest lists"),
            Some(CountSource::Summary) => format!("{n} as the snapshot summaries state"),
            None => format!("{n} unknown"),
        }
    };
    Some(format!("snapshots: {} (dots: counted from files)", s.iter().map(part).collect::<Vec<_>>().join(" · ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_compares_manifests_with_what_their_lists_declare() {
        let p = ReadProgress {
            files_done: 120,
            files_queued: 480,
            metadata_bytes: 190 << 20,
            list_bytes: 3 << 20,
            manifest_bytes: 21 << 20,
            manifest_bytes_declared: 88 << 20,
        };
        assert_eq!(
            progress_line(&p),
            "120 of 480 files read · 214 MB: metadata.json 190 MB, manifest lists 3.0 MB, manifests 21 MB of 88 MB their lists declare"
        );
    }
}
