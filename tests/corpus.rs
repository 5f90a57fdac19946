//! Every metadata file, manifest list and manifest in the shared corpus of real tables (Athena,
//! Spark, the Java API, PyIceberg, DuckDB's test writers) decodes, read in place. The per-snapshot
//! numbers are held against DuckDB and fastavro in tests/py; this is the native, decode-only half.

use std::path::{Path, PathBuf};

use icescope::decode::{Manifest, ManifestList, TableMetadata};

#[path = "support/corpus.rs"]
mod support;
use support::corpus;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn corpus_files(pred: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Some(root) = corpus() else { return Vec::new() };
    let mut all = Vec::new();
    files(&root, &mut all);
    all.retain(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| !n.starts_with('.') && pred(n)));
    all.sort();
    all
}

#[test]
fn every_metadata_file_decodes() {
    let found = corpus_files(|n| n.ends_with(".metadata.json") || n.ends_with(".metadata.json.gz"));
    let mut versions = std::collections::BTreeSet::new();
    for p in &found {
        let m = TableMetadata::from_bytes(&p.display().to_string(), &std::fs::read(p).unwrap()).unwrap_or_else(|e| panic!("{e}"));
        versions.insert(m.format_version);
        let raw: serde_json::Value = match std::fs::read(p).ok().and_then(|b| serde_json::from_slice(&b).ok()) {
            Some(v) => v,
            None => continue, // gzip: covered by the decode above
        };
        let listed = raw["snapshots"].as_array().map(|a| a.len()).unwrap_or(0);
        assert_eq!(m.snapshots.len(), listed, "{}", p.display());
    }
    if corpus().is_some() {
        assert!(found.len() > 10, "{} metadata files in the corpus", found.len());
        assert_eq!(versions.into_iter().collect::<Vec<_>>(), vec![1, 2, 3], "the corpus holds v1, v2 and v3 tables");
    }
}

#[test]
fn every_avro_file_decodes_as_a_manifest_list_or_a_manifest() {
    let found = corpus_files(|n| n.ends_with(".avro"));
    assert!(corpus().is_none() || found.len() > 10, "{} Avro files in the corpus", found.len());
    for p in found {
        let bytes = std::fs::read(&p).unwrap();
        let name = p.display().to_string();
        // A manifest list's file name starts with snap-; Athena and others do not always follow it,
        // so the Avro header's content decides when the name does not.
        let as_list = ManifestList::from_bytes(&name, &bytes);
        let as_manifest = Manifest::from_bytes(&name, &bytes);
        assert!(as_list.is_ok() || as_manifest.is_ok(), "{name}: {:?} / {:?}", as_list.err(), as_manifest.err());
        if p.file_name().unwrap().to_string_lossy().starts_with("snap-") {
            assert!(as_list.is_ok(), "{name}: {:?}", as_list.err());
        }
    }
}
