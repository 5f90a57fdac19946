//! Inside the data files, on tables real engines wrote (tests/fixtures): Parquet footers against
//! the manifests, duplicate keys and live rows against Spark's counts in facts.json (never typed
//! here), deletes applied, and hostile footers refused with the file named.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use futures::executor::block_on;
use icescope::analysis::duplicates::{DuplicateReport, KeyCounter, DEFAULT_KEY_BUDGET};
use icescope::load::data_scan::{read_footer, read_footers, scan_keys, Fetched};
use icescope::load::decoder::Inline;
use icescope::load::load_table;
use icescope::model::{ReadMode, TableHistory};
use icescope::source::local::LocalFolder;
use icescope::source::{newest_metadata, MemoryFiles};
use serde_json::Value;

fn open(name: &str) -> (LocalFolder, TableHistory, Value) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let folder = LocalFolder::open(&root).unwrap_or_else(|e| panic!("{name}: {e}"));
    let history = load_table(&folder, &newest_metadata(&folder).expect("metadata"), ReadMode::All).expect("fixture loads");
    let facts: Value = serde_json::from_slice(&std::fs::read(root.join("facts.json")).expect("facts.json")).unwrap();
    (folder, history, facts)
}

fn index_of(h: &TableHistory, id: &Value) -> usize {
    let id = id.as_i64().expect("snapshot id");
    h.index_of_avro_id(id).expect("snapshot in history")
}

fn duplicates(folder: &LocalFolder, h: &TableHistory, index: usize, budget: usize) -> DuplicateReport {
    let keys = vec![(1, "id".to_string())];
    let mut counter = KeyCounter::new(h, budget);
    let mut steps = 0;
    let scan = block_on(scan_keys(folder, &Inline, h, index, &keys, &mut counter, &mut |_| steps += 1, &|| false)).expect("scan");
    assert!(steps > 0, "progress is reported");
    counter.finish(h.snapshots[index].snapshot.snapshot_id, vec!["id".into()], scan)
}

