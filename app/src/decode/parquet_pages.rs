//! The pages of a Parquet column chunk, walked before the `parquet` crate decodes them: each page
//! header's compressed size must fit in the chunk, and its uncompressed size (what the decoder
//! allocates and inflates into) must stay within a budget, and its level blocks must hold the
//! levels they declare (`parquet_levels`). A page header of a few bytes can otherwise declare
//! gigabytes, and a level run longer than its bytes panics inside the crate.

use parquet::file::metadata::ParquetMetaData;

use super::parquet_levels::{check_page, Leaf};
use super::thrift_check::page_header;
use super::DecodeError;

/// Largest page icescope inflates. Writers default to 1 MiB pages (parquet-mr, arrow-rs, Spark);
/// a dictionary page of a wide string column can be tens of MiB.
pub const MAX_PAGE_BYTES: i64 = 256 << 20;
/// A page header is a small struct (statistics included): more than this is not one.
const MAX_HEADER_BYTES: usize = 1 << 20;

/// Checks every page of the given leaf columns (all with `None`) in every row group; `bytes(start,
/// len)` gives the fetched bytes of a chunk (None where they were not fetched: not checked then,
/// and not decoded either).
pub fn check_pages<'a>(file: &str, metadata: &ParquetMetaData, leaves: Option<&[usize]>, bytes: impl Fn(u64, u64) -> Option<&'a [u8]>) -> Result<(), DecodeError> {
    for (g, rg) in metadata.row_groups().iter().enumerate() {
        let columns: Vec<usize> = match leaves {
            Some(l) => l.to_vec(),
            None => (0..rg.num_columns()).collect(),
        };
        for c in columns {
            let Some(chunk) = rg.columns().get(c) else { continue };
            let (start, len) = chunk.byte_range();
            let Some(b) = bytes(start, len) else { continue };
            let name = chunk.column_path().string();
            let descr = chunk.column_descr();
            let leaf = Leaf { max_rep: descr.max_rep_level(), max_def: descr.max_def_level(), codec: chunk.compression() };
            let err = |m: String| DecodeError::new(file, "page_header", format!("row group {g} column `{name}`: {m}"));
            let mut pos = 0usize;
            let mut pages = 0u64;
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
                let body = &rest[header..header + compressed as usize];
                super::decoding(file, || check_page(&h, body, leaf))
                    .unwrap_or_else(|| Err("its codec failed on it".into()))
                    .map_err(|m| err(format!("page {pages} at byte {}: {m}", start + pos as u64)))?;
                pos += header + compressed as usize;
                pages += 1;
            }
        }
    }
    Ok(())
}
