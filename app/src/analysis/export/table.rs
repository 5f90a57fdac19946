//! A table to export: named, typed columns of equal length. Both writers read this one shape, so
//! a CSV and a Parquet file of the same table hold the same values.

/// A column's values; None is an empty CSV cell and a Parquet null.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Integers as Parquet Int64. i128 because snapshot ids are kept as i128 (a damaged file may
    /// hold an id past 2^63) and counts as u64: a column with a value outside i64 is written as
    /// decimal text (Utf8) instead, never wrapped or clipped.
    Int(Vec<Option<i128>>),
    Float(Vec<Option<f64>>),
    Bool(Vec<Option<bool>>),
    /// Milliseconds since the epoch, UTC: Parquet Timestamp(ms, "UTC"); RFC 3339 text in CSV.
    TimestampMs(Vec<Option<i64>>),
    /// Strings from metadata or our own wording: data, quoted and formula-guarded in CSV.
    Text(Vec<Option<String>>),
    /// Parquet List<Int64> (snapshot ids a finding names); a JSON array in CSV.
    IntList(Vec<Vec<i128>>),
    /// Parquet List<Utf8> (job ids); a JSON array in CSV.
    TextList(Vec<Vec<String>>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Int(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::TimestampMs(v) => v.len(),
            Values::Text(v) => v.len(),
            Values::IntList(v) => v.len(),
            Values::TextList(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether every integer fits Parquet's Int64.
    pub(crate) fn fits_i64(&self) -> bool {
        let fits = |x: &i128| i64::try_from(*x).is_ok();
        match self {
            Values::Int(v) => v.iter().flatten().all(fits),
            Values::IntList(v) => v.iter().flatten().all(fits),
            _ => true,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: &'static str,
    pub values: Values,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// The file name without extension: `snapshots`, `growth`, `deletes`, `jobs`, `partitions`, `findings`.
    pub name: &'static str,
    pub rows: usize,
    pub columns: Vec<Column>,
}

impl Table {
    pub fn new(name: &'static str, rows: usize) -> Table {
        Table { name, rows, columns: Vec::new() }
    }

    /// Adds a column; its length must be the table's (a builder bug otherwise, caught by tests).
    pub fn col(mut self, name: &'static str, values: Values) -> Table {
        debug_assert_eq!(values.len(), self.rows, "column {name} of {}", self.name);
        self.columns.push(Column { name, values });
        self
    }

    /// The live counts of each row, `manifests` to `equality_deletes`, as the snapshot table and the
    /// growth series both carry them.
    pub fn cols_of_totals<I: Iterator<Item = crate::model::Totals>>(self, t: impl Fn() -> I) -> Table {
        self.col("manifests", ints(t().map(|t| t.manifests)))
            .col("manifest_bytes", ints(t().map(|t| t.manifest_bytes)))
            .col("data_files", ints(t().map(|t| t.data_files)))
            .col("delete_files", ints(t().map(|t| t.delete_files)))
            .col("position_delete_files", ints(t().map(|t| t.position_delete_files)))
            .col("equality_delete_files", ints(t().map(|t| t.equality_delete_files)))
            .col("deletion_vectors", ints(t().map(|t| t.deletion_vectors)))
            .col("deletion_vector_files", ints(t().map(|t| t.deletion_vector_files)))
            .col("records", ints(t().map(|t| t.records)))
            .col("position_deletes", ints(t().map(|t| t.position_deletes)))
            .col("equality_deletes", ints(t().map(|t| t.equality_deletes)))
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// u64 counts as export integers.
pub(crate) fn ints(v: impl Iterator<Item = Option<u64>>) -> Values {
    Values::Int(v.map(|x| x.map(i128::from)).collect())
}

pub(crate) fn i64s(v: impl Iterator<Item = Option<i64>>) -> Values {
    Values::Int(v.map(|x| x.map(i128::from)).collect())
}

pub(crate) fn texts<S: Into<String>>(v: impl Iterator<Item = Option<S>>) -> Values {
    Values::Text(v.map(|x| x.map(Into::into)).collect())
}

/// An enum's name as the JSON report writes it (`snake_case`), e.g. `manifest_list`.
pub(crate) fn json_name<T: serde::Serialize>(v: &T) -> Option<String> {
    match serde_json::to_value(v).ok()? {
        serde_json::Value::String(s) => Some(s),
        other => Some(other.to_string()),
    }
}
