//! Orphan files on the lab's tables: the files under each table that no snapshot references must
//! be exactly the lab's census of its store (facts.json `store.orphans`, listed by the lab from
//! SeaweedFS against Spark's `all_files`), read from facts.json, never typed here.

use std::path::{Path, PathBuf};

use icescope::analysis::findings::TableRef;
use icescope::analysis::orphans::{listed_files, orphans, table_root, ListedFile, OrphanKind, IN_FLIGHT_MARGIN_MS};
// Worded, as every reader gets it.
use icescope::load::load_table;
use icescope::model::{ReadMode, TableHistory};
use icescope::report::findings::orphan_finding as finding;
use icescope::source::listing::Listing;
use icescope::source::local::LocalFolder;
use icescope::source::{newest_metadata, FileSet, MemoryFiles};
use serde_json::Value;

/// The lab writes these beside the table it copied from the store; they are not on the store.
/// The lab's own records beside a table (facts, caption, a watch's events, the browser's looks), and
/// the browser's screenshots under `shots/`: none of them the table's.
const LAB_FILES: [&str; 4] = ["facts.json", "caption.md", "watch-events.jsonl", "browser-looks.jsonl"];

fn lab_file(path: &str) -> bool {
    LAB_FILES.contains(&path) || path.starts_with("shots/")
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.join("facts.json").is_file()).collect();
    v.sort();
    v
}

fn facts(root: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(root.join("facts.json")).unwrap()).unwrap()
}

fn open(root: &Path, mode: ReadMode) -> (LocalFolder, String, TableHistory, Vec<ListedFile>) {
    let folder = LocalFolder::open(root).unwrap();
    let metadata = newest_metadata(&folder).expect("metadata");
    let history = load_table(&folder, &metadata, mode).expect("loads");
    let listing: Vec<ListedFile> =
        listed_files(folder.index(), |p| folder.size_of(p), |p| folder.modified_ms(p)).into_iter().filter(|f| !lab_file(&f.path)).collect();
    (folder, metadata, history, listing)
}

