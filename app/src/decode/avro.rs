//! Reading Avro object container files into records with field access that reports the field path.
//! Manifest lists and manifests are written by many engines with different Avro schemas (v1 names,
//! optional fields as unions), so fields are looked up by name and unions unwrapped here, once.

use std::collections::HashMap;

use super::avro_datum::Datum;
use super::DecodeError;

/// The header metadata of one Avro container file and what `convert` made of each record.
pub(crate) struct AvroFile<T> {
    pub records: Vec<T>,
    pub metadata: HashMap<String, String>,
}

/// Reads every record, converting each as it is decoded and keeping those `convert` returns: a manifest of 50,000 entries never exists
/// as 50,000 generic Avro values at once. A failure part-way says how many records came before it.
pub(crate) fn read_container<T>(
    file: &str,
    bytes: &[u8],
    keep_at_most: usize,
    mut convert: impl FnMut(usize, &Datum<'_, '_>) -> Result<Option<T>, DecodeError>,
) -> Result<AvroFile<T>, DecodeError> {
    let c = super::avro_container::Container::open(file, bytes)?;
    // Sized from the blocks' counts: a vector grown by doubling holds up to twice a 50,000-entry
    // manifest at its peak. The counts are not checked yet, so at most one record per 16 bytes
    // of the file is trusted (an entry's path alone compresses to more).
    let declared = usize::try_from(c.declared_records(bytes)).unwrap_or(usize::MAX);
    let mut records = Vec::with_capacity(declared.min(keep_at_most).min(bytes.len() / 16));
    c.for_each_record(file, bytes, |i, v| {
        if let Some(r) = convert(i, v)? {
            records.push(r);
        }
        Ok(())
    })?;
    // Only the small keys: `schema` and `partition-spec` repeat kilobytes of JSON in every manifest.
    let metadata = ["content", "partition-spec-id", "format-version"]
        .into_iter()
        .filter_map(|k| c.meta(k).map(|v| (k.to_string(), String::from_utf8_lossy(v).into_owned())))
        .collect();
    Ok(AvroFile { records, metadata })
}

/// Where a record sits, built into text only when an error is reported: a path per record was
/// an allocation per manifest entry.
#[derive(Clone, Copy)]
struct At<'p> {
    top: &'static str,
    index: usize,
    nested: [&'p str; 3],
    depth: usize,
}

/// A record being decoded, with its path for error messages (`entry[3].data_file.record_count`).
pub(crate) struct Rec<'a, 's, 'b> {
    pub file: &'a str,
    at: At<'a>,
    fields: &'a [(&'s str, Datum<'s, 'b>)],
}

impl<'a, 's, 'b> Rec<'a, 's, 'b> {
    /// `top` and `index` name the record in errors: `entry[3]`.
    pub fn new(file: &'a str, top: &'static str, index: usize, value: &'a Datum<'s, 'b>) -> Result<Self, DecodeError> {
        let at = At { top, index, nested: [""; 3], depth: 0 };
        match value {
            Datum::Record(fields) => Ok(Rec { file, at, fields }),
            other => Err(DecodeError::new(file, &path(&at, None), format!("expected a record, found {}", other.kind()))),
        }
    }

    pub fn err(&self, name: &str, message: impl Into<String>) -> DecodeError {
        DecodeError::new(self.file, &path(&self.at, Some(name)), message)
    }

    /// The field's value; null (a union's null branch) reads as absent.
    pub fn get(&self, name: &str) -> Option<&'a Datum<'s, 'b>> {
        self.fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v).filter(|v| !matches!(v, Datum::Null))
    }

    pub fn long(&self, name: &str) -> Result<Option<i64>, DecodeError> {
        self.get(name)
            .map(|v| match v {
                Datum::Long(x) => Ok(*x),
                other => Err(self.err(name, format!("expected a long, found {}", other.kind()))),
            })
            .transpose()
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

    pub fn str(&self, name: &str) -> Result<Option<&'a str>, DecodeError> {
        self.get(name)
            .map(|v| match v {
                Datum::Str(s) => Ok(s.as_ref()),
                Datum::Enum(s) => Ok(*s),
                other => Err(self.err(name, format!("expected a string, found {}", other.kind()))),
            })
            .transpose()
    }

    pub fn string(&self, name: &str) -> Result<Option<String>, DecodeError> {
        Ok(self.str(name)?.map(str::to_string))
    }

    pub fn req_string(&self, name: &str) -> Result<String, DecodeError> {
        self.string(name)?.ok_or_else(|| self.err(name, "required field is missing"))
    }

    pub fn array(&self, name: &str) -> Result<&'a [Datum<'s, 'b>], DecodeError> {
        match self.get(name) {
            None => Ok(&[]),
            Some(Datum::Array(items)) => Ok(items),
            Some(other) => Err(self.err(name, format!("expected an array, found {}", other.kind()))),
        }
    }

    pub fn record(&self, name: &'a str) -> Result<Option<Rec<'a, 's, 'b>>, DecodeError> {
        let Some(v) = self.get(name) else { return Ok(None) };
        let mut at = self.at;
        if at.depth < at.nested.len() {
            at.nested[at.depth] = name;
            at.depth += 1;
        }
        match v {
            Datum::Record(fields) => Ok(Some(Rec { file: self.file, at, fields })),
            other => Err(self.err(name, format!("expected a record, found {}", other.kind()))),
        }
    }

    pub fn fields(&self) -> &'a [(&'s str, Datum<'s, 'b>)] {
        self.fields
    }
}

fn path(at: &At<'_>, field: Option<&str>) -> String {
    let mut p = format!("{}[{}]", at.top, at.index);
    for n in at.nested.iter().take(at.depth).copied().chain(field) {
        p.push('.');
        p.push_str(n);
    }
    p
}
