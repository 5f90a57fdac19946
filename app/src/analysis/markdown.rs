//! The report an on-call engineer pastes into an incident ticket.

use super::findings::thousands;
use super::inspect::Inspect;
use crate::model::CountSource;

/// Text from a table (names, paths, job ids, messages) as Markdown text: no HTML, no links, no
/// emphasis or table syntax, and no invisible characters. GitHub also links bare `https://…`,
/// `www.…` and e-mail addresses: an escaped `:`, `.` or `@` breaks each pattern and renders as itself.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        let after_www = out.len() >= 3 && out.as_bytes()[out.len() - 3..].eq_ignore_ascii_case(b"www");
        if (c == ':' && chars.as_str().starts_with("//")) || c == '@' || (c == '.' && after_www) {
            out.push('\\');
            out.push(c);
            continue;
        }
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' | '*' | '_' | '[' | ']' | '~' | '`' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if invisible(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// For a terminal: invisible characters (ESC, CR, LF, NUL, bidi overrides) shown as `\u{…}`.
pub fn visible(s: &str) -> String {
    s.chars().map(|c| if invisible(c) { format!("\\u{{{:04x}}}", c as u32) } else { c.to_string() }).collect()
}

fn invisible(c: char) -> bool {
    crate::analysis::sql::unprintable(c)
}

/// A code span that the value cannot close: fenced with more backticks than it holds in a row,
/// invisible characters shown as `\u{…}`.
pub fn code(s: &str) -> String {
    let visible = visible(s);
    let longest = visible.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if visible.starts_with('`') || visible.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{visible}{pad}{fence}")
}

/// A fenced SQL block that the statement cannot close: statements are one line of quoted SQL
/// (analysis::sql), and a fence longer than any run of backticks in it cannot end inside it.
pub fn sql_block(s: &str) -> String {
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0).max(2);
    let fence = "`".repeat(longest + 1);
    format!("{fence}sql\n{s}\n{fence}\n")
}

fn bytes(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.1} MB", b as f64 / 1_048_576.0)
    } else {
        format!("{} KB", b / 1024)
    }
}

