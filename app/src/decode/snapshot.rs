//! Snapshots as table metadata lists them.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::summary::Summary;

/// A snapshot id, kept exact end to end. Java writes signed 64-bit ids, but some writers have
/// written unsigned ones above i64::MAX, and a JS number (f64) silently rounds anything above
/// 2^53: i128 holds both, and ids only ever leave as decimal text or JSON integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SnapshotId(pub i128);

impl fmt::Display for SnapshotId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl From<i64> for SnapshotId {
    fn from(v: i64) -> Self {
        SnapshotId(i128::from(v))
    }
}

impl SnapshotId {
    /// The same bits as Avro's signed long stores them: an unsigned id above i64::MAX written by
    /// such a writer to a manifest list reads back negative.
    pub fn matches_avro_long(self, v: i64) -> bool {
        self.0 == i128::from(v) || (self.0 > i128::from(i64::MAX) && self.0 as u64 as i64 == v)
    }
}

impl Serialize for SnapshotId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i128(self.0)
    }
}

impl<'de> Deserialize<'de> for SnapshotId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        i128::deserialize(d).map(SnapshotId)
    }
}

/// Read from metadata.json through `SnapshotWire`; `Deserialize` reads back what `Serialize` wrote
/// (the decoder worker's transfer format).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub snapshot_id: SnapshotId,
    pub parent_snapshot_id: Option<SnapshotId>,
    /// 0 for format v1, where sequence numbers do not exist.
    pub sequence_number: i64,
    pub timestamp_ms: i64,
    /// None for v1 snapshots that list manifests inline instead.
    pub manifest_list: Option<String>,
    /// v1 only: manifests listed directly in the metadata.
    pub manifests: Vec<String>,
    pub operation: Operation,
    pub summary: Summary,
    pub schema_id: Option<i32>,
    pub first_row_id: Option<i64>,
    pub added_rows: Option<i64>,
}

impl Snapshot {
    pub fn summary_i64(&self, key: &str) -> Option<i64> {
        self.summary.get(key).and_then(|v| v.trim().parse().ok())
    }
}

/// `summary.operation` as the spec names it; anything else is kept as written and shown as such.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    Append,
    Replace,
    Overwrite,
    Delete,
    Unknown(String),
}

impl Operation {
    pub fn parse(s: &str) -> Operation {
        match s {
            "append" => Operation::Append,
            "replace" => Operation::Replace,
            "overwrite" => Operation::Overwrite,
            "delete" => Operation::Delete,
            other => Operation::Unknown(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Operation::Append => "append",
            Operation::Replace => "replace",
            Operation::Overwrite => "overwrite",
            Operation::Delete => "delete",
            Operation::Unknown(s) => s,
        }
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Operation {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Operation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(|s| Operation::parse(&s))
    }
}

/// The wire shape, permissive so that version rules are checked in one place with field names.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) struct SnapshotWire {
    pub snapshot_id: Option<SnapshotId>,
    pub parent_snapshot_id: Option<SnapshotId>,
    pub sequence_number: Option<i64>,
    pub timestamp_ms: Option<i64>,
    pub manifest_list: Option<String>,
    pub manifests: Option<Vec<String>>,
    #[serde(default)]
    pub summary: Option<Summary>,
    pub schema_id: Option<i32>,
    pub first_row_id: Option<i64>,
    pub added_rows: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct SnapshotRef {
    pub snapshot_id: SnapshotId,
    #[serde(rename = "type")]
    pub ref_type: String,
    pub max_ref_age_ms: Option<i64>,
    pub max_snapshot_age_ms: Option<i64>,
    pub min_snapshots_to_keep: Option<i32>,
}
