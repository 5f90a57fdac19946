//! One finding as each surface shows it: the same title, evidence, action and statement, with
//! the statement rendered for the catalog the reader named.

use super::text::{sql_block, text, visible};
use crate::analysis::findings::Finding;

/// Said where a link named a Spark catalog that may not be printed inside a statement
/// (`analysis::statement::catalog_from_link`).
pub const LINK_CATALOG_IGNORED: &str = "The link's Spark catalog name was not used: a link may name one only as letters, digits and underscores, or as one name in backquotes with none inside, because it is printed inside the statements below. Type yours above.";

/// For a terminal: `[WARNING] title`, then what it shows, what to do and what to run.
pub fn terminal(f: &Finding, catalog: Option<&str>) -> String {
    let mut out = format!("[{}] {}\n  shows: {}\n  do: {}\n", f.severity.label(), visible(&f.title), visible(&f.evidence), visible(&f.action));
    if let Some(st) = &f.statement {
        out += &format!("  run: {}\n", visible(&st.sql_for(catalog)));
    }
    out
}

/// For the ticket: a heading with the badge, the two paragraphs, the statement in a fence, the
/// snapshots it is about.
pub fn markdown(f: &Finding, catalog: Option<&str>) -> String {
    let mut out = format!(
        "#### [{}] {}\n\n**What the table shows:** {}\n\n**What to do:** {}\n\n",
        f.severity.label(),
        text(&f.title),
        text(&f.evidence),
        text(&f.action)
    );
    if let Some(s) = &f.statement {
        out += &sql_block(&s.sql_for(catalog));
        out += "\n";
    }
    if !f.snapshot_ids.is_empty() {
        let ids: Vec<String> = f.snapshot_ids.iter().map(|s| format!("`{s}`")).collect();
        out += &format!("Snapshots: {}\n\n", ids.join(", "));
    }
    out
}

/// The class and badge word the app gives a severity.
pub fn severity_class(s: crate::analysis::findings::Severity) -> &'static str {
    use crate::analysis::findings::Severity;
    match s {
        Severity::Critical => "critical",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}
