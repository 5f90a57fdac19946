//! Spark's Iceberg metadata tables as `icescope spark-export` has Spark write them (Parquet, one
//! folder per table): the snapshots, manifest counts summed per snapshot, and the current
//! snapshot's manifests and entries, decoded into the spec types the manifests would have given.
//! Spark names columns as Iceberg's metadata tables do; a missing or mistyped column is an error
//! naming the file and the column.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, Int64Type};
use arrow_array::{Array, ArrayRef, RecordBatch, StructArray};
use arrow_schema::{DataType, TimeUnit};
use bytes::Bytes;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};

use super::manifest::V3Fields;
use super::parquet_footer::{decode_footer_metadata, footer_span, TAIL_BYTES};
use super::{DataContent, DataFile, DecodeError, FileFormat, ManifestContent, ManifestEntry, ManifestFile, ManifestStatus, PartitionValue, Summary};

pub use crate::source::spark_folders::FOLDERS;

/// Rows per batch: the entries of a large table arrive a few thousand at a time.
const BATCH_ROWS: usize = 4096;

/// Every row batch of one Parquet file, with the footer checked as a data file's is.
pub fn batches(file: &str, bytes: &[u8]) -> Result<Vec<RecordBatch>, DecodeError> {
    let mut out = Vec::new();
    each_batch(file, bytes, |b| {
        out.push(b);
        Ok(())
    })?;
    Ok(out)
}

/// Each row batch in turn, dropped before the next is decoded: a table of millions of rows is
/// never held decoded whole.
fn each_batch(file: &str, bytes: &[u8], mut f: impl FnMut(RecordBatch) -> Result<(), DecodeError>) -> Result<(), DecodeError> {
    let size = bytes.len() as u64;
    let tail = bytes.get(bytes.len().saturating_sub(TAIL_BYTES as usize)..).unwrap_or_default();
    let (offset, len) = footer_span(file, tail, size)?;
    let footer_bytes = usize::try_from(offset).ok().and_then(|o| bytes.get(o..o.checked_add(usize::try_from(len).ok()?)?));
    let (_, metadata) = decode_footer_metadata(file, footer_bytes.ok_or_else(|| DecodeError::new(file, "footer", "the footer lies outside the file"))?)?;
    let err = |m: String| DecodeError::new(file, "", m);
    super::parquet_pages::check_pages(file, &metadata, None, |s, l| {
        // A chunk declared past the end of the file is read by the crate up to the end: check that.
        let rest = bytes.get(usize::try_from(s).ok()?..)?;
        Some(&rest[..rest.len().min(usize::try_from(l).unwrap_or(usize::MAX))])
    })?;
    let arrow = ArrowReaderMetadata::try_new(metadata, ArrowReaderOptions::new()).map_err(|e| err(format!("no arrow schema for it: {e}")))?;
    let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(Bytes::copy_from_slice(bytes), arrow)
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| err(e.to_string()))?;
    super::decoding(file, || reader.map(|b| b.map_err(|e| err(e.to_string()))).try_for_each(|b| f(b?)))
        .unwrap_or_else(|| Err(err("the Parquet decoder failed on it (a malformed page)".into())))
}

/// One batch's columns, by the names Spark gives them, with errors naming file and column.
struct Cols<'a> {
    file: &'a str,
    batch: &'a RecordBatch,
}

impl<'a> Cols<'a> {
    fn col(&self, name: &str) -> Result<&'a ArrayRef, DecodeError> {
        self.batch.column_by_name(name).ok_or_else(|| DecodeError::new(self.file, name, "the column is missing: not a table `icescope spark-export` wrote"))
    }

    fn opt(&self, name: &str) -> Option<&'a ArrayRef> {
        self.batch.column_by_name(name)
    }
}

fn mistyped(file: &str, column: &str, a: &dyn Array) -> DecodeError {
    DecodeError::new(file, column, format!("unexpected Parquet type {}", a.data_type()))
}

