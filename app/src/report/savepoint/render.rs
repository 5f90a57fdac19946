//! The verdicts as the terminal and the ticket show them, and the findings a savepoint stands behind.

use super::words::*;
use super::SavepointReport;
use crate::analysis::findings::{Finding, FindingKind};
use crate::analysis::savepoint::{Verdict, VerdictKind};
use crate::report::text::{code, count, sql_block, text, visible};

/// For a terminal: one block per savepoint, newest first.
pub fn text_report(r: &SavepointReport) -> String {
    let mut out = String::new();
    if let Some(t) = &r.table {
        out.push_str(&format!("Table: {}\n\n", visible(t)));
    }
    for row in &r.savepoints {
        let v = &row.verdict;
        out.push_str(&format!("{}  checkpoint {}  {}\n", kind(v).to_uppercase(), v.checkpoint_id, visible(&row.savepoint.path)));
        if !row.savepoint.taken_as.is_empty() {
            out.push_str(&format!("  {}\n", upper_first(&row.savepoint.taken_as)));
        }
        out.push_str(&format!("  {}\n", summary(v, &|s| visible(s))));
        let a = advice(v, &|s| visible(s));
        if !a.is_empty() {
            out.push_str(&format!("  {a}\n"));
        }
        if let Some(s) = &v.statement {
            out.push_str(&format!("  only to resume from it again: {}\n", s.sql()));
        }
        out.push('\n');
    }
    for u in &r.unreadable {
        out.push_str(&format!("UNREADABLE  {}\n  {}\n\n", visible(&u.path), visible(&u.error)));
    }
    out
}

/// For the ticket: a table of the savepoints, then each verdict with its statement.
pub fn markdown(r: &SavepointReport) -> String {
    markdown_at(r, None, "##", &[])
}

/// The same as a section of the table's ticket (`report::inspect::markdown`), its statements naming the
/// catalog typed, each savepoint saying which of the ticket's findings it stands behind.
pub fn section(r: &SavepointReport, catalog: &str, findings: &[Finding]) -> String {
    markdown_at(r, Some(catalog), "###", findings)
}

/// The replay findings a savepoint stands behind: a job resumed from it is the one a finding
/// names as having replayed. Its statement, not the savepoint's, answers that incident.
pub fn behind<'a>(v: &Verdict, findings: &'a [Finding]) -> Vec<&'a Finding> {
    findings.iter().filter(|f| f.kind == FindingKind::SavepointReplayed && f.job_ids.first().is_some_and(|j| v.jobs_already_resumed.contains(j))).collect()
}

/// "It stands behind the finding …": one sentence per savepoint that is behind a finding.
pub fn behind_sentence(v: &Verdict, findings: &[Finding], esc: &dyn Fn(&str) -> String) -> Option<String> {
    let fs = behind(v, findings);
    let first = fs.first()?;
    let titles = fs.iter().map(|f| format!("\u{201c}{}\u{201d}", esc(&f.title))).collect::<Vec<_>>().join(", ");
    Some(format!(
        "This is the savepoint behind the finding {titles}: job {} resumed from it. That finding's statement{} is the one for the incident; {}",
        esc(&short(first.job_ids.first().map(String::as_str).unwrap_or("?"))),
        if first.statement.is_some() { " (recommended, above)" } else { "" },
        if v.statement.is_some() {
            "the statement here answers another question, resuming from this savepoint again, and removes more."
        } else {
            "nothing here replaces it."
        }
    ))
}

fn markdown_at(r: &SavepointReport, catalog: Option<&str>, h: &str, findings: &[Finding]) -> String {
    let mut out = format!("{h} Before you resume\n\n");
    if let Some(t) = &r.table {
        out.push_str(&format!("Against the table read from {}.\n\n", code(t)));
    }
    out.push_str("| savepoint | checkpoint | job | verdict | rows in the table after it | a resume writes again |\n|---|---:|---|---|---:|---:|\n");
    for row in &r.savepoints {
        let v = &row.verdict;
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            text(&row.savepoint.path),
            v.checkpoint_id,
            v.job_id.as_deref().map(|j| text(&short(j))).unwrap_or_default(),
            kind(v),
            if v.kind == VerdictKind::Replays {
                format!("{}{}", if v.rows_estimated { "about " } else { "" }, count(v.rows_committed_after))
            } else {
                String::new()
            },
            v.resume_writes
                .as_ref()
                .map(|w| format!("{}{}{}", if w.at_least { "at least " } else { "" }, if w.estimated { "about " } else { "" }, count(w.rows)))
                .unwrap_or_default()
        ));
    }
    for row in &r.savepoints {
        let v = &row.verdict;
        out.push_str(&format!("\n{h}# {} (checkpoint {})\n\n", text(&row.savepoint.path), v.checkpoint_id));
        if !row.savepoint.taken_as.is_empty() {
            out.push_str(&format!("{}.\n\n", upper_first(&row.savepoint.taken_as)));
        }
        if let Some(b) = behind_sentence(v, findings, &|s| text(s)) {
            out.push_str(&format!("**{b}**\n\n"));
        }
        out.push_str(&format!("{}\n", summary(v, &|s| text(s))));
        let a = advice(v, &|s| text(s));
        if !a.is_empty() {
            out.push_str(&format!("\n{a}\n"));
        }
        if let Some(s) = &v.statement {
            out.push_str("\nOnly to resume from this savepoint again:\n\n");
            out.push_str(&sql_block(&s.sql_for(catalog)));
        }
    }
    for u in &r.unreadable {
        out.push_str(&format!("\n{h}# {} could not be read\n\n{}\n", text(&u.path), text(&u.error)));
    }
    out
}
