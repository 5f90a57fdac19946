//! Spark's metadata tables (`icescope spark-export`, run by real Spark 3.5.7 with Iceberg 1.11.0 in
//! the lab: tests/lab/run_spark_export.sh, into tests/spark-exports/<fixture>/ with the metadata.json
//! Spark read) opened in place of the manifests: every series, job and
//! finding equals what icescope reads from the table's own files, and the current snapshot's rows
//! equal what Spark counted in the lab.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use icescope::analysis::findings::TableRef;
use icescope::analysis::inspect::{inspect, Inspect};
use icescope::analysis::partitions::partition_stats;
use icescope::load::{load_table, spark_export, Loader};
use icescope::model::{ReadMode, TableHistory};
use icescope::source::local::LocalFolder;
use icescope::source::{newest_metadata, FileSet};
use serde_json::Value;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// (the fixture's table folder, its export folder), for every fixture the lab exported.
fn fixtures() -> Vec<(PathBuf, PathBuf)> {
    let root = repo().join("tests/spark-exports");
    let mut v: Vec<(PathBuf, PathBuf)> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("export.json").is_file())
        .map(|p| (repo().join("tests/fixtures").join(p.file_name().unwrap()), p))
        .collect();
    v.sort();
    v
}

/// The export as the lab left it (with the metadata.json), or a copy of its tables alone: what a
/// user has who ran the script and did not copy the file it names.
fn export_folder(export: &Path, with_metadata: bool) -> PathBuf {
    if with_metadata {
        return export.to_path_buf();
    }
    let name = export.file_name().unwrap().to_string_lossy().to_string();
    let dir = std::env::temp_dir().join(format!("icescope-spark-export-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for t in icescope::analysis::spark_export::FOLDERS {
        let Ok(parts) = std::fs::read_dir(export.join(t)) else { continue };
        std::fs::create_dir_all(dir.join(t)).unwrap();
        for p in parts {
            let p = p.unwrap().path();
            std::fs::copy(&p, dir.join(t).join(p.file_name().unwrap())).unwrap();
        }
    }
    dir
}

fn open_export(dir: &Path) -> TableHistory {
    let folder = LocalFolder::open(dir).unwrap();
    let layout = spark_export::detect(folder.index()).expect("an export folder");
    futures::executor::block_on(Loader::open_spark_export(&folder, &layout, false)).unwrap().history
}

fn raw(fixture: &Path) -> TableHistory {
    let folder = LocalFolder::open(fixture).unwrap();
    assert!(spark_export::detect(folder.index()).is_none(), "{}", fixture.display());
    load_table(&folder, &newest_metadata(&folder).unwrap(), ReadMode::All).unwrap()
}

fn report(h: &TableHistory) -> Inspect {
    inspect(h, &TableRef::guess(h, Some("lab")))
}

/// Per snapshot: the numbers a chart draws (the count source aside).
fn series(r: &Inspect) -> Vec<Value> {
    r.snapshots
        .iter()
        .map(|s| {
            let mut v = serde_json::to_value(s).unwrap();
            for k in ["counts_from", "read"] {
                v.as_object_mut().unwrap().remove(k);
            }
            v
        })
        .collect()
}

#[test]
fn with_the_metadata_json_everything_equals_the_table_read_directly() {
    let all = fixtures();
    assert!(all.len() >= 15, "the lab exported {} fixtures", all.len());
    for (fx, ex) in all {
        let name = fx.file_name().unwrap().to_string_lossy().to_string();
        let (direct, spark) = (raw(&fx), open_export(&export_folder(&ex, true)));
        let (a, b) = (report(&direct), report(&spark));
        assert_eq!(b.load.as_ref().map(|l| l.mode), None, "{name}: load is the caller's to set");
        assert!(b.gaps.is_empty(), "{name}: {:?}", b.gaps);
        // all_manifests counts vectors, not the Puffin files holding them: outside the current
        // snapshot (read from `entries`) the export leaves that count unknown, never guessed.
        let current = direct.current_index().unwrap();
        let (mut sa, sb) = (series(&a), series(&b));
        for (i, (x, y)) in sa.iter_mut().zip(&sb).enumerate() {
            let vectors = x["deletion_vectors"].as_u64().unwrap_or(0);
            if i != current && vectors > 0 {
                assert!(y["deletion_vector_files"].is_null(), "{name} snapshot {i}: {y}");
                x["deletion_vector_files"] = Value::Null;
            }
        }
        assert_eq!(sa, sb, "{name}: per-snapshot series");
        assert_eq!(serde_json::to_value(&a.jobs).unwrap(), serde_json::to_value(&b.jobs).unwrap(), "{name}: jobs");
        assert_eq!(serde_json::to_value(&a.findings).unwrap(), serde_json::to_value(&b.findings).unwrap(), "{name}: findings");
        assert_eq!(serde_json::to_value(&a.disagreements).unwrap(), serde_json::to_value(&b.disagreements).unwrap(), "{name}: disagreements");
        let cur = |h: &TableHistory| h.current_index().unwrap();
        assert_eq!(direct.counts(cur(&direct)), spark.counts(cur(&spark)), "{name}: the current snapshot's live counts");
        assert_eq!(format!("{:?}", partition_stats(&direct)), format!("{:?}", partition_stats(&spark)), "{name}: the partitions chart");
        // Every snapshot Spark's all_manifests knows is counted from its manifest list.
        let x = spark.exported().unwrap();
        assert!(x.counted_snapshots > 0 && x.counted_snapshots <= spark.snapshots.len(), "{name}");
        assert!(spark.has_files(cur(&spark)), "{name}");
    }
}

#[test]
fn the_current_rows_are_sparks_count() {
    for (fx, ex) in fixtures() {
        let name = fx.file_name().unwrap().to_string_lossy().to_string();
        let facts: Value = serde_json::from_str(&std::fs::read_to_string(fx.join("facts.json")).unwrap()).unwrap();
        let Some(rows) = facts["final_table"]["rows"].as_u64() else { continue };
        let h = open_export(&export_folder(&ex, true));
        let c = h.counts(h.current_index().unwrap()).unwrap();
        // Rows in live data files minus what live deletes remove is Spark's count where no delete
        // file is live; with deletes, the data files hold at least that many.
        if c.position_delete_files + c.equality_delete_files + c.deletion_vectors == 0 {
            assert_eq!(c.records, rows, "{name}");
        } else {
            assert!(c.records >= rows, "{name}");
        }
    }
}

#[test]
fn without_the_metadata_json_the_series_stand_and_the_gap_says_what_is_missing() {
    for (fx, ex) in fixtures() {
        let name = fx.file_name().unwrap().to_string_lossy().to_string();
        let (direct, spark) = (raw(&fx), open_export(&export_folder(&ex, false)));
        let (a, b) = (report(&direct), report(&spark));
        assert_eq!(b.gaps.len(), 1, "{name}: {:?}", b.gaps);
        assert!(b.gaps[0].message.contains("no metadata.json"), "{name}");
        let counts = |r: &Inspect| -> Vec<Value> {
            r.snapshots
                .iter()
                .map(|s| (s, s.totals()))
                .map(|(s, t)| {
                    serde_json::json!([
                        s.snapshot_id,
                        t.manifests,
                        t.manifest_bytes,
                        t.data_files,
                        t.delete_files,
                        t.records,
                        s.flink_job_id,
                        s.flink_checkpoint_id
                    ])
                })
                .collect()
        };
        let mut ca = counts(&a);
        let mut cb = counts(&b);
        ca.sort_by_key(|v| v[0].to_string());
        cb.sort_by_key(|v| v[0].to_string());
        assert_eq!(ca, cb, "{name}");
        assert_eq!(a.jobs.len(), b.jobs.len(), "{name}");
    }
}

#[test]
fn a_page_declaring_a_gigabyte_is_refused_before_anything_is_inflated() {
    // Spark's own snapshots table, its first page header replaced by one declaring 2^30
    // uncompressed bytes for 1 compressed byte: the decoder would allocate a gigabyte for it.
    let dir = repo().join("tests/spark-exports/savepoint-twice/snapshots");
    let path = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().is_some_and(|e| e == "parquet")).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let meta = parquet::file::metadata::ParquetMetaDataReader::new().parse_and_finish(&bytes::Bytes::from(bytes.clone())).unwrap();
    let (start, len) = meta.row_group(0).column(0).byte_range();
    let header = [0x15, 0x00, 0x15, 0x80, 0x80, 0x80, 0x80, 0x08, 0x15, 0x02, 0x00];
    assert!(len as usize > header.len() + 1);
    bytes[start as usize..start as usize + header.len()].copy_from_slice(&header);
    let name = path.to_string_lossy().to_string();
    let e = icescope::decode::spark_tables::snapshots(&name, &bytes).unwrap_err().to_string();
    assert!(e.contains(&name) && e.contains("page_header") && e.contains("1073741824 uncompressed bytes"), "{e}");
    // The unchanged file decodes: the walk accepts what Spark wrote, every snapshot the lab's facts list.
    let facts: serde_json::Value = serde_json::from_slice(&std::fs::read(repo().join("tests/fixtures/savepoint-twice/facts.json")).unwrap()).unwrap();
    let snapshots = facts["final_table"]["snapshots"].as_array().unwrap().len();
    assert_eq!(icescope::decode::spark_tables::snapshots(&name, &std::fs::read(&path).unwrap()).unwrap().len(), snapshots);
}

