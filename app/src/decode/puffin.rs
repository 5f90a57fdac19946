//! Puffin footers (the file format of deletion vectors and table statistics): the file ends with
//! `PFA1`, the footer payload (UTF-8 JSON, or one LZ4 frame of it when flag bit 0 is set), its
//! 4-byte little-endian size, 4 bytes of flags and `PFA1` again. The payload lists every blob:
//! type, fields, snapshot, offset, length, codec and properties (for a deletion vector the data
//! file it applies to and its cardinality).

use std::collections::BTreeMap;
use std::io::Read;

use serde::{Deserialize, Serialize};

use super::DecodeError;

const MAGIC: &[u8; 4] = b"PFA1";
/// Payload size, flags and the closing magic: what a reader fetches first.
pub const TAIL_BYTES: u64 = 12;
/// Payloads (stored or inflated) above this are refused: a blob's entry is ~350 bytes, so this
/// holds the footer of a Puffin file with some 45,000 deletion vectors.
pub const MAX_PAYLOAD_BYTES: u64 = 16 << 20;

/// Where the footer sits, from the file's last 12 bytes and the object's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FooterSpan {
    /// Offset of the footer's opening `PFA1`; the payload follows it.
    pub offset: u64,
    /// Opening magic plus payload: the bytes to fetch at `offset`.
    pub len: u64,
    pub compressed: bool,
}

