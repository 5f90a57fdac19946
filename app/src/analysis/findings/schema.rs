//! Schema changes under a running writer.

use std::collections::{BTreeMap, BTreeSet};

use crate::decode::{Schema, Type};

use super::{Context, Finding, FindingKind, Severity};

fn ids(s: &Schema) -> BTreeMap<i32, String> {
    s.all_fields().into_iter().map(|(n, f)| (f.id, n)).collect()
}

/// Leaf columns of a schema by field id: the ones a data file reports metrics for.
fn leaves(s: &Schema) -> BTreeMap<i32, String> {
    s.all_fields().into_iter().filter(|(_, f)| matches!(f.field_type, Type::Primitive(_))).map(|(n, f)| (f.id, n)).collect()
}

/// A streaming job keeps the schema it loaded at start-up. The column metrics of the data files it
/// adds name the field ids it actually wrote; held against the table's schema at each commit they
/// show a writer that has not followed a schema change.
pub(super) fn stale_writer_schema(cx: &Context<'_>) -> Vec<Finding> {
    let h = cx.history;
    // (snapshot index, table schema id, dropped ids still written, current ids not written)
    let mut stale: Vec<(usize, i32, BTreeSet<i32>, BTreeSet<i32>)> = Vec::new();
    // Over every manifest read: files keep their adding snapshot's id in every later manifest.
    let by_adder = h.written_field_ids();
    for (i, s) in h.snapshots.iter().enumerate() {
        let (Some(schema_id), Some(_)) = (s.snapshot.schema_id, &s.flink) else { continue };
        let Some(schema) = h.metadata.schema(schema_id) else { continue };
        let Some(written) = by_adder.get(&(s.snapshot.snapshot_id.0 as u64 as i64)) else { continue };
        if written.is_empty() {
            continue;
        }
        let table: BTreeSet<i32> = leaves(schema).into_keys().collect();
        let extra: BTreeSet<i32> = written.difference(&table).copied().collect();
        let missing: BTreeSet<i32> = table.difference(written).copied().collect();
        if !extra.is_empty() || !missing.is_empty() {
            stale.push((i, schema_id, extra, missing));
        }
    }
    if stale.is_empty() {
        return Vec::new();
    }
    let name_of = |id: i32| {
        h.metadata
            .schemas
            .iter()
            .rev()
            .find_map(|s| s.field_by_id(id))
            .map(|f| format!("`{}` (field id {id})", f.name))
            .unwrap_or_else(|| format!("field id {id}"))
    };
    let names = |ids: &BTreeSet<i32>| super::capped_list(ids.iter().map(|&id| name_of(id)), ids.len(), "columns");
    let dropped: BTreeSet<i32> = stale.iter().flat_map(|s| s.2.iter().copied()).collect();
    let unwritten: BTreeSet<i32> = stale.iter().flat_map(|s| s.3.iter().copied()).collect();
    let jobs: BTreeSet<String> = stale.iter().filter_map(|(i, ..)| h.snapshots[*i].flink.as_ref().map(|f| f.job_id.to_string())).collect();
    let first_drop = stale.iter().find(|s| !s.2.is_empty());
    let mut evidence = format!(
        "{} streaming commits, from snapshot {} (table schema {}) on, added data files whose columns do not match the table's schema at that commit: the job kept the schema it started with.",
        stale.len(),
        cx.id(stale[0].0),
        stale[0].1
    );
    if let Some((i, schema_id, ..)) = first_drop {
        evidence += &format!(
            " From snapshot {} (schema {}) it still writes {}, which the table no longer has: no reader projects it, and a column re-added under that name gets a new field id.",
            cx.id(*i),
            schema_id,
            names(&dropped)
        );
    }
    if !unwritten.is_empty() {
        evidence += &format!(" It writes no {}: its rows read as null there.", names(&unwritten));
    }
    let from_footers = stale.iter().filter(|(i, ..)| h.written_from_footers(h.snapshots[*i].snapshot.snapshot_id.0 as u64 as i64)).count();
    evidence += &if from_footers == stale.len() {
        " The columns are those the data files physically carry (their Parquet footers).".to_string()
    } else if from_footers > 0 {
        format!(
            " The columns are those the data files carry (Parquet footers) for {from_footers} of these commits, those their column metrics name for the rest."
        )
    } else {
        " The columns are those the files' column metrics name in the manifests (run `icescope footers` to read what the files carry).".to_string()
    };
    vec![Finding {
        kind: FindingKind::SchemaUnderRunningWriter,
        facts: crate::analysis::findings::Facts::Worded,
        severity: if dropped.is_empty() { Severity::Info } else { Severity::Warning },
        title: if dropped.is_empty() {
            format!("Running job does not write the new column(s) {}", names(&unwritten))
        } else {
            format!("Column dropped under a running job: it still writes {}", names(&dropped))
        },
        snapshot_ids: stale.iter().map(|(i, ..)| cx.id(*i)).collect(),
        job_ids: jobs.into_iter().collect(),
        evidence,
        action: "Deploy schema changes with the job: restart it from a savepoint so that it loads the current schema. Never re-add a dropped column's name."
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
                        kind: FindingKind::ColumnNameReused,
                        facts: crate::analysis::findings::Facts::Worded,
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
