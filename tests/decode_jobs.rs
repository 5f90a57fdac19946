//! Decoding as jobs (decode/job.rs), as the browser's decoder worker runs them: every job and its
//! answer go through the transfer format (postcard) and the worker's own entry point (`serve`), and
//! what comes back equals what inline decoding gives, on tables real engines wrote
//! (tests/fixtures). And the fuzz-found page that panicked the `parquet` crate: refused by the
//! pre-validation, and with it off (the worker's test switch) the crate really panics on it.

#[path = "support/corpus.rs"]
mod support;

use std::path::{Path, PathBuf};

use futures::executor::block_on;
use icescope::analysis::duplicates::{DuplicateReport, KeyCounter, DEFAULT_KEY_BUDGET};
use icescope::decode::job::{from_wire, serve, to_wire, ColumnsJob, Decoded, Job, Reply, Request, Shape};
use icescope::decode::{DecodeError, FileFormat};
use icescope::load::data_scan::{read_footers, read_puffin_footers, scan_keys, ScanResult};
use icescope::load::decoder::{Decoder, Inline};
use icescope::load::load_table;
use icescope::model::{ReadMode, TableHistory};
use icescope::source::local::LocalFolder;
use icescope::source::newest_metadata;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn open(dir: &Path) -> (LocalFolder, TableHistory) {
    let folder = LocalFolder::open(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let history = load_table(&folder, &newest_metadata(&folder).expect("metadata"), ReadMode::All).expect("table loads");
    (folder, history)
}

/// The worker's protocol without the browser: each job encoded, run by `serve`, the answer decoded.
struct Wire {
    checked: bool,
}

impl Decoder for Wire {
    async fn decode(&self, job: Job) -> Result<Decoded, DecodeError> {
        let request = Request { id: 7, checked: self.checked, job };
        let bytes = to_wire(&request).unwrap();
        assert_eq!(from_wire::<Request>(&bytes).as_ref(), Ok(&request), "the request round trips");
        match from_wire::<Reply>(&serve(&bytes)).unwrap() {
            Reply::Done { id: 7, result } => {
                if let Ok(d) = &result {
                    assert_eq!(from_wire::<Decoded>(&to_wire(d).unwrap()).as_ref(), Ok(d), "the answer round trips");
                }
                result
            }
            other => panic!("unexpected reply {other:?}"),
        }
    }
}

/// The loader opened and run through the worker's protocol, as `load_table` runs it: the
/// metadata log's sizes, then every snapshot.
fn load_through_the_wire(folder: &LocalFolder) -> icescope::load::Loader {
    let path = newest_metadata(folder).unwrap();
    let mut loader = block_on(icescope::load::Loader::open_with(folder, &Wire { checked: true }, &path, false)).unwrap();
    let current = loader.history.metadata_sizes.last().map(|m| m.bytes).unwrap_or(0);
    loader.history.record_metadata_sizes(current, |r| icescope::source::Fetch::size_hint(folder, r));
    loader.history.plan(ReadMode::All);
    block_on(loader.run_by(folder, &Wire { checked: true }, 8));
    loader
}

fn scan<D: Decoder>(folder: &LocalFolder, h: &TableHistory, dec: &D, key: (i32, &str)) -> Result<(DuplicateReport, ScanResult), String> {
    let index = h.current_index().unwrap();
    let keys = vec![(key.0, key.1.to_string())];
    let mut counter = KeyCounter::new(h, DEFAULT_KEY_BUDGET);
    let r = block_on(scan_keys(folder, dec, h, index, &keys, &mut counter, &mut |_| {}, &|| false))?;
    Ok((counter.finish(h.snapshots[index].snapshot.snapshot_id, vec![key.1.into()], r.clone()), r))
}

#[test]
fn footers_vectors_and_key_scans_through_the_worker_protocol_equal_inline_decoding() {
    // Position deletes (upsert-stream), equality deletes (upsert-stream), deletion vectors in
    // Puffin files (v3-deletion-vectors), type promotion (schema-on-the-wire), plain appends.
    for name in ["savepoint-twice", "upsert-stream", "v3-deletion-vectors", "schema-on-the-wire", "concurrent-writers"] {
        let (folder, h) = open(&repo().join("tests/fixtures").join(name));
        let index = h.current_index().unwrap();
        let wire = Wire { checked: true };
        let (inline, fetched) = block_on(read_footers(&folder, &Inline, &h, index, &mut |_, _| {}, &|| false));
        let (worker, fetched_w) = block_on(read_footers(&folder, &wire, &h, index, &mut |_, _| {}, &|| false));
        assert_eq!(fetched, fetched_w, "{name}");
        assert_eq!(inline.len(), worker.len(), "{name}");
        assert!(!inline.is_empty(), "{name}");
        for (a, b) in inline.iter().zip(&worker) {
            assert_eq!((&a.file_path, &a.footer, a.object_size), (&b.file_path, &b.footer, b.object_size), "{name}");
            assert!(a.footer.is_ok(), "{name}: {:?}", a.footer);
        }
        let (inline, _) = block_on(read_puffin_footers(&folder, &Inline, &h, index, &mut |_, _| {}, &|| false));
        let (worker, _) = block_on(read_puffin_footers(&folder, &wire, &h, index, &mut |_, _| {}, &|| false));
        assert_eq!(inline.iter().map(|p| (&p.file_path, &p.footer)).collect::<Vec<_>>(), worker.iter().map(|p| (&p.file_path, &p.footer)).collect::<Vec<_>>());
        if name == "v3-deletion-vectors" {
            assert!(!inline.is_empty() && inline.iter().all(|p| p.footer.is_ok()), "{name}: Puffin footers read");
        }
        let (report, r) = scan(&folder, &h, &Inline, (1, "id")).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (report_w, r_w) = scan(&folder, &h, &wire, (1, "id")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report, report_w, "{name}");
        assert_eq!((r.rows_in_files, r.rows_deleted, r.fetched), (r_w.rows_in_files, r_w.rows_deleted, r_w.fetched), "{name}");
        assert!(report.rows > 0, "{name}: rows counted");
        if name == "v3-deletion-vectors" {
            assert!(r.rows_deleted > 0, "{name}: deletes applied");
        }
    }
}

/// The fuzz-found page in a real table (tests/fuzz/known-tables, PyIceberg's `add_files`).
fn panic_table() -> (LocalFolder, TableHistory) {
    open(&repo().join("tests/fuzz/known-tables/parquet-definition-levels-panic"))
}

#[test]
fn the_known_page_is_refused_by_the_pre_validation_and_panics_the_crate_without_it() {
    let (folder, h) = panic_table();
    let live = h.live_files(h.current_index().unwrap());
    assert_eq!(live.len(), 1);
    assert_eq!(live[0].file.file_format, FileFormat::Parquet);
    let path = live[0].file.file_path.to_string();
    let checked = scan(&folder, &h, &Wire { checked: true }, (0, "existing_data_files")).map(|_| ()).unwrap_err();
    assert_eq!(
        checked,
        format!("{path}: field `page_header`: row group 0 column `existing_data_files`: page 1 at byte 530: definition levels: a bit-packed run at byte 0 holds 14 values in 2 bytes with 0 left")
    );
    // Without it the bytes reach the crate, which panics (caught natively by `decode::decoding`;
    // in the browser it ends the decoder worker, tests/e2e/worker.test.mjs).
    let unchecked = scan(&folder, &h, &Wire { checked: false }, (0, "existing_data_files")).map(|_| ()).unwrap_err();
    assert_eq!(unchecked, format!("{path}: field `column_chunk`: the Parquet decoder failed on it (a malformed page)"));
    // Its footer is well-formed: the footers check reads it either way.
    let (footers, _) = block_on(read_footers(&folder, &Wire { checked: false }, &h, h.current_index().unwrap(), &mut |_, _| {}, &|| false));
    assert_eq!(footers[0].footer.as_ref().map(|f| f.rows), Ok(14));
}

/// Every leaf of a whole file, as one columns job.
fn whole_file(name: &str, bytes: Vec<u8>, checked: bool) -> Result<Decoded, String> {
    let size = bytes.len() as u64;
    let len = u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap()) as usize;
    let footer = bytes[bytes.len() - 8 - len..bytes.len() - 8].to_vec();
    let wire = Wire { checked };
    let Decoded::Footer { footer: f, .. } =
        block_on(wire.decode(Job::ParquetFooter { path: name.into(), bytes: footer.clone(), object_size: size, wanted: vec![] })).map_err(|e| e.to_string())?
    else {
        panic!("not a footer")
    };
    let leaves: Vec<usize> = (0..f.columns.len()).collect();
    let columns = f.columns.iter().map(|c| (c.path.clone(), None)).collect();
    let job = ColumnsJob { path: name.into(), footer, object_size: size, ranges: vec![(0, bytes)], leaves, columns, shape: Shape::Keys };
    block_on(wire.decode(Job::Columns(job))).map_err(|e| e.to_string())
}

