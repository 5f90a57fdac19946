//! The one loader, over every native source of bytes (a folder on disk, files held in memory as the
//! browser holds dropped ones), in both reading modes: metadata first and the full history. The
//! tables are the lab's, written by real Flink and Spark; every expected number is computed here
//! from the files or taken from the full read, never typed.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use icescope::decode::{ManifestList, TableMetadata};
use icescope::load::{load_with_stats, Loader};
use icescope::model::{CountSource, ReadMode, ReadReason, TableHistory};
use icescope::source::local::LocalFolder;
use icescope::source::{newest_metadata, FileSet, MemoryFiles};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

const FIXTURES: [&str; 8] =
    ["append-stream", "concurrent-writers", "late-data", "maintenance-live", "savepoint-twice", "schema-on-the-wire", "taskmanager-kill", "upsert-stream"];

fn folder(name: &str) -> (LocalFolder, String) {
    let f = LocalFolder::open(&fixture(name)).unwrap();
    let m = newest_metadata(&f).unwrap();
    (f, m)
}

fn in_memory(f: &LocalFolder) -> MemoryFiles {
    let mut m = MemoryFiles::new();
    for p in f.index().paths() {
        m.insert(p.to_string(), f.read_path(p).unwrap());
    }
    m
}

fn load<F: icescope::source::Fetch>(files: &F, metadata: &str, mode: ReadMode) -> Loader {
    load_with_stats(files, metadata, mode, true).unwrap()
}

/// Per snapshot: (data files, delete files, records, manifests, where from).
fn rows(h: &TableHistory) -> Vec<(Option<u64>, Option<u64>, Option<u64>, Option<u64>, Option<CountSource>)> {
    (0..h.snapshots.len())
        .map(|i| {
            let t = h.totals(i);
            (t.data_files, t.delete_files, t.records, t.manifests, t.source)
        })
        .collect()
}

#[test]
fn folder_and_memory_give_the_same_history_in_both_modes() {
    for name in FIXTURES {
        let (f, m) = folder(name);
        let mem = in_memory(&f);
        for mode in [ReadMode::All, ReadMode::MetadataFirst] {
            let a = load(&f, &m, mode);
            let b = load(&mem, &m, mode);
            assert_eq!(rows(&a.history), rows(&b.history), "{name} {mode:?}");
            assert_eq!(a.stats.files, b.stats.files, "{name} {mode:?}");
            assert_eq!(a.stats.bytes, b.stats.bytes, "{name} {mode:?}");
        }
    }
}

#[test]
fn every_file_is_read_once_however_many_snapshots_share_it() {
    for name in FIXTURES {
        let (f, m) = folder(name);
        for mode in [ReadMode::All, ReadMode::MetadataFirst] {
            let l = load(&f, &m, mode);
            let paths = l.stats.paths.clone().unwrap();
            let distinct: HashSet<&String> = paths.iter().collect();
            assert_eq!(distinct.len(), paths.len(), "{name} {mode:?}: a file was read twice");
        }
    }
}

#[test]
fn the_full_read_counts_every_snapshot_and_agrees_with_every_summary() {
    for name in FIXTURES {
        let (f, m) = folder(name);
        let l = load(&f, &m, ReadMode::All);
        let h = &l.history;
        for i in 0..h.snapshots.len() {
            // Expired snapshots keep no manifest list: those stay as their summary states.
            let listed = h.snapshots[i].snapshot.manifest_list.as_deref().is_some_and(|p| f.index().resolve(p).is_some());
            let source = h.totals(i).source;
            assert_eq!(source == Some(CountSource::Manifests), listed, "{name} snapshot #{i}: {source:?}");
        }
        assert_eq!(h.disagreements(), vec![], "{name}: real writers' summaries agree with their files");
    }
}

