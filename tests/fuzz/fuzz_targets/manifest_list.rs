#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = icescope::decode::ManifestList::from_bytes("metadata/snap-1.avro", data);
});