#[test]
fn orphans_are_exactly_the_labs_census_on_every_fixture() {
    let (mut checked, mut censused) = (0, 0);
    for root in fixtures() {
        let name = root.file_name().unwrap().to_string_lossy().to_string();
        let f = facts(&root);
        let Some(expected) = f["store"]["orphans"].as_array() else { continue };
        let mut expected: Vec<String> = expected.iter().map(|v| v.as_str().unwrap().to_string()).collect();
        expected.sort();
        let (_, metadata, history, listing) = open(&root, ReadMode::All);
        let listed: Listing = listing.iter().cloned().collect();
        let report = orphans(&history, &listed, &table_root(&metadata).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let found: Vec<String> = report.data.iter().map(|o| o.path.to_string()).collect();
        assert_eq!(found, expected, "{name}: data orphans");
        // Sizes are the files' own.
        for o in &report.data {
            assert_eq!(o.size, Some(std::fs::metadata(root.join(o.path)).unwrap().len()), "{name}: {}", o.path);
        }
        let store = &f["store"];
        if let (Some(on_store), Some(referenced)) = (store["data_and_delete_files_on_store"].as_u64(), store["referenced_by_any_snapshot"].as_u64()) {
            let data_listed = listing.iter().filter(|l| !l.path.starts_with("metadata/")).count() as u64;
            assert_eq!(data_listed, on_store, "{name}: data and delete files listed");
            assert_eq!(data_listed - report.data.len() as u64, referenced, "{name}: referenced by any snapshot");
        }
        // The classification of metadata files agrees with the lab's census of the store.
        // (Only where the fixture holds every object of the store: merge-append-long keeps 11 of
        // its 135 metadata.json files in the repository.)
        if let Some(census) = store["census"].as_object().filter(|c| c["objects"].as_u64() == Some(listing.len() as u64)) {
            censused += 1;
            let under = |pred: &dyn Fn(&str) -> bool| listing.iter().filter(|l| l.path.strip_prefix("metadata/").is_some_and(pred)).count() as u64;
            assert_eq!(under(&|n| n.ends_with(".metadata.json")), census["metadata_json"].as_u64().unwrap(), "{name}: metadata.json files");
            assert_eq!(under(&|n| n.starts_with("snap-")), census["manifest_lists"].as_u64().unwrap(), "{name}: manifest lists");
            assert_eq!(under(&|n| n.ends_with(".avro") && !n.starts_with("snap-")), census["manifests"].as_u64().unwrap(), "{name}: manifests");
        }
        // Metadata orphans are apart from data ones, and a metadata.json orphan is one that neither the
        // current file nor its metadata log names (read here from the raw JSON, not icescope's decoder).
        let raw: Value = serde_json::from_slice(&std::fs::read(root.join(&metadata)).unwrap()).unwrap();
        let logged: Vec<String> = raw["metadata-log"]
            .as_array()
            .map(|v| v.iter().filter_map(|e| e["metadata-file"].as_str()).map(|s| s.rsplit('/').next().unwrap().to_string()).collect())
            .unwrap_or_default();
        let current = metadata.rsplit('/').next().unwrap().to_string();
        let stray: Vec<String> = listing
            .iter()
            .filter_map(|l| l.path.strip_prefix("metadata/"))
            .filter(|n| n.ends_with(".metadata.json") && *n != current && !logged.iter().any(|x| x == n))
            .map(|n| format!("metadata/{n}"))
            .collect();
        let json_orphans: Vec<String> = report.metadata.iter().filter(|o| o.kind == OrphanKind::MetadataJson).map(|o| o.path.to_string()).collect();
        assert_eq!(json_orphans, stray, "{name}: metadata.json outside the metadata log");
        assert!(report.metadata.iter().all(|o| o.path.starts_with("metadata/")), "{name}");
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} fixtures have a store census");
    assert!(censused >= 10, "only {censused} fixtures hold every object of their store");
}

#[test]
fn taskmanager_kill_finding_names_both_orphans_and_a_statement_that_spares_commits_in_flight() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/taskmanager-kill");
    let f = facts(&root);
    let (_, metadata, history, listing) = open(&root, ReadMode::All);
    let listed: Listing = listing.iter().cloned().collect();
    let report = orphans(&history, &listed, &table_root(&metadata).unwrap()).unwrap();
    let table = TableRef { catalog: "lab".into(), table: f["table"].as_str().unwrap().into() };
    let finding = finding(&report, &table).expect("a finding");
    assert_eq!(finding.kind, "orphan_files");
    for o in f["store"]["orphans"].as_array().unwrap() {
        assert!(finding.evidence.contains(o.as_str().unwrap()), "{}", finding.evidence);
    }
    let last = history.snapshots.iter().map(|s| s.snapshot.timestamp_ms).max().unwrap().max(history.metadata.last_updated_ms);
    assert_eq!(report.older_than_ms, last - IN_FLIGHT_MARGIN_MS);
    let ts = icescope::analysis::sql::timestamp(last - IN_FLIGHT_MARGIN_MS).unwrap();
    let name =
        icescope::analysis::sql::string(&icescope::analysis::sql::multipart(&f["table"].as_str().unwrap().split('.').collect::<Vec<_>>()).unwrap()).unwrap();
    assert_eq!(
        finding.statement.as_ref().map(|s| s.sql()).as_deref(),
        Some(format!("CALL lab.system.remove_orphan_files(table => {name}, older_than => {ts});").as_str())
    );
}

#[test]
fn a_file_newer_than_older_than_is_marked_spared_and_a_hostile_table_name_stays_a_literal() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/taskmanager-kill");
    let (_, metadata, history, mut listing) = open(&root, ReadMode::All);
    let listed: Listing = listing.iter().cloned().collect();
    let report = orphans(&history, &listed, "").unwrap();
    let (old, new) = (report.older_than_ms - 1, report.older_than_ms);
    let orphan_paths: Vec<String> = report.data.iter().map(|o| o.path.to_string()).collect();
    for l in listing.iter_mut().filter(|l| orphan_paths.contains(&l.path)) {
        l.modified_ms = Some(if l.path == orphan_paths[0] { old } else { new });
    }
    let listed: Listing = listing.iter().cloned().collect();
    let report = orphans(&history, &listed, &table_root(&metadata).unwrap()).unwrap();
    assert_eq!(report.data.iter().map(|o| o.spared).collect::<Vec<_>>(), vec![false, true]);
    let table = TableRef { catalog: "lab".into(), table: "db.t'); CALL lab.system.expire_snapshots('x".into() };
    let s = finding(&report, &table).unwrap().statement.unwrap().sql();
    // One statement: the name is one string literal (Spark's backslash escapes), then older_than.
    let rest = s.strip_prefix("CALL lab.system.remove_orphan_files(table => '").unwrap_or_else(|| panic!("{s}"));
    let mut chars = rest.char_indices();
    let end = loop {
        match chars.next() {
            Some((_, '\\')) => _ = chars.next(),
            Some((i, '\'')) => break i,
            Some(_) => {}
            None => panic!("unterminated literal: {s}"),
        }
    };
    assert!(rest[end + 1..].starts_with(", older_than => TIMESTAMP '") && rest.ends_with("');") && !rest[end + 1..].contains("CALL"), "{s}");
    let table = TableRef { catalog: "lab".into(), table: "db.t\nDROP".into() };
    assert_eq!(finding(&report, &table).unwrap().statement, None, "a name with a line break gets no statement");
}

