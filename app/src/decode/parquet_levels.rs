//! The repetition and definition levels of a data page, walked before the `parquet` crate decodes
//! them. parquet 60.1 trusts a level run's declared size: a bit-packed run longer than the bytes
//! behind it panics inside arrow-buffer (`append_packed_range`), and a deprecated BIT_PACKED level
//! block longer than the page panics in `parse_v1_level`. Both were found by fuzzing
//! (tests/fuzz/known/); a panic in wasm ends the app, so such a page is refused here first.

use std::io::Read;

use parquet::basic::Compression;

use super::thrift_check::PageHeader;

const RLE: i64 = 3;
const BIT_PACKED: i64 = 4;

/// The levels of one leaf column: its largest repetition and definition levels and its codec.
#[derive(Debug, Clone, Copy)]
pub struct Leaf {
    pub max_rep: i16,
    pub max_def: i16,
    pub codec: Compression,
}

/// Checks the level blocks of a data page whose header is `h` and whose stored body is `body`
/// (compressed as the chunk is). Pages without levels, dictionary pages and codecs the crate
/// cannot read (it refuses those itself) pass.
pub fn check_page(h: &PageHeader, body: &[u8], leaf: Leaf) -> Result<(), String> {
    if leaf.max_rep <= 0 && leaf.max_def <= 0 {
        return Ok(());
    }
    if let Some(v2) = h.v2.filter(|_| h.page_type == 3) {
        // v2 keeps its levels uncompressed in front of the values, lengths in the header.
        let count = count(v2.num_values)?;
        let (rep, def) = (length(v2.rep_len, "repetition_levels_byte_length")?, length(v2.def_len, "definition_levels_byte_length")?);
        let levels = body.get(..rep.checked_add(def).ok_or("level lengths overflow")?).ok_or_else(|| format!("level lengths {rep} + {def} run past the page's {} bytes", body.len()))?;
        if leaf.max_rep > 0 {
            hybrid(&levels[..rep], count, leaf.max_rep).map_err(|m| format!("repetition levels: {m}"))?;
        }
        if leaf.max_def > 0 {
            hybrid(&levels[rep..], count, leaf.max_def).map_err(|m| format!("definition levels: {m}"))?;
        }
        return Ok(());
    }
    let Some(v1) = h.v1.filter(|_| h.page_type == 0) else { return Ok(()) };
    let count = count(v1.num_values)?;
    let Some(page) = inflate(body, leaf.codec, h.uncompressed)? else { return Ok(()) };
    let mut rest: &[u8] = &page;
    for (max, encoding, what) in [(leaf.max_rep, v1.rep_encoding, "repetition"), (leaf.max_def, v1.def_encoding, "definition")] {
        if max <= 0 {
            continue;
        }
        match encoding {
            RLE => {
                let len = rest.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize).ok_or_else(|| format!("{what} levels: no length"))?;
                let block = rest.get(4..4 + len).ok_or_else(|| format!("{what} levels of {len} bytes with {} left in the page", rest.len() - 4))?;
                hybrid(block, count, max).map_err(|m| format!("{what} levels: {m}"))?;
                rest = &rest[4 + len..];
            }
            BIT_PACKED => {
                let bytes = bits_to_bytes(count, width(max)).ok_or_else(|| format!("{what} levels: {count} values overflow"))?;
                if bytes > rest.len() {
                    return Err(format!("{what} levels: {count} bit-packed values need {bytes} bytes with {} left in the page", rest.len()));
                }
                rest = &rest[bytes..];
            }
            other => return Err(format!("{what} levels in encoding {other}, neither RLE nor BIT_PACKED")),
        }
    }
    Ok(())
}

fn count(n: i64) -> Result<usize, String> {
    usize::try_from(n).map_err(|_| format!("num_values {n}"))
}

fn length(n: i64, field: &str) -> Result<usize, String> {
    usize::try_from(n).map_err(|_| format!("{field} {n}"))
}

