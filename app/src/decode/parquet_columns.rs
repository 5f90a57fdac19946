//! Reading chosen columns of a Parquet file as arrow batches, from only the byte ranges that hold
//! them: the footer was read already, so the column chunks it locates are fetched and nothing else.
//! Columns are chosen by Iceberg field id (the Parquet schema's `field_id`), by name where a file
//! carries no ids (Iceberg's name mapping for files written without them).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use bytes::Bytes;
use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ProjectionMask;
use parquet::file::metadata::ParquetMetaData;
use parquet::file::reader::{ChunkReader, Length};

use super::DecodeError;

/// Rows per decoded batch: small enough that a batch of keys is a few hundred KB.
const BATCH_ROWS: usize = 8192;

/// The leaf columns to read for `wanted` (field id, name): their index in the file's schema, in
/// `wanted`'s order; None for a field the file does not carry.
pub fn leaf_indices(metadata: &ParquetMetaData, wanted: &[(i32, &str)]) -> Vec<Option<usize>> {
    let schema = metadata.file_metadata().schema_descr();
    let by_id = |id: i32| {
        (0..schema.num_columns()).find(|&i| {
            let column = schema.column(i);
            let info = column.self_type().get_basic_info();
            info.has_id() && info.id() == id
        })
    };
    let any_ids = (0..schema.num_columns()).any(|i| {
        let column = schema.column(i);
        column.self_type().get_basic_info().has_id()
    });
    wanted.iter().map(|&(id, name)| if any_ids { by_id(id) } else { (0..schema.num_columns()).find(|&i| schema.column(i).path().string() == name) }).collect()
}

/// The byte ranges (offset, length) of these leaf columns' chunks in every row group, checked
/// against the object's size.
pub fn chunk_ranges(file: &str, metadata: &ParquetMetaData, leaves: &[usize], object_size: u64) -> Result<Vec<(u64, u64)>, DecodeError> {
    let mut out = Vec::new();
    for (g, rg) in metadata.row_groups().iter().enumerate() {
        for &leaf in leaves {
            let chunk = rg.columns().get(leaf).ok_or_else(|| DecodeError::new(file, "row_groups.columns", format!("row group {g} has no column {leaf}")))?;
            let (start, len) = chunk.byte_range();
            if start.checked_add(len).is_none_or(|end| end > object_size) {
                return Err(DecodeError::new(
                    file,
                    "column_chunk",
                    format!("row group {g} column `{}` claims bytes {start}+{len}, past the file's {object_size} bytes", chunk.column_path()),
                ));
            }
            out.push((start, len));
        }
    }
    // Adjacent chunks in one read: fewer requests, and a reader that reads past one chunk's
    // declared end into the next finds the bytes there.
    out.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(out.len());
    for (start, len) in out {
        match merged.last_mut() {
            Some((s, l)) if *s + *l >= start => *l = (*l).max(start + len - *s),
            _ => merged.push((start, len)),
        }
    }
    Ok(merged)
}

/// A file of which only some ranges were fetched; reading outside them is an error, not a panic.
pub struct SparseFile {
    size: u64,
    ranges: Vec<(u64, Bytes)>,
}

impl SparseFile {
    pub fn new(size: u64, ranges: Vec<(u64, Vec<u8>)>) -> Self {
        SparseFile { size, ranges: ranges.into_iter().map(|(o, b)| (o, Bytes::from(b))).collect() }
    }

    /// The fetched bytes of `start..start+len`, cut where the range holding `start` ends: the
    /// crate reads a chunk's pages from what is there (`get_read`), so the check must see the same.
    fn bytes(&self, start: u64, len: u64) -> Option<&[u8]> {
        self.ranges.iter().find_map(|(o, b)| {
            let rest = b.get(usize::try_from(start.checked_sub(*o)?).ok()?..)?;
            Some(&rest[..rest.len().min(usize::try_from(len).unwrap_or(usize::MAX))])
        })
    }

    fn slice(&self, start: u64, len: usize) -> parquet::errors::Result<Bytes> {
        for (o, b) in &self.ranges {
            if start >= *o {
                let from = (start - o) as usize;
                if let Some(to) = from.checked_add(len).filter(|&to| to <= b.len()) {
                    return Ok(b.slice(from..to));
                }
            }
        }
        Err(parquet::errors::ParquetError::General(format!("bytes {start}+{len} were not fetched")))
    }
}

impl Length for SparseFile {
    fn len(&self) -> u64 {
        self.size
    }
}

impl ChunkReader for SparseFile {
    type T = std::io::Cursor<Bytes>;