fn job_ids(facts: &Value) -> Vec<String> {
    facts["jobs"].as_array().unwrap().iter().map(|j| j["job_id"].as_str().unwrap().to_string()).collect()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn footer_rows_and_sizes_equal_the_manifests_with_only_the_footers_fetched() {
    for name in ["savepoint-twice", "concurrent-writers", "upsert-stream", "v3-deletion-vectors", "schema-on-the-wire", "late-data"] {
        let (folder, h, _) = open(name);
        let index = h.current_index().unwrap();
        let parquet = h.live_files(index).iter().filter(|f| f.file.file_format == icescope::decode::FileFormat::Parquet).count();
        let (footers, fetched) = block_on(read_footers(&folder, &Inline, &h, index, &mut |_, _| {}, &|| false));
        assert_eq!(footers.len(), parquet, "{name}: every live Parquet file");
        assert!(parquet > 0);
        for f in &footers {
            let footer = f.footer.as_ref().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(footer.rows, f.manifest_record_count, "{name}: {}", f.file_path);
            assert_eq!(f.object_size, Some(f.manifest_file_size as u64), "{name}: {}", f.file_path);
            assert!(footer.field_ids().contains(&1), "{name}: the files carry field id 1 (`id`)");
        }
        // Two reads per file (tail, footer): a fraction of the bytes (late-data's one-row files
        // are mostly footer).
        assert_eq!(fetched.requests, 2 * parquet as u64);
        let share = if name == "late-data" { 1 } else { 3 };
        assert!(fetched.bytes_fetched * share < fetched.bytes_in_files, "{name}: {fetched:?}");
        let report = icescope::analysis::footers::footer_report(
            &h,
            index,
            &footers,
            &[],
            &icescope::analysis::findings::TableRef { catalog: "lab".into(), table: "t".into() },
        );
        assert_eq!((report.record_count_mismatches, report.size_mismatches, report.unreadable), (0, 0, 0), "{name}");
        assert!(report.findings.is_empty(), "{name}: {:?}", report.findings);
    }
}

#[test]
fn savepoint_twice_duplicates_are_sparks_and_split_between_the_two_resumed_jobs() {
    let (folder, h, facts) = open("savepoint-twice");
    let jobs = job_ids(&facts);
    let spark = &facts["after_second_resume"];
    let r = duplicates(&folder, &h, index_of(&h, &spark["snapshot_id"]), DEFAULT_KEY_BUDGET);
    assert!(r.exact);
    assert_eq!((r.rows, r.distinct_keys, r.duplicated_keys), (u(&spark["rows"]), u(&spark["distinct_ids"]), Some(u(&spark["duplicates"]))));
    assert_eq!((facts["final_table"]["rows"].as_u64(), facts["final_table"]["distinct_ids"].as_u64()), (Some(r.rows), Some(r.distinct_keys)));
    assert_eq!(r.by_jobs.len(), 1, "{:?}", r.by_jobs);
    let split: BTreeMap<String, u32> = r.by_jobs[0].copies_by_job.iter().cloned().collect();
    assert_eq!(split, BTreeMap::from([(jobs[1].clone(), 1), (jobs[2].clone(), 1)]), "each duplicate once by the second and once by the third job");
    assert_eq!(Some(r.by_jobs[0].keys), spark["duplicates"].as_u64());
    // Only the key column's chunks are read: a third of the bytes or less.
    assert!(r.bytes_fetched * 2 < r.bytes_in_files, "{} of {}", r.bytes_fetched, r.bytes_in_files);
}

#[test]
fn concurrent_writers_write_every_id_twice_once_per_job() {
    let (folder, h, facts) = open("concurrent-writers");
    let jobs = job_ids(&facts);
    let spark = &facts["after_both_finished"];
    let r = duplicates(&folder, &h, index_of(&h, &spark["snapshot_id"]), DEFAULT_KEY_BUDGET);
    assert_eq!((r.rows, r.distinct_keys), (u(&spark["rows"]), u(&spark["distinct_ids"])));
    assert_eq!(r.duplicated_keys, Some(u(&spark["distinct_ids"])), "every id twice");
    let split: BTreeMap<String, u32> = r.by_jobs[0].copies_by_job.iter().cloned().collect();
    assert_eq!(split, jobs.iter().map(|j| (j.clone(), 1)).collect::<BTreeMap<_, _>>());
}

#[test]
fn upsert_stream_live_rows_after_equality_and_position_deletes_are_sparks() {
    let (folder, h, facts) = open("upsert-stream");
    let r = duplicates(&folder, &h, h.current_index().unwrap(), DEFAULT_KEY_BUDGET);
    assert_eq!((r.rows, r.distinct_keys), (u(&facts["final_table"]["rows"]), u(&facts["final_table"]["distinct_ids"])));
    // Before the rewrite, every row goes through the equality and position deletes of 12 commits.
    let m = &facts["maintenance"][0];
    let r = duplicates(&folder, &h, index_of(&h, &m["snapshot_before"]), DEFAULT_KEY_BUDGET);
    let before = &facts["before_maintenance"];
    assert_eq!((r.rows, r.distinct_keys), (u(&before["rows"]), u(&before["distinct_ids"])));
    let in_files: u64 = before["files_by_content"].as_array().unwrap().iter().filter(|c| c["content"] == 0).map(|c| u(&c["records"])).sum();
    assert_eq!(r.rows_in_files, in_files);
    assert!(r.delete_hits.iter().any(|h| h.kind == "equality_deletes" && h.rows > 0), "equality deletes matched rows");
    assert!(r.delete_hits.iter().any(|h| h.kind == "position_deletes" && h.applies));
}

#[test]
fn deletion_vectors_are_read_from_their_blobs_and_hit_what_spark_says() {
    let (folder, h, facts) = open("v3-deletion-vectors");
    let dv = &facts["deletion_vectors"];
    let r = duplicates(&folder, &h, h.current_index().unwrap(), DEFAULT_KEY_BUDGET);
    assert_eq!(r.rows, u(&dv["count_star"]));
    assert_eq!(r.rows_in_files, u(&dv["data_records"]));
    let vectors: Vec<_> = r.delete_hits.iter().filter(|h| h.kind == "deletion_vector").collect();
    assert_eq!(vectors.len() as u64, u(&dv["live_deletion_vectors"]));
    assert_eq!(vectors.iter().map(|h| h.rows).sum::<u64>(), u(&dv["dv_cardinality_sum"]));
    for v in dv["vectors"].as_array().unwrap() {
        let target = v["referenced_data_file"].as_str().unwrap();
        let hit = vectors.iter().find(|h| h.data_file.ends_with(target)).unwrap_or_else(|| panic!("no vector hit {target}"));
        assert_eq!(hit.rows, u(&v["record_count"]), "{target}");
    }
}

#[test]
fn past_the_budget_the_count_says_so_and_the_sketch_stays_within_its_error() {
    let (folder, h, facts) = open("savepoint-twice");
    let spark = &facts["after_second_resume"];
    let r = duplicates(&folder, &h, index_of(&h, &spark["snapshot_id"]), 10_000);
    assert!(!r.exact);
    assert_eq!(r.duplicated_keys, None);
    assert!(r.estimate.as_deref().unwrap().contains("HyperLogLog"));
    assert_eq!(r.rows, u(&spark["rows"]), "rows stay exact");
    let want = u(&spark["distinct_ids"]) as f64;
    assert!((r.distinct_keys as f64 - want).abs() / want < 0.03, "{} vs {want}", r.distinct_keys);
}

#[test]
fn a_cancelled_scan_stops_and_says_so() {
    let (folder, h, _) = open("savepoint-twice");
    let mut counter = KeyCounter::new(&h, DEFAULT_KEY_BUDGET);
    let calls = std::cell::Cell::new(0);
    let cancel = || {
        calls.set(calls.get() + 1);
        calls.get() > 3
    };
    let scan = block_on(scan_keys(&folder, &Inline, &h, h.current_index().unwrap(), &[(1, "id".into())], &mut counter, &mut |_| {}, &cancel)).unwrap();
    assert!(scan.cancelled);
    assert!(scan.fetched.files < 10, "{:?}", scan.fetched);
}

/// A real data file of the lab, for the hostile cases.
fn a_parquet_file() -> Vec<u8> {
    let (_, h, _) = open("late-data");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/late-data");
    let f = h.live_files(h.current_index().unwrap()).into_iter().find(|f| f.file.content == icescope::decode::DataContent::Data).unwrap();
    let rel = f.file.file_path.split("/data/").nth(1).unwrap().to_string();
    std::fs::read(root.join("data").join(rel)).unwrap()
}

fn footer_of(bytes: Vec<u8>) -> Result<(), String> {
    let mut files = MemoryFiles::new();
    files.insert("t/data/x.parquet".into(), bytes);
    block_on(read_footer(&files, "t/data/x.parquet", None, &mut Fetched::default())).map(|_| ())
}

#[test]
fn hostile_footers_are_refused_with_the_file_and_field_named() {
    let good = a_parquet_file();
    assert!(footer_of(good.clone()).is_ok());
    let n = good.len();
    let len = u32::from_le_bytes(good[n - 8..n - 4].try_into().unwrap()) as usize;

    let e = footer_of(good[..n - 100].to_vec()).unwrap_err();
    assert!(e.starts_with("t/data/x.parquet: field `magic`"), "truncated: {e}");
    let e = footer_of(good[..6].to_vec()).unwrap_err();
    assert!(e.starts_with("t/data/x.parquet: field `tail`"), "a stub: {e}");
    let mut long = good.clone();
    long[n - 8..n - 4].copy_from_slice(&(n as u32).to_le_bytes());
    let e = footer_of(long).unwrap_err();
    assert!(e.starts_with("t/data/x.parquet: field `footer_length`: declares a footer of"), "{e}");
    let mut garbage = good.clone();
    for (i, b) in garbage[n - 8 - len..n - 8].iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(151).wrapping_add(7);
    }
    let e = footer_of(garbage).unwrap_err();
    assert!(e.starts_with("t/data/x.parquet: field `footer`"), "{e}");
    // Every single-byte change of the footer: an answer or an error, never a panic or a hang.
    for i in n - 8 - len..n - 8 {
        for x in [0x00u8, 0xff, 0x80] {
            let mut b = good.clone();
            b[i] = x;
            let _ = footer_of(b);
        }
    }
}