/// An integer (or a date, a timestamp in microseconds) at `row`; None where it is null.
fn int(file: &str, column: &str, a: &dyn Array, row: usize) -> Result<Option<i64>, DecodeError> {
    if a.is_null(row) {
        return Ok(None);
    }
    Ok(Some(match a.data_type() {
        DataType::Int64 => a.as_primitive::<Int64Type>().value(row),
        DataType::Int32 => i64::from(a.as_primitive::<Int32Type>().value(row)),
        DataType::Int16 => i64::from(a.as_primitive::<arrow_array::types::Int16Type>().value(row)),
        DataType::Int8 => i64::from(a.as_primitive::<arrow_array::types::Int8Type>().value(row)),
        DataType::Date32 => i64::from(a.as_primitive::<arrow_array::types::Date32Type>().value(row)),
        DataType::Timestamp(TimeUnit::Microsecond, _) => a.as_primitive::<arrow_array::types::TimestampMicrosecondType>().value(row),
        DataType::Timestamp(TimeUnit::Millisecond, _) => a.as_primitive::<arrow_array::types::TimestampMillisecondType>().value(row).saturating_mul(1000),
        // INT96, Spark's default before `outputTimestampType`.
        DataType::Timestamp(TimeUnit::Nanosecond, _) => a.as_primitive::<arrow_array::types::TimestampNanosecondType>().value(row).div_euclid(1000),
        _ => return Err(mistyped(file, column, a)),
    }))
}

fn req_int(file: &str, column: &str, a: &dyn Array, row: usize) -> Result<i64, DecodeError> {
    int(file, column, a, row)?.ok_or_else(|| DecodeError::new(file, column, format!("row {row}: null where a value is required")))
}

fn text(file: &str, column: &str, a: &dyn Array, row: usize) -> Result<Option<String>, DecodeError> {
    if a.is_null(row) {
        return Ok(None);
    }
    Ok(Some(match a.data_type() {
        DataType::Utf8 => a.as_string::<i32>().value(row).to_string(),
        DataType::LargeUtf8 => a.as_string::<i64>().value(row).to_string(),
        DataType::Utf8View => a.as_string_view().value(row).to_string(),
        _ => return Err(mistyped(file, column, a)),
    }))
}

fn i32_of(file: &str, column: &str, v: i64) -> Result<i32, DecodeError> {
    i32::try_from(v).map_err(|_| DecodeError::new(file, column, format!("{v} is out of range for an int")))
}

/// A row of `snapshots`.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotRow {
    pub committed_at_ms: i64,
    pub snapshot_id: i64,
    pub parent_id: Option<i64>,
    pub operation: Option<String>,
    pub manifest_list: Option<String>,
    /// Packed as a metadata.json's summaries are: a million rows' summaries as owned strings
    /// were most of the 14 GB such an export took.
    pub summary: Summary,
}

pub fn snapshots(file: &str, bytes: &[u8]) -> Result<Vec<SnapshotRow>, DecodeError> {
    let mut out = Vec::new();
    each_batch(file, bytes, |batch| {
        let c = Cols { file, batch: &batch };
        let (at, id, parent, op, list, summary) =
            (c.col("committed_at")?, c.col("snapshot_id")?, c.col("parent_id")?, c.col("operation")?, c.col("manifest_list")?, c.col("summary")?);
        let map = summary.as_map_opt().ok_or_else(|| mistyped(file, "summary", summary.as_ref()))?;
        for row in 0..batch.num_rows() {
            let mut pairs = Vec::new();
            if !map.is_null(row) {
                let entries = map.value(row);
                for i in 0..entries.len() {
                    if let (Some(k), v) =
                        (text(file, "summary.key", entries.column(0).as_ref(), i)?, text(file, "summary.value", entries.column(1).as_ref(), i)?)
                    {
                        pairs.push((k, v.unwrap_or_default()));
                    }
                }
            }
            out.push(SnapshotRow {
                committed_at_ms: req_int(file, "committed_at", at.as_ref(), row)?.div_euclid(1000),
                snapshot_id: req_int(file, "snapshot_id", id.as_ref(), row)?,
                parent_id: int(file, "parent_id", parent.as_ref(), row)?,
                operation: text(file, "operation", op.as_ref(), row)?,
                manifest_list: text(file, "manifest_list", list.as_ref(), row)?,
                summary: Summary::from_pairs(pairs),
            });
        }
        Ok(())
    })?;
    out.shrink_to_fit();
    Ok(out)
}

/// A row of `all_manifests_by_snapshot`: one snapshot's manifests of one content, summed by Spark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListCounts {
    pub snapshot_id: i64,
    pub content: ManifestContent,
    pub manifests: i64,
    pub manifest_bytes: i64,
    pub added_data_files: i64,
    pub existing_data_files: i64,
    pub added_delete_files: i64,
    pub existing_delete_files: i64,
}

fn content_of(v: i64) -> ManifestContent {
    match v {
        0 => ManifestContent::Data,
        1 => ManifestContent::Deletes,
        v => ManifestContent::Unknown(v),
    }
}