#[test]
fn metadata_first_reads_the_current_snapshot_in_full_and_lists_of_a_sample_only() {
    for name in FIXTURES {
        let (f, m) = folder(name);
        let full = load(&f, &m, ReadMode::All);
        let l = load(&f, &m, ReadMode::MetadataFirst);
        let h = &l.history;
        let cur = h.current_index().unwrap();
        assert_eq!(h.read_reason(cur), Some(ReadReason::Current), "{name}");
        assert_eq!(h.counts(cur), full.history.counts(cur), "{name}: the current snapshot is counted from its manifests");
        // Which files: the metadata, the lists of the snapshots read, the manifests of those in detail.
        let mut want: BTreeSet<String> = BTreeSet::from([m.clone()]);
        for (i, s) in h.snapshots.iter().enumerate() {
            let Some(list) = s.snapshot.manifest_list.as_deref().and_then(|p| f.index().resolve(p)) else { continue };
            if h.read_reason(i).is_none() {
                continue;
            }
            want.insert(list.to_string());
            if s.detail {
                let decoded = ManifestList::from_bytes(list, &f.read_path(list).unwrap()).unwrap();
                want.extend(decoded.manifests.iter().filter_map(|mf| f.index().resolve(&mf.manifest_path)).map(str::to_string));
            }
        }
        let read: BTreeSet<String> = l.stats.paths.clone().unwrap().into_iter().map(|p| f.index().resolve(&p).unwrap_or(&p).to_string()).collect();
        assert_eq!(read, want, "{name}: files read in metadata-first mode");
        // What it did not count, it shows as the full read counts it (or as the summary says).
        for i in 0..h.snapshots.len() {
            let (a, b) = (h.totals(i), full.history.totals(i));
            assert_eq!((a.data_files, a.records, a.delete_files), (b.data_files, b.records, b.delete_files), "{name} snapshot #{i}");
        }
    }
}

/// The fixture's metadata with `edit` applied to its JSON, beside its own lists and manifests.
fn edited(name: &str, edit: impl Fn(&mut serde_json::Value)) -> (MemoryFiles, String) {
    let (f, m) = folder(name);
    let mut mem = in_memory(&f);
    let mut json: serde_json::Value = serde_json::from_slice(&f.read_path(&m).unwrap()).unwrap();
    edit(&mut json);
    mem.insert(m.clone(), serde_json::to_vec(&json).unwrap());
    (mem, m)
}

#[test]
fn snapshots_whose_summaries_lack_totals_are_read_by_their_lists() {
    let (mem, m) = edited("savepoint-twice", |j| {
        for s in j["snapshots"].as_array_mut().unwrap() {
            s["summary"].as_object_mut().unwrap().retain(|k, _| !k.starts_with("total-"));
        }
    });
    let l = load(&mem, &m, ReadMode::MetadataFirst);
    let h = &l.history;
    let (f, _) = folder("savepoint-twice");
    let full = load(&f, &newest_metadata(&f).unwrap(), ReadMode::All);
    for i in 0..h.snapshots.len() {
        let t = h.totals(i);
        assert!(matches!(t.source, Some(CountSource::Manifests) | Some(CountSource::ManifestList)), "snapshot #{i}: {:?}", t.source);
        assert_eq!((t.data_files, t.records), (full.history.totals(i).data_files, full.history.totals(i).records), "snapshot #{i}");
    }
}

#[test]
fn a_summary_the_files_contradict_is_reported_not_hidden() {
    let (f, m0) = folder("append-stream");
    let meta: TableMetadata = TableMetadata::from_bytes(&m0, &f.read_path(&m0).unwrap()).unwrap();
    let victim = meta.current_snapshot_id.unwrap();
    let (mem, m) = edited("append-stream", |j| {
        for s in j["snapshots"].as_array_mut().unwrap() {
            if s["snapshot-id"].as_i64().map(i128::from) == Some(victim.0) {
                let n: u64 = s["summary"]["total-data-files"].as_str().unwrap().parse().unwrap();
                s["summary"]["total-data-files"] = serde_json::Value::String((n + 7).to_string());
            }
        }
    });
    for mode in [ReadMode::All, ReadMode::MetadataFirst] {
        let l = load(&mem, &m, mode);
        let d = l.history.disagreements();
        assert_eq!(d.len(), 1, "{mode:?}: {d:?}");
        assert_eq!(d[0].field, "data_files");
        assert_eq!(d[0].summary, d[0].counted + 7);
        assert_eq!(l.history.snapshots[d[0].snapshot_index].snapshot.snapshot_id, victim);
    }
}