/// Bits per level: enough for `max`.
fn width(max: i16) -> usize {
    16 - (max as u16).leading_zeros() as usize
}

fn bits_to_bytes(values: usize, width: usize) -> Option<usize> {
    Some(values.checked_mul(width)?.div_ceil(8))
}

/// Walks an RLE / bit-packed hybrid block for `count` levels: every bit-packed run must hold the
/// values read from it. A block that ends early is left to the crate (it stops there, no panic).
fn hybrid(b: &[u8], count: usize, max: i16) -> Result<(), String> {
    let width = width(max);
    let (mut pos, mut left) = (0usize, count);
    while left > 0 && pos < b.len() {
        let at = pos;
        let mut header = 0u64;
        let mut shift = 0;
        loop {
            let byte = *b.get(pos).ok_or_else(|| format!("a run header cut at byte {at}"))?;
            pos += 1;
            header |= u64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift >= 70 {
                return Err(format!("a run header longer than 10 bytes at byte {at}"));
            }
        }
        let run = usize::try_from(header >> 1).unwrap_or(usize::MAX);
        if header & 1 == 1 {
            let values = run.saturating_mul(8);
            let read = values.min(left);
            let needed = bits_to_bytes(read, width).ok_or("a run overflows")?;
            if needed > b.len() - pos {
                return Err(format!("a bit-packed run at byte {at} holds {read} values in {needed} bytes with {} left", b.len() - pos));
            }
            pos = pos.saturating_add(run.saturating_mul(width)).min(b.len());
            left -= read;
        } else {
            pos = pos.saturating_add(width.div_ceil(8)).min(b.len());
            left -= run.min(left);
        }
    }
    Ok(())
}

/// A v1 page's body as the crate will see it: inflated where the chunk is compressed, to exactly
/// `uncompressed` bytes (the caller holds that within its budget). None where the crate will
/// refuse the page itself (a codec it was built without, a size that does not match).
fn inflate(body: &[u8], codec: Compression, uncompressed: i64) -> Result<Option<std::borrow::Cow<'_, [u8]>>, String> {
    let size = usize::try_from(uncompressed).map_err(|_| format!("uncompressed_page_size {uncompressed}"))?;
    let limited = |r: &mut dyn Read| -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(size);
        r.take(size as u64 + 1).read_to_end(&mut out).ok()?;
        (out.len() == size).then_some(out)
    };
    Ok(match codec {
        Compression::UNCOMPRESSED => Some(body.into()),
        Compression::SNAPPY => {
            if snap::raw::decompress_len(body).ok() != Some(size) {
                return Ok(None);
            }
            snap::raw::Decoder::new().decompress_vec(body).ok().map(Into::into)
        }
        Compression::GZIP(_) => limited(&mut flate2::read::MultiGzDecoder::new(body)).map(Into::into),
        Compression::ZSTD(_) => match zstd::stream::read::Decoder::with_buffer(body) {
            Ok(mut d) => limited(&mut d).map(Into::into),
            Err(_) => None,
        },
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::hybrid;

    #[test]
    fn a_bit_packed_run_longer_than_its_bytes_is_refused() {
        // One bit-packed group (8 values at width 1) in one byte: fine.
        assert!(hybrid(&[0x03, 0xff], 8, 1).is_ok());
        // 100 groups declared, 800 values wanted, one byte behind it.
        let e = hybrid(&[0xc9, 0x01, 0xff], 800, 1).unwrap_err();
        assert!(e.contains("holds 800 values in 100 bytes with 1 left"), "{e}");
        // Only 3 values wanted from that run: 1 byte is enough.
        assert!(hybrid(&[0xc9, 0x01, 0xff], 3, 1).is_ok());
        // An RLE run of 20 ones, then the values run out: the crate stops, no panic to prevent.
        assert!(hybrid(&[0x28, 0x01], 40, 1).is_ok());
    }
}
