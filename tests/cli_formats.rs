//! The CLI's formats do what `--help` says: text is text (with the findings), Markdown is
//! Markdown, anything else is refused by the parser; a checkpoint id two jobs committed is
//! named by job. On the lab's savepoint-twice run (Flink 2, three job ids).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_icescope")).args(args).output().expect("the CLI runs")
}

fn stdout(args: &[&str]) -> String {
    let out = run(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn jobs() -> Vec<String> {
    let facts: serde_json::Value = serde_json::from_slice(&std::fs::read(fixture("savepoint-twice").join("facts.json")).unwrap()).unwrap();
    facts["jobs"].as_array().unwrap().iter().map(|j| j["job_id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn inspect_text_prints_every_finding_the_json_has() {
    let t = fixture("savepoint-twice");
    let json: serde_json::Value = serde_json::from_str(&stdout(&["inspect", t.to_str().unwrap(), "--format", "json"])).unwrap();
    let text = stdout(&["inspect", t.to_str().unwrap(), "--format", "text"]);
    let findings = json["findings"].as_array().unwrap();
    assert!(text.contains(&format!("\nfindings ({}):\n", findings.len())), "{text}");
    for f in findings {
        assert!(text.contains(&format!("] {}\n", f["title"].as_str().unwrap())), "{}", f["title"]);
        if let Some(s) = f["statement"].as_str() {
            assert!(text.contains(&format!("  run: {s}\n")), "{s}");
        }
    }
    assert!(text.contains("[CRITICAL] "));
}

#[test]
fn diff_text_is_not_markdown_and_other_formats_are_refused() {
    let t = fixture("savepoint-twice");
    let jobs = jobs();
    let text = stdout(&["diff", t.to_str().unwrap(), "--from", &format!("job:{}", &jobs[1][..8]), "--format", "text"]);
    assert!(!text.contains("|---") && !text.contains("###") && !text.contains('`'), "{text}");
    assert!(text.contains("commits in between ("), "{text}");
    assert!(text.contains(&jobs[2]), "the third job's commits are listed");
    let md = stdout(&["diff", t.to_str().unwrap(), "--from", &format!("job:{}", &jobs[1][..8]), "--format", "markdown"]);
    assert!(md.contains("|---"));
    for cmd in ["inspect", "diff", "orphans", "footers", "duplicates"] {
        let out = run(&[cmd, t.to_str().unwrap(), "--format", "xml"]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("[possible values: json, text, markdown]"), "{cmd}");
    }
}

#[test]
fn a_checkpoint_two_jobs_committed_is_named_by_job_and_backwards_is_said() {
    let t = fixture("savepoint-twice");
    let jobs = jobs();
    let out = run(&["diff", t.to_str().unwrap(), "--from", "checkpoint:7", "--format", "json"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 jobs committed checkpoint 7"), "{err}");
    assert!(err.contains(&format!("checkpoint:7@{}", jobs[1])) && err.contains(&format!("checkpoint:7@{}", jobs[2])), "{err}");
    assert!(!err.contains(&format!("checkpoint:7@{}", jobs[0])), "the first job stopped at checkpoint 4");
    let from = format!("checkpoint:7@{}", &jobs[2][..8]);
    let to = format!("checkpoint:7@job:{}", &jobs[1][..8]);
    let d: serde_json::Value = serde_json::from_str(&stdout(&["diff", t.to_str().unwrap(), "--from", &from, "--to", &to, "--format", "json"])).unwrap();
    assert_eq!(d["backwards"], true);
    assert_eq!(d["from"]["flink_job_id"], jobs[2].as_str());
    assert_eq!(d["to"]["flink_job_id"], jobs[1].as_str());
    let text = stdout(&["diff", t.to_str().unwrap(), "--from", &from, "--to", &to, "--format", "text"]);
    assert!(text.contains(icescope::report::diff::BACKWARDS), "{text}");
}

#[test]
fn diff_job_is_what_the_job_added_and_a_snapshot_against_itself_exits_2() {
    let t = fixture("savepoint-twice");
    let t = t.to_str().unwrap();
    let facts: serde_json::Value = serde_json::from_slice(&std::fs::read(fixture("savepoint-twice").join("facts.json")).unwrap()).unwrap();
    let jobs = jobs();
    let added =
        |job: &str| facts["commits"].as_array().unwrap().iter().filter(|c| c["flink_job_id"] == job).map(|c| c["added_records"].as_u64().unwrap()).sum::<u64>();
    // --job: from the table just before the job's first commit to its last; the third job's 8
    // commits added 72,726 rows (facts.json), from after_first_resume to the current snapshot.
    let d: serde_json::Value = serde_json::from_str(&stdout(&["diff", t, "--job", &jobs[2][..8]])).unwrap();
    assert_eq!(d["totals"]["records_added"].as_u64(), Some(added(&jobs[2])));
    assert_eq!(d["totals"]["records_added"].as_u64(), Some(72_726));
    assert_eq!(d["from"]["snapshot_id"], facts["after_first_resume"]["snapshot_id"]);
    assert_eq!(d["to"]["snapshot_id"], facts["after_second_resume"]["snapshot_id"]);
    assert_eq!(d["between_total"], 8);
    // The same as first:/last:, and `job:` may be written out.
    let spelled: serde_json::Value =
        serde_json::from_str(&stdout(&["diff", t, "--from", &format!("first:{}", &jobs[2][..8]), "--to", &format!("last:{}", &jobs[2][..8])])).unwrap();
    assert_eq!(spelled, d);
    let written: serde_json::Value = serde_json::from_str(&stdout(&["diff", t, "--job", &format!("job:{}", &jobs[2][..8])])).unwrap();
    assert_eq!(written, d);
    // The first job created the table: its range starts from the empty table (27,274 rows, after_stop).
    let first: serde_json::Value = serde_json::from_str(&stdout(&["diff", t, "--job", &jobs[0][..8]])).unwrap();
    assert_eq!(first["from"]["snapshot_id"], serde_json::Value::Null);
    assert_eq!(first["totals"]["records_added"], facts["after_stop"]["rows"]);
    assert_eq!(first["totals"]["records_added"].as_u64(), Some(added(&jobs[0])));
    let text = stdout(&["diff", t, "--job", &jobs[0][..8], "--format", "text"]);
    assert!(text.contains(": the empty table -> snapshot "), "{text}");
    // The current job's last commit is current: nothing to compare, said on stderr, exit 2.
    let out = run(&["diff", t, "--from", &format!("job:{}", &jobs[2][..8]), "--to", "current"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    let current = facts["after_second_resume"]["snapshot_id"].as_i64().unwrap();
    assert!(err.starts_with(&format!("icescope: both sides are snapshot {current}: nothing to compare. What job {} added: first:", &jobs[2][..8])), "{err}");
    // --job is the whole comparison: with --from or --to it is refused by the parser.
    assert_eq!(run(&["diff", t, "--job", &jobs[2][..8], "--to", "current"]).status.code(), Some(2));
}

/// `load.phases`: the metadata file, the manifest lists and the manifests `--reads` lists, with
/// their sizes on disk, each phase ending after the one before; the text says the same.
#[test]
fn the_read_phases_are_the_files_read() {
    for name in ["merge-append-long", "taskmanager-kill", "v3-deletion-vectors"] {
        let t = fixture(name);
        let json: serde_json::Value = serde_json::from_str(&stdout(&["inspect", t.to_str().unwrap(), "--format", "json"])).unwrap();
        let reads = stdout(&["inspect", t.to_str().unwrap(), "--reads"]);
        let size = |p: &str| std::fs::metadata(t.join("metadata").join(p.rsplit('/').next().unwrap())).unwrap().len();
        let paths: Vec<&str> = reads.lines().collect();
        let (lists, manifests): (Vec<&str>, Vec<&str>) = paths[1..].iter().partition(|p| p.rsplit('/').next().unwrap().starts_with("snap-"));
        let phases = json["load"]["phases"].as_array().unwrap();
        let row = |i: usize| (phases[i]["phase"].as_str().unwrap().to_string(), phases[i]["files"].as_u64().unwrap(), phases[i]["bytes"].as_u64().unwrap());
        assert_eq!(row(0), ("metadata".into(), 1, size(paths[0])), "{name}");
        assert_eq!(row(1), ("manifest_lists".into(), lists.len() as u64, lists.iter().map(|p| size(p)).sum()), "{name}");
        assert_eq!(row(2), ("manifests".into(), manifests.len() as u64, manifests.iter().map(|p| size(p)).sum()), "{name}");
        let done: Vec<f64> = phases.iter().map(|p| p["done_s"].as_f64().unwrap()).collect();
        assert!(done[0] <= done[1] && done[0] <= done[2], "{name}: {done:?}");
        assert!(json["load"]["requests"].is_null(), "{name}: a folder is read without HTTP");
        let text = stdout(&["inspect", t.to_str().unwrap(), "--format", "text"]);
        assert!(text.contains("read: metadata 1 file, ") && text.contains(&format!("; manifest lists {} files, ", lists.len())), "{name}: {text}");
    }
}
