//! The session the app drives, run natively on the lab's fixtures (tables real Flink jobs wrote):
//! opened as the app opens a folder, its requests answered, and each answer checked against the
//! CLI's for the same table (the report, the comparison, the walk) and against what the lab
//! recorded from Spark (orphan files, duplicate keys, footers).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;

use futures::executor::block_on;
use icescope::analysis::findings::FindingKind;
use icescope::load::decoder::Inline;
use icescope::model::ReadMode;
use icescope::session::{Answer, Ask, TableSession};
use icescope::source::local::LocalFolder;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
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

/// Opened as the app opens a picked folder: the newest metadata file by content, Auto's plan.
fn open(root: &Path) -> TableSession<LocalFolder> {
    let name = root.file_name().unwrap().to_string_lossy().to_string();
    let files = Rc::new(LocalFolder::open(root).unwrap());
    let (loader, pick) =
        block_on(icescope::session::open::open(&name, &*files, &Inline, icescope::session::open::Version::Newest, false)).unwrap_or_else(|e| panic!("{e}"));
    let mut s = TableSession::new(name, files, Inline, loader, pick, ReadMode::Auto);
    run(&mut s, Vec::new());
    s
}

/// Takes the requests, then reads until the plan is complete through the drive every front end uses.
fn run(s: &mut TableSession<LocalFolder>, requests: Vec<Ask>) -> Answer {
    for r in requests {
        s.request(r);
    }
    block_on(icescope::session::drive::read_all(s));
    s.answer(0)
}

/// What `icescope <args>` prints as JSON.
fn cli(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_icescope")).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_report_the_comparison_and_the_walk_are_the_clis_on_every_fixture() {
    for root in fixtures() {
        let dir = root.to_str().unwrap();
        let mut s = open(&root);
        let first = s.answer(0);
        assert!(first.complete, "{dir}");
        let report = serde_json::to_value(&*first.report).unwrap();
        let printed = cli(&["inspect", dir, "--format", "json"]);
        assert_eq!(report["snapshots"], printed["snapshots"], "{dir}: snapshots");
        assert_eq!(report["findings"], printed["findings"], "{dir}: findings");
        assert_eq!(report["load"]["metadata_pick"], printed["load"]["metadata_pick"], "{dir}: the metadata file picked");
        if s.loader.history.snapshots.len() < 2 {
            continue;
        }
        let answer = run(&mut s, vec![Ask::Compare("parent".into(), "current".into())]);
        let (d, md) = answer.diff.as_deref().unwrap().as_ref().unwrap_or_else(|e| panic!("{dir}: {e}"));
        assert_eq!(serde_json::to_value(d).unwrap(), cli(&["diff", dir, "--from", "parent", "--to", "current", "--format", "json"]), "{dir}: diff");
        assert!(md.contains(&icescope::report::diff::sentence(&d.totals)), "{dir}");
        let current = s.loader.history.current_index().unwrap();
        let answer = run(&mut s, vec![Ask::Walk(current, None)]);
        let walked = cli(&["walk", dir, "--to", "current"]);
        let shown = serde_json::to_value(&*answer.walk).unwrap();
        assert_eq!(shown["snapshot"], walked["snapshot"], "{dir}: walk");
        assert_eq!(shown["metadata_file"], walked["metadata_file"], "{dir}: walk");
    }
}

#[test]
fn a_job_alone_is_its_range_and_itself_against_current_is_explained_as_the_cli_says() {
    let root = fixture("savepoint-twice");
    let dir = root.to_str().unwrap();
    let mut s = open(&root);
    // The app's "to" left empty beside job:<id>: the CLI's --job.
    let answer = run(&mut s, vec![Ask::Compare("job:eb1278fa".into(), String::new())]);
    let (d, _) = answer.diff.as_deref().unwrap().as_ref().unwrap_or_else(|e| panic!("{e}"));
    assert!(d.exact);
    assert_eq!(d.totals.records_added, 72_726, "the third job's added-records in facts.json");
    assert_eq!(serde_json::to_value(d).unwrap(), cli(&["diff", dir, "--job", "eb1278fa"]));
    let answer = run(&mut s, vec![Ask::Compare("job:eb1278fa".into(), "current".into())]);
    let refused = answer.diff.as_deref().unwrap().as_ref().unwrap_err();
    assert!(refused.starts_with("both sides are snapshot 9185495785604472153: nothing to compare."), "{refused}");
    let out = Command::new(env!("CARGO_BIN_EXE_icescope")).args(["diff", dir, "--from", "job:eb1278fa", "--to", "current"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stderr), format!("icescope: {refused}\n"));
}