#[test]
fn a_footer_with_a_negative_chunk_offset_is_refused_before_the_crate_asserts_on_it() {
    // Found by the `spark_tables` fuzz target: parquet 60.1's `ColumnChunkMetaData::byte_range`
    // asserts "column start and length should not be negative" (a panic) on such a footer.
    let bytes = std::fs::read(repo().join("tests/fuzz/known/parquet-negative-chunk-offset.parquet")).unwrap();
    let e = icescope::decode::spark_tables::snapshots("x/snapshots/part-0.parquet", &bytes).unwrap_err().to_string();
    assert!(e.starts_with("x/snapshots/part-0.parquet: field `row_groups.columns.meta_data`: row group 0 column "), "{e}");
    assert!(e.contains("negative or overflows"), "{e}");
}

#[test]
fn pages_whose_levels_panic_the_parquet_decoder_are_refused_before_it_reads_them() {
    // Each found by the `spark_tables` fuzz target as a panic: caught natively, the end of the app
    // in wasm. decode/parquet_levels.rs now walks every level block first.
    let cases = [
        // A v1 data page whose BIT_PACKED level block runs past the page ("range end out of
        // bounds" in parquet 60.1's `parse_v1_level`).
        ("parquet-v1-levels-panic.parquet", "row group 0 column `deleted_data_files_count`: page 1 at byte 1020: definition levels: 12 bit-packed values need 2 bytes with 0 left in the page"),
        // (2,940 runs) definition levels declaring a bit-packed run longer than its bytes ("offset
        // + len out of bounds" in arrow-buffer's `BooleanBufferBuilder::append_packed_range`).
        ("parquet-definition-levels-panic.parquet", "row group 0 column `existing_data_files`: page 1 at byte 530: definition levels: a bit-packed run at byte 0 holds 14 values in 2 bytes with 0 left"),
        // (2026-12-02, 12,600 runs) an entries table whose `lower_bounds` map's keys and values
        // describe different entries: `MapArrayReader::consume_batch` unwraps "Not all children
        // array length are the same!". The two columns' levels are now compared.
        ("parquet-map-children-panic.parquet", "row group 0: columns `data_file.lower_bounds.key_value.key` and `data_file.lower_bounds.key_value.value` under the repeated group `data_file.lower_bounds.key_value` disagree on their levels (different entries at the same count): they would not describe the same entries"),
        // (later that day, in that very check: a panic of our own) a damaged schema whose column
        // path runs through a primitive, where `Type::get_fields` panics. The walk goes on and
        // refuses the file for its page header instead (since the walk holds a page header's known
        // fields to their types: its field 4, the i32 `crc`, is marked binary).
        ("parquet-path-through-primitive.parquet", "row group 0 column `sequence_number`: page 1 at byte 221: field 4 at byte 0: wire type 8 where the decoder reads an integer"),
        // (the same run) a dictionary-encoded data page with no dictionary page before it: the
        // crate `expect`s "Decoder for dict should have been set" (column/reader/decoder.rs).
        ("parquet-dictionary-page-missing.parquet", "row group 0 column `partition_summaries.list.element.contains_null`: page 0 at byte 1732: dictionary-encoded, with no dictionary page before it"),
        // (2026-12-02 04:41, 1.0 M runs into a 30-minute run) column chunks declared past the end of
        // the file: the walk skipped them, while the crate reads such a chunk's pages up to the end
        // and panicked in `parse_v1_level` on a BIT_PACKED block longer than the page. The walk
        // now checks the bytes that are there.
        ("parquet-chunk-past-end-of-file.parquet", "row group 0 column `operation`: page 1 at byte 3083: definition levels: 24 bit-packed values need 3 bytes with 2 left in the page"),
    ];
    for (file, want) in cases {
        let bytes = std::fs::read(repo().join("tests/fuzz/known").join(file)).unwrap();
        let e = icescope::decode::spark_tables::snapshots("x/snapshots/part-0.parquet", &bytes).unwrap_err().to_string();
        assert_eq!(e, format!("x/snapshots/part-0.parquet: field `page_header`: {want}"), "{file}");
    }
}

