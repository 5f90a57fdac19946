//! A damaged newest metadata.json: the folder opens at the newest version that reads, the pick
//! says which file did not read and why, and the report makes it a critical finding. On the lab's
//! savepoint-twice run (20 versions), its newest file damaged three ways a copy or a crash leaves
//! one; on its append-stream run (13 versions), the finding's every number.

use std::path::{Path, PathBuf};

use icescope::load::{load_pick, pick_metadata};
use icescope::model::ReadMode;
use icescope::source::local::LocalFolder;
use serde_json::Value;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn damaged(how: &str, damage: impl FnOnce(Vec<u8>) -> Vec<u8>) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/savepoint-twice");
    let dir = std::env::temp_dir().join(format!("icescope-fallback-{}-{how}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&src, &dir);
    let newest = dir.join("metadata/v20.metadata.json");
    let bytes = std::fs::read(&newest).unwrap();
    std::fs::write(&newest, damage(bytes)).unwrap();
    dir
}

#[test]
fn the_newest_that_reads_is_opened_and_the_damaged_one_is_named() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/savepoint-twice/metadata");
    let v19: Value = serde_json::from_slice(&std::fs::read(root.join("v19.metadata.json")).unwrap()).unwrap();
    let cases: [(&str, Box<dyn FnOnce(Vec<u8>) -> Vec<u8>>, &str); 3] = [
        ("cut", Box::new(|b: Vec<u8>| b[..b.len() / 2].to_vec()), "metadata/v20.metadata.json"),
        (
            "garbled",
            Box::new(|mut b: Vec<u8>| {
                let mid = b.len() / 2;
                b[mid..mid + 64].fill(0xff);
                b
            }),
            "metadata/v20.metadata.json",
        ),
        ("schema", Box::new(|b: Vec<u8>| String::from_utf8(b).unwrap().replacen("\"snapshots\"", "\"snapshots\": 7, \"x\"", 1).into_bytes()), "snapshots"),
    ];
    for (how, damage, named) in cases {
        let dir = damaged(how, damage);
        let folder = LocalFolder::open(&dir).unwrap();
        let mut pick = futures::executor::block_on(pick_metadata(&folder)).unwrap();
        assert_eq!(pick.path, "metadata/v20.metadata.json", "{how}: its head still says it is the newest");
        let loader = load_pick(&folder, &mut pick, ReadMode::All, false).unwrap_or_else(|e| panic!("{how}: {e}"));
        assert_eq!(loader.history.metadata_file, "metadata/v19.metadata.json", "{how}");
        assert_eq!(loader.history.snapshots.len(), v19["snapshots"].as_array().unwrap().len(), "{how}");
        assert_eq!(pick.path, "metadata/v19.metadata.json");
        assert_eq!(pick.unreadable.len(), 1, "{how}");
        assert_eq!(pick.unreadable[0].0, "metadata/v20.metadata.json");
        assert!(pick.unreadable[0].1.contains(named), "{how}: {}", pick.unreadable[0].1);
        assert!(pick.why.starts_with("the newest metadata file that reads: 1 newer one does not (metadata/v20.metadata.json: "), "{how}: {}", pick.why);
        assert_eq!(pick.why.matches("v20.metadata.json").count(), 1, "the file is named once: {}", pick.why);
        assert!(pick.why.ends_with("the table is shown as v19.metadata.json left it"), "{}", pick.why);
        // The CLI opens it too, and says so in its report.
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_icescope")).args(["inspect", dir.to_str().unwrap(), "--format", "json"]).output().unwrap();
        assert!(out.status.success(), "{how}: {}", String::from_utf8_lossy(&out.stderr));
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["load"]["metadata_pick"]["unreadable"][0][0], "metadata/v20.metadata.json");
        let f = &report["findings"][0];
        assert_eq!((f["kind"].as_str(), f["severity"].as_str()), (Some("newest_metadata_unreadable"), Some("critical")), "{how}");
        assert!(f["evidence"].as_str().unwrap().starts_with("metadata/v20.metadata.json: "), "{how}: {}", f["evidence"]);
        assert!(!f["evidence"].as_str().unwrap().contains("field `?`"), "{how}: {}", f["evidence"]);
        // A file named with --metadata is not replaced: its failure is the answer.
        let named = std::process::Command::new(env!("CARGO_BIN_EXE_icescope"))
            .args(["inspect", dir.to_str().unwrap(), "--metadata", "v20.metadata.json", "--format", "json"])
            .output()
            .unwrap();
        assert!(!named.status.success(), "{how}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The lab's append-stream run (13 versions, v13 the newest) copied with its newest metadata
/// file damaged by `damage` (and, where given, v12 too), and `hint` written as version-hint.text.
fn append_stream(how: &str, damage: &[(&str, fn(Vec<u8>) -> Vec<u8>)], hint: Option<&str>) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/append-stream");
    let dir = std::env::temp_dir().join(format!("icescope-damaged-{}-{how}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy_dir(&src, &dir);
    for (name, f) in damage {
        let file = dir.join("metadata").join(name);
        std::fs::write(&file, f(std::fs::read(&file).unwrap())).unwrap();
    }
    if let Some(h) = hint {
        std::fs::write(dir.join("metadata/version-hint.text"), h).unwrap();
    }
    dir
}

/// A metadata file of the fixture as written: its last-sequence-number and snapshot count.
fn real(version: u32) -> (i64, usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/append-stream/metadata/v{version}.metadata.json"));
    let m: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    (m["last-sequence-number"].as_i64().unwrap(), m["snapshots"].as_array().unwrap().len())
}

fn cli(dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_icescope")).arg("inspect").arg(dir).args(args).output().unwrap()
}

#[test]
fn a_damaged_newest_metadata_file_is_a_critical_finding_on_every_surface() {
    use icescope::analysis::findings::{FindingKind, Severity, TableRef};
    // Cut at byte 700, inside a key of the top object, as a copy or a write that stopped leaves it.
    let dir = append_stream("cut", &[("v13.metadata.json", |b| b[..700].to_vec())], None);
    let folder = LocalFolder::open(&dir).unwrap();
    let mut pick = futures::executor::block_on(pick_metadata(&folder)).unwrap();
    assert_eq!(pick.path, "metadata/v13.metadata.json", "its first 700 bytes still say it is the newest");
    let loader = load_pick(&folder, &mut pick, ReadMode::All, false).unwrap();
    assert_eq!(loader.history.metadata_file, "metadata/v12.metadata.json");
    // What the damaged file held, from the file as the lab wrote it: sequence 12 and 12 snapshots
    // against v12's 11 and 11, so exactly one snapshot is missing by either count.
    let ((seq13, snaps13), (seq12, snaps12)) = (real(13), real(12));
    let missing = seq13 - seq12;
    assert_eq!((missing, snaps13 - snaps12), (1, 1));
    assert_eq!(loader.history.snapshots.len(), snaps12);
    let table = TableRef::guess(&loader.history, None);
    let report = icescope::session::assemble::report(&loader.history, &table, &loader.stats, Some(pick.clone()), Vec::new());
    let found: Vec<_> = report.findings.iter().filter(|f| f.kind == FindingKind::NewestMetadataUnreadable).collect();
    assert_eq!(found.len(), 1);
    let f = found[0];
    assert_eq!(f.severity, Severity::Critical);
    assert_eq!(report.findings[0].kind, FindingKind::NewestMetadataUnreadable, "critical: among the first");
    assert_eq!(
        f.title,
        format!("The newest metadata file v13.metadata.json does not read: the table is shown as v12.metadata.json left it, {missing} snapshot short")
    );
    assert!(f.evidence.starts_with("metadata/v13.metadata.json: truncated at byte 700 (the file is 700 bytes). "), "{}", f.evidence);
    assert!(!f.evidence.contains("field `"), "{}", f.evidence);
    assert!(f.evidence.contains(&format!("It is the newest metadata file by content (last-sequence-number {seq13} in its first bytes)")), "{}", f.evidence);
    assert!(f.evidence.contains("every engine that loads the table through that pointer"), "{}", f.evidence);
    assert!(
        f.evidence.contains(&format!(
            "icescope opened v12.metadata.json instead, the newest that reads: {missing} snapshot committed after it is missing from every chart, count and finding here (last-sequence-number {seq13} in v13.metadata.json's first bytes, {seq12} in v12.metadata.json)"
        )),
        "{}",
        f.evidence
    );
    assert!(f.action.contains("point the table back at a file that reads") && f.action.contains("Run no maintenance"), "{}", f.action);
    assert!(f.statement.is_none(), "re-pointing a catalog is no statement to paste");

    // The CLI carries it in every format, and --fail-on critical fails on it.
    let json = cli(&dir, &["--format", "json"]);
    assert!(json.status.success(), "{}", String::from_utf8_lossy(&json.stderr));
    let json: Value = serde_json::from_slice(&json.stdout).unwrap();
    let f = json["findings"].as_array().unwrap().iter().find(|f| f["kind"] == "newest_metadata_unreadable").expect("the finding in the JSON");
    assert_eq!(f["severity"], "critical");
    assert_eq!(f["title"], json["findings"][0]["title"]);
    assert!(f["evidence"].as_str().unwrap().starts_with("metadata/v13.metadata.json: truncated at byte 700 (the file is 700 bytes). "));
    let text = String::from_utf8(cli(&dir, &["--format", "text"]).stdout).unwrap();
    assert!(
        text.contains(&format!(
            "[CRITICAL] {}\n  shows: metadata/v13.metadata.json: truncated at byte 700 (the file is 700 bytes). ",
            f["title"].as_str().unwrap()
        )),
        "{text}"
    );
    let md = String::from_utf8(cli(&dir, &["--format", "markdown"]).stdout).unwrap();
    assert!(
        md.contains(&format!(
            "#### [CRITICAL] {}\n\n**What the table shows:** metadata/v13.metadata.json: truncated at byte 700",
            f["title"].as_str().unwrap()
        )),
        "{md}"
    );
    let failed = cli(&dir, &["--format", "json", "--fail-on", "critical"]);
    assert_eq!(failed.status.code(), Some(1));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_damaged_versions_and_a_hint_naming_the_newest() {
    use icescope::analysis::findings::Severity;
    // v13 cut, v12 holding a number where its snapshots should be, version-hint.text naming v13.
    let dir = append_stream(
        "two",
        &[
            ("v13.metadata.json", |b| b[..700].to_vec()),
            ("v12.metadata.json", |b| String::from_utf8(b).unwrap().replacen("\"snapshots\"", "\"snapshots\": 7, \"x\"", 1).into_bytes()),
        ],
        Some("13"),
    );
    let folder = LocalFolder::open(&dir).unwrap();
    let mut pick = futures::executor::block_on(pick_metadata(&folder)).unwrap();
    assert_eq!(pick.hinted.as_deref(), Some("metadata/v13.metadata.json"));
    let loader = load_pick(&folder, &mut pick, ReadMode::All, false).unwrap();
    assert_eq!(loader.history.metadata_file, "metadata/v11.metadata.json");
    let ((seq13, snaps13), (seq11, snaps11)) = (real(13), real(11));
    assert_eq!((seq13 - seq11, snaps13 - snaps11), (2, 2));
    let table = icescope::analysis::findings::TableRef::guess(&loader.history, None);
    let report = icescope::session::assemble::report(&loader.history, &table, &loader.stats, Some(pick), Vec::new());
    let f = report.findings.iter().find(|f| f.kind == "newest_metadata_unreadable").unwrap();
    assert_eq!(f.severity, Severity::Critical);
    assert!(f.title.ends_with("shown as v11.metadata.json left it, 2 snapshots short"), "{}", f.title);
    assert!(
        f.evidence.contains(&format!(
            "It is the newest metadata file by content (last-sequence-number {seq13} in its first bytes), and the one version-hint.text names: "
        )),
        "{}",
        f.evidence
    );
    assert!(
        f.evidence.contains(&format!("2 snapshots committed after it are missing from every chart, count and finding here (last-sequence-number {seq13} in v13.metadata.json's first bytes, {seq11} in v11.metadata.json). By name it is 2 versions after v11.metadata.json.")),
        "{}",
        f.evidence
    );
    // The 1-based column of that 7 on the file's one line.
    let v12 = String::from_utf8(std::fs::read(dir.join("metadata/v12.metadata.json")).unwrap()).unwrap();
    let column = v12.find("\"snapshots\": 7").unwrap() + "\"snapshots\": 7".len();
    assert!(
        f.evidence.ends_with(&format!(
            " Older ones did not read either: metadata/v12.metadata.json: field `snapshots` has the wrong type: expected a JSON array, found integer `7` (line 1 column {column})."
        )),
        "{}",
        f.evidence
    );
    assert!(
        f.action.contains(
            "the catalog's metadata location (here version-hint.text) at v11.metadata.json, which drops the 2 snapshots only v13.metadata.json holds"
        ),
        "{}",
        f.action
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// As the app opens the folder (`session::open`, the session's answers): the finding is there
/// from the first answer, before any manifest is read, first of the criticals the alert strip
/// shows; and after the picker opens an older version it still says what is shown and why.
#[test]
fn the_app_sees_it_from_the_first_answer_and_after_time_travel() {
    use futures::executor::block_on;
    use icescope::analysis::findings::{FindingKind, Severity};
    use icescope::load::decoder::Inline;
    use icescope::session::open::{Naming, Version};
    use icescope::session::TableSession;
    use std::rc::Rc;
    let dir = append_stream("session", &[("v13.metadata.json", |b| b[..700].to_vec())], None);
    let files = Rc::new(LocalFolder::open(&dir).unwrap());
    let (loader, pick) = block_on(icescope::session::open::open("t", &*files, &Inline, Version::Newest, false)).unwrap();
    let pick = pick.unwrap();
    let mut session = TableSession::new("t".into(), files.clone(), Inline, loader, Some(pick.clone()), ReadMode::Auto);
    let first = session.answer(1);
    let f = &first.report.findings[0];
    assert_eq!((f.kind, f.severity), (FindingKind::NewestMetadataUnreadable, Severity::Critical));
    assert!(f.title.ends_with("shown as v12.metadata.json left it, 1 snapshot short"), "{}", f.title);
    // The picker: v11 chosen, the folder's pick kept with its damaged file.
    let chosen = Version::Named { name: "metadata/v11.metadata.json".into(), by: Naming::Picker, versions: Some(pick) };
    let (loader, pick) = block_on(icescope::session::open::open("t", &*files, &Inline, chosen, false)).unwrap();
    let mut session = TableSession::new("t".into(), files, Inline, loader, pick, ReadMode::Auto);
    let f = &session.answer(1).report.findings[0];
    assert_eq!(f.kind, FindingKind::NewestMetadataUnreadable);
    assert!(f.title.ends_with("shown as v11.metadata.json left it, 2 snapshots short"), "{}", f.title);
    assert!(
        f.evidence.contains("v11.metadata.json is shown, as chosen (the newest that reads is v12.metadata.json): 2 snapshots committed after it"),
        "{}",
        f.evidence
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A newest file cut before the fields that date it (0 bytes, or its first 20): the pick by content
/// cannot place it, so it is tried before the pick. It does not read: the same critical finding,
/// placed by its name; and no orphan census, whose statement would delete what it committed.
#[test]
fn a_newest_file_cut_before_its_age_is_tried_and_found_damaged() {
    use icescope::analysis::findings::{FindingKind, Severity};
    for (how, cut, said) in [("empty", 0, "empty (the file is 0 bytes)"), ("head", 20, "truncated at byte 20 (the file is 20 bytes)")] {
        let damage: fn(Vec<u8>) -> Vec<u8> = if cut == 0 { |_| Vec::new() } else { |b| b[..20].to_vec() };
        let dir = append_stream(how, &[("v13.metadata.json", damage)], None);
        let folder = LocalFolder::open(&dir).unwrap();
        let mut pick = futures::executor::block_on(pick_metadata(&folder)).unwrap();
        assert_eq!(pick.path, "metadata/v12.metadata.json", "{how}: by content v13 cannot be placed");
        assert!(pick.why.ends_with("v13.metadata.json has a higher version in its name but its first bytes state no age"), "{how}: {}", pick.why);
        assert_eq!(pick.undated_newer(), ["metadata/v13.metadata.json"]);
        let loader = load_pick(&folder, &mut pick, ReadMode::All, false).unwrap();
        assert_eq!(loader.history.metadata_file, "metadata/v12.metadata.json");
        assert_eq!(pick.unreadable, [("metadata/v13.metadata.json".to_string(), format!("metadata/v13.metadata.json: {said}"))], "{how}");
        let out = cli(&dir, &["--format", "json", "--all-snapshots"]);
        let json: Value = serde_json::from_slice(&out.stdout).unwrap();
        let f = &json["findings"][0];
        assert_eq!(f["kind"], FindingKind::NewestMetadataUnreadable.as_str(), "{how}");
        assert_eq!(f["severity"], serde_json::to_value(Severity::Critical).unwrap());
        assert_eq!(
            f["title"],
            "The newest metadata file v13.metadata.json does not read: the table is shown as v12.metadata.json left it, snapshots it adds unknown"
        );
        assert!(
            f["evidence"].as_str().unwrap().starts_with(&format!("metadata/v13.metadata.json: {said}. It is the highest version by name")),
            "{}",
            f["evidence"]
        );
        assert!(json["findings"].as_array().unwrap().iter().all(|f| f["kind"] != "orphan_files"), "{how}: v13's files would pass for orphans");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
