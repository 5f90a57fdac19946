//! The repetition and definition levels of a data page, walked before the `parquet` crate decodes
//! them. parquet 60.1 trusts a level run's declared size: a bit-packed run longer than the bytes
//! behind it panics inside arrow-buffer (`append_packed_range`), and a deprecated BIT_PACKED level
//! block longer than the page panics in `parse_v1_level`, and the key and value of a map whose
//! levels describe different entries panic in `MapArrayReader::consume_batch` (an `unwrap` of "Not
//! all children array length are the same"). All three were found by fuzzing (tests/fuzz/known/);
//! a panic in wasm ends the app, so such a page or chunk is refused here first.

use std::hash::{DefaultHasher, Hasher};
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

/// The levels of a column chunk whose siblings under the same repeated group must describe the
/// same entries: how many, their repetition levels, and which are present at that group's
/// definition level (`present_at`). Kept as digests: an `entries` table holds millions of levels.
#[derive(Debug, Clone)]
pub struct Track {
    pub present_at: i16,
    levels: u64,
    rep: DefaultHasher,
    present: DefaultHasher,
}

impl Track {
    pub fn new(present_at: i16) -> Self {
        Track { present_at, levels: 0, rep: DefaultHasher::new(), present: DefaultHasher::new() }
    }

    /// (levels, digest of repetition levels, digest of presence): equal for siblings that agree.
    pub fn finish(&self) -> (u64, u64, u64) {
        (self.levels, self.rep.finish(), self.present.finish())
    }

    fn add(&mut self, rep: &[i16], def: &[i16]) {
        self.levels += def.len() as u64;
        for r in rep {
            self.rep.write_i16(*r);
        }
        let present: Vec<u8> = def.iter().map(|&d| u8::from(d >= self.present_at)).collect();
        self.present.write(&present);
    }
}