#[test]
fn an_unreadable_list_leaves_the_summary_marked_as_such_and_a_gap() {
    let (f, m) = folder("taskmanager-kill");
    let mut mem = MemoryFiles::new();
    let full = load(&f, &m, ReadMode::All);
    let cur = full.history.current_index().unwrap();
    let cur_list = full.history.snapshots[cur].snapshot.manifest_list.clone().unwrap();
    let cur_list = f.index().resolve(&cur_list).unwrap().to_string();
    for p in f.index().paths() {
        let bytes = f.read_path(p).unwrap();
        // The current snapshot's list, cut in half.
        mem.insert(p.to_string(), if *p == cur_list { bytes[..bytes.len() / 2].to_vec() } else { bytes });
    }
    let l = load(&mem, &m, ReadMode::All);
    let t = l.history.totals(cur);
    assert_eq!(t.source, Some(CountSource::Summary));
    assert_eq!((t.data_files, t.records), (full.history.totals(cur).data_files, full.history.totals(cur).records));
    assert_eq!(t.manifest_bytes, None, "a summary states no manifest bytes");
    let gaps = l.history.gaps();
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert!(gaps[0].file.ends_with(cur_list.rsplit('/').next().unwrap()) && gaps[0].snapshot_ids == vec![full.history.snapshots[cur].snapshot.snapshot_id]);
}

/// Widening is a second load: no manifest is read again, and the only lists read again are those
/// of the sample, whose rows the first plan dropped once it had their counts (keeping them would
/// hold a day of fast-append lists in memory).
#[test]
fn asking_for_the_full_history_later_reads_only_what_is_missing() {
    let (f, m) = folder("taskmanager-kill");
    let mut l = load(&f, &m, ReadMode::MetadataFirst);
    let first = l.stats.paths.clone().unwrap();
    let sampled: HashSet<usize> = (0..l.history.snapshots.len()).filter(|&i| l.history.read_reason(i) == Some(ReadReason::Sample)).collect();
    l.history.plan(ReadMode::All);
    futures::executor::block_on(l.run_by(&f, &icescope::load::decoder::Inline, 1));
    let all = l.stats.paths.clone().unwrap();
    let again: Vec<&String> = all[first.len()..].iter().filter(|p| first.contains(p)).collect();
    assert!(again.iter().all(|p| p.contains("/snap-")), "only manifest lists are read again: {again:?}");
    assert!(again.len() <= sampled.len(), "{} lists read again, {} sampled", again.len(), sampled.len());
    assert!(all.len() > first.len());
    let full = load(&f, &m, ReadMode::All);
    assert_eq!(rows(&l.history), rows(&full.history));
}

#[test]
fn a_manifest_listed_twice_is_a_gap_not_a_double_count() {
    use apache_avro::{Reader, Writer};
    let (f, m) = folder("append-stream");
    let full = load(&f, &m, ReadMode::All);
    let cur = full.history.current_index().unwrap();
    let list_ref = full.history.snapshots[cur].snapshot.manifest_list.clone().unwrap();
    let list_path = f.index().resolve(&list_ref).unwrap().to_string();
    // The writer's own list, rewritten by apache-avro with its first row repeated.
    let bytes = f.read_path(&list_path).unwrap();
    let reader = Reader::new(&bytes[..]).unwrap();
    let schema = reader.writer_schema().clone();
    let rows: Vec<_> = reader.map(|r| r.unwrap()).collect();
    let mut writer = Writer::new(&schema, Vec::new());
    for r in rows.iter().chain(std::iter::once(&rows[0])) {
        writer.append(r.clone()).unwrap();
    }
    let doubled = writer.into_inner().unwrap();
    let mut mem = in_memory(&f);
    mem.insert(list_path.clone(), doubled);
    let l = load(&mem, &m, ReadMode::All);
    let t = l.history.totals(cur);
    assert_eq!(t.source, Some(CountSource::Summary), "not counted from a list that names a manifest twice");
    assert_eq!(t.data_files, full.history.totals(cur).data_files, "the summary's number, not a double count");
    let gaps = l.history.gaps();
    assert!(
        gaps.iter().any(|g| g.message.contains("more than once") && g.snapshot_ids.contains(&full.history.snapshots[cur].snapshot.snapshot_id)),
        "{gaps:?}"
    );
}

