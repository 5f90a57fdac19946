//! The report an on-call engineer pastes into an incident ticket.

use crate::analysis::inspect::{Inspect, LiveRows};
use crate::model::CountSource;
use crate::report::text::{bytes, code, count as n, text, thousands};

/// The report with its statements for the catalog it was made with.
pub fn markdown(report: &Inspect) -> String {
    markdown_in(report, &report.table.table_ref.catalog)
}

/// The report with its statements and its title naming the table in `catalog` (typed in the app).
pub fn markdown_in(report: &Inspect, catalog: &str) -> String {
    let t = &report.table;
    let name = format!("{}.{}", crate::analysis::statement::catalog_part(catalog), t.table_ref.table);
    let mut out = format!("## icescope: {}\n\n", code(&name));
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
            if d > 0 || are == LiveRows::AtMost {
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
    if let Some(s) = report.load.as_ref().and_then(|l| l.suggestion.as_ref()) {
        out += &format!("- {}\n", text(s));
    }
    if let Some(l) = &report.load {
        out += &format!("- {} Read: {} files, {}.\n", text(&crate::report::load::count_sources(l)), thousands(l.files_read as u64), bytes(l.bytes_read));
    }
    out += "\n";
    if !report.disagreements.is_empty() {
        out += &format!(
            "### Summaries that the files contradict\n\n{}: the snapshot summary states one number, the files read give another.\n\n| snapshot | field | summary | counted | from |\n|---|---|---|---|---|\n",
            crate::report::load::disagreements_heading(report.disagreements.len())
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
        out += &format!("### Growth at the observed rate\n\n{}\n\n", text(&crate::report::projection::sentence(p)));
    }
    out += &recommended(report, catalog);
    out += "### Findings\n\n";
    if report.findings.is_empty() {
        out += "No findings.\n";
    }
    for f in &report.findings {
        out += &crate::report::finding::markdown(f, Some(catalog));
    }
    if let Some(j) = &report.savepoints {
        out += "\n";
        out += &crate::report::savepoint::section(&crate::report::savepoint::of(j, Some(&t.metadata_file)), catalog, &report.findings);
        out += "\n";
    }
    if !report.gaps.is_empty() {
        out += &format!("### Files that could not be read\n\n{}.\n\n", crate::report::load::gaps_heading(report.gaps.len()));
        for g in &report.gaps {
            out += &format!("- {} — {}\n", text(&g.message), crate::report::load::needed_by(&g.snapshot_ids, |s| format!("`{s}`")));
        }
    }
    out
}

/// One statement per incident, first: each critical finding's, where it has one. Any other
/// statement below (a savepoint's rollback) says which question it answers instead.
pub fn recommended(report: &Inspect, catalog: &str) -> String {
    let incidents: Vec<&crate::analysis::findings::Finding> =
        report.findings.iter().filter(|f| f.severity == crate::analysis::findings::Severity::Critical && f.statement.is_some()).collect();
    if incidents.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "### Recommended: {}\n\n",
        if incidents.len() == 1 {
            "the statement for the incident".to_string()
        } else {
            format!("one statement for each of the {} incidents", incidents.len())
        }
    );
    for f in incidents {
        out += &format!("- **{}** — {}\n\n", text(&f.title), text(&f.action));
        if let Some(s) = &f.statement {
            out += &crate::report::text::sql_block(&s.sql_for(Some(catalog)));
            out += "\n";
        }
    }
    out
}
