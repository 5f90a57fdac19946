//! Parquet footers: the 8-byte tail (footer length + `PAR1`), then the Thrift footer decoded by the
//! `parquet` crate into what a table's manifests claim about a file: rows, row groups, sizes,
//! codecs, column statistics, and the columns the file physically carries (Iceberg field ids).

use std::collections::BTreeSet;
use std::sync::Arc;

use parquet::file::metadata::{ParquetMetaData, ParquetMetaDataReader};
use parquet::file::statistics::Statistics;
use serde::{Deserialize, Serialize};

use super::DecodeError;

/// The tail every Parquet file ends with: 4-byte little-endian footer length, then `PAR1`.
pub const TAIL_BYTES: u64 = 8;
/// Footers above this are refused: the lab's are 1–3 KB, a wide table's with many row groups a
/// few hundred KB. The Thrift decoder sizes lists by their declared counts (bounded by the bytes
/// left), so this caps what a hostile footer can make it allocate.
pub const MAX_FOOTER_BYTES: u64 = 8 << 20;
const MAGIC: &[u8; 4] = b"PAR1";

/// Where the footer sits, from the file's last 8 bytes and the object's size: (offset, length).
pub fn footer_span(file: &str, tail: &[u8], object_size: u64) -> Result<(u64, u64), DecodeError> {
    let err = |field: &str, m: String| DecodeError::new(file, field, m);
    if object_size < 12 || tail.len() < TAIL_BYTES as usize {
        return Err(err("tail", format!("the file is {object_size} bytes: too short for a Parquet file (`PAR1`, footer, length, `PAR1` need at least 12)")));
    }
    let tail = &tail[tail.len() - TAIL_BYTES as usize..];
    if &tail[4..8] != MAGIC {
        let why =
            if &tail[4..8] == b"PARE" { "an encrypted footer (`PARE`), which icescope cannot read" } else { "not `PAR1`: not a Parquet file, or cut short" };
        return Err(err("magic", format!("the last 4 bytes are {:02x?}: {why}", &tail[4..8])));
    }
    let len = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    // The leading `PAR1`, the footer and the tail must fit in the object.
    let room = object_size - 12;
    if len > room {
        return Err(err("footer_length", format!("declares a footer of {len} bytes, but the file is {object_size} bytes (at most {room} can be footer)")));
    }
    if len > MAX_FOOTER_BYTES {
        return Err(err("footer_length", format!("declares a footer of {len} bytes, above the {MAX_FOOTER_BYTES} icescope reads")));
    }
    Ok((object_size - TAIL_BYTES - len, len))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    pub rows: i64,
    pub row_groups: usize,
    /// Sums over row groups and columns, as the column chunks state them.
    pub compressed_bytes: i64,
    pub uncompressed_bytes: i64,
    pub footer_bytes: u64,
    pub codecs: Vec<String>,
    pub created_by: Option<String>,
    pub columns: Vec<FooterColumn>,
}