/// A loopback HTTP server over a table's files (by their path relative to the fixture folder),
/// counting the requests it answers: the remote source is tested over real sockets.
struct Served {
    origin: String,
    hits: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

fn serve(files: std::collections::HashMap<String, Vec<u8>>) -> Served {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap() == 0 || h == "\r\n" {
                    break;
                }
            }
            let path = line.split(' ').nth(1).unwrap_or("/").trim_start_matches('/').to_string();
            let (status, body) = match files.get(&path) {
                Some(b) => ("200 OK", b.clone()),
                None => ("404 Not Found", b"no such file".to_vec()),
            };
            let _ = write!(stream, "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            let _ = stream.write_all(&body);
        }
    });
    Served { origin, hits }
}

#[test]
fn remote_files_are_read_only_from_hosts_the_user_named() {
    use icescope::source::remote::RemoteFiles;
    use icescope::source::transport::Ureq;
    let (f, m) = folder("append-stream");
    let files: std::collections::HashMap<String, Vec<u8>> = f.index().paths().map(|p| (p.to_string(), f.read_path(p).unwrap())).collect();
    let stranger = serve(files.clone());
    // The table's metadata names its current manifest list on a host nobody typed.
    let mut json: serde_json::Value = serde_json::from_slice(&files[&m]).unwrap();
    let current = json["current-snapshot-id"].clone();
    let snapshots = json["snapshots"].as_array_mut().unwrap();
    let snap = snapshots.iter_mut().find(|s| s["snapshot-id"] == current).unwrap();
    let list_name = Path::new(snap["manifest-list"].as_str().unwrap()).file_name().unwrap().to_str().unwrap().to_string();
    let list_path = files.keys().find(|p| p.ends_with(&list_name)).unwrap().clone();
    snap["manifest-list"] = format!("{}/{list_path}", stranger.origin).into();
    let mut named_files = files.clone();
    named_files.insert(m.clone(), serde_json::to_vec(&json).unwrap());
    let named = serve(named_files);

    let remote = RemoteFiles::direct(Ureq::default(), Default::default(), &format!("{}/{m}", named.origin));
    let loader = load(&remote, &format!("{}/{m}", named.origin), ReadMode::Auto);
    let h = &loader.history;
    let gap = h.gaps().into_iter().find(|g| g.file.starts_with(&stranger.origin)).expect("the stranger's list is a gap");
    assert!(gap.message.contains("not a host you named") && gap.message.contains(&named.origin), "{}", gap.message);
    assert_eq!(gap.kind, icescope::model::GapKind::Unreadable);
    assert_eq!(stranger.hits.load(std::sync::atomic::Ordering::SeqCst), 0, "no request reached the host the table named");
    assert!(named.hits.load(std::sync::atomic::Ordering::SeqCst) >= 1);
    // What the summary states is still shown, marked as such.
    let local = load(&f, &m, ReadMode::Auto);
    let c = h.current_index().unwrap();
    assert_eq!(h.totals(c).data_files, local.history.snapshots[c].summary.unpack().data_files);
    assert_eq!(h.totals(c).source, Some(CountSource::Summary));
}

/// A folder whose highest-numbered metadata file is an old one (copied under a new name, as a
/// careless backup or a rollback tool leaves it): the newest by content is opened, and the
/// report says which and why.
#[test]
fn the_metadata_file_is_picked_by_content_not_by_its_name() {
    let f = LocalFolder::open(&fixture("v3-deletion-vectors")).unwrap();
    let mut m = MemoryFiles::new();
    for p in f.index().paths() {
        let name = if p == "metadata/v2.metadata.json" { "metadata/v99.metadata.json".to_string() } else { p.to_string() };
        m.insert(name, f.read_path(p).unwrap());
    }
    let pick = futures::executor::block_on(icescope::load::pick_metadata(&m)).unwrap();
    assert_eq!(pick.path, "metadata/v8.metadata.json");
    assert_eq!(pick.versions.len(), 8);
    assert_eq!(pick.versions.last().unwrap().path, "metadata/v8.metadata.json", "oldest first");
    let newest = TableMetadata::from_bytes("v8", &f.read_path("metadata/v8.metadata.json").unwrap()).unwrap();
    assert_eq!(pick.versions.last().unwrap().last_updated_ms, Some(newest.last_updated_ms));
    assert!(pick.why.contains("v99.metadata.json has a higher version in its name but is older"), "{}", pick.why);
    // The synchronous pick (CLI, tests) agrees.
    assert_eq!(newest_metadata(&m).unwrap(), "metadata/v8.metadata.json");
}

