//! Manifests (`*-m0.avro`): the data and delete files a snapshot added, kept or removed.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::avro::{read_container, Rec};
use super::avro_datum::Datum;
use super::DecodeError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ManifestStatus {
    Existing,
    Added,
    Deleted,
}

impl ManifestStatus {
    pub fn is_live(self) -> bool {
        self != ManifestStatus::Deleted
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DataContent {
    Data,
    PositionDeletes,
    EqualityDeletes,
    /// A content code this reader does not know (a later spec, or a damaged file): decoded and
    /// shown, never counted as data or deletes (the model makes its manifest a gap).
    Unknown(i64),
}

/// A partition value as stored: the transform's result, not the source column's value.
/// In JSON (the exports) the bare value; between the page and its decoder worker (postcard, which
/// cannot read an untagged value back) tagged: the derived form, the inherent `serialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub enum PartitionValue {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(Box<str>),
    Bytes(Box<[u8]>),
}

impl Serialize for PartitionValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if !s.is_human_readable() {
            return PartitionValue::serialize(self, s);
        }
        match self {
            PartitionValue::Null => s.serialize_unit(),
            PartitionValue::Bool(b) => b.serialize(s),
            PartitionValue::Int(i) => i.serialize(s),
            PartitionValue::Float(x) => x.serialize(s),
            PartitionValue::Text(t) => t.serialize(s),
            PartitionValue::Bytes(b) => b.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PartitionValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PartitionValue::deserialize(d)
    }
}

impl std::fmt::Display for PartitionValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PartitionValue::Null => write!(f, "null"),
            PartitionValue::Bool(b) => write!(f, "{b}"),
            PartitionValue::Int(i) => write!(f, "{i}"),
            PartitionValue::Float(x) => write!(f, "{x}"),
            PartitionValue::Text(s) => write!(f, "{s}"),
            PartitionValue::Bytes(b) => write!(f, "0x{}", b.iter().map(|x| format!("{x:02x}")).collect::<String>()),
        }
    }
}

/// `file_format` as the spec names it; anything else is kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileFormat {
    Avro,
    Orc,
    Parquet,
    Puffin,
    Unknown(Box<str>),
}

impl FileFormat {
    pub fn parse(s: &str) -> FileFormat {
        match s.to_ascii_uppercase().as_str() {
            "AVRO" => FileFormat::Avro,
            "ORC" => FileFormat::Orc,
            "PARQUET" => FileFormat::Parquet,
            "PUFFIN" => FileFormat::Puffin,
            _ => FileFormat::Unknown(s.into()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            FileFormat::Avro => "AVRO",
            FileFormat::Orc => "ORC",
            FileFormat::Parquet => "PARQUET",
            FileFormat::Puffin => "PUFFIN",
            FileFormat::Unknown(s) => s,
        }
    }
}

impl std::fmt::Display for FileFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for FileFormat {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FileFormat {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|s| FileFormat::parse(&s))
    }
}

/// What format v3 adds to a data file: row lineage, and where a deletion vector sits.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct V3Fields {
    pub referenced_data_file: Option<String>,
    pub first_row_id: Option<i64>,
    pub content_offset: Option<i64>,
    pub content_size_in_bytes: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataFile {
    pub content: DataContent,
    pub file_path: Box<str>,
    pub file_format: FileFormat,
    /// (partition field name, value) in the manifest's partition spec order. Names, and whole
    /// tuples equal to one of the last few, are shared between entries: a day of checkpoints keeps
    /// 50,000 entries in a handful of partitions.
    pub partition: Arc<[(Arc<str>, PartitionValue)]>,
    pub record_count: i64,
    pub file_size_in_bytes: i64,
    pub equality_ids: Box<[i32]>,
    /// Field ids the writer reported metrics for (value, null and size counts): the columns it
    /// actually wrote, whatever the table's schema said at the time.
    /// Shared between consecutive entries that carry the same set, as nearly all of a writer's do.
    pub metric_field_ids: Arc<[i32]>,
    pub sort_order_id: Option<i32>,
    /// Format v3 fields, boxed: absent from most files, and a day of checkpoints keeps 50,000
    /// entries of the current snapshot in memory.
    pub v3: Option<Box<V3Fields>>,
}