pub fn manifest_counts(file: &str, bytes: &[u8]) -> Result<Vec<ListCounts>, DecodeError> {
    let mut out = Vec::new();
    for batch in batches(file, bytes)? {
        let c = Cols { file, batch: &batch };
        let names = [
            "reference_snapshot_id",
            "content",
            "manifests",
            "manifest_bytes",
            "added_data_files",
            "existing_data_files",
            "added_delete_files",
            "existing_delete_files",
        ];
        let cols = names.iter().map(|n| c.col(n)).collect::<Result<Vec<_>, _>>()?;
        for row in 0..batch.num_rows() {
            // Spark's sum over no non-null values is null: none counted.
            let v = |i: usize| int(file, names[i], cols[i].as_ref(), row).map(|x| x.unwrap_or(0));
            out.push(ListCounts {
                snapshot_id: req_int(file, names[0], cols[0].as_ref(), row)?,
                content: content_of(req_int(file, names[1], cols[1].as_ref(), row)?),
                manifests: v(2)?,
                manifest_bytes: v(3)?,
                added_data_files: v(4)?,
                existing_data_files: v(5)?,
                added_delete_files: v(6)?,
                existing_delete_files: v(7)?,
            });
        }
    }
    Ok(out)
}

/// The current snapshot's manifest list as `manifests` shows it. Spark leaves out the sequence
/// numbers and row counts: they are 0 and None here.
pub fn manifests(file: &str, bytes: &[u8]) -> Result<Vec<ManifestFile>, DecodeError> {
    let mut out = Vec::new();
    for batch in batches(file, bytes)? {
        let c = Cols { file, batch: &batch };
        let (content, path, length, spec, adder) =
            (c.col("content")?, c.col("path")?, c.col("length")?, c.col("partition_spec_id")?, c.col("added_snapshot_id")?);
        let counts = [
            "added_data_files_count",
            "existing_data_files_count",
            "deleted_data_files_count",
            "added_delete_files_count",
            "existing_delete_files_count",
            "deleted_delete_files_count",
        ]
        .iter()
        .map(|n| c.col(n).map(|a| (*n, a)))
        .collect::<Result<Vec<_>, _>>()?;
        for row in 0..batch.num_rows() {
            let n = |i: usize| int(file, counts[i].0, counts[i].1.as_ref(), row);
            let content = content_of(req_int(file, "content", content.as_ref(), row)?);
            let (a, e, d) = if content == ManifestContent::Deletes { (n(3)?, n(4)?, n(5)?) } else { (n(0)?, n(1)?, n(2)?) };
            out.push(ManifestFile {
                manifest_path: text(file, "path", path.as_ref(), row)?.ok_or_else(|| DecodeError::new(file, "path", format!("row {row}: null")))?,
                manifest_length: req_int(file, "length", length.as_ref(), row)?,
                partition_spec_id: i32_of(file, "partition_spec_id", req_int(file, "partition_spec_id", spec.as_ref(), row)?)?,
                content,
                sequence_number: 0,
                min_sequence_number: 0,
                added_snapshot_id: int(file, "added_snapshot_id", adder.as_ref(), row)?,
                added_files_count: a,
                existing_files_count: e,
                deleted_files_count: d,
                added_rows_count: None,
                existing_rows_count: None,
                deleted_rows_count: None,
                first_row_id: None,
            });
        }
    }
    Ok(out)
}

/// A row of `entries`: the entry as its manifest holds it (snapshot id and sequence numbers
/// already inherited by Spark) and the partition spec of its file.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryRow {
    pub entry: ManifestEntry,
    pub spec_id: i32,
}

fn partition_value(file: &str, a: &dyn Array, row: usize) -> Result<PartitionValue, DecodeError> {
    let column = "data_file.partition";
    if a.is_null(row) {
        return Ok(PartitionValue::Null);
    }
    Ok(match a.data_type() {
        DataType::Boolean => PartitionValue::Bool(a.as_boolean().value(row)),
        DataType::Float32 => PartitionValue::Float(f64::from(a.as_primitive::<arrow_array::types::Float32Type>().value(row))),
        DataType::Float64 => PartitionValue::Float(a.as_primitive::<arrow_array::types::Float64Type>().value(row)),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => PartitionValue::Text(text(file, column, a, row)?.unwrap_or_default().into()),
        DataType::Binary => PartitionValue::Bytes(a.as_binary::<i32>().value(row).into()),
        DataType::LargeBinary => PartitionValue::Bytes(a.as_binary::<i64>().value(row).into()),
        DataType::FixedSizeBinary(_) => PartitionValue::Bytes(a.as_fixed_size_binary().value(row).into()),
        // A decimal's unscaled value, big-endian and minimal, as Avro stores it.
        DataType::Decimal128(_, _) => {
            let v = a.as_primitive::<arrow_array::types::Decimal128Type>().value(row).to_be_bytes();
            let skip = v.windows(2).take_while(|w| (w[0] == 0 && w[1] < 0x80) || (w[0] == 0xff && w[1] >= 0x80)).count();
            PartitionValue::Bytes(v[skip..].into())
        }
        _ => PartitionValue::Int(req_int(file, column, a, row)?),
    })
}

