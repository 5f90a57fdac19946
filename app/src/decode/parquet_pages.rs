//! The pages of a Parquet column chunk, walked before the `parquet` crate decodes them: each page
//! header's compressed size must fit in the chunk, and its uncompressed size (what the decoder
//! allocates and inflates into) must stay within a budget, and its level blocks must hold the
//! levels they declare (`parquet_levels`). A page header of a few bytes can otherwise declare
//! gigabytes, and a level run longer than its bytes panics inside the crate.

use std::collections::BTreeMap;

use parquet::basic::Repetition;
use parquet::file::metadata::ParquetMetaData;
use parquet::schema::types::SchemaDescriptor;

use super::parquet_levels::{check_page, Leaf, Track};
use super::thrift_check::{page_header, PageHeader};
use super::DecodeError;

/// Largest page icescope inflates. Writers default to 1 MiB pages (parquet-mr, arrow-rs, Spark);
/// a dictionary page of a wide string column can be tens of MiB.
pub const MAX_PAGE_BYTES: i64 = 256 << 20;
/// A page header is a small struct (statistics included): more than this is not one.
const MAX_HEADER_BYTES: usize = 1 << 20;

/// Checks every page of the given leaf columns (all with `None`) in every row group; `bytes(start,
/// len)` gives the fetched bytes of a chunk, cut short where the bytes held end (the crate reads
/// the pages that are there), None where none were fetched (not checked then, and not decoded
/// either). Leaves read together under one repeated group (a map's key and value,
/// a list of structs' fields) must describe the same entries in every row group.
pub fn check_pages<'a>(
    file: &str,
    metadata: &ParquetMetaData,
    leaves: Option<&[usize]>,
    bytes: impl Fn(u64, u64) -> Option<&'a [u8]>,
) -> Result<(), DecodeError> {
    let schema = metadata.file_metadata().schema_descr();
    let all: Vec<usize> = match leaves {
        Some(l) => l.to_vec(),
        None => (0..schema.num_columns()).collect(),
    };
    // Leaf → (its repeated group's path, that group's definition level), where a sibling is read too.
    let mut groups: BTreeMap<Vec<String>, Vec<(usize, i16)>> = BTreeMap::new();
    for &c in &all {
        if let Some((path, def)) = repeated_group(schema, c) {
            groups.entry(path).or_default().push((c, def));
        }
    }
    let tracked: BTreeMap<usize, (Vec<String>, i16)> =
        groups.iter().filter(|(_, l)| l.len() > 1).flat_map(|(p, l)| l.iter().map(move |&(c, d)| (c, (p.clone(), d)))).collect();
    for (g, rg) in metadata.row_groups().iter().enumerate() {
        let mut digests: BTreeMap<&[String], Vec<(String, (u64, u64, u64))>> = BTreeMap::new();
        for &c in &all {
            let Some(chunk) = rg.columns().get(c) else { continue };
            let (start, len) = chunk.byte_range();
            let Some(b) = bytes(start, len) else { continue };
            let name = chunk.column_path().string();
            let descr = chunk.column_descr();
            let leaf = Leaf { max_rep: descr.max_rep_level(), max_def: descr.max_def_level(), codec: chunk.compression() };
            let err = |m: String| DecodeError::new(file, "page_header", format!("row group {g} column `{name}`: {m}"));
            let mut track = tracked.get(&c).map(|(_, def)| Track::new(*def));
            let rows = u64::try_from(rg.num_rows()).map_err(|_| err(format!("the row group declares {} rows", rg.num_rows())))?;
            let bound = RowBound { rows, flat: leaf.max_rep == 0, width: value_width(descr) };
            let mut values = Sizes::default();
            let mut pos = 0usize;
            let mut pages = 0u64;
            let mut dictionary = false;
            while pos < b.len() {
                let rest = &b[pos..];
                let h = page_header(&rest[..rest.len().min(MAX_HEADER_BYTES)]).map_err(|m| err(format!("page {pages} at byte {}: {m}", start + pos as u64)))?;
                let (header, uncompressed, compressed) = (h.len, h.uncompressed, h.compressed);
                let room = rest.len() - header;
                if compressed < 0 || compressed as u64 > room as u64 {
                    return Err(err(format!("page {pages} declares {compressed} compressed bytes with {room} left in the chunk")));
                }
                if !(0..=MAX_PAGE_BYTES).contains(&uncompressed) {
                    return Err(err(format!("page {pages} declares {uncompressed} uncompressed bytes (icescope inflates at most {MAX_PAGE_BYTES})")));
                }
                bound.check(&h, &mut values).map_err(|m| err(format!("page {pages} at byte {}: {m}", start + pos as u64)))?;
                // parquet 60.1 `expect`s the dictionary of a dictionary-encoded page (a panic).
                dictionary |= h.page_type == 2;
                if h.needs_dictionary() && !dictionary {
                    return Err(err(format!("page {pages} at byte {}: dictionary-encoded, with no dictionary page before it", start + pos as u64)));
                }
                let body = &rest[header..header + compressed as usize];
                if h.page_type == 2 && bound.width.is_none() {
                    values.longest = longest_entry(body, leaf.codec, uncompressed);
                }
                super::decoding(file, || check_page(&h, body, leaf, track.as_mut()))
                    .unwrap_or_else(|| Err("its codec failed on it".into()))
                    .map_err(|m| err(format!("page {pages} at byte {}: {m}", start + pos as u64)))?;
                pos += header + compressed as usize;
                pages += 1;
            }
            if let (Some(t), Some((path, _))) = (track, tracked.get(&c)) {
                digests.entry(path.as_slice()).or_default().push((name.clone(), t.finish()));
            }
        }
        for (path, leaves) in digests {
            let Some((first, want)) = leaves.first() else { continue };
            if let Some((other, got)) = leaves.iter().find(|(_, d)| d != want) {
                let what = if got.0 != want.0 { format!("{} levels against {}", got.0, want.0) } else { "different entries at the same count".to_string() };
                return Err(DecodeError::new(
                    file,
                    "page_header",
                    format!("row group {g}: columns `{first}` and `{other}` under the repeated group `{}` disagree on their levels ({what}): they would not describe the same entries", path.join(".")),
                ));
            }
        }
    }
    Ok(())
}