pub fn markdown(report: &Inspect) -> String {
    let t = &report.table;
    let mut out = format!("## icescope: {}\n\n", code(&t.name));
    out += &format!(
        "- location: {}\n- metadata: {} (format v{})\n- current snapshot: `{}`\n- snapshots: {}",
        code(&t.location),
        code(&t.metadata_file),
        t.format_version,
        t.current_snapshot_id.map(|s| s.to_string()).unwrap_or_else(|| "none".into()),
        report.snapshots.len()
    );
    if let Some((row, last)) = report.snapshots.iter().rev().map(|s| (s, s.totals())).find(|(_, t)| t.data_files.is_some()) {
        out += &format!(
            "; live at `{}` ({}): {} manifests, {} data files, {} position-delete files, {} equality-delete files, {} deletion vectors, {} records",
            row.snapshot_id,
            match last.source {
                Some(CountSource::Manifests) => "counted from its manifests",
                Some(CountSource::ManifestList) => "from its manifest list",
                _ => "as its summary states",
            },
            n(last.manifests),
            n(last.data_files),
            n(last.position_delete_files),
            n(last.equality_delete_files),
            n(last.deletion_vectors),
            n(last.records)
        );
        if let ((Some(live), Some(are)), Some(d)) = (row.live_rows(), last.position_deletes) {
            if d > 0 || are == super::inspect::LiveRows::AtMost {
                out += &format!(" ({} rows {} after {} removed by position deletes and deletion vectors)", n(Some(live)), are.label(), n(Some(d)));
            }
        }
    }
    out += "\n";
    let mut writers: Vec<(crate::model::Writer, &'static str, usize)> = Vec::new();
    for r in &report.snapshots {
        match writers.iter_mut().find(|w| w.0 == r.writer) {
            Some(w) => w.2 += 1,
            None => writers.push((r.writer, r.writer_evidence, 1)),
        }
    }
    if !writers.is_empty() {
        let each: Vec<String> = writers.iter().map(|(w, how, n)| format!("{n} by {} ({how})", w.label())).collect();
        out += &format!("- written: {}\n", each.join(", "));
    }
    if let Some(p) = report.load.as_ref().and_then(|l| l.metadata_pick.as_ref()) {
        out += &format!("- metadata file picked: {} ({})\n", code(&p.path), text(&p.why));
    }
    if report.load.as_ref().is_some_and(|l| l.mode == "spark_export") {
        out += "- read by Spark: every snapshot's manifest counts from `all_manifests`, the current snapshot's files from `entries` (icescope spark-export)\n";
    }
    if let Some(s) = report.load.as_ref().and_then(|l| l.suggestion.as_ref()) {
        out += &format!("- {}\n", text(s));
    }
    if let Some(l) = &report.load {
        out += &format!(
            "- numbers per snapshot: {} counted from manifests, {} from manifest lists{}, {} as the snapshot summaries state{} ({} files, {} read)\n",
            l.counted_from_manifests,
            l.counted_from_manifest_lists,
            if l.sampled > 0 { format!(" (a sample of {} across the history)", l.sampled) } else { String::new() },
            l.from_summaries,
            if l.unknown > 0 { format!(", {} unknown", l.unknown) } else { String::new() },
            thousands(l.files_read as u64),
            bytes(l.bytes_read)
        );
    }
    out += "\n";
    if !report.disagreements.is_empty() {
        out += &format!(
            "### Summaries that the files contradict ({})\n\nA writer bug or a damaged file: the snapshot summary states one number, the files read give another.\n\n| snapshot | field | summary | counted | from |\n|---|---|---|---|---|\n",
            report.disagreements.len()
        );
        for d in report.disagreements.iter().take(50) {
            out += &format!("| `{}` | {} | {} | {} | {} |\n", d.snapshot_id, d.field, d.summary, d.counted, d.counted_from.label());
        }
        out += "\n";
    }
    if !report.jobs.is_empty() {
        out += "### Flink jobs (from snapshot summaries)\n\n| job id | sink | first commit | last commit | checkpoints | snapshots | rows added |\n|---|---|---|---|---|---|---|\n";
        for j in &report.jobs {
            let cps = match (j.first_checkpoint_id, j.last_checkpoint_id) {
                (Some(a), Some(b)) => format!("{a}–{b}"),
                _ => "—".into(),
            };
            out += &format!(
                "| {} | {} | {} | {} | {}{} | {} | {} |\n",
                code(&j.job_id).replace('|', "\\|"),
                j.sink_evidence,
                j.first_commit,
                j.last_commit,
                cps,
                if j.end_of_input { " + end of input" } else { "" },
                j.snapshots,
                n(j.rows_added)
            );
        }
        out += "\n";
    }
    if let Some(p) = &report.projection {
        let r = &p.per_day;
        out += &format!(
            "### Growth at the observed rate\n\nOver the last {} commits of job {} (one every {:.1} s), each commit added {:.1} manifests, {:.1} data files and {:.1} delete files{}. A day at that rate: **{} snapshots, {} manifests, {} data files, {} delete files**{}.\n\n",
            p.commits,
            code(&p.job_id),
            p.interval_ms / 1000.0,
            p.per_commit.manifests,
            p.per_commit.data_files,
            p.per_commit.delete_files,
            p.per_commit.metadata_json_bytes.map(|b| format!(", and the metadata.json grew {:.1} KB", b / 1024.0)).unwrap_or_default(),
            thousands(r.snapshots.round() as u64),
            thousands(r.manifests.max(0.0).round() as u64),
            thousands(r.data_files.max(0.0).round() as u64),
            thousands(r.delete_files.max(0.0).round() as u64),
            p.metadata_json_bytes_in_a_day.map(|b| format!(", a metadata.json of {:.1} MB read on every load", b / 1_048_576.0)).unwrap_or_default(),
        );
    }
    out += "### Findings\n\n";
    if report.findings.is_empty() {
        out += "No findings.\n";
    }
    for f in &report.findings {
        let badge = f.severity.label();
        out += &format!("#### [{badge}] {}\n\n**What the table shows:** {}\n\n**What to do:** {}\n\n", text(&f.title), text(&f.evidence), text(&f.action));
        if let Some(s) = &f.statement {
            out += &sql_block(s);
            out += "\n";
        }
        if !f.snapshot_ids.is_empty() {
            let ids: Vec<String> = f.snapshot_ids.iter().map(|s| format!("`{s}`")).collect();
            out += &format!("Snapshots: {}\n\n", ids.join(", "));
        }
    }
    if !report.gaps.is_empty() {
        out += "### Files that could not be read\n\n";
        for g in &report.gaps {
            let ids: Vec<String> = g.snapshot_ids.iter().map(|s| format!("`{s}`")).collect();
            out += &format!("- {} — needed by snapshot {}\n", text(&g.message), ids.join(", "));
        }
    }
    out
}

fn n(v: Option<u64>) -> String {
    v.map(thousands).unwrap_or_else(|| "?".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_from_a_table_stay_text() {
        assert_eq!(text("a|b\n<script>x</script> [l](javascript:x)"), "a\\|b\\u{000a}&lt;script&gt;x&lt;/script&gt; \\[l\\](javascript:x)");
        assert_eq!(code("s3://b/t`x"), "``s3://b/t`x``");
        assert_eq!(code("``a"), "``` ``a ```");
        assert_eq!(code("rtl\u{202e}"), "`rtl\\u{202e}`");
        assert!(!text("x\r\n| forged | row |").contains('\n'));
        assert_eq!(text("see https://x.example, www.y.example or z@w.example"), "see https\\://x.example, www\\.y.example or z\\@w.example");
    }
}