/// Counts the metadata heads a pick opens.
struct CountingHeads {
    inner: MemoryFiles,
    heads: std::cell::Cell<usize>,
}

impl icescope::source::Fetch for CountingHeads {
    async fn fetch(&self, r: &str) -> Result<Vec<u8>, icescope::source::SourceError> {
        icescope::source::Fetch::fetch(&self.inner, r).await
    }
    async fn fetch_head(&self, r: &str, n: usize) -> Result<Vec<u8>, icescope::source::SourceError> {
        self.heads.set(self.heads.get() + 1);
        icescope::source::Fetch::fetch_head(&self.inner, r, n).await
    }
    async fn fetch_range(
        &self,
        r: &str,
        range: icescope::source::range::ByteRange,
    ) -> Result<icescope::source::range::RangeRead, icescope::source::SourceError> {
        icescope::source::Fetch::fetch_range(&self.inner, r, range).await
    }
    fn size_hint(&self, r: &str) -> Option<u64> {
        icescope::source::Fetch::size_hint(&self.inner, r)
    }
    fn listing(&self) -> Option<&icescope::source::PathIndex> {
        icescope::source::Fetch::listing(&self.inner)
    }
}

/// A day of commits leaves a hundred metadata files, and each head read is a round trip (a
/// millisecond a `File` in Chromium, a request on S3): the ones the newest-named file's
/// `metadata-log` names are older than it and are not opened, and the pick is the same.
#[test]
fn the_files_the_newest_logs_are_not_opened_to_pick_it() {
    let f = LocalFolder::open(&fixture("v3-deletion-vectors")).unwrap();
    let files = CountingHeads { inner: in_memory(&f), heads: Default::default() };
    let pick = futures::executor::block_on(icescope::load::pick_metadata(&files)).unwrap();
    assert_eq!(pick.path, "metadata/v8.metadata.json");
    assert_eq!(files.heads.get(), 1, "only v8's head: v1..v7 are in its metadata-log");
    let newest = TableMetadata::from_bytes("v8", &f.read_path("metadata/v8.metadata.json").unwrap()).unwrap();
    let names: Vec<&str> = pick.versions.iter().map(|v| v.path.as_str()).collect();
    assert_eq!(names, (1..=8).map(|i| format!("metadata/v{i}.metadata.json")).collect::<Vec<_>>(), "oldest first");
    // Each older file carries the time its log entry gives, which is its own last-updated-ms.
    for (v, logged) in pick.versions.iter().zip(&newest.metadata_log) {
        let own = TableMetadata::from_bytes(&v.path, &f.read_path(&v.path).unwrap()).unwrap();
        assert_eq!((v.last_updated_ms, v.last_sequence_number), (Some(logged.timestamp_ms), None));
        assert_eq!(own.last_updated_ms, logged.timestamp_ms, "{}", v.path);
    }
    assert_eq!(pick.versions[7].last_sequence_number, Some(newest.last_sequence_number));
    assert!(pick.why.starts_with("the newest of 8 metadata files by content (last-sequence-number 7,"), "{}", pick.why);
}

#[test]
fn a_folder_lists_its_data_files_only_when_something_reads_one() {
    // `inspect` never opens a data file, and a day of 5 s commits leaves 52,000 of them under data/.
    let root = fixture("late-data");
    let on_disk = |under: &str| -> BTreeSet<String> {
        fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, root, out)
                } else {
                    out.insert(p.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
                }
            }
        }
        let mut out = BTreeSet::new();
        walk(&root.join(under), &root, &mut out);
        out
    };
    let (data, all) = (on_disk("data"), on_disk(""));
    assert_eq!(data.len(), 5);
    let (f, metadata) = folder("late-data");
    let listed = |i: &icescope::source::PathIndex| i.paths().map(str::to_string).collect::<BTreeSet<String>>();
    assert_eq!(listed(f.metadata_index()), all.difference(&data).cloned().collect::<BTreeSet<_>>());
    // The loader's listing is the metadata's: the table loads, the same as from memory.
    let l = load(&f, &metadata, ReadMode::All);
    assert_eq!(rows(&l.history), rows(&load(&in_memory(&f), &metadata, ReadMode::All).history));
    // A data file named by a manifest is still found (footers, duplicates), and then every file is listed.
    let live = l.history.live_files(l.history.current_index().unwrap());
    let entry = live.first().expect("live files").file;
    let bytes = futures::executor::block_on(icescope::source::Fetch::fetch(&f, &entry.file_path)).unwrap();
    assert_eq!(bytes.len() as i64, entry.file_size_in_bytes);
    assert_eq!(listed(f.complete_index().unwrap()), all);
    assert_eq!(listed(f.index()), all);
}