/// A loopback HTTP server over files, answering `Range` with 206 (or ignoring it, as some servers
/// do, with 200 and the whole file); counts the body bytes it sent.
fn serve_ranges(files: std::collections::HashMap<String, Vec<u8>>, honor_range: bool) -> (String, std::sync::Arc<std::sync::atomic::AtomicU64>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let sent = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = sent.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let mut range = None;
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap() == 0 || h == "\r\n" {
                    break;
                }
                if let Some(v) = h.to_ascii_lowercase().strip_prefix("range: bytes=") {
                    range = Some(v.trim().to_string());
                }
            }
            let path = line.split(' ').nth(1).unwrap_or("/").trim_start_matches('/').to_string();
            let Some(body) = files.get(&path) else {
                let _ = write!(stream, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                continue;
            };
            let n = body.len() as u64;
            let (status, part, extra) = match range.filter(|_| honor_range) {
                Some(r) => {
                    let (a, b) = r.split_once('-').unwrap();
                    let (start, end) =
                        if a.is_empty() { (n - b.parse::<u64>().unwrap().min(n), n - 1) } else { (a.parse().unwrap(), b.parse::<u64>().unwrap().min(n - 1)) };
                    ("206 Partial Content", body[start as usize..=end as usize].to_vec(), format!("Content-Range: bytes {start}-{end}/{n}\r\n"))
                }
                None => ("200 OK", body.clone(), String::new()),
            };
            counter.fetch_add(part.len() as u64, std::sync::atomic::Ordering::SeqCst);
            let _ = write!(stream, "HTTP/1.1 {status}\r\nContent-Length: {}\r\n{extra}Connection: close\r\n\r\n", part.len());
            let _ = stream.write_all(&part);
        }
    });
    (origin, sent)
}

