#![no_main]

//! A Parquet file's tail and footer, and a deletion vector blob, from the same bytes. The footer
//! decoder runs without the native panic guard here (`cfg(fuzzing)`): in the browser a panic
//! inside the `parquet` crate would abort the tab, so every panic found is a bug to report.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use icescope::decode::parquet_footer::{decode_footer, footer_span};
    if let Ok((offset, len)) = footer_span("data/x.parquet", data, data.len() as u64) {
        let _ = decode_footer("data/x.parquet", &data[offset as usize..(offset + len) as usize]);
    }
    let _ = decode_footer("data/x.parquet", data);
    let _ = icescope::decode::deletion_vector::deletion_vector("data/x-deletes.puffin", data);
});