#[test]
fn the_full_history_brings_the_orphan_files_the_lab_found_on_the_store() {
    let mut with_orphans = 0;
    for root in fixtures() {
        let Some(expected) = facts(&root)["store"]["orphans"].as_array().map(Vec::len) else { continue };
        let mut s = open(&root);
        let before = s.answer(0);
        let read_all = s.loader.history.read_mode() == Some(ReadMode::All);
        if !read_all {
            assert!(!before.report.findings.iter().any(|f| f.kind == "orphan_files"), "{}: no census before every manifest is read", root.display());
        }
        let after = run(&mut s, vec![Ask::AllSnapshots]);
        // The lab's census is of the store: data and delete files no snapshot names. The folder
        // also holds the lab's own records (facts.json, caption.md, a watch's events, the browser's
        // looks and its screenshots), which the census counts as other files.
        let shots = std::fs::read_dir(root.join("shots")).map(|d| d.count()).unwrap_or(0);
        let notes = ["facts.json", "caption.md", "watch-events.jsonl", "browser-looks.jsonl"].iter().filter(|f| root.join(f).exists()).count() + shots;
        let found = after.report.findings.iter().find(|f| f.kind == "orphan_files").unwrap_or_else(|| panic!("{}: no census", root.display()));
        assert!(
            found.title.contains(&format!("({expected} data or delete, ")) && found.title.ends_with(&format!(", {notes} other)")),
            "{}: {expected} orphans: {}",
            root.display(),
            found.title
        );
        with_orphans += usize::from(expected > 0);
    }
    assert!(with_orphans >= 5, "the fixtures exercise the census");
}

#[test]
fn duplicates_and_footers_through_the_session_are_sparks() {
    let root = fixture("savepoint-twice");
    let s = open(&root);
    let f = facts(&root);
    let r = block_on(s.count_duplicates(&["id".to_string()], icescope::analysis::duplicates::DEFAULT_KEY_BUDGET, &mut |_| {}, &|| false)).unwrap();
    let table = &f["final_table"];
    assert_eq!((Some(r.rows), Some(r.distinct_keys)), (table["rows"].as_u64(), table["distinct_ids"].as_u64()));
    assert_eq!(r.duplicated_keys, f["after_second_resume"]["duplicates"].as_u64());
    assert_eq!(r.whole_file_answers, 0, "a folder reads real ranges");

    let mut s = open(&fixture("v3-deletion-vectors"));
    let dv = &facts(&fixture("v3-deletion-vectors"))["deletion_vectors"];
    let mut steps = 0;
    block_on(s.read_footers(&mut |_, _| steps += 1, &|| false)).unwrap();
    assert!(steps > 0, "progress is reported");
    let answer = s.answer(0);
    let footers = answer.footers.as_deref().expect("the footers join the answer");
    assert_eq!(footers.files as u64, dv["live_data_files"].as_u64().unwrap());
    assert_eq!(footers.deletion_vectors.vectors as u64, dv["live_deletion_vectors"].as_u64().unwrap());
    assert_eq!(footers.deletion_vectors.puffin_files as u64, dv["puffin_files"].as_u64().unwrap());
    assert_eq!((footers.record_count_mismatches, footers.size_mismatches, footers.unreadable), (0, 0, 0));
}

