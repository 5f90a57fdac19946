//! Reading Avro object container files into records with field access that reports the field path.
//! Manifest lists and manifests are written by many engines with different Avro schemas (v1 names,
//! optional fields as unions), so fields are looked up by name and unions unwrapped here, once.

use std::collections::HashMap;

use apache_avro::types::Value;

use super::DecodeError;

/// The header metadata of one Avro container file and what `convert` made of each record.
pub(crate) struct AvroFile<T> {
    pub records: Vec<T>,
    pub metadata: HashMap<String, String>,
}

/// Reads every record, converting each as it is decoded: a manifest of 50,000 entries never exists
/// as 50,000 generic Avro values at once. A failure part-way says how many records came before it.
pub(crate) fn read_container<T>(
    file: &str,
    bytes: &[u8],
    mut convert: impl FnMut(usize, &Value) -> Result<T, DecodeError>,
) -> Result<AvroFile<T>, DecodeError> {
    let c = super::avro_container::Container::open(file, bytes)?;
    let mut records = Vec::new();
    c.for_each_record(file, bytes, |i, v| {
        records.push(convert(i, &v)?);
        Ok(())
    })?;
    // Only the small keys: `schema` and `partition-spec` repeat kilobytes of JSON in every manifest.
    let metadata = ["content", "partition-spec-id", "format-version"]
        .into_iter()
        .filter_map(|k| c.meta(k).map(|v| (k.to_string(), String::from_utf8_lossy(v).into_owned())))
        .collect();
    Ok(AvroFile { records, metadata })
}

/// A record being decoded, with its path for error messages (`data_file.record_count`).
pub(crate) struct Rec<'a> {
    pub file: &'a str,
    pub path: String,
    fields: &'a [(String, Value)],
}

impl<'a> Rec<'a> {
    pub fn new(file: &'a str, path: &str, value: &'a Value) -> Result<Self, DecodeError> {
        match unwrap_union(value) {
            Value::Record(fields) => Ok(Rec { file, path: path.to_string(), fields }),
            other => Err(DecodeError::new(file, path, format!("expected a record, found {}", kind(other)))),
        }
    }

    fn field_path(&self, name: &str) -> String {
        if self.path.is_empty() { name.to_string() } else { format!("{}.{}", self.path, name) }
    }

    pub fn err(&self, name: &str, message: impl Into<String>) -> DecodeError {
        DecodeError::new(self.file, &self.field_path(name), message)
    }

    /// The field's value, with a null union branch read as absent.
    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| unwrap_union(v)).filter(|v| !matches!(v, Value::Null))
    }

    pub fn long(&self, name: &str) -> Result<Option<i64>, DecodeError> {
        self.get(name).map(|v| as_long(v).ok_or_else(|| self.err(name, format!("expected a long, found {}", kind(v))))).transpose()
    }

    pub fn long_any(&self, names: &[&str]) -> Result<Option<i64>, DecodeError> {
        for n in names {
            if let Some(v) = self.long(n)? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    pub fn req_long(&self, name: &str) -> Result<i64, DecodeError> {
        self.long(name)?.ok_or_else(|| self.err(name, "required field is missing"))
    }

    pub fn string(&self, name: &str) -> Result<Option<String>, DecodeError> {
        self.get(name)
            .map(|v| match v {
                Value::String(s) | Value::Enum(_, s) => Ok(s.clone()),
                other => Err(self.err(name, format!("expected a string, found {}", kind(other)))),
            })
            .transpose()
    }

    pub fn req_string(&self, name: &str) -> Result<String, DecodeError> {
        self.string(name)?.ok_or_else(|| self.err(name, "required field is missing"))
    }

    pub fn array(&self, name: &str) -> Result<&'a [Value], DecodeError> {
        match self.get(name) {
            None => Ok(&[]),
            Some(Value::Array(items)) => Ok(items),
            Some(other) => Err(self.err(name, format!("expected an array, found {}", kind(other)))),
        }
    }

    pub fn record(&self, name: &str) -> Result<Option<Rec<'a>>, DecodeError> {
        self.get(name).map(|v| Rec::new(self.file, &self.field_path(name), v)).transpose()
    }

    pub fn fields(&self) -> &'a [(String, Value)] {
        self.fields
    }
}

pub(crate) fn unwrap_union(value: &Value) -> &Value {
    match value {
        Value::Union(_, inner) => unwrap_union(inner),
        other => other,
    }
}

pub(crate) fn as_long(value: &Value) -> Option<i64> {
    match unwrap_union(value) {
        Value::Long(v)
        | Value::TimeMicros(v)
        | Value::TimestampMillis(v)
        | Value::TimestampMicros(v)
        | Value::TimestampNanos(v)
        | Value::LocalTimestampMillis(v)
        | Value::LocalTimestampMicros(v)
        | Value::LocalTimestampNanos(v) => Some(*v),
        Value::Int(v) | Value::Date(v) | Value::TimeMillis(v) => Some(i64::from(*v)),
        _ => None,
    }
}

pub(crate) fn as_bytes(value: &Value) -> Option<Vec<u8>> {
    match unwrap_union(value) {
        Value::Bytes(b) | Value::Fixed(_, b) => Some(b.clone()),
        _ => None,
    }
}

pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Boolean(_) => "boolean",
        Value::Int(_) => "int",
        Value::Long(_) => "long",
        Value::Float(_) => "float",
        Value::Double(_) => "double",
        Value::Bytes(_) => "bytes",
        Value::String(_) => "string",
        Value::Fixed(..) => "fixed",
        Value::Enum(..) => "enum",
        Value::Union(..) => "union",
        Value::Array(_) => "array",
        Value::Map(_) => "map",
        Value::Record(_) => "record",
        _ => "logical value",
    }
}
