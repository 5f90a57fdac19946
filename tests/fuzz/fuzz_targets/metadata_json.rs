//! metadata.json bytes → TableMetadata, and when they decode, the history and every report built
//! from summaries alone (the analysis does arithmetic on values the file chose).
#![no_main]

use icescope::analysis::findings::TableRef;
use icescope::analysis::{inspect, markdown};
use icescope::decode::TableMetadata;
use icescope::model::{ReadMode, TableHistory};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(m) = TableMetadata::from_bytes("metadata/v1.metadata.json", data) else { return };
    let mut history = TableHistory::new("metadata/v1.metadata.json", m);
    history.plan(ReadMode::MetadataFirst);
    let report = inspect::inspect(&history, &TableRef::guess(&history, Some("lab")));
    let _ = (markdown::markdown(&report), inspect::text(&report), serde_json::to_string(&report));
});