fn metric_keys(file: &str, column: &str, a: Option<&ArrayRef>, row: usize, into: &mut Vec<i32>) -> Result<(), DecodeError> {
    let Some(a) = a else { return Ok(()) };
    let map = a.as_map_opt().ok_or_else(|| mistyped(file, column, a.as_ref()))?;
    if map.is_null(row) {
        return Ok(());
    }
    let entries = map.value(row);
    for i in 0..entries.len() {
        if let Some(k) = int(file, column, entries.column(0).as_ref(), i)? {
            into.push(i32_of(file, column, k)?);
        }
    }
    Ok(())
}

pub fn entries(file: &str, bytes: &[u8]) -> Result<Vec<EntryRow>, DecodeError> {
    let mut out = Vec::new();
    for batch in batches(file, bytes)? {
        let c = Cols { file, batch: &batch };
        let (status, snap, seq, file_seq) = (c.col("status")?, c.col("snapshot_id")?, c.col("sequence_number")?, c.opt("file_sequence_number"));
        let df_col = c.col("data_file")?;
        let df: &StructArray = df_col.as_struct_opt().ok_or_else(|| mistyped(file, "data_file", df_col.as_ref()))?;
        let f = |name: &str| df.column_by_name(name).ok_or_else(|| DecodeError::new(file, &format!("data_file.{name}"), "the column is missing"));
        let (content, path, format, spec, records, size) =
            (f("content")?, f("file_path")?, f("file_format")?, f("spec_id")?, f("record_count")?, f("file_size_in_bytes")?);
        // An unpartitioned table's partition struct has no fields, and Parquet cannot hold an
        // empty group: Spark leaves the column out.
        let partition: Option<&StructArray> = match df.column_by_name("partition") {
            Some(p) => Some(p.as_struct_opt().ok_or_else(|| mistyped(file, "data_file.partition", p.as_ref()))?),
            None => None,
        };
        let names: Vec<Arc<str>> = partition.map(|p| p.column_names().iter().map(|n| Arc::from(*n)).collect()).unwrap_or_default();
        let opt = |name: &str| df.column_by_name(name);
        let mut last_ids: Option<Arc<[i32]>> = None;
        for row in 0..batch.num_rows() {
            let status = match req_int(file, "status", status.as_ref(), row)? {
                0 => ManifestStatus::Existing,
                1 => ManifestStatus::Added,
                2 => ManifestStatus::Deleted,
                v => return Err(DecodeError::new(file, "status", format!("row {row}: {v} is not a status (0 existing, 1 added, 2 deleted)"))),
            };
            let content = match req_int(file, "data_file.content", content.as_ref(), row)? {
                0 => DataContent::Data,
                1 => DataContent::PositionDeletes,
                2 => DataContent::EqualityDeletes,
                v => DataContent::Unknown(v),
            };
            let mut ids = Vec::new();
            for m in ["value_counts", "null_value_counts", "column_sizes"] {
                metric_keys(file, &format!("data_file.{m}"), opt(m), row, &mut ids)?;
            }
            ids.sort_unstable();
            ids.dedup();
            let metric_field_ids = match &last_ids {
                Some(l) if **l == *ids => l.clone(),
                _ => {
                    let a: Arc<[i32]> = ids.into();
                    last_ids = Some(a.clone());
                    a
                }
            };
            let equality_ids = match opt("equality_ids") {
                Some(a) if !a.is_null(row) => {
                    let list = a.as_list_opt::<i32>().ok_or_else(|| mistyped(file, "data_file.equality_ids", a.as_ref()))?.value(row);
                    (0..list.len())
                        .filter_map(|i| int(file, "data_file.equality_ids", list.as_ref(), i).transpose())
                        .map(|v| v.and_then(|v| i32_of(file, "data_file.equality_ids", v)))
                        .collect::<Result<Vec<_>, _>>()?
                }
                _ => Vec::new(),
            };
            let v3 = V3Fields {
                referenced_data_file: opt("referenced_data_file").map(|a| text(file, "data_file.referenced_data_file", a.as_ref(), row)).transpose()?.flatten(),
                first_row_id: opt("first_row_id").map(|a| int(file, "data_file.first_row_id", a.as_ref(), row)).transpose()?.flatten(),
                content_offset: opt("content_offset").map(|a| int(file, "data_file.content_offset", a.as_ref(), row)).transpose()?.flatten(),
                content_size_in_bytes: opt("content_size_in_bytes")
                    .map(|a| int(file, "data_file.content_size_in_bytes", a.as_ref(), row))
                    .transpose()?
                    .flatten(),
            };
            let has_v3 = v3.referenced_data_file.is_some() || v3.first_row_id.is_some() || v3.content_offset.is_some() || v3.content_size_in_bytes.is_some();
            let tuple = names
                .iter()
                .enumerate()
                .filter_map(|(i, n)| partition.map(|p| Ok((n.clone(), partition_value(file, p.column(i).as_ref(), row)?))))
                .collect::<Result<Vec<_>, DecodeError>>()?;
            out.push(EntryRow {
                spec_id: i32_of(file, "data_file.spec_id", req_int(file, "data_file.spec_id", spec.as_ref(), row)?)?,
                entry: ManifestEntry {
                    status,
                    snapshot_id: int(file, "snapshot_id", snap.as_ref(), row)?,
                    sequence_number: int(file, "sequence_number", seq.as_ref(), row)?,
                    file_sequence_number: file_seq.map(|a| int(file, "file_sequence_number", a.as_ref(), row)).transpose()?.flatten(),
                    data_file: DataFile {
                        content,
                        file_path: text(file, "data_file.file_path", path.as_ref(), row)?.unwrap_or_default().into(),
                        file_format: FileFormat::parse(&text(file, "data_file.file_format", format.as_ref(), row)?.unwrap_or_default()),
                        partition: tuple.into(),
                        record_count: req_int(file, "data_file.record_count", records.as_ref(), row)?,
                        file_size_in_bytes: req_int(file, "data_file.file_size_in_bytes", size.as_ref(), row)?,
                        equality_ids: equality_ids.into(),
                        metric_field_ids,
                        sort_order_id: opt("sort_order_id")
                            .map(|a| int(file, "data_file.sort_order_id", a.as_ref(), row))
                            .transpose()?
                            .flatten()
                            .and_then(|v| i32::try_from(v).ok()),
                        v3: has_v3.then(|| Box::new(v3)),
                    },
                },
            });
        }
    }
    Ok(out)
}

