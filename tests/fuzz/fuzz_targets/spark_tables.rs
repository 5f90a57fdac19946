#![no_main]

//! A Parquet file as `icescope spark-export` has Spark write it, decoded as each of Spark's metadata
//! tables: the footer and page checks, then the arrow reader over the whole file (in the browser a
//! panic inside the `parquet` crate would abort the tab). Seeded with the lab's real exports.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    use icescope::decode::spark_tables as t;
    let f = "x/part-00000.snappy.parquet";
    let _ = t::snapshots(f, data);
    let _ = t::manifest_counts(f, data);
    let _ = t::manifests(f, data);
    let _ = t::entries(f, data);
    let _ = t::metadata_log(f, data);
    let _ = t::refs(f, data);
});
