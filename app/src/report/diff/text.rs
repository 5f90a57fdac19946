//! `icescope diff --format text`: the comparison for a terminal, the same content as the
//! Markdown (`report::diff::markdown`) in aligned columns; every value from the table made visible.

use super::{checkpoint_label, commit_cells, heading, schema_parts, sentence, side_id, BACKWARDS, COLUMNS};
use crate::analysis::diff::{SnapshotDiff, SnapshotSide};
use crate::report::text::visible;

fn checkpoint(c: Option<i64>) -> String {
    checkpoint_label(c).unwrap_or_else(|| "-".into())
}

pub fn text(d: &SnapshotDiff, table: &str) -> String {
    let mut out = format!("{}: {}\n", visible(table), heading(d, "->"));
    if d.backwards {
        out += &format!("{BACKWARDS}\n");
    }
    if !d.exact {
        out += &format!("Not exact: {}.\n", d.missing.iter().map(|m| visible(m)).collect::<Vec<_>>().join("; "));
    }
    let job = |s: &SnapshotSide| s.flink_job_id.as_deref().map(visible).unwrap_or_else(|| "-".into());
    let rows: [(&str, String, String); 7] = [
        ("snapshot", side_id(&d.from), side_id(&d.to)),
        ("committed", d.from.committed_at.clone().unwrap_or_else(|| "-".into()), d.to.committed_at.clone().unwrap_or_else(|| "-".into())),
        ("flink.job-id", job(&d.from), job(&d.to)),
        ("checkpoint", checkpoint(d.from.checkpoint_id), checkpoint(d.to.checkpoint_id)),
        ("data files", d.from.data_files.to_string(), d.to.data_files.to_string()),
        ("delete files", d.from.delete_files.to_string(), d.to.delete_files.to_string()),
        ("records", d.from.records.to_string(), d.to.records.to_string()),
    ];
    out += &format!("\n{:<14} {:<34} {}\n", "", "from", "to");
    for (k, a, b) in rows {
        out += &format!("{k:<14} {a:<34} {b}\n");
    }
    out += &format!("\n{}\n", sentence(&d.totals));
    if !d.partitions.is_empty() {
        out += &format!("\n{:<32}", "partition");
        for c in COLUMNS {
            out += &format!(" {c:>14}");
        }
        out += "\n";
        for p in &d.partitions {
            out += &format!("{:<32}", visible(&p.partition));
            for v in p.changes.cells() {
                out += &format!(" {v:>14}");
            }
            out += "\n";
        }
    }
    if let Some(s) = &d.schema {
        out += &format!("\nschema {} -> {}:", s.from_schema_id, s.to_schema_id);
        for part in schema_parts(s, &visible, &visible, "->") {
            out += &format!(" {part};");
        }
        out += "\n";
    }
    out += &format!(
        "\ncommits in between ({}):\n{:<24} {:>20} {:<10} {:<34} {:>12} {:>7} {:>7} {:>9} {:>9}\n",
        d.between_total, "committed", "snapshot", "operation", "flink.job-id", "checkpoint", "+data", "-data", "+records", "+deletes"
    );
    for c in &d.between {
        let [at, id, op, job, cp, plus, minus, records, deletes] = commit_cells(c, &visible, "-");
        out += &format!("{at:<24} {id:>20} {op:<10} {job:<34} {cp:>12} {plus:>7} {minus:>7} {records:>9} {deletes:>9}\n");
    }
    if d.between_total > d.between.len() {
        out += &format!("... and {} more commits\n", d.between_total - d.between.len());
    }
    out
}