impl Footer {
    /// Iceberg field ids of the leaf columns the file carries.
    pub fn field_ids(&self) -> BTreeSet<i32> {
        self.columns.iter().filter_map(|c| c.field_id).collect()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FooterColumn {
    /// Dotted path of the leaf column (`a.b` in a struct).
    pub path: String,
    pub field_id: Option<i32>,
    pub physical_type: String,
    pub compressed_bytes: i64,
    pub uncompressed_bytes: i64,
    /// Over every row group; None where one row group lacks the statistic.
    pub null_count: Option<u64>,
    pub min: Option<String>,
    pub max: Option<String>,
}

/// Decodes footer bytes (the `footer_length` bytes before the tail).
pub fn decode_footer(file: &str, bytes: &[u8]) -> Result<Footer, DecodeError> {
    decode_footer_metadata(file, bytes).map(|(f, _)| f)
}

/// As `decode_footer`, with the crate's decoded footer, for reading column chunks.
pub fn decode_footer_metadata(file: &str, bytes: &[u8]) -> Result<(Footer, Arc<ParquetMetaData>), DecodeError> {
    let err = |field: &str, m: String| DecodeError::new(file, field, m);
    if super::checks_on() {
        super::thrift_check::check_footer(bytes).map_err(|m| err("footer", format!("the Parquet footer is not well-formed Thrift: {m}")))?;
    }
    let metadata = super::decoding(file, || ParquetMetaDataReader::decode_metadata(bytes).map_err(|e| e.to_string()))
        .unwrap_or_else(|| Err("the Parquet decoder failed on it (a malformed footer)".into()))
        .map_err(|m| err("footer", format!("the Parquet footer does not decode: {m}")))?;
    // The crate asserts these are not negative wherever it locates a chunk (`byte_range`): a
    // footer that says otherwise is refused here, as an error, before anything asks.
    for (g, rg) in metadata.row_groups().iter().enumerate() {
        for (c, chunk) in rg.columns().iter().enumerate() {
            let negative = chunk.data_page_offset() < 0 || chunk.compressed_size() < 0 || chunk.dictionary_page_offset().is_some_and(|o| o < 0);
            if negative || chunk.data_page_offset().checked_add(chunk.compressed_size()).is_none() {
                return Err(err(
                    "row_groups.columns.meta_data",
                    format!("row group {g} column {c}: data_page_offset {}, dictionary_page_offset {:?}, total_compressed_size {}: an offset or size is negative or overflows", chunk.data_page_offset(), chunk.dictionary_page_offset(), chunk.compressed_size()),
                ));
            }
        }
    }
    let fm = metadata.file_metadata();
    let schema = fm.schema_descr();
    let mut columns: Vec<FooterColumn> = (0..schema.num_columns())
        .map(|i| {
            let c = schema.column(i);
            let ty = c.self_type();
            let info = ty.get_basic_info();
            FooterColumn {
                path: c.path().string(),
                field_id: info.has_id().then(|| info.id()),
                physical_type: c.physical_type().to_string(),
                compressed_bytes: 0,
                uncompressed_bytes: 0,
                null_count: Some(0),
                min: None,
                max: None,
            }
        })
        .collect();
    let mut bounds: Vec<(Option<Stat>, Option<Stat>)> = vec![(None, None); columns.len()];
    let mut codecs = BTreeSet::new();
    let (mut compressed, mut uncompressed, mut group_rows) = (0i64, 0i64, 0i64);
    let overflow = |field: &str| err(field, "the sizes overflow a 64-bit count".into());
    for (g, rg) in metadata.row_groups().iter().enumerate() {
        group_rows = group_rows.checked_add(rg.num_rows()).ok_or_else(|| overflow("row_groups.num_rows"))?;
        if rg.columns().len() != columns.len() {
            return Err(err("row_groups.columns", format!("row group {g} has {} column chunks for {} schema columns", rg.columns().len(), columns.len())));
        }
        for (c, (chunk, out)) in rg.columns().iter().zip(columns.iter_mut()).enumerate() {
            // `GZIP(GzipLevel(6))` → `GZIP`: the level is the writer's setting, not the codec.
            codecs.insert(chunk.compression().to_string().split('(').next().unwrap_or_default().to_string());
            compressed = compressed.checked_add(chunk.compressed_size()).ok_or_else(|| overflow("compressed_size"))?;
            uncompressed = uncompressed.checked_add(chunk.uncompressed_size()).ok_or_else(|| overflow("uncompressed_size"))?;
            out.compressed_bytes = out.compressed_bytes.saturating_add(chunk.compressed_size());
            out.uncompressed_bytes = out.uncompressed_bytes.saturating_add(chunk.uncompressed_size());
            let stats = chunk.statistics();
            out.null_count = match (out.null_count, stats.and_then(|s| s.null_count_opt())) {
                (Some(a), Some(b)) => a.checked_add(b),
                _ => None,
            };
            let (lo, hi) = stats.map(min_max).unwrap_or((None, None));
            let b = &mut bounds[c];
            b.0 = pick(b.0.take(), lo, std::cmp::Ordering::Less);
            b.1 = pick(b.1.take(), hi, std::cmp::Ordering::Greater);
        }
    }
    if group_rows != fm.num_rows() {
        return Err(err("num_rows", format!("the footer says {} rows but its row groups hold {group_rows}", fm.num_rows())));
    }
    for (c, (lo, hi)) in columns.iter_mut().zip(bounds) {
        c.min = lo.map(|s| s.to_string());
        c.max = hi.map(|s| s.to_string());
    }
    let footer = Footer {
        rows: fm.num_rows(),
        row_groups: metadata.num_row_groups(),
        compressed_bytes: compressed,
        uncompressed_bytes: uncompressed,
        footer_bytes: bytes.len() as u64,
        codecs: codecs.into_iter().collect(),
        created_by: fm.created_by().map(str::to_string),
        columns,
    };
    Ok((footer, Arc::new(metadata)))
}

/// A statistic value, comparable across row groups of one column.
#[derive(Debug, Clone, PartialEq, PartialOrd)]
enum Stat {
    Bool(bool),
    Int(i64),
    Float(f64),
    Bytes(Vec<u8>),
}

impl std::fmt::Display for Stat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stat::Bool(b) => write!(f, "{b}"),
            Stat::Int(i) => write!(f, "{i}"),
            Stat::Float(x) => write!(f, "{x}"),
            // Text from a file: shown as text, cut to a readable length.
            Stat::Bytes(b) => match std::str::from_utf8(b) {
                Ok(s) => write!(f, "{}", s.chars().take(64).collect::<String>()),
                Err(_) => write!(f, "0x{}", b.iter().take(32).map(|x| format!("{x:02x}")).collect::<String>()),
            },
        }
    }
}

