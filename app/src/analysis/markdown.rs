//! The report an on-call engineer pastes into an incident ticket.

use super::findings::{thousands, Severity};
use super::inspect::Inspect;

pub fn markdown(report: &Inspect) -> String {
    let t = &report.table;
    let mut out = format!("## icescope: `{}`\n\n", t.name);
    out += &format!(
        "- location: `{}`\n- metadata: `{}` (format v{})\n- current snapshot: `{}`\n- snapshots: {}",
        t.location,
        t.metadata_file,
        t.format_version,
        t.current_snapshot_id.map(|s| s.to_string()).unwrap_or_else(|| "none".into()),
        report.snapshots.len()
    );
    if let Some(last) = report.snapshots.iter().rev().find(|s| s.data_files.is_some()) {
        out += &format!(
            "; live at `{}`: {} manifests, {} data files, {} position-delete files, {} equality-delete files, {} deletion vectors, {} records",
            last.snapshot_id,
            n(last.manifests),
            n(last.data_files),
            n(last.position_delete_files),
            n(last.equality_delete_files),
            n(last.deletion_vectors),
            n(last.records)
        );
    }
    out += "\n\n";
    if !report.jobs.is_empty() {
        out += "### Flink jobs (from snapshot summaries)\n\n| job id | first commit | last commit | checkpoints | snapshots | rows added |\n|---|---|---|---|---|---|\n";
        for j in &report.jobs {
            let cps = match (j.first_checkpoint_id, j.last_checkpoint_id) {
                (Some(a), Some(b)) => format!("{a}–{b}"),
                _ => "—".into(),
            };
            out += &format!(
                "| `{}` | {} | {} | {}{} | {} | {} |\n",
                j.job_id,
                j.first_commit,
                j.last_commit,
                cps,
                if j.end_of_input { " + end of input" } else { "" },
                j.snapshots,
                thousands(j.rows_added)
            );
        }
        out += "\n";
    }
    out += "### Findings\n\n";
    if report.findings.is_empty() {
        out += "No findings.\n";
    }
    for f in &report.findings {
        let badge = match f.severity {
            Severity::Critical => "CRITICAL",
            Severity::Warning => "WARNING",
            Severity::Info => "info",
        };
        out += &format!("#### [{badge}] {}\n\n**What the table shows:** {}\n\n**What to do:** {}\n\n", f.title, f.evidence, f.action);
        if let Some(s) = &f.statement {
            out += &format!("```sql\n{s}\n```\n\n");
        }
        if !f.snapshot_ids.is_empty() {
            let ids: Vec<String> = f.snapshot_ids.iter().map(|s| format!("`{s}`")).collect();
            out += &format!("Snapshots: {}\n\n", ids.join(", "));
        }
    }
    if !report.gaps.is_empty() {
        out += "### Files that could not be read\n\n";
        for g in &report.gaps {
            out += &format!("- {}\n", g.message);
        }
    }
    out
}

fn n(v: Option<u64>) -> String {
    v.map(thousands).unwrap_or_else(|| "?".into())
}
