//! Late data: one-row files in time partitions older than the window the writer is filling.

use super::{partial_note, Words};
use crate::analysis::findings::{LateOneRowFiles, NoStatement};
use crate::report::format::{capped_list, duration_coarse, thousands};

pub(super) fn late_one_row_files(f: &LateOneRowFiles) -> Words {
    let lateness = duration_coarse(f.max_lateness_ms);
    Words {
        title: format!("{} one-row files in {} old partitions (late data)", f.files, f.partitions.total),
        evidence: format!(
            "{} live one-row files sit in partitions older than the window their commit was filling: {}. The latest \
             arrived {lateness} after its partition began (the lateness window the source has produced). A compaction scoped to the \
             current partitions never reaches them; {} files in all.{}",
            f.files,
            capped_list(f.partitions.first.iter().cloned(), f.partitions.total, "partitions"),
            thousands(f.time_partition_files),
            partial_note(f.unread_files, f.snapshot_id),
        ),
        action: format!(
            "Widen the compaction where to cover the lateness window (at least {lateness}), or add a slower unscoped pass.{}",
            match &f.no_statement {
                Some(NoStatement::ColumnUnquotable { why }) => format!(" (No statement is printed: the column name cannot be quoted safely — {why}.)"),
                Some(NoStatement::OutsideSparkYears) =>
                    " (No statement is printed: the oldest late partition lies outside the years 1–9999 Spark accepts.)".into(),
                None => String::new(),
            }
        ),
    }
}