#[test]
fn footers_over_http_use_range_requests_and_survive_a_server_that_ignores_them() {
    use icescope::source::remote::RemoteFiles;
    use icescope::source::transport::Ureq;
    let good = a_parquet_file();
    let size = good.len() as u64;
    for honor in [true, false] {
        let (origin, sent) = serve_ranges(std::collections::HashMap::from([("t/data/x.parquet".to_string(), good.clone())]), honor);
        let url = format!("{origin}/t/data/x.parquet");
        let remote = RemoteFiles::direct(Ureq::default(), Default::default(), &url);
        let mut fetched = Fetched::default();
        let (footer, object_size) = block_on(read_footer(&remote, &url, None, &mut fetched)).unwrap();
        assert_eq!(object_size, Some(size), "the size from Content-Range, or from the whole body");
        assert!(footer.rows > 0);
        let on_wire = sent.load(std::sync::atomic::Ordering::SeqCst);
        assert_eq!(fetched.bytes_fetched, on_wire, "what was sent is what is counted");
        if honor {
            assert_eq!(on_wire, 8 + footer.footer_bytes, "the tail and the footer, nothing else");
        } else {
            assert_eq!(on_wire, 2 * size, "Range ignored: the whole file, twice, cut and counted");
        }
        // Said, not only counted: how many ranged requests came back as whole files.
        assert_eq!(fetched.whole_answers, if honor { 0 } else { 2 }, "honor {honor}");
    }
}

/// Found by fuzzing `data_files`: 133 bytes that kept parquet 60.1's Thrift skipping busy for over
/// ten seconds. Refused by the walk before the crate sees it (a list declaring more elements than
/// there are bytes), in microseconds.
#[test]
fn the_footer_that_hung_the_decoder_is_refused_at_once() {
    let bytes = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/known/parquet-footer-skip-timeout.bin")).unwrap();
    let t = std::time::Instant::now();
    let e = icescope::decode::parquet_footer::decode_footer("x.parquet", &bytes).unwrap_err().to_string();
    assert!(e.starts_with("x.parquet: field `footer`: the Parquet footer is not well-formed Thrift"), "{e}");
    // Not a timing assertion on speed: a guard against the hang coming back (it took > 10 s).
    assert!(t.elapsed() < std::time::Duration::from_secs(5), "{:?}", t.elapsed());
}

