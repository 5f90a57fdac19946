//! The growth projection in words, for the Markdown, the terminal, the app's panel and the chart's
//! labels: each series as "now" and "after a day (+what the day adds)", and the manifests as the
//! writer's merging leaves them. The chart's labels are the sentence's own phrases, so the two
//! cannot disagree.

use super::format::{bytes_precise as bytes, thousands};
use crate::analysis::merge::{Setting, Stated, MERGE_ENABLED, MIN_COUNT_TO_MERGE, TARGET_SIZE_BYTES};
use crate::analysis::merge_simulation::{Ended, Held, MergedSize};
use crate::analysis::projection::{DaySeries, ManifestModel, Merging, Projection, Start, Unmerged};

/// One series as the chart draws it and the sentence says it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub label: &'static str,
    /// In the chart's unit (KB for the metadata.json).
    pub now: f64,
    pub after: f64,
    /// The fewest and the most over the day, where merging makes the count swing.
    pub swing: Option<(f64, f64)>,
    /// Where a merged manifest's size is bracketed: the most with it as large as all it folds.
    pub up_to: Option<f64>,
    /// "now 19"
    pub now_text: String,
    /// "after a day 17,273 (+17,254)", or "over the day 1–99, 53 at its end"
    pub after_text: String,
}

fn whole(v: f64) -> String {
    thousands(v.max(0.0).round() as u64)
}

fn signed(v: f64, f: impl Fn(f64) -> String) -> String {
    if v < 0.0 {
        format!("−{}", f(-v))
    } else {
        format!("+{}", f(v))
    }
}

/// Whether the manifests swing with merges over the day rather than add up.
fn merged(p: &Projection) -> Option<&Merging> {
    match &p.manifest_model {
        ManifestModel::Merging(m) if std::iter::once(&m.run).chain(&m.at_most).any(|r| r.merges_by_count.saturating_add(r.merges_by_size) > 0) => Some(m),
        _ => None,
    }
}

fn after(s: &DaySeries, f: &dyn Fn(f64) -> String) -> String {
    format!("after a day {} ({})", f(s.total_after_a_day), signed(s.added_in_a_day, f))
}

/// The chart's rows, top to bottom: snapshots, manifests, data files, delete files, and the
/// metadata.json where its sizes are known.
pub fn rows(p: &Projection) -> Vec<Row> {
    let d = &p.day;
    let count = |label, s: &DaySeries| Row {
        label,
        now: s.now,
        after: s.total_after_a_day,
        swing: None,
        up_to: None,
        now_text: format!("now {}", whole(s.now)),
        after_text: after(s, &whole),
    };
    let mut manifests = count("manifests", &d.manifests);
    if let (Some(m), Some(w)) = (merged(p), d.manifests.over_the_day) {
        // Where the merged size is bracketed, the numbers are the lower run's, and the swing
        // reaches up to the upper run's most.
        let most = (m.run.most as f64).max(w.fewest);
        manifests.swing = Some((w.fewest, most));
        manifests.up_to = (w.most > most).then_some(w.most);
        let up_to = manifests.up_to.map(|u| format!(" (up to {})", whole(u))).unwrap_or_default();
        manifests.after_text = format!("over the day {}–{}{up_to}, {} at its end", whole(w.fewest), whole(most), whole(d.manifests.total_after_a_day));
    }
    let mut r = vec![count("snapshots", &d.snapshots), manifests, count("data files", &d.data_files), count("delete files", &d.delete_files)];
    if let Some(m) = &d.metadata_json_bytes {
        r.push(Row {
            label: "metadata.json",
            now: m.now / 1024.0,
            after: m.total_after_a_day / 1024.0,
            swing: None,
            up_to: None,
            now_text: format!("now {}", bytes(m.now)),
            after_text: after(m, &bytes),
        });
    }
    r
}

pub fn sentence(p: &Projection) -> String {
    let c = &p.per_commit;
    let written = match &p.manifest_model {
        // What each commit writes, not the window's net: a merge in the window is not a trend.
        ManifestModel::Merging(m) if m.start == Start::List => (m.new_data_manifests.len() + m.new_delete_manifests.len()) as f64,
        _ => c.manifests,
    };
    let series: Vec<String> = rows(p)
        .into_iter()
        .map(|r| {
            let load = if r.label == "metadata.json" { ", read on every load" } else { "" };
            format!("{} {} now, {}{load}", r.label, r.now_text.trim_start_matches("now "), r.after_text)
        })
        .collect();
    format!(
        "Over the last {} commits of job {} (one every {:.1} s), each commit added {:.1} manifests, {:.1} data files and {:.1} delete files{}. \
         A day at that rate is {} commits: {}. {}",
        p.commits,
        p.job_id,
        p.interval_ms / 1000.0,
        written,
        c.data_files,
        c.delete_files,
        c.metadata_json_bytes.map(|b| format!(", and the metadata.json grew {:.1} KB", b / 1024.0)).unwrap_or_default(),
        thousands(p.commits_in_a_day),
        series.join("; "),
        manifests(p),
    )
}

fn source(stated: Stated) -> &'static str {
    match stated {
        Stated::Default => "Iceberg's default",
        Stated::Table => "a table property",
        Stated::Unparsable => "Iceberg's default, the table's value not being a number",
    }
}

