#![no_main]

//! A `_metadata` and the state file its handles name, both a stranger's: the input's first four
//! bytes say where the `_metadata` ends, the rest is the one state file every file handle reads.
//! Offsets, list elements, maps and committables may all lie; what the decoder makes must stay
//! within what the bytes hold.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let split = (u32::from_be_bytes([data[0], data[1], data[2], data[3]]) as usize).min(data.len() - 4);
    let (metadata, state) = data[4..].split_at(split);
    let mut one_file = |_: &icescope::decode::flink_savepoint::StreamHandle| -> Result<&[u8], icescope::decode::DecodeError> { Ok(state) };
    let _ = icescope::analysis::savepoint::read("sp/_metadata", metadata, &mut one_file);
});