#[test]
fn no_census_unless_every_manifest_was_read() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/taskmanager-kill");
    // Metadata-first: only some snapshots' manifests are read.
    let (_, metadata, history, listing) = open(&root, ReadMode::MetadataFirst);
    let listed: Listing = listing.iter().cloned().collect();
    let err = orphans(&history, &listed, &table_root(&metadata).unwrap()).unwrap_err();
    assert!(err.contains("read the full history"), "{err}");
    // Everything asked for, but one manifest is missing: the files only it names would pass for orphans.
    let folder = LocalFolder::open(&root).unwrap();
    let mut files = MemoryFiles::new();
    let victim = folder.index().paths().find(|p| p.ends_with("-m0.avro")).unwrap().to_string();
    for p in folder.index().paths().filter(|p| *p != victim) {
        files.insert(p.to_string(), folder.read_path(p).unwrap());
    }
    let history = load_table(&files, &metadata, ReadMode::All).unwrap();
    let listed: Listing = listing.iter().cloned().collect();
    let err = orphans(&history, &listed, "").unwrap_err();
    assert!(err.contains("1 manifest(s) could not be read"), "{err}");
}

#[test]
fn a_folder_picked_by_its_parent_finds_the_same_orphans_below_its_name() {
    // The browser's folder input names every file `taskmanager-kill/…`: the table sits one level down.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/taskmanager-kill");
    let folder = LocalFolder::open(&root).unwrap();
    let mut files = MemoryFiles::new();
    for p in folder.index().paths() {
        files.insert(format!("taskmanager-kill/{p}"), folder.read_path(p).unwrap());
    }
    let metadata = newest_metadata(&files).expect("metadata");
    let history = load_table(&files, &metadata, ReadMode::Auto).unwrap();
    let listing = listed_files(files.index(), |p| files.size_of(p), |_| None);
    let root_in_listing = table_root(&metadata).unwrap();
    assert_eq!(root_in_listing, "taskmanager-kill/");
    let listed: Listing = listing.iter().cloned().collect();
    let report = orphans(&history, &listed, &root_in_listing).unwrap_or_else(|e| panic!("{e}"));
    let mut want: Vec<String> =
        facts(&root)["store"]["orphans"].as_array().unwrap().iter().map(|v| format!("taskmanager-kill/{}", v.as_str().unwrap())).collect();
    want.sort();
    // The data files first, then the lab's notes, which are no table file.
    let mut notes: Vec<String> = LAB_FILES.iter().filter(|f| root.join(f).exists()).map(|f| format!("taskmanager-kill/{f}")).collect();
    notes.sort();
    want.extend(notes);
    assert_eq!(report.data.iter().map(|o| o.path.to_string()).collect::<Vec<_>>(), want);
}