#[test]
fn which_known_pages_panic_the_crate() {
    // Refused by the pre-validation; without it the crate's own error or panic (caught natively:
    // "the Parquet decoder failed on it").
    for (file, panics) in
        [("parquet-definition-levels-panic.parquet", true), ("parquet-map-children-panic.parquet", true), ("parquet-v1-levels-panic.parquet", true)]
    {
        let bytes = std::fs::read(repo().join("tests/fuzz/known").join(file)).unwrap();
        let checked = whole_file(file, bytes.clone(), true).map(|_| ()).unwrap_err();
        assert!(!checked.contains("failed on it"), "{file}: the pre-validation refuses it first: {checked}");
        let unchecked = whole_file(file, bytes, false).map(|_| ()).unwrap_err();
        assert_eq!(unchecked.contains("the Parquet decoder failed on it"), panics, "{file}: {unchecked}");
    }
}

#[test]
fn table_metadata_through_the_worker_protocol_equals_inline_decoding() {
    // Every lab fixture's metadata files (v2 and v3, Flink's and Spark's summaries), and the
    // shared corpus of other writers' tables where it is there.
    let files = table_files(|name| name.ends_with(".metadata.json") || name.ends_with(".metadata.json.gz"));
    assert!(files.len() > 50, "{} metadata files", files.len());
    let mut read = 0;
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let name = f.to_string_lossy().to_string();
        let inline = icescope::decode::TableMetadata::from_bytes(&name, &bytes);
        let worker = block_on(Wire { checked: true }.decode(Job::TableMetadata { path: name.clone(), bytes }));
        match (inline, worker) {
            (Ok(a), Ok(Decoded::Metadata(b))) => {
                assert_eq!(a, *b, "{name}");
                read += 1;
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{name}"),
            (a, b) => panic!("{name}: inline {:?}, through the worker {:?}", a.map(|_| ()), b.map(|_| ())),
        }
    }
    assert!(read > 50);
    // The loader opened through it gives the same history.
    let (folder, h) = open(&repo().join("tests/fixtures/savepoint-twice"));
    let loader = load_through_the_wire(&folder);
    assert_eq!(loader.history.metadata, h.metadata);
    assert_eq!(loader.history.snapshots.len(), h.snapshots.len());
    assert!(icescope::analysis::GrowthSeries::of(&loader.history) == icescope::analysis::GrowthSeries::of(&h), "the growth series differ");
}

