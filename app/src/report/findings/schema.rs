//! Schema changes under a running writer.

use super::Words;
use crate::analysis::findings::{Bounded, Column, ColumnNameReused, SchemaUnderRunningWriter};
use crate::report::format::capped_list;

fn names(columns: &Bounded<Column>) -> String {
    let each = columns.first.iter().map(|c| match &c.name {
        Some(name) => format!("`{name}` (field id {})", c.field_id),
        None => format!("field id {}", c.field_id),
    });
    capped_list(each, columns.total, "columns")
}

pub(super) fn stale_writer_schema(f: &SchemaUnderRunningWriter) -> Words {
    let mut evidence = format!(
        "{} streaming commits, from snapshot {} (table schema {}) on, added data files whose columns do not match the table's schema at that commit: the job kept the schema it started with.",
        f.commits, f.first.snapshot_id, f.first.schema_id
    );
    if let Some(at) = &f.first_still_writing_dropped {
        evidence += &format!(
            " From snapshot {} (schema {}) it still writes {}, which the table no longer has: no reader projects it, and a column re-added under that name gets a new field id.",
            at.snapshot_id,
            at.schema_id,
            names(&f.dropped_columns)
        );
    }
    if f.unwritten_columns.total > 0 {
        evidence += &format!(" It writes no {}: its rows read as null there.", names(&f.unwritten_columns));
    }
    evidence += &if f.commits_from_footers == f.commits {
        " The columns are those the data files physically carry (their Parquet footers).".to_string()
    } else if f.commits_from_footers > 0 {
        format!(
            " The columns are those the data files carry (Parquet footers) for {} of these commits, those their column metrics name for the rest.",
            f.commits_from_footers
        )
    } else {
        " The columns are those the files' column metrics name in the manifests (run `icescope footers` to read what the files carry).".to_string()
    };
    Words {
        title: if f.dropped_columns.total == 0 {
            format!("Running job does not write the new column(s) {}", names(&f.unwritten_columns))
        } else {
            format!("Column dropped under a running job: it still writes {}", names(&f.dropped_columns))
        },
        evidence,
        action: "Deploy schema changes with the job: restart it from a savepoint so that it loads the current schema. Never re-add a dropped column's name."
            .into(),
    }
}

pub(super) fn name_reused(f: &ColumnNameReused) -> Words {
    let ColumnNameReused { name, old_field_id: old, old_schema_id: since, new_field_id: id, new_schema_id } = f;
    Words {
        title: format!("Column `{name}` re-added with a new field id ({old} → {id})"),
        evidence: format!(
            "schema {since} has `{name}` as field id {old}; schema {new_schema_id} has a different column with the same name \
             (field id {id}). Files written with field {old} keep their values, but no reader maps them to \
             `{name}` any more: the data is in the files and unreachable from the table."
        ),
        action: "Do not re-add dropped names. To recover the values, rewrite the old files projecting the \
                 old field into a new column, from a job that reads them by field id."
            .into(),
    }
}
