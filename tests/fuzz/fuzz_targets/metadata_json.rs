//! metadata.json bytes → TableMetadata, and when they decode, the history and every report built
//! from summaries alone (the analysis does arithmetic on values the file chose). The same bytes read
//! as a stream (a file picked in the browser) must decode to the same metadata, or not at all.
#![no_main]

use icescope::analysis::findings::TableRef;
use icescope::analysis::{inspect, markdown};
use icescope::decode::TableMetadata;
use icescope::model::{ReadMode, TableHistory};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let whole = TableMetadata::from_bytes("metadata/v1.metadata.json", data).ok();
    if let Some(streamed) = TableMetadata::from_reader("metadata/v1.metadata.json", data) {
        assert!(whole.as_ref() == Some(&streamed), "read as a stream, the bytes decode to other metadata");
    }
    let Some(m) = whole else { return };
    let mut history = TableHistory::new("metadata/v1.metadata.json", m);
    history.plan(ReadMode::MetadataFirst);
    let report = inspect::inspect(&history, &TableRef::guess(&history, Some("lab")));
    let _ = (markdown::markdown(&report), inspect::text(&report), serde_json::to_string(&report));
});