/// The files of the lab's fixtures and the shared corpus (where it is there) whose name passes
/// `wanted`, sorted: what real engines wrote.
fn table_files(wanted: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut walk = vec![repo().join("tests/fixtures")];
    walk.extend(support::corpus());
    while let Some(dir) = walk.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk.push(p);
            } else if wanted(&p.to_string_lossy()) {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn manifest_lists_and_manifests_through_the_worker_protocol_equal_inline_decoding() {
    use icescope::decode::manifest_digest::digest_manifest;
    use icescope::decode::{Manifest, ManifestList};
    let (mut lists, mut manifests, mut kept_entries) = (0, 0, 0);
    // Manifest lists and manifests.
    for f in table_files(|name| name.ends_with(".avro")) {
        let bytes = std::fs::read(&f).unwrap();
        let name = f.to_string_lossy().to_string();
        let wire = |job| block_on(Wire { checked: true }.decode(job));
        if let Ok(inline) = ManifestList::from_bytes(&name, &bytes) {
            match wire(Job::ManifestList { path: name.clone(), bytes: bytes.clone() }) {
                Ok(Decoded::List(l)) => assert_eq!(l, inline.manifests, "{name}"),
                other => panic!("{name}: {other:?}"),
            }
            lists += 1;
            continue;
        }
        let Ok(whole) = Manifest::from_bytes(&name, &bytes) else { continue };
        for keep in [0, 1, usize::MAX] {
            let inline = digest_manifest(&name, &bytes, Some(42), keep);
            let Ok(Decoded::Manifest(through)) = wire(Job::Manifest { path: name.clone(), bytes: bytes.clone(), inherited: Some(42), keep_at_most: keep })
            else {
                panic!("{name}: not a manifest's answer")
            };
            assert_eq!(*through, inline, "{name} keeping {keep}");
            let d = through.result.as_ref().unwrap_or_else(|e| panic!("{name}: {e:?}"));
            assert_eq!(d.entries, whole.entries.len(), "{name}");
            // Kept whole or not at all; the paths of what is not kept come back instead.
            let live: Vec<&str> = whole.entries.iter().filter(|e| e.status.is_live()).map(|e| &*e.data_file.file_path).collect();
            if keep >= whole.entries.len() && keep > 0 {
                assert_eq!(d.kept.as_ref(), Some(&whole), "{name}");
                assert!(through.live_paths.is_empty(), "{name}");
                kept_entries += whole.entries.len();
            } else {
                assert_eq!(d.kept, None, "{name}");
                assert_eq!(through.live_paths.iter().map(|p| &**p).collect::<Vec<_>>(), live, "{name}");
            }
        }
        manifests += 1;
    }
    // The lab's fixtures alone hold hundreds of each (their index says how many; the corpus adds more).
    assert!(lists > 100 && manifests > 100 && kept_entries > 1000, "{lists} lists, {manifests} manifests, {kept_entries} entries");
}

/// The lab's tables (tests/fixtures/<name>/metadata).
fn fixture_tables() -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> =
        std::fs::read_dir(repo().join("tests/fixtures")).unwrap().flatten().map(|e| e.path()).filter(|p| p.join("metadata").is_dir()).collect();
    assert!(dirs.len() >= 15, "{} fixtures", dirs.len());
    dirs
}

