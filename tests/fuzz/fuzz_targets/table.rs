//! A whole table loaded as the CLI loads it: late-data's one-snapshot metadata.json, with the fuzzed
//! input as its manifest list and manifest (`[u32 LE list length][list][manifest]`), then every
//! report. Reaches what the decoder targets cannot: counting, digests, live files, the findings on
//! them. Seeds (seed.py) state manifest_length 0, so that a mutated manifest is still decoded.
#![no_main]

use icescope::analysis::findings::TableRef;
use icescope::analysis::{inspect, markdown, partitions, GrowthSeries};
use icescope::load::load_table;
use icescope::model::ReadMode;
use icescope::source::MemoryFiles;
use libfuzzer_sys::fuzz_target;

const METADATA: &[u8] = include_bytes!("../../fixtures/late-data/metadata/v2.metadata.json");
const LIST: &str = "metadata/snap-4137382381322223949-1-952969c3-57b8-45f9-b078-a9a693753616.avro";
const MANIFEST: &str = "metadata/952969c3-57b8-45f9-b078-a9a693753616-m0.avro";

fuzz_target!(|data: &[u8]| {
    let Some((head, rest)) = data.split_first_chunk::<4>() else { return };
    let (list, manifest) = rest.split_at((u32::from_le_bytes(*head) as usize).min(rest.len()));
    let mut files = MemoryFiles::new();
    files.insert("metadata/v2.metadata.json".into(), METADATA.to_vec());
    files.insert(LIST.into(), list.to_vec());
    files.insert(MANIFEST.into(), manifest.to_vec());
    let Ok(history) = load_table(&files, "metadata/v2.metadata.json", ReadMode::All) else { return };
    let report = inspect::inspect(&history, &TableRef::guess(&history, Some("lab")));
    let _ = (markdown::markdown(&report), inspect::text(&report), serde_json::to_string(&report));
    let _ = (partitions::partition_stats(&history), partitions::partition_timeline(&history, 200), GrowthSeries::of(&history).x_positions());
});
