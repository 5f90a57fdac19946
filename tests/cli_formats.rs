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