#[test]
fn every_fixture_loaded_through_the_worker_protocol_equals_the_inline_load() {
    let dirs = fixture_tables();
    for dir in dirs {
        let (folder, inline) = open(&dir);
        let loader = load_through_the_wire(&folder);
        same_history(&dir.display().to_string(), &loader.history, &inline);
    }
}

/// What a load made equals the inline load's: every snapshot's numbers, the current files, the
/// files referenced, the columns written, the gaps and disagreements.
fn same_history(name: &str, h: &TableHistory, inline: &TableHistory) {
    for i in 0..h.snapshots.len() {
        assert_eq!(h.counts(i), inline.counts(i), "{name}: snapshot {i}'s counts");
        assert_eq!(h.totals(i), inline.totals(i), "{name}: snapshot {i}'s totals");
    }
    if let Some(c) = h.current_index() {
        let files = |h: &TableHistory| h.live_files(c).iter().map(|f| format!("{:?}", f)).collect::<Vec<_>>();
        assert_eq!(files(h), files(inline), "{name}: the current snapshot's files");
    }
    let referenced = |h: &TableHistory| h.referenced_files().map(str::to_string).collect::<std::collections::BTreeSet<_>>();
    assert_eq!(referenced(h), referenced(inline), "{name}: referenced files");
    assert_eq!(h.written_field_ids(), inline.written_field_ids(), "{name}: columns written");
    assert_eq!(h.gaps(), inline.gaps(), "{name}: gaps");
    assert_eq!(h.disagreements(), inline.disagreements(), "{name}: disagreements");
}

/// A folder handed to the decoder, as the browser hands a picked folder's `metadata/` to its
/// workers: the loader asks for its lists and manifests by name (`Job::Read`), never for bytes.
struct Handed<'a> {
    folder: &'a LocalFolder,
}