/// Checks the level blocks of a data page whose header is `h` and whose stored body is `body`
/// (compressed as the chunk is); where `track` is given, its levels are decoded into it. Pages
/// without levels, dictionary pages and codecs the crate cannot read (it refuses those itself)
/// pass.
pub fn check_page(h: &PageHeader, body: &[u8], leaf: Leaf, mut track: Option<&mut Track>) -> Result<(), String> {
    if leaf.max_rep <= 0 && leaf.max_def <= 0 {
        return Ok(());
    }
    if let Some(v2) = h.v2.filter(|_| h.page_type == 3) {
        // v2 keeps its levels uncompressed in front of the values, lengths in the header.
        let count = count(v2.num_values)?;
        let (rep, def) = (length(v2.rep_len, "repetition_levels_byte_length")?, length(v2.def_len, "definition_levels_byte_length")?);
        let levels = body.get(..rep.checked_add(def).ok_or("level lengths overflow")?).ok_or_else(|| format!("level lengths {rep} + {def} run past the page's {} bytes", body.len()))?;
        let (mut reps, mut defs) = (Vec::new(), Vec::new());
        let keep = track.is_some();
        if leaf.max_rep > 0 {
            hybrid(&levels[..rep], count, leaf.max_rep, keep.then_some(&mut reps)).map_err(|m| format!("repetition levels: {m}"))?;
        }
        if leaf.max_def > 0 {
            hybrid(&levels[rep..], count, leaf.max_def, keep.then_some(&mut defs)).map_err(|m| format!("definition levels: {m}"))?;
        }
        if let Some(t) = track {
            t.add(&reps, &defs);
        }
        return Ok(());
    }
    let Some(v1) = h.v1.filter(|_| h.page_type == 0) else { return Ok(()) };
    let count = count(v1.num_values)?;
    let Some(page) = inflate(body, leaf.codec, h.uncompressed)? else { return Ok(()) };
    let mut rest: &[u8] = &page;
    let (mut reps, mut defs) = (Vec::new(), Vec::new());
    for (max, encoding, what) in [(leaf.max_rep, v1.rep_encoding, "repetition"), (leaf.max_def, v1.def_encoding, "definition")] {
        if max <= 0 {
            continue;
        }
        match encoding {
            RLE => {
                let len = rest.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize).ok_or_else(|| format!("{what} levels: no length"))?;
                let block = rest.get(4..4 + len).ok_or_else(|| format!("{what} levels of {len} bytes with {} left in the page", rest.len() - 4))?;
                let out = if what == "repetition" { &mut reps } else { &mut defs };
                hybrid(block, count, max, track.is_some().then_some(out)).map_err(|m| format!("{what} levels: {m}"))?;
                rest = &rest[4 + len..];
            }
            BIT_PACKED => {
                let bytes = bits_to_bytes(count, width(max)).ok_or_else(|| format!("{what} levels: {count} values overflow"))?;
                if bytes > rest.len() {
                    return Err(format!("{what} levels: {count} bit-packed values need {bytes} bytes with {} left in the page", rest.len()));
                }
                if track.is_some() {
                    // Deprecated since Parquet 2.0 and written by no current writer for nested data.
                    return Err(format!("{what} levels of a nested column in the deprecated BIT_PACKED encoding (not read)"));
                }
                rest = &rest[bytes..];
            }
            other => return Err(format!("{what} levels in encoding {other}, neither RLE nor BIT_PACKED")),
        }
    }
    if let Some(t) = track.as_deref_mut() {
        t.add(&reps, &defs);
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
/// values read from it. With `out`, the levels are decoded into it, and a block that ends before
/// `count` is refused (siblings would then differ); without, such a block is left to the crate
/// (it stops there, no panic).
fn hybrid(b: &[u8], count: usize, max: i16, mut out: Option<&mut Vec<i16>>) -> Result<(), String> {
    let width = width(max);
    let (mut pos, mut left) = (0usize, count);
    if let Some(o) = out.as_deref_mut() {
        o.clear();
        o.reserve(count.min(b.len().saturating_mul(8)));
    }
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
            if let Some(o) = out.as_deref_mut() {
                let bits = &b[pos..pos + needed];
                for i in 0..read {
                    let mut v = 0u32;
                    for bit in 0..width {
                        let n = i * width + bit;
                        v |= u32::from((bits[n / 8] >> (n % 8)) & 1) << bit;
                    }
                    o.push(v as i16);
                }
            }
            pos = pos.saturating_add(run.saturating_mul(width)).min(b.len());
            left -= read;
        } else {
            let bytes = width.div_ceil(8);
            let value = b.get(pos..pos + bytes).ok_or_else(|| format!("an RLE run at byte {at} without its value"))?;
            let v = value.iter().rev().fold(0u32, |v, &x| (v << 8) | u32::from(x));
            let read = run.min(left);
            if let Some(o) = out.as_deref_mut() {
                o.extend(std::iter::repeat_n(v as i16, read));
            }
            pos += bytes;
            left -= read;
        }
    }
    if let Some(o) = out {
        if o.len() != count {
            return Err(format!("the levels end after {} of the page's {count} values", o.len()));
        }
        if let Some(v) = o.iter().find(|&&v| v > max || v < 0) {
            return Err(format!("a level of {v} where the column's largest is {max}"));
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
        assert!(hybrid(&[0x03, 0xff], 8, 1, None).is_ok());
        // 100 groups declared, 800 values wanted, one byte behind it.
        let e = hybrid(&[0xc9, 0x01, 0xff], 800, 1, None).unwrap_err();
        assert!(e.contains("holds 800 values in 100 bytes with 1 left"), "{e}");
        // Only 3 values wanted from that run: 1 byte is enough.
        assert!(hybrid(&[0xc9, 0x01, 0xff], 3, 1, None).is_ok());
        // An RLE run of 20 ones, then the values run out: the crate stops, no panic to prevent.
        assert!(hybrid(&[0x28, 0x01], 40, 1, None).is_ok());
    }

    #[test]
    fn levels_decode_from_both_kinds_of_run() {
        let mut out = Vec::new();
        // RLE: 3 × 2 (width 2); bit-packed: 1 group of 8 values 0,1,2,3,0,1,2,3 (2 bytes 0xe4 0xe4).
        hybrid(&[0x06, 0x02, 0x03, 0xe4, 0xe4], 11, 3, Some(&mut out)).unwrap();
        assert_eq!(out, [2, 2, 2, 0, 1, 2, 3, 0, 1, 2, 3]);
        // Decoding, a block that ends before the page's values is refused.
        let e = hybrid(&[0x06, 0x02], 5, 3, Some(&mut out)).unwrap_err();
        assert_eq!(e, "the levels end after 3 of the page's 5 values");
        // A level above the column's largest.
        let e = hybrid(&[0x06, 0x03], 3, 2, Some(&mut out)).unwrap_err();
        assert_eq!(e, "a level of 3 where the column's largest is 2");
    }
}
