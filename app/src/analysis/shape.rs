//! The table's shape over time: schema versions (what each changed, by field id, and when a
//! commit first used it), partition specs and sort orders, branches and tags with the snapshots
//! they point to, and the table properties, with what each maintenance-related one does.

use serde::Serialize;

use super::diff::{schema_change, SchemaChange};
use crate::decode::SnapshotId;
use crate::model::time::rfc3339_ms;
use crate::model::TableHistory;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Shape {
    pub schemas: Vec<SchemaVersion>,
    pub partition_specs: Vec<(i32, String, bool)>,
    pub sort_orders: Vec<(i32, String, bool)>,
    pub refs: Vec<Ref>,
    pub properties: Vec<Property>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaVersion {
    pub schema_id: i32,
    pub fields: usize,
    pub current: bool,
    /// From the schema before it (by id).
    pub change: Option<SchemaChange>,
    /// The first snapshot that records this schema id, and when.
    pub first_used: Option<(SnapshotId, i64, String)>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ref {
    pub name: String,
    pub kind: String,
    pub snapshot_id: SnapshotId,
    pub committed_at: Option<String>,
    pub retention: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Property {
    pub key: String,
    pub value: String,
    /// What it does, for the properties that shape how a streaming table grows.
    pub meaning: Option<&'static str>,
    /// Set, but read by no Iceberg version: the key Iceberg reads instead, when one is close.
    pub not_read: Option<String>,
}

/// The sentence shown beside a key no Iceberg version reads.
fn not_read(key: &str) -> Option<String> {
    let u = super::properties::unread(key)?;
    Some(match u.meant {
        Some(k) => format!("no Iceberg version reads this key: Iceberg reads {k}"),
        None => "no Iceberg version reads this key".into(),
    })
}

pub fn shape(h: &TableHistory) -> Shape {
    let m = &h.metadata;
    let mut ids: Vec<i32> = m.schemas.iter().map(|s| s.schema_id).collect();
    ids.sort_unstable();
    let schemas = ids
        .iter()
        .enumerate()
        .map(|(k, &id)| {
            let first = h
                .snapshots
                .iter()
                .find(|s| s.snapshot.schema_id == Some(id))
                .map(|s| (s.snapshot.snapshot_id, s.snapshot.timestamp_ms, rfc3339_ms(s.snapshot.timestamp_ms)));
            SchemaVersion {
                schema_id: id,
                fields: m.schema(id).map(|s| s.fields.len()).unwrap_or(0),
                current: id == m.current_schema_id,
                change: k.checked_sub(1).and_then(|p| schema_change(h, Some(ids[p]), Some(id))),
                first_used: first,
            }
        })
        .collect();
    let partition_specs = m
        .partition_specs
        .iter()
        .map(|s| {
            let fields: Vec<String> = s.fields.iter().map(|f| format!("{} = {}(source {})", f.name, f.transform, f.source_id)).collect();
            (s.spec_id, if fields.is_empty() { "unpartitioned".into() } else { fields.join(", ") }, s.spec_id == m.default_spec_id)
        })
        .collect();
    let sort_orders = m
        .sort_orders
        .iter()
        .map(|o| {
            let fields: Vec<String> = o
                .fields
                .iter()
                .map(|f| {
                    format!(
                        "{} {} {}",
                        f.get("transform").and_then(|v| v.as_str()).unwrap_or("?"),
                        f.get("source-id").map(|v| format!("source {v}")).unwrap_or_default(),
                        f.get("direction").and_then(|v| v.as_str()).unwrap_or("")
                    )
                })
                .collect();
            (o.order_id, if fields.is_empty() { "unsorted".into() } else { fields.join(", ") }, Some(o.order_id) == m.default_sort_order_id)
        })
        .collect();
    let refs = m
        .refs
        .iter()
        .map(|(name, r)| {
            let at = h.snapshots.iter().find(|s| s.snapshot.snapshot_id == r.snapshot_id).map(|s| rfc3339_ms(s.snapshot.timestamp_ms));
            let mut retention = Vec::new();
            if let Some(v) = r.max_ref_age_ms {
                retention.push(format!("max-ref-age-ms {v}"));
            }
            if let Some(v) = r.max_snapshot_age_ms {
                retention.push(format!("max-snapshot-age-ms {v}"));
            }
            if let Some(v) = r.min_snapshots_to_keep {
                retention.push(format!("min-snapshots-to-keep {v}"));
            }
            Ref { name: name.clone(), kind: r.ref_type.clone(), snapshot_id: r.snapshot_id, committed_at: at, retention: retention.join(", ") }
        })
        .collect();
    let properties = m
        .properties
        .iter()
        .map(|(k, v)| Property { key: k.clone(), value: v.clone(), meaning: super::properties::meaning(k), not_read: not_read(k) })
        .collect();
    Shape { schemas, partition_specs, sort_orders, refs, properties }
}