/// A row of `metadata_log_entries`.
#[derive(Debug, Clone, PartialEq)]
pub struct LogRow {
    pub timestamp_ms: i64,
    pub file: String,
    pub latest_snapshot_id: Option<i64>,
    pub latest_schema_id: Option<i64>,
    pub latest_sequence_number: Option<i64>,
}

pub fn metadata_log(file: &str, bytes: &[u8]) -> Result<Vec<LogRow>, DecodeError> {
    let mut out = Vec::new();
    for batch in batches(file, bytes)? {
        let c = Cols { file, batch: &batch };
        let (ts, f) = (c.col("timestamp")?, c.col("file")?);
        for row in 0..batch.num_rows() {
            let o = |n: &str| c.opt(n).map(|a| int(file, n, a.as_ref(), row)).transpose().map(Option::flatten);
            out.push(LogRow {
                timestamp_ms: req_int(file, "timestamp", ts.as_ref(), row)?.div_euclid(1000),
                file: text(file, "file", f.as_ref(), row)?.unwrap_or_default(),
                latest_snapshot_id: o("latest_snapshot_id")?,
                latest_schema_id: o("latest_schema_id")?,
                latest_sequence_number: o("latest_sequence_number")?,
            });
        }
    }
    Ok(out)
}

/// A row of `refs`.
#[derive(Debug, Clone, PartialEq)]
pub struct RefRow {
    pub name: String,
    pub kind: String,
    pub snapshot_id: i64,
}

pub fn refs(file: &str, bytes: &[u8]) -> Result<Vec<RefRow>, DecodeError> {
    let mut out = Vec::new();
    for batch in batches(file, bytes)? {
        let c = Cols { file, batch: &batch };
        let (name, kind, id) = (c.col("name")?, c.col("type")?, c.col("snapshot_id")?);
        for row in 0..batch.num_rows() {
            out.push(RefRow {
                name: text(file, "name", name.as_ref(), row)?.unwrap_or_default(),
                kind: text(file, "type", kind.as_ref(), row)?.unwrap_or_default(),
                snapshot_id: req_int(file, "snapshot_id", id.as_ref(), row)?,
            });
        }
    }
    Ok(out)
}
