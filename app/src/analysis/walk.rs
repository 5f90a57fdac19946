//! The walk a teacher takes through a table: metadata.json → snapshot → manifest list → manifest →
//! data and delete files, each level's fields under the spec's names and field ids, with where the
//! file lives. Built from what the loader kept (the current and selected snapshots' files).

use serde::Serialize;

use crate::decode::{DataContent, ManifestContent, ManifestFile, ManifestStatus};
use crate::model::time::rfc3339_ms;
use crate::model::TableHistory;

/// One field as the spec names it, with its field id where the spec gives one (Avro files).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// The spec's name; a snapshot's summary keys are the writer's (`summary.added-records`).
    pub name: std::borrow::Cow<'static, str>,
    pub id: Option<i32>,
    pub value: String,
}

fn f(name: &'static str, id: Option<i32>, value: impl ToString) -> Field {
    Field { name: name.into(), id, value: value.to_string() }
}

fn o<T: ToString>(name: &'static str, id: i32, value: Option<T>) -> Field {
    f(name, Some(id), value.map(|v| v.to_string()).unwrap_or_else(|| "null".into()))
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Walk {
    pub metadata_file: String,
    pub metadata: Vec<Field>,
    pub snapshot_index: usize,
    pub snapshot: Vec<Field>,
    pub manifest_list: Option<String>,
    /// The list's rows (each a manifest; at most `max_rows`), when kept; None when this snapshot's
    /// list is not at hand.
    pub manifests: Option<Vec<Vec<Field>>>,
    pub total_manifests: usize,
    /// The manifest opened, with its entries (at most `max_entries`) and how many it has.
    pub manifest: Option<ManifestLevel>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ManifestLevel {
    pub path: String,
    pub header: Vec<Field>,
    pub entries: Vec<Vec<Field>>,
    pub total_entries: usize,
}

fn metadata_fields(h: &TableHistory) -> Vec<Field> {
    let m = &h.metadata;
    vec![
        f("format-version", None, m.format_version),
        f("table-uuid", None, m.table_uuid.clone().unwrap_or_else(|| "null".into())),
        f("location", None, &m.location),
        f("last-sequence-number", None, m.last_sequence_number),
        f("last-updated-ms", None, format!("{} ({})", m.last_updated_ms, rfc3339_ms(m.last_updated_ms))),
        f("last-column-id", None, m.last_column_id),
        f("current-schema-id", None, format!("{} (of {} schemas)", m.current_schema_id, m.schemas.len())),
        f("default-spec-id", None, format!("{} (of {} partition specs)", m.default_spec_id, m.partition_specs.len())),
        f("default-sort-order-id", None, m.default_sort_order_id.map(|v| v.to_string()).unwrap_or_else(|| "null".into())),
        f("current-snapshot-id", None, m.current_snapshot_id.map(|v| v.to_string()).unwrap_or_else(|| "null".into())),
        // The model holds the snapshots (metadata.json's list is moved into it when it loads).
        f("snapshots", None, format!("{} entries", h.snapshots.len())),
        f("refs", None, m.refs.iter().map(|(k, r)| format!("{k} → {} ({})", r.snapshot_id, r.ref_type)).collect::<Vec<_>>().join(", ")),
        f("metadata-log", None, format!("{} earlier metadata files", m.metadata_log.len())),
        f("properties", None, format!("{} properties", m.properties.len())),
        f("next-row-id", None, m.next_row_id.map(|v| v.to_string()).unwrap_or_else(|| "null (before v3)".into())),
    ]
}

fn snapshot_fields(h: &TableHistory, i: usize) -> Vec<Field> {
    let s = &h.snapshots[i].snapshot;
    let mut out = vec![
        f("snapshot-id", None, s.snapshot_id),
        f("parent-snapshot-id", None, s.parent_snapshot_id.map(|v| v.to_string()).unwrap_or_else(|| "null".into())),
        f("sequence-number", None, s.sequence_number),
        f("timestamp-ms", None, format!("{} ({})", s.timestamp_ms, rfc3339_ms(s.timestamp_ms))),
        f("manifest-list", None, s.manifest_list.clone().unwrap_or_else(|| format!("none: {} manifests listed inline (v1)", s.manifests.len()))),
        f("schema-id", None, s.schema_id.map(|v| v.to_string()).unwrap_or_else(|| "null".into())),
        f("summary.operation", None, s.operation.to_string()),
    ];
    // Every other summary key as the writer wrote it (sorted by key).
    out.extend(s.summary.iter().filter(|(k, _)| *k != "operation").map(|(k, v)| Field { name: format!("summary.{k}").into(), id: None, value: v.to_string() }));
    if s.first_row_id.is_some() || s.added_rows.is_some() {
        out.push(f("first-row-id", None, s.first_row_id.map(|v| v.to_string()).unwrap_or_else(|| "null".into())));
        out.push(f("added-rows", None, s.added_rows.map(|v| v.to_string()).unwrap_or_else(|| "null".into())));
    }
    out
}

/// The `manifest_file` struct of a manifest list row, fields 500–520.
pub fn list_row(m: &ManifestFile) -> Vec<Field> {
    vec![
        f("manifest_path", Some(500), &m.manifest_path),
        f("manifest_length", Some(501), m.manifest_length),
        f("partition_spec_id", Some(502), m.partition_spec_id),
        f(
            "content",
            Some(517),
            match m.content {
                ManifestContent::Data => "0 (data)".to_string(),
                ManifestContent::Deletes => "1 (deletes)".to_string(),
                ManifestContent::Unknown(v) => format!("{v} (unknown)"),
            },
        ),
        f("sequence_number", Some(515), m.sequence_number),
        f("min_sequence_number", Some(516), m.min_sequence_number),
        o("added_snapshot_id", 503, m.added_snapshot_id),
        o("added_files_count", 504, m.added_files_count),
        o("existing_files_count", 505, m.existing_files_count),
        o("deleted_files_count", 506, m.deleted_files_count),
        o("added_rows_count", 512, m.added_rows_count),
        o("existing_rows_count", 513, m.existing_rows_count),
        o("deleted_rows_count", 514, m.deleted_rows_count),
        o("first_row_id", 520, m.first_row_id),
    ]
}

/// A value the writer left null for a reader to inherit (spec: "Sequence Number Inheritance" and
/// "Snapshot ID Inheritance"): from the manifest list's row, for an ADDED entry of a v2+ table.
fn inherited(name: &'static str, id: i32, value: Option<i64>, from: Option<(i64, &'static str)>, added: bool) -> Field {
    match (value, from) {
        (Some(v), _) => f(name, Some(id), v),
        (None, Some((v, source))) if added => f(name, Some(id), format!("null → {v} (inherited from the manifest list's {source})")),
        (None, _) => f(name, Some(id), "null"),
    }
}

/// A `manifest_entry` (fields 0–4) and its `data_file` (100–145); `row` is the manifest list's row
/// for its manifest (what null ids and sequence numbers inherit), `v2` whether they inherit at all.
fn entry_row(e: &crate::decode::ManifestEntry, row: Option<&ManifestFile>, v2: bool) -> Vec<Field> {
    let d = &e.data_file;
    let added = e.status == ManifestStatus::Added;
    let seq = row.filter(|_| v2).map(|m| (m.sequence_number, "sequence_number"));
    let mut out = vec![
        f(
            "status",
            Some(0),
            match e.status {
                ManifestStatus::Existing => "0 (existing)",
                ManifestStatus::Added => "1 (added)",
                ManifestStatus::Deleted => "2 (deleted)",
            },
        ),
        inherited("snapshot_id", 1, e.snapshot_id, row.and_then(|m| Some((m.added_snapshot_id?, "added_snapshot_id"))), added),
        inherited("sequence_number", 3, e.sequence_number, seq, added),
        inherited("file_sequence_number", 4, e.file_sequence_number, seq, added),
        f(
            "data_file.content",
            Some(134),
            match d.content {
                DataContent::Data => "0 (data)".to_string(),
                DataContent::PositionDeletes => "1 (position deletes)".to_string(),
                DataContent::EqualityDeletes => "2 (equality deletes)".to_string(),
                DataContent::Unknown(v) => format!("{v} (unknown)"),
            },
        ),
        f("data_file.file_path", Some(100), &d.file_path),
        f("data_file.file_format", Some(101), &d.file_format),
        f("data_file.partition", Some(102), d.partition.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ")),
        f("data_file.record_count", Some(103), d.record_count),
        f("data_file.file_size_in_bytes", Some(104), d.file_size_in_bytes),
    ];
    if !d.equality_ids.is_empty() {
        out.push(f("data_file.equality_ids", Some(135), format!("{:?}", d.equality_ids)));
    }
    if let Some(v) = d.sort_order_id {
        out.push(f("data_file.sort_order_id", Some(140), v));
    }
    if let Some(v3) = &d.v3 {
        out.push(o("data_file.first_row_id", 142, v3.first_row_id));
        out.push(o("data_file.referenced_data_file", 143, v3.referenced_data_file.clone()));
        out.push(o("data_file.content_offset", 144, v3.content_offset));
        out.push(o("data_file.content_size_in_bytes", 145, v3.content_size_in_bytes));
    }
    out
}

/// The walk down snapshot `snapshot`, into the manifest at `manifest` if given; lists and
/// manifests shown up to `max_rows` rows each.
pub fn walk(h: &TableHistory, snapshot: usize, manifest: Option<&str>, max_rows: usize) -> Walk {
    let snapshot = snapshot.min(h.snapshots.len().saturating_sub(1));
    let list = h.list_of(snapshot);
    let manifest = manifest.and_then(|p| {
        let m = h.manifest(p)?;
        let header = vec![
            f("content (Avro header)", None, m.content.clone().unwrap_or_else(|| "not recorded".into())),
            f("partition-spec-id (Avro header)", None, m.partition_spec_id.map(|v| v.to_string()).unwrap_or_else(|| "not recorded".into())),
            f("format-version (Avro header)", None, m.format_version.map(|v| v.to_string()).unwrap_or_else(|| "not recorded".into())),
        ];
        let row = list.and_then(|l| l.iter().find(|r| r.manifest_path == p));
        let v2 = h.metadata.format_version >= 2;
        Some(ManifestLevel {
            path: p.to_string(),
            header,
            entries: m.entries.iter().take(max_rows).map(|e| entry_row(e, row, v2)).collect(),
            total_entries: m.entries.len(),
        })
    });
    Walk {
        metadata_file: h.metadata_file.clone(),
        metadata: metadata_fields(h),
        snapshot_index: snapshot,
        snapshot: if h.snapshots.is_empty() { Vec::new() } else { snapshot_fields(h, snapshot) },
        manifest_list: h.snapshots.get(snapshot).and_then(|s| s.snapshot.manifest_list.clone()),
        manifests: list.map(|l| l.iter().take(max_rows).map(list_row).collect()),
        total_manifests: list.map(|l| l.len()).unwrap_or(0),
        manifest,
    }
}