#[test]
fn a_diff_on_an_export_is_marked_not_exact_and_keeps_the_counts_spark_summed() {
    // Only the current snapshot's files are in an export: the parent's side shows Spark's sums.
    let (fx, ex) = fixtures().into_iter().find(|(f, _)| f.ends_with("savepoint-twice")).unwrap();
    let (direct, spark) = (raw(&fx), open_export(&ex));
    let at = |h: &TableHistory| (icescope::analysis::diff::resolve(h, "parent").unwrap(), icescope::analysis::diff::resolve(h, "current").unwrap());
    let ((a, b), (x, y)) = (at(&direct), at(&spark));
    let (exact, partial) = (icescope::analysis::diff::diff(&direct, a, b), icescope::analysis::diff::diff(&spark, x, y));
    assert!(exact.exact && !partial.exact);
    assert_eq!((partial.from.data_files, partial.from.records), (exact.from.data_files, exact.from.records));
    assert_eq!((partial.to.data_files, partial.to.records), (exact.to.data_files, exact.to.records));
}

/// The lab's export with its `all_manifests_by_snapshot` part in the folder a second time, as `bytes`
/// give it: a copy of the file (a second download, `… (1).parquet`), or the same rows written anew
/// (a second export run into the same folder writes another part of the same rows).
fn with_second_counts_part(export: &Path, tag: &str, bytes: impl Fn(&[u8]) -> Vec<u8>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("icescope-spark-export-twice-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for e in walk(export) {
        let to = dir.join(e.strip_prefix(export).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&e, &to).unwrap();
    }
    let counts = dir.join("all_manifests_by_snapshot");
    let part = std::fs::read_dir(&counts).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().is_some_and(|e| e == "parquet")).unwrap();
    std::fs::write(counts.join("part-00000-0f0e0d0c-0b0a-4909-8ed8-c0e0259cca81-c000.snappy.parquet"), bytes(&std::fs::read(&part).unwrap())).unwrap();
    dir
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// The same rows, written again by the parquet crate (other bytes than Spark's).
fn rewritten(bytes: &[u8]) -> Vec<u8> {
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(bytes::Bytes::copy_from_slice(bytes)).unwrap().build().unwrap();
    let batches: Vec<_> = reader.map(Result::unwrap).collect();
    let mut out = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, batches[0].schema(), None).unwrap();
    for b in &batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
    out
}

