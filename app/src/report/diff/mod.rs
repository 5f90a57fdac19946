//! A comparison of two snapshots as each surface words it: the totals sentence, the schema
//! changes, the backwards warning, the per-partition columns, and the Markdown for the ticket.

pub mod text;

use crate::analysis::diff::{Changes, Commit, Refusal, SchemaChange, SnapshotDiff, SnapshotSide};
use crate::report::text::{code, text};

/// A side that is the table before its first commit, where a snapshot id would stand.
pub const EMPTY_TABLE: &str = "the empty table";

/// A side's snapshot id, or `EMPTY_TABLE`.
pub fn side_id(s: &SnapshotSide) -> String {
    s.snapshot_id.map(|i| i.to_string()).unwrap_or_else(|| EMPTY_TABLE.to_string())
}

/// `snapshot 1 → 2`, or `the empty table → snapshot 2`: what a comparison's heading names.
pub fn heading(d: &SnapshotDiff, arrow: &str) -> String {
    match (d.from.snapshot_id, d.to.snapshot_id) {
        (Some(a), Some(b)) => format!("snapshot {a} {arrow} {b}"),
        (a, b) => {
            let name = |s: Option<crate::decode::SnapshotId>| s.map(|i| format!("snapshot {i}")).unwrap_or_else(|| EMPTY_TABLE.to_string());
            format!("{} {arrow} {}", name(a), name(b))
        }
    }
}

/// Each side with when it was committed, as the app heads a comparison.
pub fn sides_line(d: &SnapshotDiff) -> String {
    let side = |s: &SnapshotSide| match (s.snapshot_id, &s.committed_at) {
        (Some(id), Some(at)) => format!("snapshot {id} ({at})"),
        (Some(id), None) => format!("snapshot {id}"),
        (None, _) => format!("{EMPTY_TABLE} (before its first commit)"),
    };
    format!("From {} to {}", side(&d.from), side(&d.to))
}

/// Why two references were not compared, as the app and the CLI say it.
pub fn refusal(r: &Refusal) -> String {
    match r {
        Refusal::Reference(why) => why.clone(),
        Refusal::Same { snapshot_id, job } => {
            let both = match snapshot_id {
                Some(id) => format!("both sides are snapshot {id}: nothing to compare"),
                None => format!("both sides are {EMPTY_TABLE}, before its first commit: nothing to compare"),
            };
            match job {
                // `job:<id>` beside `current` names the job's last commit, which is current while it runs.
                Some(j) => format!("{both}. What job {j} added: first:{j} → last:{j} (or job:{j} alone, the other side left empty)"),
                None => both,
            }
        }
    }
}

/// Said wherever the second snapshot is the older.
pub const BACKWARDS: &str = "Backwards: the second snapshot was committed before the first, so \"added\" means present in the second and not in the first.";

/// One commit between the two as both formats print it: committed, snapshot, operation, job,
/// checkpoint, then the data files added and removed, records and delete files added. `name`
/// escapes what the table wrote; `missing` stands where a summary does not say.
pub fn commit_cells(c: &Commit, name: &dyn Fn(&str) -> String, missing: &str) -> [String; 9] {
    let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_else(|| missing.to_string());
    [
        c.committed_at.clone(),
        c.snapshot_id.to_string(),
        name(&c.operation),
        c.flink_job_id.as_deref().map(name).unwrap_or_else(|| missing.to_string()),
        checkpoint_label(c.checkpoint_id).unwrap_or_else(|| missing.to_string()),
        opt(c.added_data_files),
        opt(c.deleted_data_files),
        opt(c.added_records),
        opt(c.added_delete_files),
    ]
}

/// Long.MAX_VALUE is Flink's end-of-input commit, not a checkpoint.
pub fn checkpoint_label(c: Option<i64>) -> Option<String> {
    match c {
        Some(i64::MAX) => Some("end of input".to_string()),
        c => c.map(|c| c.to_string()),
    }
}

fn checkpoint(c: Option<i64>) -> String {
    checkpoint_label(c).unwrap_or_default()
}

