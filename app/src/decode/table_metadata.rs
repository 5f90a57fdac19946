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
        let gzip = bytes.starts_with(&GZIP_MAGIC);
        let json: std::borrow::Cow<'_, [u8]> = if gzip {
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
        let wire: Wire = match serde_json::from_slice(&json) {
            Ok(w) => w,
            Err(plain) => return Err(json_error(file, &json, gzip.then_some(bytes.len()), plain)),
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

/// Why a metadata file's JSON did not decode, as the person who must repair or replace the file
/// needs it: cut short (a copy or write that stopped: the usual damage), not JSON from some point
/// on, or JSON whose field holds the wrong thing. `compressed`: the file's size when `json` was
/// inflated from it.
fn json_error(file: &str, json: &[u8], compressed: Option<usize>, plain: serde_json::Error) -> DecodeError {
    use serde_json::error::Category;
    let size = match compressed {
        Some(c) => format!("the file is {c} bytes, gzip-compressed, {} inflated", json.len()),
        None => format!("the file is {} bytes", json.len()),
    };
    match plain.classify() {
        Category::Eof if json.is_empty() => DecodeError::new(file, "", format!("empty ({size})")),
        Category::Eof if json.iter().all(u8::is_ascii_whitespace) => DecodeError::new(file, "", format!("holds no JSON, only whitespace ({size})")),
        Category::Eof => {
            // Where the cut fell says which part of the table was lost; the last segment the
            // parser had not yet named is unknown and left off.
            let inside = match path_to_error(json) {
                Some((path, _)) if !path.is_empty() => format!("; it stops inside `{path}`"),
                _ => String::new(),
            };
            let of = if compressed.is_some() { " of its inflated JSON" } else { "" };
            DecodeError::new(file, "", format!("truncated at byte {}{of} ({size}){inside}", json.len()))
        }
        Category::Syntax | Category::Io => {
            let what = without_position(&plain);
            // Valid JSON all the same: a number wider than the field's type is the field's fault.
            if what == "number out of range" {
                if let Some((path, _)) = path_to_error(json).filter(|(p, _)| !p.is_empty()) {
                    return DecodeError::new(
                        file,
                        &path,
                        format!("field `{path}` holds a number out of range (line {} column {})", plain.line(), plain.column()),
                    );
                }
            }
            DecodeError::new(file, "", format!("not JSON at line {} column {}: {what}", plain.line(), plain.column()))
        }
        Category::Data => {
            let at = format!(" (line {} column {})", plain.line(), plain.column());
            let (path, inner) = path_to_error(json).unwrap_or_default();
            let inner = if inner.is_empty() { without_position(&plain) } else { inner };
            let named = |name: &str| if path.is_empty() { name.to_string() } else { format!("{path}.{name}") };
            if let Some((found, expected)) = inner.strip_prefix("invalid type: ").and_then(|r| r.rsplit_once(", expected ")) {
                let expected = plain_expected(expected);
                return if path.is_empty() {
                    DecodeError::new(file, "", format!("not table metadata: expected {expected}, found {found}{at}"))
                } else {
                    DecodeError::new(file, &path, format!("field `{path}` has the wrong type: expected {expected}, found {found}{at}"))
                };
            }
            if let Some(name) = inner.strip_prefix("missing field `").and_then(|r| r.strip_suffix('`')) {
                let field = named(name);
                return DecodeError::new(file, &field, format!("field `{field}` is missing{at}"));
            }
            if let Some(rest) = inner.strip_prefix("invalid value: ").filter(|_| !path.is_empty()) {
                return DecodeError::new(file, &path, format!("field `{path}` has an invalid value: {rest}{at}"));
            }
            if path.is_empty() {
                DecodeError::new(file, "", format!("not table metadata: {inner}{at}"))
            } else {
                DecodeError::new(file, &path, format!("{inner}{at}"))
            }
        }
    }
}

/// The field a failed parse stopped in and serde's message without its position: read again
/// with the path tracked, which costs a third of a 16 MB parse and so only for a file that
/// failed. None when it reads this time. Path segments serde could not name (`?`) and all after
/// them are left off: a field named `?` tells nobody anything.
fn path_to_error(json: &[u8]) -> Option<(String, String)> {
    let de = &mut serde_json::Deserializer::from_slice(json);
    let e = serde_path_to_error::deserialize::<_, Wire>(de).err()?;
    let path = e.path().to_string();
    let known = match path.find('?') {
        Some(at) => path[..at].trim_end_matches(['.', '[']),
        None => path.as_str(),
    };
    let known = if known == "." { "" } else { known }.to_string();
    Some((known, without_position(&e.into_inner())))
}

/// serde_json's message without the ` at line L column C` it appends: the caller places it.
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    text.strip_suffix(&format!(" at line {} column {}", e.line(), e.column())).map(str::to_string).unwrap_or(text)
}

/// serde's names for what a type expects, in JSON's words (`struct SnapshotWire` is ours, not
/// the file's).
fn plain_expected(expected: &str) -> String {
    if expected.starts_with("struct ") || expected == "a map" {
        "a JSON object".into()
    } else if expected == "a sequence" {
        "a JSON array".into()
    } else {
        expected.to_string()
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

#[cfg(test)]
mod tests {
    use super::TableMetadata;

    fn v13() -> Vec<u8> {
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/append-stream/metadata/v13.metadata.json")).unwrap()
    }

    fn error(bytes: &[u8]) -> String {
        TableMetadata::from_bytes("m/v13.metadata.json", bytes).unwrap_err().to_string()
    }

    #[test]
    fn a_damaged_file_is_said_plainly() {
        let whole = v13();
        assert!(TableMetadata::from_bytes("m", &whole).is_ok());
        // Cut inside a key of the top object (`"defaul`): where it stops is no field.
        assert_eq!(error(&whole[..700]), "m/v13.metadata.json: truncated at byte 700 (the file is 700 bytes)");
        let at = whole.windows(17).position(|w| w == b"\"manifest-list\":\"").unwrap() + 30;
        assert_eq!(
            error(&whole[..at]),
            format!("m/v13.metadata.json: truncated at byte {at} (the file is {at} bytes); it stops inside `snapshots[0].manifest-list`")
        );
        assert_eq!(error(b""), "m/v13.metadata.json: empty (the file is 0 bytes)");
        assert_eq!(error(b" \n"), "m/v13.metadata.json: holds no JSON, only whitespace (the file is 2 bytes)");
        let mut garbled = whole.clone();
        garbled[600..610].fill(b'}');
        // Column 601 is byte 600, the first one overwritten (the fixture is one line).
        assert_eq!(error(&garbled), "m/v13.metadata.json: not JSON at line 1 column 601: expected value");
        let typed = String::from_utf8(whole.clone()).unwrap().replacen("\"snapshots\"", "\"snapshots\": 7, \"x\"", 1);
        let e = error(typed.as_bytes());
        assert!(e.starts_with("m/v13.metadata.json: field `snapshots` has the wrong type: expected a JSON array, found integer `7` (line 1 column "), "{e}");
        let gone = String::from_utf8(whole).unwrap().replacen("\"name\"", "\"nome\"", 1);
        let e = error(gone.as_bytes());
        assert!(e.starts_with("m/v13.metadata.json: field `schemas[0].fields[0].name` is missing (line 1 column "), "{e}");
        assert_eq!(error(b"\"a table\""), "m/v13.metadata.json: not table metadata: expected a JSON object, found string \"a table\" (line 1 column 9)");
    }
}
