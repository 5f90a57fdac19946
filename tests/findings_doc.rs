//! docs/findings.md, the reference of finding kinds, against the code: one row per kind the code
//! defines (`FindingKind::ALL`), and each row's "shown by" true — the named folder, opened with the
//! named command, lists that kind; a kind no table here shows names the test that builds it, which
//! must mention it.

use std::path::Path;
use std::process::Command;

use icescope::analysis::findings::FindingKind;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// (kind, shown-by cell) of every row of the table.
fn rows() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(repo().join("docs/findings.md")).unwrap();
    let mut lines = text.lines().skip_while(|l| l.trim() != "| kind | severity | fires when | what to do | shown by |").skip(2);
    let mut out = Vec::new();
    for l in lines.by_ref().take_while(|l| l.starts_with('|')) {
        let cells: Vec<&str> = l.trim().trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(cells.len(), 5, "a row of five cells: {l}");
        out.push((cells[0].trim_matches('`').to_string(), cells[4].to_string()));
    }
    out
}

fn kinds_listed(args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_icescope")).args(args).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["findings"].as_array().unwrap().iter().map(|f| f["kind"].as_str().unwrap().to_string()).collect()
}

#[test]
fn every_kind_has_one_row_and_every_row_is_true() {
    let rows = rows();
    let names: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
    let mut want: Vec<&str> = FindingKind::ALL.iter().map(|k| k.as_str()).collect();
    want.sort_unstable();
    assert_eq!(names, want, "docs/findings.md: one row per kind, sorted by name");
    let mut unshown = Vec::new();
    for (kind, shown) in &rows {
        if let Some(folder) = shown.strip_prefix('`').and_then(|s| s.split('`').next()) {
            assert!(repo().join(folder).is_dir(), "{kind}: {folder} is not a folder here");
            let path = repo().join(folder).display().to_string();
            let command = if shown.contains("icescope footers") { "footers" } else { "inspect" };
            let listed = kinds_listed(&[command, &path, "--format", "json"]);
            assert!(listed.contains(kind), "{kind}: `icescope {command} {folder}` lists {listed:?}");
        } else if let Some(test) = shown.split("built in ").nth(1).map(|t| t.trim_end_matches(|c: char| !c.is_alphanumeric())) {
            let source = std::fs::read_to_string(repo().join(test)).unwrap_or_else(|e| panic!("{kind}: {test}: {e}"));
            let variant = FindingKind::ALL.iter().find(|k| k.as_str() == kind).map(|k| format!("{k:?}")).unwrap();
            assert!(source.contains(kind.as_str()) || source.contains(&variant), "{kind}: {test} does not mention it");
        } else {
            assert!(shown.starts_with("no table here shows it"), "{kind}: shown by {shown}");
            unshown.push(kind.as_str());
        }
    }
    // Kinds no table and no test here shows yet: named, so the list is seen to shrink.
    eprintln!("kinds no table or test here shows: {unshown:?}");
}
