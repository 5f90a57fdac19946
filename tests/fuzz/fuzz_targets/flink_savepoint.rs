#![no_main]

//! A Flink `_metadata` from a stranger, and the Iceberg committer's state inside it: every byte
//! may lie (counts, lengths, handle types, nesting); the decoders must answer with an error.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut no_files = |_: &icescope::decode::flink_savepoint::StreamHandle| -> Result<&[u8], icescope::decode::DecodeError> {
        Err(icescope::decode::DecodeError::new("x", "state_file", "not read"))
    };
    let _ = icescope::analysis::savepoint::read("sp/_metadata", data, &mut no_files);
});
