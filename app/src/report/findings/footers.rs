//! Manifests against the files: Parquet footers that count other rows, objects of another size,
//! footers that do not read; deletion vectors their Puffin footers contradict or cannot vouch for.

use super::Words;
use crate::analysis::footers::{FileSizeMismatch, FooterUnreadable, RecordCountMismatch};
use crate::analysis::vector_footers::{PuffinFooterUnreadable, VectorFooterMismatch, VectorProblem};
use crate::report::format::thousands;

/// Files a finding names as examples: enough to find the writer, short enough to read.
const EXAMPLES: usize = 3;

fn examples<T>(items: &[T], line: impl Fn(&T) -> String) -> String {
    items.iter().take(EXAMPLES).map(line).collect::<Vec<_>>().join("; ")
}

pub(super) fn record_count_mismatch(f: &RecordCountMismatch) -> Words {
    Words {
        title: format!("{} file(s) hold a different number of rows than their manifest entries say", f.files.total),
        evidence: format!(
            "Footer rows minus manifest record_count: {:+} over these files. {}. Counts answered from metadata (count(*) pushdown, the snapshot's total-records) are wrong by that much.",
            f.rows_delta,
            examples(&f.files.first, |r| format!("{}: manifest {}, footer {}", r.file_path, r.manifest_record_count, r.footer_rows))
        ),
        action: "Find the writer that registered these files (the manifest's adding snapshot) and fix it; then rewrite the files so that new entries carry counts from the files themselves.".into(),
    }
}

pub(super) fn file_size_mismatch(f: &FileSizeMismatch) -> Words {
    Words {
        title: format!("{} file(s) differ in size from their manifest's file_size_in_bytes", f.files.total),
        evidence: format!(
            "{}. A reader seeks the footer at the manifest's size: the file was replaced, cut short or appended to after it was committed.",
            examples(&f.files.first, |r| format!("{}: manifest {} bytes, object {} bytes", r.file_path, r.manifest_file_size, r.object_size))
        ),
        action: "Restore the object the table committed (versioned bucket) or roll back to a snapshot before the file was added; never overwrite a committed data file in place.".into(),
    }
}

pub(super) fn footer_unreadable(f: &FooterUnreadable) -> Words {
    Words {
        title: format!("{} live file(s) have no readable Parquet footer", f.files.total),
        evidence: examples(&f.files.first, |r| r.error.clone()),
        action: "A scan of this snapshot fails on these files: restore them, or remove them from the table and re-ingest their rows.".into(),
    }
}

/// A vector as an example: a read error names its file already, a disagreement does not.
fn vector(r: &VectorProblem) -> String {
    if r.problem.starts_with(&r.puffin_path) {
        r.problem.clone()
    } else {
        format!("{} at {}: {}", r.puffin_path, r.content_offset.unwrap_or(-1), r.problem)
    }
}

pub(super) fn vector_footer_mismatch(f: &VectorFooterMismatch) -> Words {
    Words {
        title: format!("{} deletion vector(s) disagree with their Puffin file's footer", thousands(f.vectors.total as u64)),
        evidence: format!(
            "{}. Footer cardinality minus manifest record_count over them: {:+}. Spark and Trino read a vector at the manifest's offset without the footer, so they stay silent; counts answered from metadata subtract the manifests' cardinalities, and a reader that plans from the footer applies other rows or fails.",
            examples(&f.vectors.first, vector),
            f.cardinality_delta
        ),
        action: "Find the writer that committed these vectors (the manifest's adding snapshot) and fix it; then apply the deletes into new data files, which retires the vectors.".into(),
    }
}

pub(super) fn puffin_footer_unreadable(f: &PuffinFooterUnreadable) -> Words {
    Words {
        title: format!(
            "{} of {} Puffin file(s) have no readable footer ({} live deletion vector(s) unchecked)",
            f.puffin_files.saturating_sub(f.puffin_footers_read),
            f.puffin_files,
            thousands(f.vectors.total as u64)
        ),
        evidence: examples(&f.vectors.first, vector),
        action: "Readers that go by the manifests' offsets may still apply these vectors; a reader that opens the footer fails on them. Restore the files, or apply the deletes into new data files.".into(),
    }
}