/// "commit.manifest.min-count-to-merge 100 and commit.manifest.target-size-bytes 8388608, Iceberg's defaults"
fn settings(min: &Setting<i64>, target: &Setting<i64>) -> String {
    let (a, b) = (format!("{MIN_COUNT_TO_MERGE} {}", min.value), format!("{TARGET_SIZE_BYTES} {}", target.value));
    match (min.stated, target.stated) {
        (Stated::Default, Stated::Default) => format!("{a} and {b}, Iceberg's defaults"),
        (Stated::Table, Stated::Table) => format!("{a} and {b}, table properties"),
        (x, y) => format!("{a}, {}; {b}, {}", source(x), source(y)),
    }
}

/// A size setting as people read it: "8 MB" where it is whole.
fn size(n: i64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// "a manifest of 7.5 KB holding 3 files"
fn manifest(what: &str, h: &Held) -> String {
    format!("a {what}manifest of {} holding {} file{}", bytes(h.bytes as f64), thousands(h.files), if h.files == 1 { "" } else { "s" })
}

/// How the manifests were projected, and what was assumed.
fn manifests(p: &Projection) -> String {
    let m = match &p.manifest_model {
        ManifestModel::Linear { why: Unmerged::MergingOff { stated } } => {
            return format!("Manifests add up, nothing merges them: merging is off ({MERGE_ENABLED} false, {}).", source(*stated));
        }
        ManifestModel::Linear { why: Unmerged::WriterDoesNotMerge { newest_bin, min_count } } => {
            return format!(
                "Manifests add up: merging is on, yet the newest {} manifests are past the {} that merge ({MIN_COUNT_TO_MERGE}), \
                 so the writer appends without merging (a fast append).",
                thousands(*newest_bin),
                min_count
            );
        }
        ManifestModel::Merging(m) => m,
    };
    let run = &m.run;
    let rule = format!(
        "a commit merges the newest bin once it holds {} manifests, and any other bin of two or more that fills {} ({})",
        m.min_count.value,
        size(m.target_bytes.value),
        settings(&m.min_count, &m.target_bytes),
    );
    let merges = run.merges_by_count.saturating_add(run.merges_by_size);
    let what = if merges == 0 {
        format!("The writer merges manifests, but none of the day's commits does: {rule}.")
    } else {
        format!(
            "Manifests do not add up, the writer merges them: {rule}. The day brings {} merge{} ({} by count, {} by size), the first {}.",
            thousands(merges),
            if merges == 1 { "" } else { "s" },
            thousands(run.merges_by_count),
            thousands(run.merges_by_size),
            match run.first_merge {
                Some(1) => "at the next commit".to_string(),
                Some(k) => format!("{} commits from now", thousands(k)),
                None => "later".to_string(),
            }
        )
    };
    let ended = match run.ended {
        Ended::Day => String::new(),
        Ended::Repeats { at_commit, period, full_per_period } if at_commit < run.commits => format!(
            " After {} commits the list is as it was {} commits before{}, so the rest of the day repeats that cycle.",
            thousands(at_commit),
            thousands(period),
            match full_per_period {
                0 => String::new(),
                1 => ", but for one more manifest too full to merge again".to_string(),
                k => format!(", but for {} more manifests too full to merge again", thousands(k)),
            }
        ),
        Ended::Repeats { .. } => String::new(),
        Ended::Bounded { simulated, manifests_per_commit } => format!(
            " The simulation stopped after {} of the day's commits; the rest are assumed to go on as the second half of those did \
             ({} manifests a commit).",
            thousands(simulated),
            signed(manifests_per_commit, |v| format!("{v:.3}"))
        ),
    };
    let how = match m.start {
        Start::Count => format!(
            "Simulated commit by commit from the current count alone (no manifest list at hand), by the count rule alone: sizes \
             are unknown, so merges by size are left out.{ended}"
        ),
        Start::List => {
            let (data, deletes) = (&m.new_data_manifests, &m.new_delete_manifests);
            let new: Vec<String> =
                data.iter().map(|h| manifest(if deletes.is_empty() { "" } else { "data " }, h)).chain(deletes.iter().map(|h| manifest("delete ", h))).collect();
            let size = match (m.merged_size, &m.at_most) {
                (_, Some(u)) => format!(
                    " The list cannot tell how large a merged manifest is where its manifests all hold as many files: these \
                     numbers take it as no larger than the largest it folds, less than it is; taken as large as all it folds, \
                     more than it is, {} merges by size would leave manifests too full to merge again, up to {} over the day \
                     and {} at its end. The truth lies between.",
                    thousands(u.merges_by_size),
                    thousands(u.most),
                    thousands(u.end)
                ),
                (MergedSize::Fitted { header_bytes, bytes_per_file }, None) => format!(
                    " A merged manifest is sized as the list's manifests are: {} and {} a file.",
                    bytes(header_bytes as f64),
                    bytes(bytes_per_file as f64)
                ),
                (_, None) => " The list cannot tell how large a merged manifest is where its manifests all hold as many files, but \
                              no larger than the largest it folds or as large as all of them, the day comes out the same."
                    .to_string(),
            };
            format!(
                "Simulated commit by commit from the current manifest list, each commit writing what the writer's last did ({}).{ended}{size}",
                new.join(" and ")
            )
        }
    };
    format!("{what} {how}")
}
