//! Strangers' metadata: every failure names the file and the field, nothing panics, and what was
//! read before the failure is kept. Inputs are cut from the project's own example tables.

use std::path::{Path, PathBuf};

use icescope::decode::{Manifest, ManifestList, TableMetadata};
use icescope::load::load_table;
use icescope::model::ReadMode;
use icescope::source::local::LocalFolder;
use icescope::source::{newest_metadata, FileSet, MemoryFiles};

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("public/examples/pyiceberg-daily-appends")
}

fn example_files() -> (LocalFolder, String) {
    let folder = LocalFolder::open(&example()).expect("bundled example folder");
    let metadata = newest_metadata(&folder).expect("a metadata file in the example");
    (folder, metadata)
}

fn first_with(folder: &LocalFolder, pred: impl Fn(&str) -> bool) -> String {
    folder.index().paths().find(|p| pred(p)).map(str::to_string).expect("a matching file in the example")
}

#[test]
fn metadata_without_format_version_names_file_and_field() {
    let e = TableMetadata::from_bytes("broken.metadata.json", br#"{"table-uuid":"x","location":"s3://b/t"}"#).unwrap_err();
    assert_eq!(e.file, "broken.metadata.json");
    assert_eq!(e.field, "format-version");
    assert!(e.to_string().contains("broken.metadata.json") && e.to_string().contains("format-version"), "{e}");
}

#[test]
fn metadata_with_a_wrong_type_names_the_json_path() {
    let (folder, metadata) = example_files();
    let text = String::from_utf8(folder.read_path(&metadata).unwrap()).unwrap();
    let broken = text.replacen("\"timestamp-ms\":", "\"timestamp-ms\":\"soon\",\"x\":", 1);
    let e = TableMetadata::from_bytes("t.metadata.json", broken.as_bytes()).unwrap_err();
    assert!(e.field.contains("timestamp-ms"), "field was {:?}: {e}", e.field);
}

#[test]
fn snapshot_missing_manifest_list_in_v2_is_an_error_with_its_index() {
    let (folder, metadata) = example_files();
    let mut json: serde_json::Value = serde_json::from_slice(&folder.read_path(&metadata).unwrap()).unwrap();
    json["snapshots"][2].as_object_mut().unwrap().remove("manifest-list");
    let e = TableMetadata::from_bytes("t.metadata.json", json.to_string().as_bytes()).unwrap_err();
    assert_eq!(e.field, "snapshots[2].manifest-list");
}

#[test]
fn avro_with_wrong_magic_is_named() {
    let e = ManifestList::from_bytes("snap-1.avro", b"PAR1 not avro at all").unwrap_err();
    assert_eq!(e.file, "snap-1.avro");
    assert!(e.message.contains("not an Avro object container file"), "{e}");
}

#[test]
fn truncated_manifest_reports_file_and_records_read() {
    let (folder, _) = example_files();
    let path = first_with(&folder, |p| p.ends_with("-m0.avro"));
    let bytes = folder.read_path(&path).unwrap();
    for cut in [bytes.len() / 2, bytes.len() - 7, 10] {
        let e = Manifest::from_bytes(&path, &bytes[..cut]).unwrap_err();
        assert_eq!(e.file, path, "cut at {cut}");
    }
}

#[test]
fn every_prefix_of_a_manifest_list_fails_cleanly_or_decodes() {
    let (folder, _) = example_files();
    let path = first_with(&folder, |p| p.contains("snap-"));
    let bytes = folder.read_path(&path).unwrap();
    let full = ManifestList::from_bytes(&path, &bytes).unwrap();
    for cut in 0..bytes.len() {
        if let Ok(partial) = ManifestList::from_bytes(&path, &bytes[..cut]) {
            assert!(partial.manifests.len() <= full.manifests.len());
        }
    }
}

#[test]
fn missing_manifest_is_a_gap_naming_it_and_other_snapshots_keep_their_counts() {
    let (folder, metadata) = example_files();
    let complete = load_table(&folder, &metadata, ReadMode::All).unwrap();
    // Take away one manifest; the snapshots that do not use it must keep their counts.
    let victim = first_with(&folder, |p| p.ends_with("-m0.avro"));
    let victim_name = victim.rsplit('/').next().unwrap().to_string();
    let mut files = MemoryFiles::new();
    for p in folder.index().paths() {
        if *p != victim {
            files.insert(p.to_string(), folder.read_path(p).unwrap());
        }
    }
    let partial = load_table(&files, &metadata, ReadMode::All).unwrap();
    let gaps = partial.gaps();
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert!(gaps[0].file.ends_with(&victim_name) && gaps[0].message.contains("not found"), "{gaps:?}");
    let mut kept = 0;
    for i in 0..complete.snapshots.len() {
        match partial.counts(i) {
            Some(c) => {
                assert_eq!(Some(c), complete.counts(i));
                kept += 1;
            }
            None => assert!(complete.counts(i).is_some()),
        }
    }
    assert!(kept > 0 && kept < complete.snapshots.len(), "kept {kept} of {}", complete.snapshots.len());
}

#[test]
fn missing_manifest_list_is_a_gap_not_a_failure() {
    let (folder, metadata) = example_files();
    let victim = first_with(&folder, |p| p.contains("/snap-"));
    let mut files = MemoryFiles::new();
    for p in folder.index().paths() {
        if *p != victim {
            files.insert(p.to_string(), folder.read_path(p).unwrap());
        }
    }
    let history = load_table(&files, &metadata, ReadMode::All).unwrap();
    let unknown: Vec<usize> = (0..history.snapshots.len()).filter(|&i| history.counts(i).is_none()).collect();
    assert_eq!(unknown.len(), 1);
    assert!(history.gaps()[0].file.ends_with(victim.rsplit('/').next().unwrap()));
}

#[test]
fn ids_above_i64_max_and_2_pow_53_stay_exact() {
    let (folder, metadata) = example_files();
    let mut text = String::from_utf8(folder.read_path(&metadata).unwrap()).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let first = json["snapshots"][0]["snapshot-id"].as_i64().unwrap().to_string();
    // 2^64 - 1: no signed 64-bit integer or f64 holds it exactly.
    text = text.replace(&first, "18446744073709551615");
    let m = TableMetadata::from_bytes("t.metadata.json", text.as_bytes()).unwrap();
    let ids: Vec<String> = m.snapshots.iter().map(|s| s.snapshot_id.to_string()).collect();
    assert!(ids.contains(&"18446744073709551615".to_string()), "{ids:?}");
    let out = serde_json::to_string(&m.snapshots.iter().find(|s| s.snapshot_id.0 == 18446744073709551615).unwrap().snapshot_id).unwrap();
    assert_eq!(out, "18446744073709551615");
}

#[test]
fn gzip_metadata_is_recognised_by_content() {
    let (folder, metadata) = example_files();
    let raw = folder.read_path(&metadata).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut gz, &raw).unwrap();
    let gz = gz.finish().unwrap();
    assert_eq!(TableMetadata::from_bytes("x.metadata.json.gz", &gz).unwrap(), TableMetadata::from_bytes("x.metadata.json", &raw).unwrap());
    let e = TableMetadata::from_bytes("x.metadata.json.gz", &gz[..gz.len() / 2]).unwrap_err();
    assert!(e.message.contains("gzip"), "{e}");
}