/// A source that hands a file over as a reader, as a file picked in the browser does: the loader
/// then decodes metadata.json as it reads it.
struct Streaming<F>(F);

impl<F: icescope::source::Fetch> icescope::source::Fetch for Streaming<F> {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, icescope::source::SourceError> {
        self.0.fetch(reference).await
    }
    async fn fetch_reader(&self, reference: &str) -> Result<Option<(u64, Box<dyn std::io::Read>)>, icescope::source::SourceError> {
        let b = self.0.fetch(reference).await?;
        Ok(Some((b.len() as u64, Box::new(std::io::Cursor::new(b)))))
    }
    fn size_hint(&self, reference: &str) -> Option<u64> {
        self.0.size_hint(reference)
    }
    fn listing(&self) -> Option<&icescope::source::resolve::PathIndex> {
        self.0.listing()
    }
}

fn hostile(case: &str) -> (LocalFolder, String) {
    let f = LocalFolder::open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile").join(case)).unwrap();
    let m = newest_metadata(&f).unwrap();
    (f, m)
}

#[test]
fn metadata_decoded_as_it_is_read_is_the_metadata_decoded_whole() {
    for name in FIXTURES {
        let (f, m) = folder(name);
        let a = load(&f, &m, ReadMode::MetadataFirst);
        let b = load(&Streaming(f), &m, ReadMode::MetadataFirst);
        assert!(a.history.metadata == b.history.metadata, "{name}");
        assert_eq!(rows(&a.history), rows(&b.history), "{name}");
        assert_eq!((a.stats.files, a.stats.bytes), (b.stats.files, b.stats.bytes), "{name}");
    }
    // Gzip goes the bytes' way (its inflation budget is checked on them); a file that does not
    // decode is read again whole, for the same error naming the same field.
    for (case, decodes) in [
        ("files/metadata-gzip", true),
        ("files/metadata-gzip-bomb", false),
        ("files/metadata-error-quotes-escapes", false),
        ("files/metadata-format-version-9", false),
        ("files/metadata-empty", false),
    ] {
        let (f, m) = hostile(case);
        let whole = load_with_stats(&f, &m, ReadMode::MetadataFirst, false).map(|l| l.history.metadata).map_err(|e| e.to_string());
        let streamed = load_with_stats(&Streaming(f), &m, ReadMode::MetadataFirst, false).map(|l| l.history.metadata).map_err(|e| e.to_string());
        assert_eq!(whole.is_ok(), decodes, "{case}");
        assert!(whole == streamed, "{case}: {:?} vs {:?}", whole.as_ref().err(), streamed.as_ref().err());
    }
}

/// Paths in the order one read at a time took them, with what each is.
fn read_in_order(name: &str) -> (Vec<String>, BTreeSet<String>, BTreeSet<String>) {
    let (f, m) = folder(name);
    let mut l = futures::executor::block_on(Loader::open(&f, &m, true)).unwrap();
    l.history.plan(ReadMode::MetadataFirst);
    futures::executor::block_on(l.run_by(&f, &icescope::load::decoder::Inline, 1));
    let order: Vec<String> = l.stats.paths.clone().unwrap().iter().map(|p| f.index().resolve(p).unwrap_or(p).to_string()).collect();
    let lists: BTreeSet<String> =
        l.history.snapshots.iter().filter_map(|s| s.snapshot.manifest_list.as_deref()).filter_map(|p| f.index().resolve(p)).map(str::to_string).collect();
    let mut deletes = BTreeSet::new();
    for p in order.iter().filter(|p| lists.contains(*p)) {
        let decoded = ManifestList::from_bytes(p, &f.read_path(p).unwrap()).unwrap();
        deletes.extend(
            decoded
                .manifests
                .iter()
                .filter(|mf| mf.content == icescope::decode::ManifestContent::Deletes)
                .filter_map(|mf| f.index().resolve(&mf.manifest_path))
                .map(str::to_string),
        );
    }
    (order, lists, deletes)
}