impl DataFile {
    /// A deletion vector is a position delete stored as a blob in a Puffin file (format v3).
    pub fn is_deletion_vector(&self) -> bool {
        self.content == DataContent::PositionDeletes && self.file_format == FileFormat::Puffin
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestEntry {
    pub status: ManifestStatus,
    /// None where the writer left it to be inherited from the manifest list (v2+).
    pub snapshot_id: Option<i64>,
    pub sequence_number: Option<i64>,
    pub file_sequence_number: Option<i64>,
    pub data_file: DataFile,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// From the Avro header: `data` or `deletes`, when the writer recorded it.
    pub content: Option<String>,
    pub partition_spec_id: Option<i32>,
    pub format_version: Option<u8>,
    pub entries: Vec<ManifestEntry>,
}

impl Manifest {
    pub fn from_bytes(file: &str, bytes: &[u8]) -> Result<Manifest, DecodeError> {
        Manifest::stream(file, bytes, usize::MAX, |_| true)
    }

    /// Hands every entry to `each` as it is decoded; only those it returns true for are kept in
    /// `entries`. A 130 KB manifest can hold a million entries: a caller that needs counts, not
    /// files, keeps none of them.
    /// `keep_at_most`: how many entries the caller may keep, a bound on what is reserved for them.
    pub fn stream(file: &str, bytes: &[u8], keep_at_most: usize, mut each: impl FnMut(&ManifestEntry) -> bool) -> Result<Manifest, DecodeError> {
        let avro = read_container(file, bytes, keep_at_most, |i, r| {
            let e = entry(&Rec::new(file, "entry", i, r)?)?;
            Ok(each(&e).then_some(e))
        })?;
        let mut entries = avro.records;
        // Growth (where the blocks understated the count) leaves up to half the vector empty, and
        // a detail snapshot keeps it for the load.
        entries.shrink_to_fit();
        Ok(Manifest {
            content: avro.metadata.get("content").cloned(),
            partition_spec_id: avro.metadata.get("partition-spec-id").and_then(|s| s.parse().ok()),
            format_version: avro.metadata.get("format-version").and_then(|s| s.parse().ok()),
            entries,
        })
    }
}

fn entry(r: &Rec<'_, '_, '_>) -> Result<ManifestEntry, DecodeError> {
    let status = match r.req_long("status")? {
        0 => ManifestStatus::Existing,
        1 => ManifestStatus::Added,
        2 => ManifestStatus::Deleted,
        other => return Err(r.err("status", format!("unknown entry status {other} (0 existing, 1 added, 2 deleted)"))),
    };
    let data_file = r.record("data_file")?.ok_or_else(|| r.err("data_file", "required field is missing"))?;
    Ok(ManifestEntry {
        status,
        snapshot_id: r.long("snapshot_id")?,
        sequence_number: r.long("sequence_number")?,
        file_sequence_number: r.long("file_sequence_number")?,
        data_file: data_file_of(&data_file)?,
    })
}

fn data_file_of(r: &Rec<'_, '_, '_>) -> Result<DataFile, DecodeError> {
    let content = match r.long("content")? {
        None | Some(0) => DataContent::Data,
        Some(1) => DataContent::PositionDeletes,
        Some(2) => DataContent::EqualityDeletes,
        Some(other) => DataContent::Unknown(other),
    };
    let partition = match r.record("partition")? {
        Some(p) => shared_partition(p.fields().iter().map(|(name, v)| (shared_name(name), partition_value(v))).collect()),
        None => Arc::default(),
    };
    let equality_ids = r
        .array("equality_ids")?
        .iter()
        .map(|v| match v {
            Datum::Long(x) => i32::try_from(*x).map_err(|_| r.err("equality_ids", format!("field id {x} is out of range"))),
            _ => Err(r.err("equality_ids", "expected int elements")),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut metric_field_ids = Vec::new();
    for name in ["value_counts", "null_value_counts", "column_sizes"] {
        for key in r.array(name)? {
            let id = match key {
                Datum::Long(id) => Some(*id),
                Datum::Record(fields) => fields.iter().find(|(k, _)| *k == "key").and_then(|(_, v)| if let Datum::Long(x) = v { Some(*x) } else { None }),
                _ => None,
            };
            if let Some(id) = id.and_then(|id| i32::try_from(id).ok()) {
                metric_field_ids.push(id);
            }
        }
    }
    metric_field_ids.sort_unstable();
    metric_field_ids.dedup();
    let metric_field_ids = shared_ids(metric_field_ids);
    Ok(DataFile {
        content,
        file_path: r.req_string("file_path")?.into_boxed_str(),
        file_format: FileFormat::parse(r.str("file_format")?.unwrap_or_default()),
        partition,
        record_count: r.req_long("record_count")?,
        file_size_in_bytes: r.req_long("file_size_in_bytes")?,
        equality_ids: equality_ids.into_boxed_slice(),
        metric_field_ids,
        sort_order_id: r.long("sort_order_id")?.and_then(|x| i32::try_from(x).ok()),
        v3: {
            let v = V3Fields {
                referenced_data_file: r.string("referenced_data_file")?,
                first_row_id: r.long("first_row_id")?,
                content_offset: r.long("content_offset")?,
                content_size_in_bytes: r.long("content_size_in_bytes")?,
            };
            (v != V3Fields::default()).then(|| Box::new(v))
        },
    })
}

fn partition_value(v: &Datum<'_, '_>) -> PartitionValue {
    match v {
        Datum::Null => PartitionValue::Null,
        Datum::Bool(b) => PartitionValue::Bool(*b),
        Datum::Long(i) => PartitionValue::Int(*i),
        Datum::Float(x) => PartitionValue::Float(*x),
        Datum::Str(s) => PartitionValue::Text(s.as_ref().into()),
        Datum::Enum(s) => PartitionValue::Text((*s).into()),
        Datum::Bytes(b) => PartitionValue::Bytes((*b).into()),
        other => PartitionValue::Text(format!("({})", other.kind()).into()),
    }
}

thread_local! {
    /// Partition field names seen lately, and the last metric id set: entries share them.
    static NAMES: std::cell::RefCell<Vec<Arc<str>>> = const { std::cell::RefCell::new(Vec::new()) };
    static LAST_IDS: std::cell::RefCell<Option<Arc<[i32]>>> = const { std::cell::RefCell::new(None) };
    static PARTITIONS: std::cell::RefCell<Vec<Arc<[(Arc<str>, PartitionValue)]>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Partition tuples remembered for sharing: a writer's commit spans a few partitions.
const MAX_PARTITIONS: usize = 16;

/// Floats by their bits: 0.0 and -0.0 are equal but are different values to keep.
fn same_value(a: &PartitionValue, b: &PartitionValue) -> bool {
    match (a, b) {
        (PartitionValue::Float(x), PartitionValue::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

pub(crate) fn same_partition(a: &[(Arc<str>, PartitionValue)], b: &[(Arc<str>, PartitionValue)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((n, x), (m, y))| n == m && same_value(x, y))
}

fn shared_partition(tuple: Vec<(Arc<str>, PartitionValue)>) -> Arc<[(Arc<str>, PartitionValue)]> {
    PARTITIONS.with(|r| super::recent::shared(&mut r.borrow_mut(), MAX_PARTITIONS, |p| same_partition(p, &tuple), || tuple.clone().into()))
}

/// At most this many names are remembered: a hostile manifest's thousand-field partition
/// tuple costs a search per field, not a growing table.
const MAX_NAMES: usize = 64;

fn shared_name(name: &str) -> Arc<str> {
    NAMES.with(|n| super::recent::shared(&mut n.borrow_mut(), MAX_NAMES, |a| &**a == name, || name.into()))
}

fn shared_ids(ids: Vec<i32>) -> Arc<[i32]> {
    LAST_IDS.with(|l| {
        let mut l = l.borrow_mut();
        match &*l {
            Some(a) if **a == *ids => a.clone(),
            _ => {
                let a: Arc<[i32]> = ids.into();
                *l = Some(a.clone());
                a
            }
        }
    })
}