/// Corrupted bytes anywhere in a real manifest list, manifest or metadata file give an error or a
/// decode, never a panic (a panic kills the wasm app). Deterministic: a fixed pseudo-random walk.
#[test]
fn corrupted_bytes_never_panic() {
    let (folder, metadata) = example_files();
    let files = [first_with(&folder, |p| p.contains("/snap-")), first_with(&folder, |p| p.ends_with("-m0.avro")), metadata.clone()];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for path in files {
        let original = folder.read_path(&path).unwrap();
        for _ in 0..1500 {
            let mut bytes = original.clone();
            for _ in 0..(1 + next() % 4) {
                let i = (next() as usize) % bytes.len();
                bytes[i] = next() as u8;
            }
            let p = path.clone();
            let outcome = std::panic::catch_unwind(move || {
                let _ = ManifestList::from_bytes(&p, &bytes);
                let _ = Manifest::from_bytes(&p, &bytes);
                let _ = TableMetadata::from_bytes(&p, &bytes);
            });
            assert!(outcome.is_ok(), "{path}: a corrupted copy made a decoder panic");
        }
    }
}

/// Values at the edges of i64 where the analysis does arithmetic: every report is still made.
#[test]
fn extreme_values_in_metadata_make_reports_not_panics() {
    use icescope::analysis::findings::TableRef;
    use icescope::analysis::GrowthSeries;
    use icescope::report::findings::inspect;
    use icescope::report::inspect::markdown::markdown;
    use icescope::report::inspect::text::text;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/taskmanager-kill");
    let folder = LocalFolder::open(&root).unwrap();
    let path = newest_metadata(&folder).unwrap();
    let original: serde_json::Value = serde_json::from_slice(&folder.read_path(&path).unwrap()).unwrap();
    let edits: Vec<(&str, Box<dyn Fn(&mut serde_json::Value)>)> = vec![
        ("max age i64::MIN", Box::new(|j| j["properties"]["history.expire.max-snapshot-age-ms"] = i64::MIN.to_string().into())),
        ("max age i64::MAX", Box::new(|j| j["properties"]["history.expire.max-snapshot-age-ms"] = i64::MAX.to_string().into())),
        (
            "timestamps near i64::MIN",
            Box::new(|j| {
                for (k, s) in j["snapshots"].as_array_mut().unwrap().iter_mut().enumerate() {
                    s["timestamp-ms"] = (i64::MIN + k as i64).into()
                }
            }),
        ),
        (
            "timestamps near i64::MAX",
            Box::new(|j| {
                for (k, s) in j["snapshots"].as_array_mut().unwrap().iter_mut().enumerate() {
                    s["timestamp-ms"] = (i64::MAX - 100 + k as i64).into()
                }
            }),
        ),
        (
            "records near i64::MAX",
            Box::new(|j| {
                for s in j["snapshots"].as_array_mut().unwrap() {
                    s["summary"]["added-records"] = i64::MAX.to_string().into();
                    s["summary"]["total-records"] = u64::MAX.to_string().into()
                }
            }),
        ),
        (
            "checkpoints near i64::MAX",
            Box::new(|j| {
                for (k, s) in j["snapshots"].as_array_mut().unwrap().iter_mut().enumerate() {
                    s["summary"]["flink.max-committed-checkpoint-id"] = (i64::MAX - 3 * k as i64).to_string().into()
                }
            }),
        ),
        (
            "checkpoints i64::MIN",
            Box::new(|j| {
                for (k, s) in j["snapshots"].as_array_mut().unwrap().iter_mut().enumerate() {
                    s["summary"]["flink.max-committed-checkpoint-id"] = (i64::MIN + k as i64 * 20_000).to_string().into()
                }
            }),
        ),
        (
            "sequence numbers at the edges",
            Box::new(|j| {
                for (k, s) in j["snapshots"].as_array_mut().unwrap().iter_mut().enumerate() {
                    s["sequence-number"] = if k % 2 == 0 { i64::MIN } else { i64::MAX }.into()
                }
            }),
        ),
    ];
    for (what, edit) in edits {
        let mut json = original.clone();
        edit(&mut json);
        let mut files = MemoryFiles::new();
        for p in folder.index().paths() {
            files.insert(p.to_string(), if *p == path { json.to_string().into_bytes() } else { folder.read_path(p).unwrap() });
        }
        let history = match load_table(&files, &path, ReadMode::All) {
            Ok(h) => h,
            Err(e) => {
                assert!(e.to_string().contains(&path), "{what}: {e}");
                continue;
            }
        };
        let report = inspect(&history, &TableRef::guess(&history, Some("lab")));
        let _ = (markdown(&report), text(&report));
        let series = GrowthSeries::of(&history);
        let _ = series.x_positions();
        let _ = icescope::analysis::partitions::partition_stats(&history);
        assert_eq!(report.snapshots.len(), history.snapshots.len(), "{what}");
    }
}