/// What a chunk's pages may inflate to, from the rows its row group states (held to the manifest's
/// record_count by the data scan). A column without repetition holds one value per row, so its
/// data pages together declare at most that many values; a fixed-width value needs at most its
/// width (or a dictionary index in an RLE run of one, 9 bytes) plus its two levels as RLE runs of
/// one (7 bytes each), and a page up to 64 KiB of encoding headers and padding (DELTA_BINARY_PACKED
/// pads its last miniblock: at most 4 KiB at DuckDB's 2,048-value blocks, less at parquet-mr's 128). Without it a page header of a few bytes can declare 256 MiB of zeros that
/// zstd holds in 8 KB, and fifteen of them 503 million values (a 123 KB file, 3.9 GB decoded).
struct RowBound {
    rows: u64,
    flat: bool,
    /// Bytes per value of a fixed-width physical type; None for BYTE_ARRAY.
    width: Option<u64>,
}

const PAGE_SLACK: u64 = 64 << 10;
/// Most a column chunk of strings or binaries may decode to: a dictionary of one 64 MiB entry
/// named by 333 rows is 21 GB of values.
pub const MAX_CHUNK_DECODED: u64 = 2 << 30;

/// What a chunk's pages declared so far.
#[derive(Default)]
struct Sizes {
    values: u64,
    /// The longest entry of the chunk's dictionary (strings and binaries).
    longest: u64,
    /// What the pages so far may decode to (strings and binaries).
    decoded: u64,
}

/// The longest entry of a dictionary page of byte arrays (PLAIN: 4-byte length, bytes), inflated
/// with the chunk's codec to its checked size; 0 where the crate will refuse the page itself.
fn longest_entry(body: &[u8], codec: parquet::basic::Compression, uncompressed: i64) -> u64 {
    let Ok(Some(page)) = super::parquet_levels::inflate(body, codec, uncompressed) else { return 0 };
    let (mut at, mut longest) = (0usize, 0u64);
    while let Some(len) = page.get(at..at.saturating_add(4)) {
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
        longest = longest.max(u64::from(len));
        at = at.saturating_add(4).saturating_add(len as usize);
    }
    longest
}
const LEVELS_PER_VALUE: u64 = 2 * 7;
const INDEX_PER_VALUE: u64 = 9;

impl RowBound {
    /// Checks one page header against what the chunk's pages before it declared.
    fn check(&self, h: &PageHeader, sizes: &mut Sizes) -> Result<(), String> {
        let uncompressed = u64::try_from(h.uncompressed).unwrap_or(u64::MAX);
        if h.page_type == 2 {
            // A chunk's dictionary holds the chunk's distinct values: at most one per row.
            let most = self.width.filter(|_| self.flat).map(|w| PAGE_SLACK.saturating_add(self.rows.saturating_mul(w)));
            if let Some(most) = most.filter(|&m| uncompressed > m) {
                return Err(format!("a dictionary of {uncompressed} bytes for a row group of {} rows (at most {most})", self.rows));
            }
            return Ok(());
        }
        let declared = match (h.page_type, h.v1, h.v2) {
            (0, Some(v1), _) => v1.num_values,
            (3, _, Some(v2)) => v2.num_values,
            _ => return Ok(()),
        };
        let n = u64::try_from(declared).map_err(|_| format!("num_values {declared}"))?;
        sizes.values = sizes.values.saturating_add(n);
        if self.flat && sizes.values > self.rows {
            return Err(format!(
                "declares {n} values, {} with the pages before it, past the row group's {} rows (a column without repetition holds one value per row)",
                sizes.values, self.rows
            ));
        }
        if self.width.is_none() {
            // Strings and binaries: a plain page decodes to about its own size, a page of
            // dictionary indices to as many copies of the entries as it has values.
            let page = if h.needs_dictionary() { n.saturating_mul(sizes.longest) } else { uncompressed };
            sizes.decoded = sizes.decoded.saturating_add(page);
            if sizes.decoded > MAX_CHUNK_DECODED {
                return Err(format!(
                    "its values decode to as much as {} bytes with the pages before it ({n} values, dictionary entries up to {} bytes): icescope decodes at most {MAX_CHUNK_DECODED} a column chunk",
                    sizes.decoded, sizes.longest
                ));
            }
        }
        if let Some(w) = self.width {
            let most = PAGE_SLACK.saturating_add(n.saturating_mul(w.max(INDEX_PER_VALUE).saturating_add(LEVELS_PER_VALUE)));
            if uncompressed > most {
                return Err(format!("declares {uncompressed} uncompressed bytes for {n} values of {w} bytes (at most {most})"));
            }
        }
        Ok(())
    }
}

