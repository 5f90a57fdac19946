//! Table metadata (`*.metadata.json`, optionally gzip-compressed), format versions 1 to 3.
//!
//! The JSON is read into a permissive wire shape first and the version's required fields are
//! checked afterwards, so that an error names the missing field rather than a serde variant.

use std::collections::BTreeMap;
use std::io::Read;

use serde::{Deserialize, Serialize};

use super::schema::{PartitionSpec, Schema, SortOrder};
use super::snapshot::{Snapshot, SnapshotId, SnapshotRef, SnapshotWire};
use super::DecodeError;

/// Read from metadata.json through `Wire`; `Deserialize` reads back what `Serialize` wrote (the
/// decoder worker's transfer format).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableMetadata {
    pub format_version: u8,
    pub table_uuid: Option<String>,
    pub location: String,
    pub last_sequence_number: i64,
    pub last_updated_ms: i64,
    pub last_column_id: i32,
    pub schemas: Vec<Schema>,
    pub current_schema_id: i32,
    pub partition_specs: Vec<PartitionSpec>,
    pub default_spec_id: i32,
    pub sort_orders: Vec<SortOrder>,
    pub default_sort_order_id: Option<i32>,
    pub properties: BTreeMap<String, String>,
    pub current_snapshot_id: Option<SnapshotId>,
    /// In the order the metadata lists them (commit order for every writer seen so far).
    /// As the file lists them; `TableHistory::new` takes them (kept once, in commit order).
    pub snapshots: Vec<Snapshot>,
    pub snapshot_log: Vec<SnapshotLogEntry>,
    pub metadata_log: Vec<MetadataLogEntry>,
    pub refs: BTreeMap<String, SnapshotRef>,
    pub statistics: Vec<StatisticsFile>,
    pub next_row_id: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SnapshotLogEntry {
    pub snapshot_id: SnapshotId,
    pub timestamp_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct MetadataLogEntry {
    pub metadata_file: String,
    pub timestamp_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct StatisticsFile {
    pub snapshot_id: SnapshotId,
    pub statistics_path: String,
    #[serde(default)]
    pub file_size_in_bytes: i64,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct Wire {
    format_version: Option<u8>,
    table_uuid: Option<String>,
    location: Option<String>,
    last_sequence_number: Option<i64>,
    last_updated_ms: Option<i64>,
    last_column_id: Option<i32>,
    schema: Option<Schema>,
    schemas: Option<Vec<Schema>>,
    current_schema_id: Option<i32>,
    partition_spec: Option<Vec<super::schema::PartitionField>>,
    partition_specs: Option<Vec<PartitionSpec>>,
    default_spec_id: Option<i32>,
    sort_orders: Option<Vec<SortOrder>>,
    default_sort_order_id: Option<i32>,
    properties: Option<BTreeMap<String, serde_json::Value>>,
    current_snapshot_id: Option<SnapshotId>,
    snapshots: Option<Vec<SnapshotWire>>,
    snapshot_log: Option<Vec<SnapshotLogEntry>>,
    metadata_log: Option<Vec<MetadataLogEntry>>,
    refs: Option<BTreeMap<String, SnapshotRef>>,
    statistics: Option<Vec<StatisticsFile>>,
    next_row_id: Option<i64>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const MAX_GZIP_RATIO: u64 = 100;
const MIN_GZIP_BUDGET: u64 = 16 << 20;
const MAX_GZIP_BUDGET: u64 = 1 << 30;

impl Wire {
    fn finish(self, file: &str) -> Result<TableMetadata, DecodeError> {
        let mut m = self.into_metadata(file)?;
        // The logs were grown by doubling while parsed, and a day of commits keeps them for the load.
        m.snapshot_log.shrink_to_fit();
        m.metadata_log.shrink_to_fit();
        Ok(m)
    }
}

impl TableMetadata {
    /// Decodes a metadata file; gzip is recognised by its magic bytes, whatever the file is called.
    pub fn from_bytes(file: &str, bytes: &[u8]) -> Result<TableMetadata, DecodeError> {
        let json: std::borrow::Cow<'_, [u8]> = if bytes.starts_with(&GZIP_MAGIC) {
            // JSON compresses 10-30×; a file that inflates far beyond that is a bomb, not metadata.
            let limit = (bytes.len() as u64).saturating_mul(MAX_GZIP_RATIO).clamp(MIN_GZIP_BUDGET, MAX_GZIP_BUDGET);
            let mut out = Vec::new();
            flate2::read::GzDecoder::new(bytes)
                .take(limit + 1)
                .read_to_end(&mut out)
                .map_err(|e| DecodeError::new(file, "", format!("gzip-compressed metadata cannot be inflated: {e}")))?;
            if out.len() as u64 > limit {
                return Err(DecodeError::new(
                    file,
                    "",
                    format!("gzip-compressed metadata inflates past {} MiB ({} bytes compressed)", limit >> 20, bytes.len()),
                ));
            }
            out.into()
        } else {
            bytes.into()
        };
        // Tracking the path costs a third of a 16 MB parse: only a file that fails is read again
        // with it, for the field its error names.
        let wire: Wire = match serde_json::from_slice(&json) {
            Ok(w) => w,
            Err(plain) => {
                let de = &mut serde_json::Deserializer::from_slice(&json);
                let e = match serde_path_to_error::deserialize::<_, Wire>(de) {
                    Err(e) => e,
                    Ok(_) => return Err(DecodeError::new(file, "", format!("not valid table metadata JSON: {plain}"))),
                };
                let path = e.path().to_string();
                let inner = e.into_inner();
                let field = if path == "." { String::new() } else { path };
                return Err(DecodeError::new(file, &field, format!("not valid table metadata JSON: {inner}")));
            }
        };
        wire.finish(file)
    }

    /// Decodes plain metadata JSON as it is read, without holding the file's bytes: a day of
    /// commits is a 16 MB file. None for gzip (its inflation budget is checked on the bytes) and for
    /// a file that does not decode: `from_bytes` then reads it, and says why.
    pub fn from_reader(file: &str, mut json: impl std::io::Read) -> Option<TableMetadata> {
        use std::io::Read;
        let mut head = [0u8; 2];
        json.read_exact(&mut head).ok()?;
        if head == GZIP_MAGIC {
            return None;
        }
        let wire: Wire = serde_json::from_reader(std::io::BufReader::with_capacity(1 << 16, (&head[..]).chain(json))).ok()?;
        wire.finish(file).ok()
    }

    pub fn current_schema(&self) -> Option<&Schema> {
        self.schemas.iter().find(|s| s.schema_id == self.current_schema_id)
    }

    pub fn schema(&self, id: i32) -> Option<&Schema> {
        self.schemas.iter().find(|s| s.schema_id == id)
    }

    pub fn partition_spec(&self, id: i32) -> Option<&PartitionSpec> {
        self.partition_specs.iter().find(|s| s.spec_id == id)
    }

    pub fn snapshot(&self, id: SnapshotId) -> Option<&Snapshot> {
        self.snapshots.iter().find(|s| s.snapshot_id == id)
    }
}

fn missing(file: &str, field: &str, version: u8) -> DecodeError {
    DecodeError::new(file, field, format!("required in format version {version} but missing"))
}

impl Wire {
    fn into_metadata(self, file: &str) -> Result<TableMetadata, DecodeError> {
        let v = self.format_version.ok_or_else(|| DecodeError::new(file, "format-version", "required field is missing"))?;
        if !(1..=3).contains(&v) {
            return Err(DecodeError::new(file, "format-version", format!("unsupported format version {v} (1, 2 and 3 are known)")));
        }
        let location = self.location.ok_or_else(|| missing(file, "location", v))?;
        if v >= 2 && self.table_uuid.is_none() {
            return Err(missing(file, "table-uuid", v));
        }
        let schemas = match (self.schemas, self.schema) {
            (Some(s), _) if !s.is_empty() => s,
            (_, Some(s)) => vec![s],
            _ => return Err(missing(file, "schemas", v)),
        };
        let current_schema_id = match self.current_schema_id {
            Some(id) => id,
            None if v == 1 => schemas[0].schema_id,
            None => return Err(missing(file, "current-schema-id", v)),
        };
        let partition_specs = match (self.partition_specs, self.partition_spec) {
            (Some(s), _) if !s.is_empty() => s,
            (_, Some(fields)) => vec![PartitionSpec { spec_id: 0, fields }],
            _ if v == 1 => vec![PartitionSpec { spec_id: 0, fields: vec![] }],
            _ => return Err(missing(file, "partition-specs", v)),
        };
        let default_spec_id = self.default_spec_id.unwrap_or(partition_specs[0].spec_id);
        let snapshots = self.snapshots.unwrap_or_default().into_iter().enumerate().map(|(i, s)| snapshot(file, i, v, s)).collect::<Result<Vec<_>, _>>()?;
        Ok(TableMetadata {
            format_version: v,
            table_uuid: self.table_uuid,
            location,
            last_sequence_number: self.last_sequence_number.unwrap_or(0),
            last_updated_ms: self.last_updated_ms.ok_or_else(|| missing(file, "last-updated-ms", v))?,
            last_column_id: self.last_column_id.unwrap_or(0),
            schemas,
            current_schema_id,
            partition_specs,
            default_spec_id,
            sort_orders: self.sort_orders.unwrap_or_default(),
            default_sort_order_id: self.default_sort_order_id,
            properties: stringify(self.properties.unwrap_or_default()),
            // -1 is how v1 writers said "no current snapshot".
            current_snapshot_id: self.current_snapshot_id.filter(|id| id.0 != -1),
            snapshots,
            snapshot_log: self.snapshot_log.unwrap_or_default(),
            metadata_log: self.metadata_log.unwrap_or_default(),
            refs: self.refs.unwrap_or_default(),
            statistics: self.statistics.unwrap_or_default(),
            next_row_id: self.next_row_id,
        })
    }
}

fn snapshot(file: &str, index: usize, v: u8, s: SnapshotWire) -> Result<Snapshot, DecodeError> {
    let field = |name: &str| format!("snapshots[{index}].{name}");
    let snapshot_id = s.snapshot_id.ok_or_else(|| missing(file, &field("snapshot-id"), v))?;
    let timestamp_ms = s.timestamp_ms.ok_or_else(|| missing(file, &field("timestamp-ms"), v))?;
    let sequence_number = match s.sequence_number {
        Some(n) => n,
        None if v == 1 => 0,
        None => return Err(missing(file, &field("sequence-number"), v)),
    };
    if s.manifest_list.is_none() && (v >= 2 || s.manifests.is_none()) {
        return Err(missing(file, &field("manifest-list"), v));
    }
    let (summary, operation) = s.summary.unwrap_or_default().without("operation");
    let operation = match operation {
        Some(op) => super::snapshot::Operation::parse(&op),
        None if v == 1 => super::snapshot::Operation::Append,
        None => return Err(missing(file, &field("summary.operation"), v)),
    };
    Ok(Snapshot {
        snapshot_id,
        parent_snapshot_id: s.parent_snapshot_id.filter(|p| p.0 != -1),
        sequence_number,
        timestamp_ms,
        manifest_list: s.manifest_list,
        manifests: s.manifests.unwrap_or_default(),
        operation,
        summary,
        schema_id: s.schema_id,
        first_row_id: s.first_row_id,
        added_rows: s.added_rows,
    })
}

/// Summary and property values are strings by spec, but some writers emit numbers or booleans.
fn stringify(map: BTreeMap<String, serde_json::Value>) -> BTreeMap<String, String> {
    map.into_iter()
        .map(|(k, v)| {
            let s = match v {
                serde_json::Value::String(s) => s,
                other => other.to_string(),
            };
            (k, s)
        })
        .collect()
}