impl icescope::source::Fetch for Handed<'_> {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, icescope::source::SourceError> {
        panic!("{reference}: read by the loader, not the decoder holding its folder")
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        icescope::source::Fetch::size_hint(self.folder, reference)
    }

    fn in_folder(&self, reference: &str) -> Option<(u32, String)> {
        let path = icescope::source::FileSet::resolve(self.folder, reference)?;
        Some((3, path.strip_prefix("metadata/")?.to_string()))
    }

    fn listing(&self) -> Option<&icescope::source::PathIndex> {
        icescope::source::Fetch::listing(self.folder)
    }
}

/// The worker's side of `Read`s (read from disk here), through the transfer format; `missing`: a
/// file its folder no longer holds.
struct FolderWire {
    dir: PathBuf,
    missing: Option<String>,
}

impl Decoder for FolderWire {
    async fn decode(&self, job: Job) -> Result<Decoded, DecodeError> {
        let bytes = to_wire(&Request { id: 9, checked: true, job }).unwrap();
        let request = from_wire::<Request>(&bytes).unwrap();
        let reply = match &request.job {
            Job::Read { folder: 3, name, then } => {
                assert!(then.byte_len() == 0, "{name}: the page sent bytes with a read");
                let got = if self.missing.as_deref() == Some(name) {
                    Err((true, String::new()))
                } else {
                    std::fs::read(self.dir.join("metadata").join(name)).map_err(|e| (false, e.to_string()))
                };
                icescope::decode::job::read_then(request, got)
            }
            other => panic!("{}: not a read of the handed folder", other.path()),
        };
        match from_wire::<Reply>(&to_wire(&reply).unwrap()).unwrap() {
            Reply::Done { id: 9, result } => result,
            other => panic!("unexpected reply {other:?}"),
        }
    }

    fn reads_folders(&self) -> bool {
        true
    }
}

#[test]
fn every_fixture_read_by_the_decoder_from_its_folder_equals_the_inline_load() {
    let dirs = fixture_tables();
    for dir in dirs {
        let (folder, inline) = open(&dir);
        let name = dir.display();
        let dec = FolderWire { dir: dir.clone(), missing: None };
        let path = newest_metadata(&folder).unwrap();
        let handed = Handed { folder: &folder };
        let mut loader = block_on(icescope::load::Loader::open_with(&handed, &dec, &path, false)).unwrap();
        let metadata_bytes = std::fs::metadata(dir.join(&path)).unwrap().len();
        assert_eq!(loader.history.metadata_sizes.last().map(|m| m.bytes), Some(metadata_bytes), "{name}: the metadata file's size, as the worker read it");
        loader.history.plan(ReadMode::All);
        block_on(loader.run_by(&handed, &dec, 8));
        same_history(&name.to_string(), &loader.history, &inline);
    }
}

#[test]
fn a_manifest_its_folder_no_longer_holds_is_a_gap_naming_it_as_a_missing_file_is() {
    let dir = repo().join("tests/fixtures/taskmanager-kill");
    let (folder, inline) = open(&dir);
    let c = inline.current_index().unwrap();
    let list = inline.snapshots[c].snapshot.manifest_list.clone().unwrap();
    let lists = icescope::decode::ManifestList::from_bytes(&list, &icescope::source::FileSet::read_reference(&folder, &list).unwrap().1).unwrap();
    let gone = lists.manifests[0].manifest_path.clone();
    let gone_name = gone.rsplit('/').next().unwrap().to_string();
    let dec = FolderWire { dir: dir.clone(), missing: Some(gone_name.clone()) };
    let handed = Handed { folder: &folder };
    let mut loader = block_on(icescope::load::Loader::open_with(&handed, &dec, &newest_metadata(&folder).unwrap(), false)).unwrap();
    loader.history.plan(ReadMode::All);
    block_on(loader.run_by(&handed, &dec, 8));
    let gaps = format!("{:?}", loader.history.gaps());
    assert!(gaps.contains(&gone_name), "the missing manifest is named among the gaps: {gaps}");
    assert_ne!(loader.history.gaps(), inline.gaps(), "the gap is the missing file's");
}