    fn get_read(&self, start: u64) -> parquet::errors::Result<Self::T> {
        // The column reader asks for a reader from the chunk's start: hand it the whole range.
        for (o, b) in &self.ranges {
            if start >= *o && start - o < b.len() as u64 {
                return Ok(std::io::Cursor::new(b.slice((start - o) as usize..)));
            }
        }
        Err(parquet::errors::ParquetError::General(format!("byte {start} was not fetched")))
    }

    fn get_bytes(&self, start: u64, length: usize) -> parquet::errors::Result<Bytes> {
        self.slice(start, length)
    }
}

/// Decodes the given leaf columns of every row group, as batches with one array per leaf in
/// `leaves` order.
pub fn read_columns(file: &str, metadata: Arc<ParquetMetaData>, data: SparseFile, leaves: &[usize]) -> Result<Vec<Vec<ArrayRef>>, DecodeError> {
    let err = |m: String| DecodeError::new(file, "column_chunk", m);
    let schema = metadata.file_metadata().schema_descr_ptr();
    let names: Vec<String> = leaves.iter().map(|&l| schema.column(l).path().string()).collect();
    let mask = ProjectionMask::leaves(&schema, leaves.iter().copied());
    if super::checks_on() {
        super::parquet_pages::check_pages(file, &metadata, Some(leaves), |s, l| data.bytes(s, l))?;
    }
    let arrow = ArrowReaderMetadata::try_new(metadata, ArrowReaderOptions::new()).map_err(|e| err(format!("no arrow schema for it: {e}")))?;
    let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(data, arrow)
        .with_projection(mask)
        .with_batch_size(BATCH_ROWS)
        .build()
        .map_err(|e| err(e.to_string()))?;
    let mut out = Vec::new();
    let mut reader = reader;
    // A panic inside the crate (natively caught) ends the reading as an error naming the file.
    while let Some(batch) = super::decoding(file, || reader.next()).ok_or_else(|| err("the Parquet decoder failed on it (a malformed page)".into()))? {
        let batch: RecordBatch = batch.map_err(|e| err(e.to_string()))?;
        let cols = names
            .iter()
            .map(|n| column_at(&batch, n).ok_or_else(|| err(format!("column `{n}` missing from the decoded batch"))))
            .collect::<Result<Vec<_>, _>>()?;
        out.push(cols);
    }
    Ok(out)
}

/// A leaf by its dotted path: top-level columns directly, struct members through their parent.
fn column_at(batch: &RecordBatch, path: &str) -> Option<ArrayRef> {
    let mut parts = path.split('.');
    let mut col = batch.column_by_name(parts.next()?)?.clone();
    for p in parts {
        col = col.as_struct_opt()?.column_by_name(p)?.clone();
    }
    Some(col)
}

/// Appends row `row` of `cols` to `out` as one comparable key: each value tagged (0 null, 1
/// value), variable-length values length-prefixed, so that distinct tuples never encode alike.
pub fn encode_key(cols: &[ArrayRef], row: usize, out: &mut Vec<u8>) -> Result<(), String> {
    for c in cols {
        if c.is_null(row) {
            out.push(0);
            continue;
        }
        out.push(1);
        let var = |out: &mut Vec<u8>, b: &[u8]| {
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(b);
        };
        match c.data_type() {
            DataType::Utf8 => var(out, c.as_string::<i32>().value(row).as_bytes()),
            DataType::LargeUtf8 => var(out, c.as_string::<i64>().value(row).as_bytes()),
            DataType::Utf8View => var(out, c.as_string_view().value(row).as_bytes()),
            DataType::Binary => var(out, c.as_binary::<i32>().value(row)),
            DataType::LargeBinary => var(out, c.as_binary::<i64>().value(row)),
            DataType::BinaryView => var(out, c.as_binary_view().value(row)),
            DataType::FixedSizeBinary(_) => var(out, c.as_fixed_size_binary().value(row)),
            DataType::Boolean => out.push(u8::from(c.as_boolean().value(row))),
            t => {
                // Every other key type Iceberg allows (ints, dates, times, timestamps, decimals)
                // is fixed-width: its value bytes are the key.
                let width = t.primitive_width().ok_or_else(|| format!("key columns of type {t} are not supported"))?;
                let data = c.to_data();
                let buf = data.buffers().first().ok_or_else(|| format!("{t} array without values"))?;
                let at = data.offset().checked_add(row).and_then(|i| i.checked_mul(width)).ok_or("row offset overflows")?;
                out.extend_from_slice(buf.as_slice().get(at..at + width).ok_or("value past its buffer")?);
            }
        }
    }
    Ok(())
}