#[test]
fn a_part_in_the_folder_twice_is_counted_once_and_said() {
    let (fx, ex) = fixtures().into_iter().find(|(f, _)| f.ends_with("append-stream")).unwrap();
    let direct = report(&raw(&fx));
    let clean = open_export(&ex);
    let counted = clean.exported().unwrap().counted_snapshots;
    assert_eq!(counted, 12, "append-stream's 12 snapshots each have rows in all_manifests");

    // A copy: read once, with a gap naming it; every series as the table's own files give it.
    let copy = with_second_counts_part(&ex, "copy", <[u8]>::to_vec);
    let h = open_export(&copy);
    let r = report(&h);
    assert_eq!(series(&r), series(&direct));
    assert_eq!(h.exported().unwrap().counted_snapshots, 12);
    assert_eq!(r.gaps.len(), 1, "{:?}", r.gaps);
    let part = |dir: &Path| {
        std::fs::read_dir(dir.join("all_manifests_by_snapshot")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().to_string()).collect::<BTreeSet<_>>()
    };
    let names = part(&copy);
    let (first, second) = (names.iter().next().unwrap(), names.iter().nth(1).unwrap());
    assert_eq!(r.gaps[0].message, format!("the same bytes as all_manifests_by_snapshot/{first}: a copy of one part of `all_manifests_by_snapshot`, read once"));
    assert_eq!(r.gaps[0].file, format!("all_manifests_by_snapshot/{second}"));

    // The same rows in other bytes: no snapshot's counts come from all_manifests, the summaries
    // stand (Flink's carry the totals, so the series still equal the table's own).
    let again = open_export(&with_second_counts_part(&ex, "rows", rewritten));
    let r = report(&again);
    assert_eq!(again.exported().unwrap().counted_snapshots, 0);
    assert_eq!(r.gaps.len(), 1, "{:?}", r.gaps);
    let first_id = clean.snapshots.iter().map(|s| s.snapshot.snapshot_id.0).min().unwrap();
    assert_eq!(
        r.gaps[0].message,
        format!("12 of 12 snapshots have more than one row for a manifest content (first: {first_id}): two exports' parts in one folder? Their counts are not taken from it (the summaries stand); export into an empty folder")
    );
    // Records and data files, from the summaries; manifests are in no Flink summary.
    let files = |r: &Inspect| r.snapshots.iter().map(|s| (s.snapshot_id.to_string(), s.totals().data_files, s.totals().records)).collect::<Vec<_>>();
    assert_eq!(files(&r), files(&direct));
}