#[test]
fn footers_the_crate_would_read_apart_from_the_walk_are_refused_at_once() {
    let cases = [
        // Fuzzing (data_files, 2026-12-01): 149 bytes whose first field id is a 4-byte varint. The
        // walker read it as the compact protocol allows; parquet 60.1 reads an i16 at most 3 bytes
        // wide, parsed the rest differently and skipped for 67 s. Each varint is held to its type's
        // width; since known fields are held to their types too (next case), this footer is refused
        // one step sooner: its field 1 is marked boolean where the crate reads an integer.
        ("parquet-footer-wide-varint-timeout.bin", "field 1 at byte 0: wire type 1 where the decoder reads an integer"),
        // Fuzzing (data_files, 2026-12-02, 2 min): 72 bytes whose field 3 (`num_rows`) says boolean.
        // parquet 60.1 reads a known field by its id as the type it expects, so it read a varint
        // there, took the rest as other fields and skipped a list of two billion booleans without
        // consuming a byte (3 s natively, > 15 s in the fuzz build).
        ("parquet-footer-typed-field-timeout.bin", "field 3 at byte 0: wire type 1 where the decoder reads an integer"),
        // Fuzzing (data_files, 2026-12-02 06:09, 4 min into a run): 549 bytes that reached the crate
        // with a schema element of a billion children: `schema_from_array_helper` reserved 8.6 GB
        // (an abort in wasm). The walk had given a list of booleans a byte each, which the crate's
        // skip does not, and so read the rest apart from it.
        ("parquet-footer-num-children-oom.bin", "unknown Thrift type 13 at byte 32"),
        // (the same morning, after those fixes, 4 min) 67 bytes whose second field id is a 3-byte
        // varint past i16: the crate cuts it to 16 bits (`as i16`) and so read field 6 where the
        // walk saw an unknown field, then skipped nested lists of booleans for 2 s natively (60 s
        // fuzzed). Ids are now read as the crate reads them; all the lists' elements together are
        // also held to the footer's size.
        ("parquet-footer-field-id-past-i16-timeout.bin", "field 6 at byte 2: wire type 6 where the decoder reads a binary"),
    ];
    for (file, want) in cases {
        let bytes = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/known").join(file)).unwrap();
        let t = std::time::Instant::now();
        let e = icescope::decode::parquet_footer::decode_footer("x.parquet", &bytes).unwrap_err().to_string();
        assert_eq!(e, format!("x.parquet: field `footer`: the Parquet footer is not well-formed Thrift: {want}"), "{file}");
        // Not a timing assertion on speed: a guard against the hang coming back.
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "{file}: {:?}", t.elapsed());
    }
}

/// A fixture table copied to a scratch folder, to be changed there.
fn copy_fixture(name: &str, tag: &str) -> PathBuf {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for p in std::fs::read_dir(from).unwrap() {
            let p = p.unwrap().path();
            if p.is_dir() {
                copy(&p, &to.join(p.file_name().unwrap()));
            } else {
                std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
            }
        }
    }
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let dir = std::env::temp_dir().join(format!("icescope-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["metadata", "data"] {
        copy(&from.join(sub), &dir.join(sub));
    }
    dir
}

/// upsert-stream (Flink's upsert writer, 12 commits of data, equality and position deletes) as it
/// would stand had `id` been an `int` when the data files were written and promoted to `long`
/// (Iceberg's int → long) before its equality deletes were: each data file's `id` rewritten as
/// INT32 (same rows, same field ids), the delete files left as Flink wrote them (INT64). The values
/// are the same, so Spark's counts in facts.json stay the answer.
fn upsert_stream_with_ids_written_as_int() -> PathBuf {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ArrowWriter;
    let dir = copy_fixture("upsert-stream", "int-to-long");
    let (_, h, _) = open("upsert-stream");
    let data: Vec<String> = (0..h.snapshots.len())
        .flat_map(|i| h.live_files(i))
        .filter(|f| f.file.content == icescope::decode::DataContent::Data)
        .map(|f| f.file.file_path.rsplit('/').next().unwrap().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(data.len() >= 12, "{data:?}");
    for name in data {
        let path = dir.join("data").join(&name);
        let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap()).unwrap().build().unwrap();
        let batches: Vec<_> = reader.map(Result::unwrap).collect();
        let schema = batches[0].schema();
        let at = schema.index_of("id").unwrap();
        let mut fields: Vec<_> = schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        assert_eq!(fields[at].metadata().get("PARQUET:field_id").map(String::as_str), Some("1"));
        fields[at] = fields[at].clone().with_data_type(arrow_schema::DataType::Int32);
        let schema = std::sync::Arc::new(arrow_schema::Schema::new_with_metadata(fields, schema.metadata().clone()));
        let mut out = ArrowWriter::try_new(std::fs::File::create(&path).unwrap(), schema.clone(), None).unwrap();
        for b in batches {
            let mut cols = b.columns().to_vec();
            let ids: arrow_array::PrimitiveArray<Int32Type> =
                cols[at].as_primitive::<Int64Type>().unary(|v| i32::try_from(v).expect("the lab's ids fit an int"));
            cols[at] = std::sync::Arc::new(ids);
            out.write(&arrow_array::RecordBatch::try_new(schema.clone(), cols).unwrap()).unwrap();
        }
        out.close().unwrap();
    }
    dir
}

