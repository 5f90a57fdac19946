//! Schema changes under a running writer.

use std::collections::{BTreeMap, BTreeSet};

use crate::decode::Schema;
use crate::model::ListState;

use super::{Context, Finding, Severity};

fn ids(s: &Schema) -> BTreeMap<i32, String> {
    s.all_fields().into_iter().map(|(n, f)| (f.id, n)).collect()
}

/// A streaming job keeps the schema it loaded at start-up and writes its manifests with it: commits
/// whose new manifests carry an older schema than the table had at that commit come from a writer
/// that has not followed a schema change.
pub(super) fn stale_writer_schema(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    let mut stale: Vec<(usize, i32, i32)> = Vec::new(); // (snapshot, writer schema, table schema)
    for (i, s) in h.snapshots.iter().enumerate() {
        let (Some(table_schema), ListState::Loaded(list)) = (s.snapshot.schema_id, &s.list) else { continue };
        let written = list
            .iter()
            .filter(|m| m.added_snapshot_id.is_some_and(|id| s.snapshot.snapshot_id.matches_avro_long(id)))
            .filter_map(|m| h.manifest(&m.manifest_path).and_then(|mf| mf.schema.as_ref()))
            .map(|sc| sc.schema_id)
            .min();
        if let Some(w) = written {
            if w < table_schema && h.metadata.schema(w).zip(h.metadata.schema(table_schema)).is_some_and(|(a, b)| ids(a) != ids(b)) {
                stale.push((i, w, table_schema));
            }
        }
    }
    let Some(&(first, writer, table)) = stale.first() else { return Vec::new() };
    let (Some(old), Some(new)) = (h.metadata.schema(writer), h.metadata.schema(table)) else { return Vec::new() };
    let (old_ids, new_ids) = (ids(old), ids(new));
    let dropped: Vec<String> = old_ids.iter().filter(|(id, _)| !new_ids.contains_key(id)).map(|(id, n)| format!("{n} (field id {id})")).collect();
    let added: Vec<String> = new_ids.iter().filter(|(id, _)| !old_ids.contains_key(id)).map(|(id, n)| format!("{n} (field id {id})")).collect();
    let jobs: BTreeSet<String> = stale.iter().filter_map(|(i, _, _)| h.snapshots[*i].flink.as_ref().map(|f| f.job_id.clone())).collect();
    let mut evidence = format!(
        "{} commits from snapshot {} on were made while the table's schema was {} but their manifests were written with \
         schema {}: the writer kept the schema it started with.",
        stale.len(),
        cx.id(first),
        table,
        writer
    );
    if !dropped.is_empty() {
        evidence += &format!(" It still writes {}, which the table no longer has: no reader projects it.", dropped.join(", "));
    }
    if !added.is_empty() {
        evidence += &format!(" It writes no {}: those rows read as null.", added.join(", "));
    }
    vec![Finding {
        kind: "schema_under_running_writer",
        severity: if dropped.is_empty() { Severity::Info } else { Severity::Warning },
        title: format!("Writer still on schema {writer} after the table moved to {table}"),
        snapshot_ids: stale.iter().map(|(i, _, _)| cx.id(*i)).collect(),
        job_ids: jobs.into_iter().collect(),
        evidence,
        action: "Deploy schema changes with the job: restart it (from a savepoint) so that it loads the current schema. Never \
                 re-add a dropped column's name."
            .into(),
        statement: None,
    }]
}

/// A name that a later schema gives a new field id: the files written under the old id are
/// unreachable under that name.
pub(super) fn name_reused(cx: &Context<'_>) -> Vec<Finding> {
    let mut schemas: Vec<&Schema> = cx.history.metadata.schemas.iter().collect();
    schemas.sort_by_key(|s| s.schema_id);
    let mut seen: BTreeMap<String, (i32, i32)> = BTreeMap::new(); // name → (field id, first schema)
    let mut out = Vec::new();
    for s in schemas {
        for (name, id) in ids(s).into_iter().map(|(id, n)| (n, id)) {
            match seen.get(&name) {
                Some(&(old, since)) if old != id => {
                    out.push(Finding {
                        kind: "column_name_reused",
                        severity: Severity::Warning,
                        title: format!("Column `{name}` re-added with a new field id ({old} → {id})"),
                        snapshot_ids: Vec::new(),
                        job_ids: Vec::new(),
                        evidence: format!(
                            "schema {since} has `{name}` as field id {old}; schema {} has a different column with the same name \
                             (field id {id}). Files written with field {old} keep their values, but no reader maps them to \
                             `{name}` any more: the data is in the files and unreachable from the table.",
                            s.schema_id
                        ),
                        action: "Do not re-add dropped names. To recover the values, rewrite the old files projecting the \
                                 old field into a new column, from a job that reads them by field id."
                            .into(),
                        statement: None,
                    });
                    seen.insert(name, (id, s.schema_id));
                }
                Some(_) => {}
                None => {
                    seen.insert(name, (id, s.schema_id));
                }
            }
        }
    }
    out
}
