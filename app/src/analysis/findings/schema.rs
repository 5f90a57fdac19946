//! Schema changes under a running writer.

use std::collections::{BTreeMap, BTreeSet};

use crate::decode::{Schema, Type};

use serde::Serialize;

use super::{Bounded, Context, Facts, Finding, FindingKind, Severity};
use crate::decode::SnapshotId;

/// Streaming commits whose data files' columns do not match the table's schema at the commit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaUnderRunningWriter {
    pub commits: u64,
    /// The first such commit.
    pub first: SchemaAt,
    /// The first commit still writing a column the table dropped, if any.
    pub first_still_writing_dropped: Option<SchemaAt>,
    /// Columns written that the table's schema at the commit no longer has.
    pub dropped_columns: Bounded<Column>,
    /// Columns of the table's schema the writer does not write.
    pub unwritten_columns: Bounded<Column>,
    /// Of `commits`, those whose columns come from the files' Parquet footers (the rest from
    /// the manifests' column metrics).
    pub commits_from_footers: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SchemaAt {
    pub snapshot_id: SnapshotId,
    pub schema_id: i32,
}

/// A column by field id, with its newest name if any schema has it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Column {
    pub field_id: i32,
    pub name: Option<String>,
}

/// A column name a later schema gives a new field id.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnNameReused {
    pub name: String,
    pub old_field_id: i32,
    /// The first schema with the old field id.
    pub old_schema_id: i32,
    pub new_field_id: i32,
    pub new_schema_id: i32,
}

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
    let column = |id: i32| Column { field_id: id, name: h.metadata.schemas.iter().rev().find_map(|s| s.field_by_id(id)).map(|f| f.name.clone()) };
    let dropped: BTreeSet<i32> = stale.iter().flat_map(|s| s.2.iter().copied()).collect();
    let unwritten: BTreeSet<i32> = stale.iter().flat_map(|s| s.3.iter().copied()).collect();
    let jobs: BTreeSet<String> = stale.iter().filter_map(|(i, ..)| h.snapshots[*i].flink.as_ref().map(|f| f.job_id.to_string())).collect();
    let from_footers = stale.iter().filter(|(i, ..)| h.written_from_footers(h.snapshots[*i].snapshot.snapshot_id.0 as u64 as i64)).count();
    let facts = SchemaUnderRunningWriter {
        commits: stale.len() as u64,
        first: SchemaAt { snapshot_id: cx.id(stale[0].0), schema_id: stale[0].1 },
        first_still_writing_dropped: stale
            .iter()
            .find(|s| !s.2.is_empty())
            .map(|(i, schema_id, ..)| SchemaAt { snapshot_id: cx.id(*i), schema_id: *schema_id }),
        dropped_columns: Bounded::of(dropped.iter().map(|&id| column(id))),
        unwritten_columns: Bounded::of(unwritten.iter().map(|&id| column(id))),
        commits_from_footers: from_footers as u64,
    };
    vec![Finding::new(
        FindingKind::SchemaUnderRunningWriter,
        if dropped.is_empty() { Severity::Info } else { Severity::Warning },
        Facts::SchemaUnderRunningWriter(facts),
        stale.iter().map(|(i, ..)| cx.id(*i)).collect(),
        jobs.into_iter().collect(),
        None,
    )]
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
                    out.push(Finding::new(
                        FindingKind::ColumnNameReused,
                        Severity::Warning,
                        Facts::ColumnNameReused(ColumnNameReused {
                            name: name.clone(),
                            old_field_id: old,
                            old_schema_id: since,
                            new_field_id: id,
                            new_schema_id: s.schema_id,
                        }),
                        Vec::new(),
                        Vec::new(),
                        None,
                    ));
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
