//! Parquet footers and deletion vectors checked against the manifests, for a terminal and a ticket.

use super::text::{text as md, thousands, visible};
use crate::analysis::footers::FooterReport;
use crate::analysis::vector_footers::VectorCheck;

/// One line for the report's head: what was checked and what disagrees.
pub fn vectors_line(v: &VectorCheck) -> String {
    format!(
        "{} live deletion vectors in {} Puffin files, {} footers read ({} bytes fetched); {} disagree with their footer, {} unchecked",
        thousands(v.vectors as u64),
        thousands(v.puffin_files as u64),
        thousands(v.puffin_footers_read as u64),
        thousands(v.bytes_fetched),
        v.mismatches,
        v.unchecked
    )
}

/// One line for the report's head: files, footers read, bytes, mismatches.
pub fn summary_line(r: &FooterReport) -> String {
    format!(
        "snapshot {}: {} Parquet files, {} footers read ({} bytes fetched of {} in the files); {} record_count and {} size mismatches, {} unreadable",
        r.snapshot_id.0,
        thousands(r.files as u64),
        thousands(r.footers_read as u64),
        thousands(r.bytes_fetched),
        thousands(r.bytes_in_files),
        r.record_count_mismatches,
        r.size_mismatches,
        r.unreadable
    )
}

/// A value, or `?` where the file did not give one.
fn or_unknown<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "?".into())
}

/// For a terminal: names from files shown, never obeyed.
pub fn text(r: &FooterReport) -> String {
    let mut out = summary_line(r) + "\n";
    for f in &r.files_checked {
        match &f.error {
            Some(e) => out += &format!("  {}: {}\n", visible(&f.file_path), visible(e)),
            None => {
                out += &format!(
                    "  {} [{:?}] rows {} (manifest {}{}), {} bytes (manifest {}{}), {} row group(s), {}, columns {}\n",
                    visible(&f.file_path),
                    f.content,
                    f.footer_rows.unwrap_or(0),
                    f.manifest_record_count,
                    if f.records_match == Some(false) { " MISMATCH" } else { "" },
                    f.object_size.map(|s| s.to_string()).unwrap_or_else(|| "?".into()),
                    f.manifest_file_size,
                    if f.size_matches == Some(false) { " MISMATCH" } else { "" },
                    f.row_groups.unwrap_or(0),
                    visible(&f.codecs.join("/")),
                    f.columns
                        .iter()
                        .map(|c| format!("{}#{}", visible(&c.path), c.field_id.map(|i| i.to_string()).unwrap_or_else(|| "?".into())))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        }
    }
    let v = &r.deletion_vectors;
    if v.vectors > 0 || v.puffin_files > 0 {
        out += &vectors_line(v);
        out += "\n";
        for row in &v.vectors_checked {
            out += &format!(
                "  {} @{} ({} bytes) for {}: cardinality {} (footer {}){}\n",
                visible(&row.puffin_path),
                or_unknown(row.content_offset),
                or_unknown(row.content_size_in_bytes),
                visible(row.referenced_data_file.as_deref().unwrap_or("?")),
                row.manifest_cardinality,
                or_unknown(row.footer_cardinality),
                match (&row.matches, &row.problem) {
                    (Some(false), Some(p)) => format!(" MISMATCH: {}", visible(p)),
                    (None, Some(p)) => format!(" UNCHECKED: {}", visible(p)),
                    _ => String::new(),
                }
            );
        }
    }
    for f in &r.findings {
        out += &super::finding::terminal(f, None);
    }
    out
}

pub fn markdown(r: &FooterReport) -> String {
    let mut out = format!("## Parquet footers\n\n{}\n\n| file | content | rows (footer / manifest) | bytes (object / manifest) | row groups | codecs |\n|---|---|---:|---:|---:|---|\n", md(&summary_line(r)));
    for f in &r.files_checked {
        out += &format!(
            "| {} | {:?} | {} / {} | {} / {} | {} | {} |\n",
            md(&f.file_path),
            f.content,
            f.footer_rows.map(|n| n.to_string()).unwrap_or_else(|| md(f.error.as_deref().unwrap_or("?"))),
            f.manifest_record_count,
            f.object_size.map(|s| s.to_string()).unwrap_or_else(|| "?".into()),
            f.manifest_file_size,
            f.row_groups.unwrap_or(0),
            md(&f.codecs.join("/"))
        );
    }
    let v = &r.deletion_vectors;
    if v.vectors > 0 || v.puffin_files > 0 {
        out += &format!(
            "\n## Deletion vectors against their Puffin footers\n\n{}\n\n| Puffin file | offset | bytes | data file | cardinality (manifest / footer) | check |\n|---|---:|---:|---|---:|---|\n",
            md(&vectors_line(v))
        );
        for row in &v.vectors_checked {
            out += &format!(
                "| {} | {} | {} | {} | {} / {} | {} |\n",
                md(&row.puffin_path),
                or_unknown(row.content_offset),
                or_unknown(row.content_size_in_bytes),
                md(row.referenced_data_file.as_deref().unwrap_or("?")),
                row.manifest_cardinality,
                or_unknown(row.footer_cardinality),
                match (&row.matches, &row.problem) {
                    (Some(true), _) => "matches".to_string(),
                    (_, Some(p)) => md(p),
                    _ => "?".to_string(),
                }
            );
        }
    }
    if !r.findings.is_empty() {
        out += "\n";
    }
    for f in &r.findings {
        out += &super::finding::markdown(f, None);
    }
    out
}
