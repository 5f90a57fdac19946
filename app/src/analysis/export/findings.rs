//! The findings table: one row per finding, as the JSON report's `findings`.

use crate::analysis::findings::Finding;

use super::table::{json_name, texts, Table, Values};

pub fn findings(list: &[Finding], catalog: Option<&str>) -> Table {
    let r = || list.iter();
    Table::new("findings", list.len())
        .col("severity", texts(r().map(|f| json_name(&f.severity))))
        .col("kind", texts(r().map(|f| Some(f.kind.as_str()))))
        .col("title", texts(r().map(|f| Some(f.title.clone()))))
        .col("snapshot_ids", Values::IntList(r().map(|f| f.snapshot_ids.iter().map(|s| s.0).collect()).collect()))
        .col("job_ids", Values::TextList(r().map(|f| f.job_ids.clone()).collect()))
        .col("evidence", texts(r().map(|f| Some(f.evidence.clone()))))
        .col("action", texts(r().map(|f| Some(f.action.clone()))))
        .col("statement", texts(r().map(|f| f.statement.as_ref().map(|s| s.sql_for(catalog)))))
}