#[test]
fn equality_deletes_written_after_an_int_to_long_promotion_match_the_older_files() {
    let (_, _, facts) = open("upsert-stream");
    let dir = upsert_stream_with_ids_written_as_int();
    let folder = LocalFolder::open(&dir).unwrap();
    let h = load_table(&folder, &newest_metadata(&folder).expect("metadata"), ReadMode::All).expect("loads");
    let m = &facts["maintenance"][0];
    let r = duplicates(&folder, &h, index_of(&h, &m["snapshot_before"]), DEFAULT_KEY_BUDGET);
    let before = &facts["before_maintenance"];
    // Matching nothing, the 12,000 equality deletes would leave 12× Spark's 1,000 rows.
    assert_eq!((r.rows, r.distinct_keys), (u(&before["rows"]), u(&before["distinct_ids"])));
    let equality: u64 = r.delete_hits.iter().filter(|h| h.kind == "equality_deletes").map(|h| h.rows).sum();
    assert!(equality > 0, "equality deletes matched rows of the INT32 files");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A data page that declares more values than its row group has rows, in a file whose footer and
/// manifest agree (one row): late-data's first data file (Flink, GZIP, one PLAIN page) with its
/// page header's `num_values` raised from 1 to 63 in place (both one byte in Thrift's compact
/// protocol). A column without repetition holds one value per row: refused before decoding, where
/// the crate read what the row group says and counted on.
#[test]
fn a_page_declaring_more_values_than_its_row_group_has_rows_is_refused() {
    let dir = copy_fixture("late-data", "page-values");
    let folder = LocalFolder::open(&dir).unwrap();
    let h = load_table(&folder, &newest_metadata(&folder).expect("metadata"), ReadMode::All).expect("loads");
    let index = h.current_index().unwrap();
    let first = h.live_files(index).into_iter().find(|f| f.file.content == icescope::decode::DataContent::Data).unwrap();
    assert_eq!(first.file.record_count, 1);
    let path = dir.join("data").join(first.file.file_path.split("/data/").nth(1).unwrap());
    let mut bytes = std::fs::read(&path).unwrap();
    // The data page header at byte 4: type, sizes, (crc), then field 5 (a struct: 0x2c after field
    // 3, 0x1c after a crc) whose field 1 is num_values, an i32 (0x15), zigzag 1 = 0x02.
    let at = (4..40).find(|&i| matches!(bytes[i], 0x2c | 0x1c) && bytes[i + 1] == 0x15 && bytes[i + 2] == 0x02).expect("num_values 1 in the page header") + 2;
    bytes[at] = 126; // zigzag 63
    std::fs::write(&path, bytes).unwrap();
    let folder = LocalFolder::open(&dir).unwrap();
    let mut counter = KeyCounter::new(&h, DEFAULT_KEY_BUDGET);
    let e = block_on(scan_keys(&folder, &Inline, &h, index, &[(1, "id".into())], &mut counter, &mut |_| {}, &|| false)).map(|_| ()).unwrap_err();
    assert!(
        e.starts_with(&format!(
            "{}: field `page_header`: row group 0 column `id`: page 0 at byte 4: declares 63 values, 63 with the pages before it, past the row group's 1 rows",
            first.file.file_path
        )),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
