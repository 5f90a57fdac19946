//! Deletion vectors (format v3): a `deletion-vector-v1` blob inside a Puffin file, found by the
//! manifest entry's `content_offset` and `content_size_in_bytes`. The blob is a 4-byte big-endian
//! length of magic + vector, the magic `D1 D3 39 64`, a portable 64-bit roaring bitmap of deleted
//! row positions, and a big-endian CRC-32 of magic + vector.

use roaring::RoaringTreemap;

use super::DecodeError;

const MAGIC: [u8; 4] = [0xD1, 0xD3, 0x39, 0x64];

/// The deleted positions of one vector.
pub fn deletion_vector(file: &str, blob: &[u8]) -> Result<RoaringTreemap, DecodeError> {
    let err = |field: &str, m: String| DecodeError::new(file, field, m);
    if blob.len() < 12 {
        return Err(err("content_size_in_bytes", format!("a deletion vector blob of {} bytes is shorter than its 12 bytes of framing", blob.len())));
    }
    let declared = u32::from_be_bytes([blob[0], blob[1], blob[2], blob[3]]) as usize;
    if declared.checked_add(8) != Some(blob.len()) {
        return Err(err(
            "length",
            format!("the blob declares {declared} bytes of magic and vector, but the manifest's content_size_in_bytes leaves {}", blob.len() - 8),
        ));
    }
    let body = &blob[4..4 + declared];
    if body[..4] != MAGIC {
        return Err(err("magic", format!("{:02x?} is not the deletion vector magic d1 d3 39 64", &body[..4])));
    }
    let stored = u32::from_be_bytes([blob[blob.len() - 4], blob[blob.len() - 3], blob[blob.len() - 2], blob[blob.len() - 1]]);
    let computed = crc32fast::hash(body);
    if stored != computed {
        return Err(err("crc", format!("the blob's CRC-32 is {stored:08x}, its bytes give {computed:08x}: damaged")));
    }
    // roaring-rs reads the portable 64-bit layout Iceberg writes (count, then key + 32-bit bitmap);
    // its per-container allocation is bounded by the format (at most 65,536 containers of 8 KB).
    RoaringTreemap::deserialize_from(&body[4..]).map_err(|e| err("vector", format!("the roaring bitmap does not decode: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(positions: &[u64]) -> Vec<u8> {
        let mut body = MAGIC.to_vec();
        positions.iter().copied().collect::<RoaringTreemap>().serialize_into(&mut body).unwrap();
        let mut out = (body.len() as u32).to_be_bytes().to_vec();
        out.extend_from_slice(&body);
        out.extend_from_slice(&crc32fast::hash(&body).to_be_bytes());
        out
    }

    #[test]
    fn vectors_are_framed_checked_and_decoded() {
        let b = blob(&[1, 5, 1 << 40]);
        assert_eq!(deletion_vector("d.puffin", &b).unwrap().iter().collect::<Vec<_>>(), vec![1, 5, 1 << 40]);
        let mut bad = b.clone();
        bad[10] ^= 1;
        assert!(deletion_vector("d.puffin", &bad).unwrap_err().to_string().contains("field `crc`"));
        assert!(deletion_vector("d.puffin", &b[..b.len() - 1]).unwrap_err().to_string().contains("field `length`"));
        assert!(deletion_vector("d.puffin", &[0; 5]).is_err());
    }
}