#[test]
fn metadata_first_reads_every_list_and_delete_manifest_before_the_current_snapshots_data_manifests() {
    // Over a network the current snapshot's data manifests are most of a day's load (17,280 of a
    // fast-append day): every chart but the partitions is final without them, so they come last.
    let mut with_deletes = 0;
    for name in FIXTURES.iter().chain(&["merge-append-long", "v3-deletion-vectors", "older-savepoint"]) {
        let (order, lists, deletes) = read_in_order(name);
        let is_data_manifest = |p: &String| p.ends_with(".avro") && !lists.contains(p) && !deletes.contains(p);
        let first_data = order.iter().position(is_data_manifest).unwrap_or_else(|| panic!("{name}: no data manifest read"));
        let last_list = order.iter().rposition(|p| lists.contains(p)).unwrap();
        assert!(last_list < first_data, "{name}: list #{last_list} read after data manifest #{first_data}: {order:#?}");
        if let Some(last_delete) = order.iter().rposition(|p| deletes.contains(p)) {
            with_deletes += 1;
            assert!(last_delete < first_data, "{name}: delete manifest #{last_delete} read after data manifest #{first_data}");
        }
        assert!(order[first_data..].iter().all(is_data_manifest), "{name}: only data manifests after the first");
    }
    assert!(with_deletes >= 2, "fixtures with delete manifests: {with_deletes}");
}

#[test]
fn what_the_current_files_decide_waits_for_all_of_them_and_says_how_far_it_is() {
    use icescope::analysis::findings::{FindingKind, TableRef};
    use icescope::analysis::partitions::partition_stats;
    use icescope::report::findings::findings;
    let (f, m) = folder("late-data");
    let mut l = futures::executor::block_on(Loader::open(&f, &m, false)).unwrap();
    l.history.plan(ReadMode::MetadataFirst);
    let total = l.history.snapshots[l.history.current_index().unwrap()].summary.unpack().manifests.unwrap() as usize;
    assert!(total >= 3, "late-data's current snapshot names {total} manifests");
    let late = |h: &TableHistory| findings(h, &TableRef::guess(h, None)).iter().filter(|f| f.kind == FindingKind::LateOneRowFiles).count();
    let (dec, mut seen_partway) = (icescope::load::decoder::Inline, false);
    let mut pump = icescope::load::Pump::new(&f, &dec, 1);
    while futures::executor::block_on(pump.next(&mut l)) {
        let h = &l.history;
        match h.current_files_wait() {
            Some(w) => {
                if w.manifests_read > 0 {
                    seen_partway = true;
                    assert!(h.lists_settled(), "the data manifests are read after every list");
                    assert_eq!(w.manifests, Some(total));
                    assert!(partition_stats(h).is_empty(), "no partition counted from part of the files");
                    assert_eq!(late(h), 0, "no late-file finding from part of the files");
                }
            }
            None => break,
        }
    }
    while futures::executor::block_on(pump.next(&mut l)) {}
    assert!(seen_partway, "the wait was seen part way");
    assert_eq!(l.history.current_files_wait(), None);
    assert!(!partition_stats(&l.history).is_empty());
    assert_eq!(late(&l.history), 1, "late-data's finding, once every file is read");
}

/// The fixture's metadata files, oldest first (by the version their names carry).
fn metadata_files(f: &LocalFolder) -> Vec<String> {
    let mut m: Vec<String> = f.index().paths().filter(|p| icescope::source::metadata_pick::is_metadata_file(p)).map(str::to_string).collect();
    m.sort_by_key(|p| (icescope::source::metadata_pick::metadata_version(p), p.clone()));
    m
}

fn report(h: &TableHistory) -> serde_json::Value {
    let table = icescope::analysis::findings::TableRef::guess(h, None);
    serde_json::to_value(icescope::report::findings::inspect(h, &table)).unwrap()
}