/// Bytes per value of a leaf's physical type, None where values vary in length.
fn value_width(descr: &parquet::schema::types::ColumnDescriptor) -> Option<u64> {
    use parquet::basic::Type as P;
    match descr.physical_type() {
        P::BOOLEAN => Some(1),
        P::INT32 | P::FLOAT => Some(4),
        P::INT64 | P::DOUBLE => Some(8),
        P::INT96 => Some(12),
        P::FIXED_LEN_BYTE_ARRAY => u64::try_from(descr.type_length()).ok(),
        P::BYTE_ARRAY => None,
    }
}

/// The deepest repeated group above a leaf that is not itself repeated: its path and definition
/// level (the definition level at which one of its entries is present). None without one.
fn repeated_group(schema: &SchemaDescriptor, c: usize) -> Option<(Vec<String>, i16)> {
    let parts = schema.column(c).path().parts().to_vec();
    let mut node = schema.get_column_root(c);
    let (mut def, mut found) = (0i16, None);
    for (depth, name) in parts.iter().enumerate() {
        if depth > 0 {
            // `get_fields` panics on a primitive; a damaged schema can name a path through one.
            if !node.is_group() {
                return None;
            }
            node = node.get_fields().iter().find(|f| f.name() == name)?;
        }
        let info = node.get_basic_info();
        let repetition = if info.has_repetition() { info.repetition() } else { Repetition::REQUIRED };
        if repetition != Repetition::REQUIRED {
            def = def.checked_add(1)?;
        }
        if repetition == Repetition::REPEATED {
            if depth + 1 == parts.len() {
                return None;
            }
            found = Some((parts[..=depth].to_vec(), def));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::thrift_check::{DataPageV1, DataPageV2};

    fn v1(values: i64, uncompressed: i64) -> PageHeader {
        PageHeader {
            len: 20,
            page_type: 0,
            uncompressed,
            compressed: 100,
            v1: Some(DataPageV1 { num_values: values, encoding: 0, def_encoding: 3, rep_encoding: 3 }),
            v2: None,
        }
    }

    #[test]
    fn pages_of_a_flat_column_hold_no_more_values_than_the_row_group_has_rows() {
        let int64 = RowBound { rows: 333, flat: true, width: Some(8) };
        let mut seen = Sizes::default();
        assert!(int64.check(&v1(300, 2400), &mut seen).is_ok());
        assert_eq!(
            int64.check(&v1(33_554_432, 268_435_456), &mut seen).unwrap_err(),
            "declares 33554432 values, 33554732 with the pages before it, past the row group's 333 rows (a column without repetition holds one value per row)"
        );
        // 333 values declared, 256 MiB to inflate: not what 333 longs take.
        let e = int64.check(&v1(333, 268_435_456), &mut Sizes::default()).unwrap_err();
        assert_eq!(e, "declares 268435456 uncompressed bytes for 333 values of 8 bytes (at most 73195)");
        let v2 = PageHeader { page_type: 3, v1: None, v2: Some(DataPageV2 { num_values: 334, encoding: 0, def_len: 0, rep_len: 0 }), ..v1(0, 100) };
        assert!(int64.check(&v2, &mut Sizes::default()).is_err(), "v2 pages too");
        let dictionary = PageHeader { page_type: 2, v1: None, ..v1(0, 1 << 20) };
        assert!(int64.check(&dictionary, &mut Sizes::default()).unwrap_err().starts_with("a dictionary of 1048576 bytes for a row group of 333 rows"));
        // Repeated columns hold more values than rows; strings have no width to bound a page by.
        assert!(RowBound { rows: 333, flat: false, width: Some(8) }.check(&v1(5_000, 40_000), &mut Sizes::default()).is_ok());
        assert!(RowBound { rows: 333, flat: true, width: None }.check(&v1(333, 200 << 20), &mut Sizes::default()).is_ok());
    }
}
