//! A duplicate-key count as each surface words it: the summary sentence, the bytes fetched and
//! why they can pass the files' size, and the whole report for a terminal or a ticket.

use super::text::{code, text as md, thousands, visible};
use crate::analysis::duplicates::DuplicateReport;

/// `snapshot 42, key id: 9 live rows (…), 7 distinct keys, 2 keys present more than once`,
/// key names as given (escape them for where they are shown).
pub fn summary(r: &DuplicateReport, names: &dyn Fn(&str) -> String) -> String {
    format!(
        "snapshot {}, key {}: {} live rows ({} in the files, {} deleted), {} distinct keys{}, {} keys present more than once{}",
        r.snapshot_id.0,
        names(&r.key_columns.join(", ")),
        thousands(r.rows),
        thousands(r.rows_in_files),
        thousands(r.rows_deleted),
        thousands(r.distinct_keys),
        if r.exact { "" } else { " (estimated)" },
        r.duplicated_keys.map(thousands).unwrap_or_else(|| "(not counted)".into()),
        if r.cancelled { " — cancelled: partial counts" } else { "" }
    )
}

/// Files read and bytes fetched; where a server sent whole files, that it did and what it cost.
pub fn fetched(r: &DuplicateReport) -> String {
    let mut out = format!("read {} files, {} bytes fetched of {} in them", thousands(r.files_read), thousands(r.bytes_fetched), thousands(r.bytes_in_files));
    if r.whole_file_answers > 0 {
        out += &format!(
            "; the server answered {} ranged request{} with the whole file (it ignores Range), so each footer and key column cost a whole file",
            thousands(r.whole_file_answers),
            if r.whole_file_answers == 1 { "" } else { "s" }
        );
    }
    out
}

/// One delete's hit: `deletion_vector d.puffin → a.parquet: 3 rows`.
pub fn hit(h: &crate::model::live_rows::DeleteHit, names: &dyn Fn(&str) -> String) -> String {
    format!(
        "{} {} → {}: {} rows{}",
        h.kind,
        names(&h.delete_file),
        names(&h.data_file),
        thousands(h.rows),
        if h.applies { "" } else { " (does not apply: not live, or newer than the delete)" }
    )
}

/// The split of duplicated keys by the jobs that added their copies: `12 keys: 1× by a…, 1× by b…`.
pub fn split(s: &crate::analysis::duplicates::JobSplit, names: &dyn Fn(&str) -> String) -> String {
    let jobs = s.copies_by_job.iter().map(|(j, n)| format!("{n}× by {}", names(j))).collect::<Vec<_>>().join(", ");
    format!("{} keys: {jobs}", thousands(s.keys))
}

/// The duplicate count for a terminal or a ticket.
pub fn text(r: &DuplicateReport, markdown: bool) -> String {
    let esc = |s: &str| if markdown { md(s) } else { visible(s) };
    let job = |s: &str| if markdown { code(s) } else { visible(s) };
    let item = if markdown { "- " } else { "  " };
    let mut out = String::new();
    if markdown {
        out += "## Duplicate keys, counted\n\n";
    }
    out += &format!("{}\n", summary(r, &esc));
    if let Some(e) = &r.estimate {
        out += &format!("{}\n", esc(e));
    }
    for s in &r.by_jobs {
        out += &format!("{item}{}\n", split(s, &job));
    }
    out += &format!("{}\n", esc(&fetched(r)));
    if !r.delete_hits.is_empty() {
        out += if markdown { "\n### What deletes hit\n\n" } else { "what deletes hit:\n" };
        for h in &r.delete_hits {
            out += &format!("{item}{}\n", hit(h, &esc));
        }
    }
    out
}