pub fn footer_span(file: &str, tail: &[u8], object_size: u64) -> Result<FooterSpan, DecodeError> {
    let err = |field: &str, m: String| DecodeError::new(file, field, m);
    // The file's magic, the footer's magic and the 12-byte tail.
    if object_size < 20 || tail.len() < TAIL_BYTES as usize {
        return Err(err(
            "tail",
            format!(
                "the file is {object_size} bytes: too short for a Puffin file (`PFA1`, then a footer of `PFA1`, payload, size, flags and `PFA1`: at least 20)"
            ),
        ));
    }
    let tail = &tail[tail.len() - TAIL_BYTES as usize..];
    if &tail[8..12] != MAGIC {
        return Err(err(
            "magic",
            format!("the last 4 bytes are {:02x?}, not `PFA1`: not a Puffin file (a bare vector of an early writer), or cut short", &tail[8..12]),
        ));
    }
    let size = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    let flags = [tail[4], tail[5], tail[6], tail[7]];
    // Bit 0 of byte 0 is the only flag the spec defines; a reader cannot know what another means.
    if flags[0] & !1 != 0 || flags[1..] != [0, 0, 0] {
        return Err(err("flags", format!("{flags:02x?} sets flags the Puffin spec does not define (only bit 0 of byte 0: a compressed payload)")));
    }
    let room = object_size - 20;
    if size > room {
        return Err(err(
            "footer_payload_size",
            format!("declares a payload of {size} bytes, but the file is {object_size} bytes (at most {room} can be payload)"),
        ));
    }
    if size > MAX_PAYLOAD_BYTES {
        return Err(err("footer_payload_size", format!("declares a payload of {size} bytes, above the {MAX_PAYLOAD_BYTES} icescope reads")));
    }
    Ok(FooterSpan { offset: object_size - TAIL_BYTES - size - 4, len: size + 4, compressed: flags[0] & 1 == 1 })
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BlobType {
    DeletionVectorV1,
    ApacheDatasketchesThetaV1,
    Unknown(String),
}

impl BlobType {
    fn parse(s: &str) -> BlobType {
        match s {
            "deletion-vector-v1" => BlobType::DeletionVectorV1,
            "apache-datasketches-theta-v1" => BlobType::ApacheDatasketchesThetaV1,
            other => BlobType::Unknown(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            BlobType::DeletionVectorV1 => "deletion-vector-v1",
            BlobType::ApacheDatasketchesThetaV1 => "apache-datasketches-theta-v1",
            BlobType::Unknown(s) => s,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlobCodec {
    Lz4,
    Zstd,
    Unknown(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlobMetadata {
    pub kind: BlobType,
    pub fields: Vec<i32>,
    pub snapshot_id: i64,
    pub sequence_number: i64,
    pub offset: u64,
    pub length: u64,
    pub compression_codec: Option<BlobCodec>,
    pub properties: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuffinFooter {
    pub blobs: Vec<BlobMetadata>,
    pub properties: BTreeMap<String, String>,
    pub compressed: bool,
    /// Payload bytes as stored (compressed, where it is).
    pub payload_bytes: u64,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct WireFooter {
    blobs: Vec<WireBlob>,
    #[serde(default)]
    properties: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct WireBlob {
    #[serde(rename = "type")]
    kind: String,
    fields: Vec<i32>,
    snapshot_id: i64,
    sequence_number: i64,
    offset: i64,
    length: i64,
    compression_codec: Option<String>,
    #[serde(default)]
    properties: BTreeMap<String, String>,
}

/// Decodes the footer fetched at `span` (opening magic and payload). Every blob must lie between
/// the file's magic and the footer.
pub fn decode_footer(file: &str, span: FooterSpan, bytes: &[u8]) -> Result<PuffinFooter, DecodeError> {
    let err = |field: &str, m: String| DecodeError::new(file, field, m);
    if bytes.len() as u64 != span.len || bytes.len() < 4 {
        return Err(err("footer_payload_size", format!("{} footer bytes expected, {} read (the file ends first)", span.len, bytes.len())));
    }
    if &bytes[..4] != MAGIC {
        return Err(err("magic", format!("the footer starts with {:02x?}, not `PFA1`: its payload size is wrong, or the file was cut", &bytes[..4])));
    }
    let stored = &bytes[4..];
    let inflated;
    let payload = if span.compressed {
        // One LZ4 frame; read one byte past the bound to tell a payload at it from a bomb.
        let mut out = Vec::new();
        lz4_flex::frame::FrameDecoder::new(stored)
            .take(MAX_PAYLOAD_BYTES + 1)
            .read_to_end(&mut out)
            .map_err(|e| err("footer_payload", format!("the LZ4 frame does not decode: {e}")))?;
        if out.len() as u64 > MAX_PAYLOAD_BYTES {
            return Err(err("footer_payload", format!("the LZ4 payload inflates past {MAX_PAYLOAD_BYTES} bytes, above what icescope reads")));
        }
        inflated = out;
        &inflated[..]
    } else {
        stored
    };
    let text = std::str::from_utf8(payload).map_err(|e| err("footer_payload", format!("not UTF-8 JSON: {e}")))?;
    let de = &mut serde_json::Deserializer::from_str(text);
    let wire: WireFooter = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        err(if path == "." { "footer_payload" } else { &path }, e.into_inner().to_string())
    })?;
    let end = span.offset;
    let mut blobs = Vec::with_capacity(wire.blobs.len());
    for (i, b) in wire.blobs.into_iter().enumerate() {
        let field = |name: &str| format!("blobs[{i}].{name}");
        let offset = u64::try_from(b.offset).map_err(|_| err(&field("offset"), format!("{} is negative", b.offset)))?;
        let length = u64::try_from(b.length).map_err(|_| err(&field("length"), format!("{} is negative", b.length)))?;
        match offset.checked_add(length) {
            Some(stop) if offset >= 4 && stop <= end => {}
            _ => {
                return Err(err(
                    &field("offset"),
                    format!("a blob of {length} bytes at {offset} is not between the file's magic (4 bytes) and its footer (at {end})"),
                ))
            }
        }
        let compression_codec = b.compression_codec.map(|c| match c.as_str() {
            "lz4" => BlobCodec::Lz4,
            "zstd" => BlobCodec::Zstd,
            _ => BlobCodec::Unknown(c),
        });
        blobs.push(BlobMetadata {
            kind: BlobType::parse(&b.kind),
            fields: b.fields,
            snapshot_id: b.snapshot_id,
            sequence_number: b.sequence_number,
            offset,
            length,
            compression_codec,
            properties: b.properties,
        });
    }
    Ok(PuffinFooter { blobs, properties: wire.properties, compressed: span.compressed, payload_bytes: stored.len() as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(payload: &[u8], flags: u8, blob: &[u8]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(blob);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(payload);
        out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        out.extend_from_slice(&[flags, 0, 0, 0]);
        out.extend_from_slice(MAGIC);
        out
    }

    fn read(f: &[u8]) -> Result<PuffinFooter, DecodeError> {
        let span = footer_span("x.puffin", &f[f.len() - 12..], f.len() as u64)?;
        decode_footer("x.puffin", span, &f[span.offset as usize..(span.offset + span.len) as usize])
    }

    const ONE: &str = r#"{"blobs":[{"type":"deletion-vector-v1","fields":[2147483645],"snapshot-id":-1,"sequence-number":-1,"offset":4,"length":3,"properties":{"referenced-data-file":"d.parquet","cardinality":"2"}}],"properties":{"created-by":"t"}}"#;

    #[test]
    fn blobs_are_read_stored_or_lz4_framed() {
        let plain = read(&file(ONE.as_bytes(), 0, b"abc")).unwrap();
        assert_eq!(plain.blobs.len(), 1);
        assert_eq!((plain.blobs[0].offset, plain.blobs[0].length), (4, 3));
        assert_eq!(plain.blobs[0].kind, BlobType::DeletionVectorV1);
        assert_eq!(plain.blobs[0].properties["cardinality"], "2");
        let mut framed = Vec::new();
        let mut enc = lz4_flex::frame::FrameEncoder::new(&mut framed);
        std::io::Write::write_all(&mut enc, ONE.as_bytes()).unwrap();
        enc.finish().unwrap();
        let lz4 = read(&file(&framed, 1, b"abc")).unwrap();
        assert_eq!(lz4.blobs, plain.blobs);
        assert!(lz4.compressed);
    }

    #[test]
    fn lies_name_the_field() {
        let msg = |f: &[u8]| read(f).unwrap_err().to_string();
        assert!(msg(&file(ONE.as_bytes(), 2, b"abc")).contains("field `flags`"));
        assert!(msg(&file(ONE.as_bytes(), 1, b"abc")).contains("field `footer_payload`: the LZ4 frame"));
        assert!(msg(&file(ONE.replace("\"length\":3", "\"length\":4").as_bytes(), 0, b"abc")).contains("field `blobs[0].offset`"));
        assert!(msg(&file(ONE.replace("\"offset\":4", "\"offset\":-4").as_bytes(), 0, b"abc")).contains("field `blobs[0].offset`: -4 is negative"));
        assert!(msg(&file(ONE.replace("\"fields\":[2147483645],", "").as_bytes(), 0, b"abc")).contains("missing field `fields`"));
        let mut big = file(ONE.as_bytes(), 0, b"abc");
        let n = big.len();
        big[n - 12..n - 8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(msg(&big).contains("field `footer_payload_size`"));
        assert!(msg(b"PFA1 not a puffin file at all..").contains("field `magic`"));
        // A frame that inflates past the bound is refused, not held.
        let mut framed = Vec::new();
        let mut enc = lz4_flex::frame::FrameEncoder::new(&mut framed);
        std::io::Write::write_all(&mut enc, &vec![b' '; (MAX_PAYLOAD_BYTES + 10) as usize]).unwrap();
        enc.finish().unwrap();
        assert!(msg(&file(&framed, 1, b"abc")).contains("inflates past"));
    }
}
