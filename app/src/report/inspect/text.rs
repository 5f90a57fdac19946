//! `icescope inspect --format text`: a fixed-width table for a terminal, every value from the
//! table made visible, then the gaps and the findings.

use crate::analysis::inspect::Inspect;
use crate::report::text::visible;

pub fn text(report: &Inspect) -> String {
    let n = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_else(|| "?".into());
    let mut out = format!(
        "{} (format v{}, {} snapshots)\n{:<24} {:>20} {:<10} {:>9} {:>6} {:>6} {:>6} {:>6} {:>12} {}\n",
        visible(&report.table.location),
        report.table.format_version,
        report.snapshots.len(),
        "committed_at",
        "snapshot_id",
        "operation",
        "manifests",
        "data",
        "pos",
        "eq",
        "dv",
        "records",
        "from"
    );
    for s in &report.snapshots {
        let c = s.totals();
        out += &format!(
            "{:<24} {:>20} {:<10} {:>9} {:>6} {:>6} {:>6} {:>6} {:>12} {}\n",
            s.committed_at,
            s.snapshot_id.to_string(),
            visible(s.operation.as_str()),
            n(c.manifests),
            n(c.data_files),
            n(c.position_delete_files),
            n(c.equality_delete_files),
            n(c.deletion_vectors),
            n(c.records),
            c.source.map(|c| c.label()).unwrap_or("unknown")
        );
    }
    if let Some(line) = report.load.as_ref().and_then(crate::report::load::phases_line) {
        out += &format!("read: {line}\n");
    }
    for d in report.disagreements.iter().take(50) {
        out += &format!("contradicted: {}\n", crate::report::load::disagreement_line(d));
    }
    for g in &report.gaps {
        out += &format!("gap: {} ({})\n", visible(&g.message), crate::report::load::needed_by(&g.snapshot_ids, |s| s));
    }
    out += &format!("\nfindings ({}):\n", report.findings.len());
    for f in &report.findings {
        out += &crate::report::finding::terminal(f, None);
    }
    out
}