/// For the ticket: every value from the table escaped (see `markdown::text`).
pub fn markdown(d: &SnapshotDiff, table: &str) -> String {
    let mut out = format!("### {}: {}\n\n", text(table), heading(d, "→"));
    if d.backwards {
        out += &format!("{BACKWARDS}\n\n");
    }
    if !d.exact {
        out += &format!("**Not exact:** {}.\n\n", d.missing.iter().map(|m| text(m)).collect::<Vec<_>>().join("; "));
    }
    out += "| | from | to |\n|---|---|---|\n";
    out += &format!("| snapshot | {} | {} |\n", side_id(&d.from), side_id(&d.to));
    let at = |s: &SnapshotSide| s.committed_at.clone().unwrap_or_default();
    out += &format!("| committed | {} | {} |\n", at(&d.from), at(&d.to));
    let job = |s: &SnapshotSide| s.flink_job_id.as_deref().map(code).unwrap_or_default();
    out += &format!("| flink.job-id | {} | {} |\n", job(&d.from), job(&d.to));
    out += &format!("| checkpoint | {} | {} |\n", checkpoint(d.from.checkpoint_id), checkpoint(d.to.checkpoint_id));
    out += &format!(
        "| data files | {} | {} |\n| delete files | {} | {} |\n| records | {} | {} |\n\n",
        d.from.data_files, d.to.data_files, d.from.delete_files, d.to.delete_files, d.from.records, d.to.records
    );
    out += &format!("{}.\n\n", sentence(&d.totals));
    if !d.partitions.is_empty() {
        out += &format!("| partition | {} |\n|---|---:|---:|---:|---:|---:|---:|\n", COLUMNS.join(" | "));
        for p in &d.partitions {
            let cells: Vec<String> = p.changes.cells().iter().map(u64::to_string).collect();
            out += &format!("| {} | {} |\n", text(&p.partition), cells.join(" | "));
        }
        out += "\n";
    }
    if let Some(s) = &d.schema {
        out += &format!("Schema {} → {}:", s.from_schema_id, s.to_schema_id);
        for part in schema_parts(s, &code, &text, "→") {
            out += &format!(" {part};");
        }
        out += "\n\n";
    }
    out += &format!("Commits in between ({}):\n\n| committed | snapshot | operation | flink.job-id | checkpoint | + data files | − data files | + records | + delete files |\n|---|---|---|---|---:|---:|---:|---:|---:|\n", d.between_total);
    for c in &d.between {
        let cells = commit_cells(c, &text, "");
        // The job id in a code span, as in the header rows.
        let job = c.flink_job_id.as_deref().map(code).unwrap_or_default();
        out += &format!("| {} | {} | {} | {job} | {} |\n", cells[0], cells[1], cells[2], cells[4..].join(" | "));
    }
    if d.between_total > d.between.len() {
        out += &format!("\n… and {} more commits.\n", d.between_total - d.between.len());
    }
    out
}

/// The per-partition columns, in the order `cells` gives them.
pub const COLUMNS: [&str; 6] = ["data files +", "data files −", "records +", "records −", "delete files +", "delete files −"];

/// `Data files +3 −0 (records +9,957 −0); delete files +0 −0 (deleted rows +0 −0)`: the one
/// wording of the totals, wherever a comparison is shown.
pub fn sentence(c: &Changes) -> String {
    format!(
        "Data files +{} −{} (records +{} −{}); delete files +{} −{} (deleted rows +{} −{})",
        c.data_files_added,
        c.data_files_removed,
        c.records_added,
        c.records_removed,
        c.delete_files_added,
        c.delete_files_removed,
        c.deletes_added,
        c.deletes_removed
    )
}

/// Each change in a phrase (`added id long (id 4)`), names and types through `name` and `ty`
/// (escaped for where they are shown), `arrow` between old and new: the one wording of the
/// Markdown, the text and the app.
pub fn schema_parts(s: &SchemaChange, name: &dyn Fn(&str) -> String, ty: &dyn Fn(&str) -> String, arrow: &str) -> Vec<String> {
    let mut out: Vec<String> = s.added.iter().map(|(id, n, t)| format!("added {} {} (id {id})", name(n), ty(t))).collect();
    out.extend(s.dropped.iter().map(|(id, n, t)| format!("dropped {} {} (id {id})", name(n), ty(t))));
    out.extend(s.renamed.iter().map(|(id, a, b)| format!("renamed {} {arrow} {} (id {id})", name(a), name(b))));
    out.extend(s.retyped.iter().map(|(id, n, a, b)| format!("{} {} {arrow} {} (id {id})", name(n), ty(a), ty(b))));
    out
}

/// A schema change as a chart marks it, in few characters: `schema 1→2 +region −note`.
pub fn schema_marker(c: &SchemaChange) -> String {
    let mut what: Vec<String> = c.added.iter().map(|x| format!("+{}", x.1)).collect();
    what.extend(c.dropped.iter().map(|x| format!("−{}", x.1)));
    what.extend(c.renamed.iter().map(|x| format!("{}→{}", x.1, x.2)));
    what.extend(c.retyped.iter().map(|x| format!("{}: {}", x.1, x.3)));
    format!("schema {}→{} {}", c.from_schema_id, c.to_schema_id, what.join(" "))
}