fn min_max(s: &Statistics) -> (Option<Stat>, Option<Stat>) {
    macro_rules! both {
        ($v:expr, $f:expr) => {
            ($v.min_opt().map($f), $v.max_opt().map($f))
        };
    }
    match s {
        Statistics::Boolean(v) => both!(v, |x: &bool| Stat::Bool(*x)),
        Statistics::Int32(v) => both!(v, |x: &i32| Stat::Int(i64::from(*x))),
        Statistics::Int64(v) => both!(v, |x: &i64| Stat::Int(*x)),
        Statistics::Float(v) => both!(v, |x: &f32| Stat::Float(f64::from(*x))),
        Statistics::Double(v) => both!(v, |x: &f64| Stat::Float(*x)),
        Statistics::ByteArray(v) => both!(v, |x: &parquet::data_type::ByteArray| Stat::Bytes(x.data().to_vec())),
        Statistics::FixedLenByteArray(v) => both!(v, |x: &parquet::data_type::FixedLenByteArray| Stat::Bytes(x.data().to_vec())),
        Statistics::Int96(_) => (None, None),
    }
}

fn pick(a: Option<Stat>, b: Option<Stat>, keep: std::cmp::Ordering) -> Option<Stat> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.partial_cmp(&a) == Some(keep) { b } else { a }),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_checked_against_the_file_size() {
        let tail = |len: u32, magic: &[u8; 4]| [len.to_le_bytes().as_slice(), magic].concat();
        assert_eq!(footer_span("f", &tail(100, b"PAR1"), 1000).unwrap(), (892, 100));
        let e = footer_span("f.parquet", &tail(989, b"PAR1"), 1000).unwrap_err();
        assert!(e.to_string().starts_with("f.parquet: field `footer_length`: declares a footer of 989 bytes, but the file is 1000 bytes"), "{e}");
        assert!(footer_span("f", &tail(100, b"PARE"), 1000).unwrap_err().to_string().contains("encrypted"));
        assert!(footer_span("f", &tail(0, b"XXXX"), 1000).unwrap_err().to_string().contains("not a Parquet file"));
        assert!(footer_span("f", b"PAR1", 4).is_err());
        assert!(decode_footer("f", &[0xff; 40]).unwrap_err().to_string().starts_with("f: field `footer`:"));
    }
}