/// Savepoints handed to a session opened at the version just before C resumed (as the app's
/// picker opens it): its answer judges them as `icescope savepoint` does, and the ticket's
/// Markdown carries them with the catalog typed.
#[test]
fn savepoints_are_judged_against_the_open_version_and_join_the_ticket() {
    use icescope::session::savepoint::{metadata_among, read_savepoints};
    let root = fixture("savepoint-resume");
    let f = facts(&root);
    let before_c = f["resumes"][1]["table_before"]["metadata_file"].as_str().unwrap();
    let files = Rc::new(LocalFolder::open(&root).unwrap());
    let (loader, pick) = block_on(icescope::session::open::open(
        "savepoint-resume",
        &*files,
        &Inline,
        icescope::session::open::Version::File(format!("metadata/{before_c}")),
        false,
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    let mut s = TableSession::new("savepoint-resume".into(), files, Inline, loader, pick, ReadMode::Auto);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/savepoints/savepoint-resume");
    let listed: Vec<String> = ["S1", "S2", "chk-10"].iter().map(|d| dir.join(d).join("_metadata").display().to_string()).collect();
    let read = block_on(read_savepoints(&icescope::source::local::PlainFiles, &metadata_among(listed.iter().map(String::as_str)).unwrap()));
    assert_eq!((read.reads.len(), read.unreadable.len()), (3, 0), "{:?}", read.unreadable);
    let view = run(&mut s, vec![Ask::Savepoints(std::sync::Arc::new(read))]);
    let judged = view.report.savepoints.as_ref().expect("judged");
    let cli_rows = cli(&["savepoint", dir.to_str().unwrap(), "--table", root.to_str().unwrap(), "--metadata", before_c, "--format", "json"]);
    let cli_rows = cli_rows["savepoints"].as_array().unwrap();
    assert_eq!(judged.verdicts.len(), cli_rows.len());
    for ((i, v), c) in judged.verdicts.iter().zip(cli_rows) {
        assert_eq!(serde_json::to_value(v).unwrap(), c["verdict"], "{}", judged.savepoints.reads[*i].path);
    }
    let s1 = judged.verdicts.iter().find(|(i, _)| judged.savepoints.reads[*i].path.ends_with("S1/_metadata")).unwrap();
    assert_eq!(s1.1.rows_committed_after, f["after_c"]["duplicates"].as_u64(), "the rows Spark counted twice after C");
    let md = icescope::report::inspect::markdown::markdown_in(&view.report, "lab");
    let call =
        format!("CALL lab.system.rollback_to_snapshot(table => 'icescope.savepoint_resume', snapshot_id => {});", s1.1.rollback_target_snapshot_id.unwrap());
    let section = md.find("### Before you resume").expect("the ticket carries the section");
    assert!(md[section..].contains(&call), "{}", &md[section..]);
}

/// savepoint-twice with its own savepoint, as the app holds it (the newest version, savepoint A
/// dropped in *Before you resume*): the ticket gives one statement for the incident first, the
/// replay finding's (it keeps job B's rows), and A's rollback after it, labelled as the answer to
/// "resume from this savepoint again", with what it removes in numbers; A says it stands behind
/// the finding.
#[test]
fn the_ticket_gives_one_statement_per_incident_and_labels_the_savepoints() {
    use icescope::session::savepoint::{metadata_among, read_savepoints};
    let root = fixture("savepoint-twice");
    let f = facts(&root);
    let files = Rc::new(LocalFolder::open(&root).unwrap());
    let (loader, pick) = block_on(icescope::session::open::open("savepoint-twice", &*files, &Inline, icescope::session::open::Version::Newest, false))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut s = TableSession::new("savepoint-twice".into(), files, Inline, loader, pick, ReadMode::Auto);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/savepoints/savepoint-twice/A/_metadata");
    let listed = [dir.display().to_string()];
    let read = block_on(read_savepoints(&icescope::source::local::PlainFiles, &metadata_among(listed.iter().map(String::as_str)).unwrap()));
    let view = run(&mut s, vec![Ask::Savepoints(std::sync::Arc::new(read))]);
    let md = icescope::report::inspect::markdown::markdown_in(&view.report, "lab");
    // The incident's statement: the table just before job C, as the lab recorded it before C's resume.
    let before_c = f["after_first_resume"]["snapshot_id"].as_i64().unwrap();
    let incident = format!("CALL lab.system.rollback_to_snapshot(table => 'icescope.savepoint_twice', snapshot_id => {before_c});");
    // A's own: job A's last commit, the table just after its stop.
    let after_stop = f["after_stop"]["snapshot_id"].as_i64().unwrap();
    let resume_again = format!("CALL lab.system.rollback_to_snapshot(table => 'icescope.savepoint_twice', snapshot_id => {after_stop});");
    let recommended = md.find("### Recommended: the statement for the incident").expect("one recommended statement");
    let findings = md.find("### Findings").unwrap();
    assert!(recommended < findings);
    assert_eq!(md[recommended..findings].matches("CALL ").count(), 1, "{}", &md[recommended..findings]);
    assert!(md[recommended..findings].contains(&incident), "{}", &md[recommended..findings]);
    let section = md.find("### Before you resume").unwrap();
    let a = &md[section..];
    assert!(a.contains("This is the savepoint behind the finding"), "{a}");
    let label = a.find("Only to resume from this savepoint again:").expect("A's statement is labelled");
    assert!(a[label..].contains(&resume_again), "{a}");
    // What it removes: both resumes, every row committed after A (Spark: all rows minus job A's).
    let removed = f["after_second_resume"]["rows"].as_u64().unwrap() - f["after_stop"]["rows"].as_u64().unwrap();
    let (_, v) = &view.report.savepoints.as_ref().unwrap().verdicts[0];
    assert_eq!(v.rollback_removes.as_ref().and_then(|r| r.rows), Some(removed));
    assert_eq!(v.rows_committed_after, Some(removed));
    let c_wrote = f["after_second_resume"]["rows"].as_u64().unwrap() - f["after_first_resume"]["rows"].as_u64().unwrap();
    assert_eq!(v.resume_writes.as_ref().and_then(|w| w.rows), Some(c_wrote));
}

/// Watched as the app's Live switch does: savepoint-twice opened as it stood after job B's first
/// commit, advanced to its newest metadata file, looked at, answered. The answer after the look
/// takes the look's job spans and findings; one made afresh right after is the same, and both
/// show the replay the third job made.
#[test]
fn an_answer_after_a_look_is_the_answer_made_afresh() {
    let root = fixture("savepoint-twice");
    let name = "savepoint-twice".to_string();
    let files = Rc::new(LocalFolder::open(&root).unwrap());
    let (loader, pick) =
        block_on(icescope::session::open::open(&name, &*files, &Inline, icescope::session::open::Version::File("metadata/v5.metadata.json".into()), false))
            .unwrap();
    let mut s = TableSession::new(name, files.clone(), Inline, loader, pick, ReadMode::Auto);
    run(&mut s, Vec::new());
    s.look(0, Default::default());
    let before = s.answer(0);
    let newest = std::fs::read_dir(root.join("metadata"))
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_str()?.strip_prefix('v')?.strip_suffix(".metadata.json")?.parse::<u32>().ok())
        .max()
        .map(|v| format!("metadata/v{v}.metadata.json"))
        .unwrap();
    block_on(s.advance(files, &newest)).unwrap();
    run(&mut s, Vec::new());
    s.look(1, Default::default());
    let after_look = s.answer(0);
    let afresh = s.answer(0);
    assert_eq!(after_look.report.findings, afresh.report.findings);
    assert_eq!(after_look.jobs, afresh.jobs);
    assert_eq!(after_look.jobs.len(), 3, "three job ids");
    assert!(before.report.findings.iter().all(|f| f.kind != FindingKind::SavepointReplayed));
    assert!(after_look.report.findings.iter().any(|f| f.kind == FindingKind::SavepointReplayed));
    let live = after_look.live.as_ref().unwrap();
    assert!(live.events.iter().any(|e| matches!(e.event, icescope::analysis::live::Event::Finding(ref f) if f.kind == FindingKind::SavepointReplayed)));
}