/// Every fixture walked commit by commit as a watch sees it: each metadata file read into the
/// history of the one before. After every step the report equals a fresh read of that file, and
/// over the walk no list or manifest is read twice: each step reads only what its commit added.
#[test]
fn a_table_read_commit_by_commit_equals_a_fresh_read_and_reads_each_file_once() {
    let all: Vec<String> = std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("metadata").is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(all.len() >= 15, "{all:?}");
    let mut steps = 0;
    for name in all {
        let (f, _) = folder(&name);
        let versions = metadata_files(&f);
        let mut loader = load(&f, &versions[0], ReadMode::All);
        let mut read: Vec<String> = loader.stats.paths.clone().unwrap_or_default().into_iter().skip(1).collect();
        for v in &versions[1..] {
            futures::executor::block_on(loader.advance(&f, &icescope::load::decoder::Inline, v)).unwrap();
            let fresh = load(&f, v, ReadMode::All);
            assert_eq!(rows(&loader.history), rows(&fresh.history), "{name} at {v}");
            assert_eq!(report(&loader.history), report(&fresh.history), "{name} at {v}");
            read.extend(loader.stats.paths.clone().unwrap_or_default().into_iter().skip(1));
            assert_eq!(loader.stats.paths.as_ref().map(|p| p[0].as_str()), Some(v.as_str()), "{name}: the step reads its metadata file first");
            steps += 1;
        }
        let unique: HashSet<&String> = read.iter().collect();
        let twice: Vec<&String> = read.iter().filter(|p| read.iter().filter(|q| q == p).count() > 1).collect();
        assert_eq!(unique.len(), read.len(), "{name}: read more than once: {twice:?}");
    }
    assert!(steps > 250, "{steps} steps");
}

/// A long history read metadata first, walked over its last commits: each step reads its
/// metadata file, its commit's list and the manifests that commit created, nothing read before
/// (the sample across the history is kept, not spaced anew), and counts the current snapshot as
/// a fresh read does.
#[test]
fn a_step_read_metadata_first_reads_only_the_new_commit() {
    let (f, _) = folder("merge-append-long");
    let versions = metadata_files(&f);
    let start = versions.len() - 6;
    let mut loader = load(&f, &versions[start], ReadMode::MetadataFirst);
    let sampled = |h: &TableHistory| (0..h.snapshots.len()).filter(|&i| h.read_reason(i) == Some(ReadReason::Sample)).count();
    assert!(sampled(&loader.history) >= 12, "a sample across the history");
    let mut read: Vec<String> = loader.stats.paths.clone().unwrap().into_iter().skip(1).collect();
    for v in &versions[start + 1..] {
        let known = |h: &TableHistory, n: usize| -> Vec<_> { (0..n).map(|i| (h.snapshots[i].snapshot.snapshot_id, h.counts(i), h.totals(i))).collect() };
        let before = known(&loader.history, loader.history.snapshots.len());
        futures::executor::block_on(loader.advance(&f, &icescope::load::decoder::Inline, v)).unwrap();
        // Every count had before is still had, unchanged: a commit adds, it does not forget.
        assert_eq!(before, known(&loader.history, before.len()), "{v}");
        let beyond = before.iter().filter(|b| b.2.source != Some(CountSource::Summary)).count();
        assert!(beyond > 12, "{v}: {beyond} read beyond their summaries");
        let fresh = load(&f, v, ReadMode::MetadataFirst);
        let h = &loader.history;
        let cur = h.current_index().unwrap();
        assert_eq!(h.counts(cur), fresh.history.counts(cur), "{v}");
        assert!(h.counts(cur).is_some(), "{v}");
        let paths: Vec<String> = loader.stats.paths.clone().unwrap().into_iter().skip(1).collect();
        let created = h.snapshots[cur].snapshot.summary_i64("manifests-created").unwrap().max(0) as usize;
        assert_eq!(paths.len(), 1 + created, "{v}: {paths:?}");
        assert!(paths[0].contains("/snap-"), "{v}: {paths:?}");
        read.extend(paths);
        assert!(sampled(h) >= 12, "{v}: the sample is kept");
    }
    let unique: HashSet<&String> = read.iter().collect();
    assert_eq!(unique.len(), read.len(), "a file read twice: {read:?}");
}
