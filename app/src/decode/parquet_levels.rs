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
    rep: Runs,
    present: Runs,
}

impl Track {
    pub fn new(present_at: i16) -> Self {
        Track { present_at, levels: 0, rep: Runs::default(), present: Runs::default() }
    }

    /// (levels, digest of repetition levels, digest of presence): equal for siblings that agree.
    pub fn finish(&self) -> (u64, u64, u64) {
        (self.levels, self.rep.finish(), self.present.finish())
    }
}

/// A digest of a level sequence that does not depend on how it was encoded: equal neighbours are
/// merged into (value, count) runs before hashing, so an RLE run costs the same however many
/// values it declares (five bytes can declare two billion).
#[derive(Debug, Clone, Default)]
struct Runs {
    open: Option<(i16, u64)>,
    hash: DefaultHasher,
}

impl Runs {
    fn push(&mut self, value: i16, n: u64) {
        match &mut self.open {
            _ if n == 0 => {}
            Some((v, c)) if *v == value => *c = c.saturating_add(n),
            open => {
                if let Some((v, c)) = open.replace((value, n)) {
                    self.hash.write_i16(v);
                    self.hash.write_u64(c);
                }
            }
        }
    }

    fn finish(&self) -> u64 {
        let mut h = self.hash.clone();
        if let Some((v, c)) = self.open {
            h.write_i16(v);
            h.write_u64(c);
        }
        h.finish()
    }
}

/// Walks one level block; with a track, its levels go into the track's repetition digest or,
/// as present or not, into its presence digest.
fn walk(b: &[u8], count: usize, max: i16, track: Option<&mut Track>, repetition: bool) -> Result<(), String> {
    let Some(t) = track else { return hybrid(b, count, max, None) };
    let present_at = t.present_at;
    let mut emit = |v: i16, n: usize| {
        if repetition {
            t.rep.push(v, n as u64)
        } else {
            t.present.push(i16::from(v >= present_at), n as u64)
        }
    };
    hybrid(b, count, max, Some(&mut emit))
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
        let levels = body
            .get(..rep.checked_add(def).ok_or("level lengths overflow")?)
            .ok_or_else(|| format!("level lengths {rep} + {def} run past the page's {} bytes", body.len()))?;
        if leaf.max_rep > 0 {
            walk(&levels[..rep], count, leaf.max_rep, track.as_deref_mut(), true).map_err(|m| format!("repetition levels: {m}"))?;
        }
        if leaf.max_def > 0 {
            walk(&levels[rep..], count, leaf.max_def, track.as_deref_mut(), false).map_err(|m| format!("definition levels: {m}"))?;
        }
        if let Some(t) = track {
            t.levels = t.levels.saturating_add(count as u64);
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
                let end = len
                    .checked_add(4)
                    .filter(|&e| e <= rest.len())
                    .ok_or_else(|| format!("{what} levels of {len} bytes with {} left in the page", rest.len() - 4))?;
                walk(&rest[4..end], count, max, track.as_deref_mut(), what == "repetition").map_err(|m| format!("{what} levels: {m}"))?;
                rest = &rest[end..];
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
    if let Some(t) = track {
        t.levels = t.levels.saturating_add(count as u64);
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
/// values read from it. With `out`, the levels are handed to it as (value, repeats), checked
/// against `max`, and a block that ends before `count` is refused (siblings would then differ);
/// without, such a block is left to the crate (it stops there, no panic).
fn hybrid(b: &[u8], count: usize, max: i16, mut out: Option<&mut dyn FnMut(i16, usize)>) -> Result<(), String> {
    let width = width(max);
    let (mut pos, mut left) = (0usize, count);
    let check = |v: u32| i16::try_from(v).ok().filter(|&v| v <= max).ok_or_else(|| format!("a level of {v} where the column's largest is {max}"));
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
                    o(check(v)?, 1);
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
                o(check(v)?, read);
            }
            pos += bytes;
            left -= read;
        }
    }
    if out.is_some() && left > 0 {
        return Err(format!("the levels end after {} of the page's {count} values", count - left));
    }
    Ok(())
}

/// A v1 page's body as the crate will see it: inflated where the chunk is compressed, to exactly
/// `uncompressed` bytes (the caller holds that within its budget). None where the crate will
/// refuse the page itself (a codec it was built without, a size that does not match).
pub(super) fn inflate(body: &[u8], codec: Compression, uncompressed: i64) -> Result<Option<std::borrow::Cow<'_, [u8]>>, String> {
    let size = usize::try_from(uncompressed).map_err(|_| format!("uncompressed_page_size {uncompressed}"))?;
    let limited = |r: &mut dyn Read| -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(size);
        r.take(size as u64 + 1).read_to_end(&mut out).ok()?;
        (out.len() == size).then_some(out)
    };
    // As parquet 60.1's `decode_page` does: a compressed page of uncompressed size 0 is not
    // inflated at all (its levels are read from no bytes), and snappy inflates into a buffer of
    // the header's size, zero-filled past what the stream holds.
    if size == 0 && codec != Compression::UNCOMPRESSED {
        return Ok(Some(std::borrow::Cow::Borrowed(&[])));
    }
    Ok(match codec {
        Compression::UNCOMPRESSED => Some(body.into()),
        Compression::SNAPPY => match snap::raw::decompress_len(body) {
            Ok(n) if n <= size => {
                let mut out = vec![0u8; size];
                snap::raw::Decoder::new().decompress(body, &mut out).ok().map(|_| out.into())
            }
            _ => None,
        },
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
        let decode = |b: &[u8], count: usize, max: i16| {
            let mut out = Vec::new();
            hybrid(b, count, max, Some(&mut |v, n| out.extend(std::iter::repeat_n(v, n)))).map(|()| out)
        };
        // RLE: 3 × 2 (width 2); bit-packed: 1 group of 8 values 0,1,2,3,0,1,2,3 (2 bytes 0xe4 0xe4).
        assert_eq!(decode(&[0x06, 0x02, 0x03, 0xe4, 0xe4], 11, 3).unwrap(), [2, 2, 2, 0, 1, 2, 3, 0, 1, 2, 3]);
        // Decoding, a block that ends before the page's values is refused.
        assert_eq!(decode(&[0x06, 0x02], 5, 3).unwrap_err(), "the levels end after 3 of the page's 5 values");
        // A level above the column's largest.
        assert_eq!(decode(&[0x06, 0x03], 3, 2).unwrap_err(), "a level of 3 where the column's largest is 2");
    }

    #[test]
    fn digests_depend_on_the_levels_not_on_their_runs() {
        use super::{walk, Track};
        let digest = |blocks: &[&[u8]], count: usize| {
            let mut t = Track::new(1);
            for b in blocks {
                walk(b, count, 1, Some(&mut t), false).unwrap();
            }
            t.finish().1 ^ t.finish().2
        };
        // Eight ones as one RLE run, as a bit-packed group, and as two RLE runs of four.
        let (rle, packed, halves) = (digest(&[&[0x10, 0x01]], 8), digest(&[&[0x03, 0xff]], 8), digest(&[&[0x08, 0x01], &[0x08, 0x01]], 4));
        assert_eq!(rle, packed);
        assert_eq!(rle, halves);
        assert_ne!(rle, digest(&[&[0x03, 0xfe]], 8), "one level absent");
        // Five bytes declaring 2^31 levels cost a run, not gigabytes.
        let mut t = Track::new(1);
        walk(&[0x80, 0x80, 0x80, 0x80, 0x10, 0x01], 1 << 31, 1, Some(&mut t), false).unwrap();
    }
}
