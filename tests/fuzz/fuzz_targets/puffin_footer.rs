#![no_main]

//! A Puffin file as the footer check reads it: the 12-byte tail, the footer it points at (stored or
//! one LZ4 frame), then every deletion-vector blob the footer lists, read where it says. Whatever
//! decodes must keep its promise: every blob lies between the file's magic and the footer.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use icescope::decode::puffin::{decode_footer, footer_span, BlobType, TAIL_BYTES};
    let size = data.len() as u64;
    let tail = &data[data.len().saturating_sub(TAIL_BYTES as usize)..];
    let Ok(span) = footer_span("data/x-deletes.puffin", tail, size) else { return };
    let footer_bytes = &data[span.offset as usize..(span.offset + span.len) as usize];
    let Ok(footer) = decode_footer("data/x-deletes.puffin", span, footer_bytes) else { return };
    for b in &footer.blobs {
        assert!(b.offset >= 4 && b.offset + b.length <= span.offset, "{b:?} outside the blobs' part of the file");
        if b.kind == BlobType::DeletionVectorV1 {
            let blob = &data[b.offset as usize..(b.offset + b.length) as usize];
            let _ = icescope::decode::deletion_vector::deletion_vector("data/x-deletes.puffin", blob);
        }
    }
});