#[test]
fn files_beside_the_table_that_are_no_table_file_are_told_apart_and_remove_orphan_files_is_said_to_take_them() {
    // taskmanager-kill as the lab left it: its two orphan Parquet files, and caption.md and
    // facts.json beside metadata/ (written by the lab, not by any writer).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/taskmanager-kill");
    let f = facts(&root);
    let folder = LocalFolder::open(&root).unwrap();
    let metadata = newest_metadata(&folder).unwrap();
    let history = load_table(&folder, &metadata, ReadMode::All).unwrap();
    let listed: Listing = listed_files(folder.index(), |p| folder.size_of(p), |p| folder.modified_ms(p)).into_iter().collect();
    let report = orphans(&history, &listed, &table_root(&metadata).unwrap()).unwrap();
    let mut want: Vec<String> = f["store"]["orphans"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
    want.sort();
    let of = |k: OrphanKind| report.data.iter().filter(|o| o.kind == k).map(|o| o.path.to_string()).collect::<Vec<_>>();
    assert_eq!(of(OrphanKind::Data), want);
    assert_eq!(of(OrphanKind::NotTableFile), ["caption.md", "facts.json"]);
    let finding = finding(&report, &TableRef { catalog: "lab".into(), table: "db.t".into() }).unwrap();
    assert_eq!(finding.title, format!("{} orphan files under the table location ({} data or delete, 0 metadata, 2 other)", want.len() + 2, want.len()));
    assert!(finding.evidence.contains("2 files beside them are no table file at all (not Parquet, ORC, Avro or Puffin): caption.md"), "{}", finding.evidence);
    assert!(finding.evidence.contains("remove_orphan_files deletes everything under the location"), "{}", finding.evidence);
    // `orphans --format text` counts them as the finding does: the lab's two notes are no data
    // files (issue 43: it said "4 data orphans"), and its rows say which is which.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_icescope")).args(["orphans", root.to_str().unwrap(), "--format", "text"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!(
            "{} files listed, {} referenced, {} orphan files: {} data or delete, 0 metadata, 2 other",
            report.listed,
            report.referenced,
            want.len() + 2,
            want.len()
        )
    );
    assert!(finding.title.ends_with(&format!("({} data or delete, 0 metadata, 2 other)", want.len())));
    let kinds: Vec<&str> = lines.take(want.len() + 2).map(|l| l.split_whitespace().next().unwrap()).collect();
    assert_eq!(kinds, [vec!["data"; want.len()], vec!["not_table_file"; 2]].concat());
}

#[test]
fn an_older_version_or_one_opened_past_a_damaged_newest_gives_no_census() {
    use icescope::analysis::orphans::census;
    use icescope::load::pick_metadata;
    // savepoint-twice keeps 20 metadata versions; v12 is the table before the second resume (facts.json resumes[1]).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/savepoint-twice");
    let folder = LocalFolder::open(&root).unwrap();
    let listed: Listing = listed_files(folder.index(), |p| folder.size_of(p), |p| folder.modified_ms(p)).into_iter().collect();
    let mut pick = futures::executor::block_on(pick_metadata(&folder)).unwrap();
    let newest = load_table(&folder, &pick.path, ReadMode::All).unwrap();
    assert!(census(&newest, &listed, "", Some(&pick)).is_ok());
    // Time travel: what v12 does not reference includes every file the newer snapshots added.
    let old = load_table(&folder, "metadata/v12.metadata.json", ReadMode::All).unwrap();
    let naive = orphans(&old, &listed, "").unwrap();
    assert!(naive.data.iter().filter(|o| o.kind == OrphanKind::Data).count() > 20, "the false orphans this guards against");
    let err = census(&old, &listed, "", Some(&pick)).unwrap_err();
    assert_eq!(
        err,
        "no orphan census: v12.metadata.json is an older version of the table (the newest is v20.metadata.json): the files newer snapshots added would pass for orphans; open the newest for the census"
    );
    // Opened past a newest file that does not read.
    pick.fell_back("metadata/v19.metadata.json", vec![(pick.path.clone(), "damaged".into())]);
    let v19 = load_table(&folder, &pick.path, ReadMode::All).unwrap();
    assert!(census(&v19, &listed, "", Some(&pick))
        .unwrap_err()
        .contains("v19.metadata.json is opened because newer metadata (v20.metadata.json) does not read"));
    // The CLI: `orphans --metadata v12…` refuses, and `inspect` offers no remove_orphan_files.
    let cli = |args: &[&str]| std::process::Command::new(env!("CARGO_BIN_EXE_icescope")).args(args).output().unwrap();
    let out = cli(&["orphans", root.to_str().unwrap(), "--metadata", "v12.metadata.json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("v12.metadata.json is an older version of the table"));
    let out = cli(&["inspect", root.to_str().unwrap(), "--metadata", "v12.metadata.json", "--all-snapshots", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["findings"].as_array().unwrap().iter().all(|f| f["kind"] != "orphan_files"));
    let out = cli(&["inspect", root.to_str().unwrap(), "--all-snapshots", "--format", "json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(report["findings"].as_array().unwrap().iter().any(|f| f["kind"] == "orphan_files"), "the newest version still gets its census");
}
