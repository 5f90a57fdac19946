//! Two deployments of one job graph on one table (the lab's two-deployments run, parallelism 2,
//! followed by `icescope watch`): job 1 ran and took savepoint A; job 2 was submitted fresh beside
//! it and cancelled without a savepoint; job 3 was restored from job 1's older savepoint A while
//! job 1 ran on, and job 1 was then stopped with savepoint B. Every expected number comes from the
//! run's facts.json (Flink's REST API and Spark) or the kept savepoints.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn facts() -> Value {
    serde_json::from_slice(&std::fs::read(root().join("tests/fixtures/two-deployments/facts.json")).unwrap()).unwrap()
}

fn cli(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_icescope")).args(args).current_dir(root()).output().unwrap();
    assert!(out.status.code().is_some_and(|c| c == 0 || c == 1), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
}

fn findings_at(version: Option<&str>) -> Vec<Value> {
    let mut args = vec!["inspect", "tests/fixtures/two-deployments", "--format", "json"];
    if let Some(v) = version {
        args.extend(["--metadata", v]);
    }
    cli(&args)["findings"].as_array().unwrap().clone()
}

fn labels(f: &Value) -> (String, String, String) {
    let l = &f["job_labels"];
    (l["1"].as_str().unwrap().into(), l["2"].as_str().unwrap().into(), l["3"].as_str().unwrap().into())
}

/// The table at the end: job 3's replay of A's stretch is the critical finding, naming job 3 and
/// job 1; jobs 1 and 2 are two writers at once; job 3 is nobody's ordinary resume — least of all
/// job 2's, the cancelled other deployment's.
#[test]
fn the_end_state_names_the_right_jobs() {
    let f = facts();
    let (j1, j2, j3) = labels(&f);
    let all = findings_at(None);
    let of = |kind: &str| all.iter().filter(|x| x["kind"] == kind).collect::<Vec<_>>();
    let replay = of("savepoint_replayed");
    assert_eq!(replay.len(), 1, "{replay:#?}");
    assert_eq!(replay[0]["job_ids"], serde_json::json!([j3, j1]));
    // The rollback keeps everything before job 3's first commit: job 1's last commit.
    let commits = f["commits"].as_array().unwrap();
    let first3 = commits.iter().position(|c| c["flink_job_id"] == j3.as_str()).unwrap();
    let before = commits[..first3].iter().rev().find(|c| c["flink_job_id"] == j1.as_str()).unwrap();
    assert!(replay[0]["statement"].as_str().unwrap().contains(&format!("snapshot_id => {}", before["snapshot_id"])), "{}", replay[0]["statement"]);
    // Restored from about A's checkpoint, as its first commit's size says.
    let a = f["savepoints"][0]["checkpoint_id"].as_i64().unwrap();
    assert!(replay[0]["title"].as_str().unwrap().contains(&format!("about checkpoint {a}")), "{}", replay[0]["title"]);
    let concurrent = of("concurrent_writers");
    assert!(concurrent.iter().any(|c| c["job_ids"] == serde_json::json!([j1, j2])), "{concurrent:#?}");
    for r in of("job_resumed") {
        assert!(r["job_ids"][1] != j3.as_str(), "job 3 called a resume: {r:#}");
    }
}

/// Every version the watch saw: job 2's first commit, fresh beside a running job 1, is two
/// writers at once from the first look, never a "re-read the source from the start" replay that
/// turns into something else one look later.
#[test]
fn a_fresh_deployment_beside_a_running_one_is_two_writers_from_the_first_look() {
    let f = facts();
    let (j1, j2, _) = labels(&f);
    let dir = root().join("tests/fixtures/two-deployments/metadata");
    let mut versions: Vec<(u64, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            Some((name.strip_prefix('v')?.strip_suffix(".metadata.json")?.parse().ok()?, name))
        })
        .collect();
    versions.sort();
    let mut seen_both = false;
    for (_, name) in &versions {
        let all = findings_at(Some(name));
        for x in all.iter().filter(|x| x["kind"] == "savepoint_replayed") {
            assert!(x["job_ids"][0] != j2.as_str(), "{name}: job 2 called a replay: {x:#}");
        }
        let has_j2 = cli(&["inspect", "tests/fixtures/two-deployments", "--metadata", name, "--format", "json"])["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .any(|j| j["job_id"] == j2.as_str());
        if has_j2 {
            seen_both = true;
            assert!(
                all.iter().any(|x| x["kind"] == "concurrent_writers" && x["job_ids"] == serde_json::json!([j1, j2])),
                "{name}: job 2 committed, no concurrent-writers finding"
            );
        }
    }
    assert!(seen_both, "some version holds job 2's commits");
}

/// The pre-flight, A and B read together against the end state: job 3 is tied to A only by
/// inference (through FlinkSink a restore of any checkpoint of job 1 up to the one it had committed
/// when job 3 started makes the same first commit), its first commit's size pointing near A; job 2,
/// a fresh deployment, replays nothing of A; B's stretch holds job 3's rows as another lineage's.
#[test]
fn the_preflight_counts_no_other_deployments_rows_and_infers_job_3() {
    let f = facts();
    let (j1, j2, j3) = labels(&f);
    let v = cli(&["savepoint", "tests/savepoints/two-deployments", "--table", "tests/fixtures/two-deployments", "--format", "json"]);
    let row = |label: &str| {
        v["savepoints"].as_array().unwrap().iter().find(|r| r["savepoint"]["path"].as_str().unwrap().ends_with(&format!("{label}/_metadata"))).unwrap()
    };
    let va = &row("A")["verdict"];
    let a = va["checkpoint_id"].as_i64().unwrap();
    let replayed = va["replayed"].as_array().unwrap();
    assert!(!replayed.iter().any(|r| r["job_id"] == j2.as_str()), "job 2 is another deployment: {va:#}");
    let r1 = replayed.iter().find(|r| r["job_id"] == j1.as_str()).unwrap();
    let r3 = replayed.iter().find(|r| r["job_id"] == j3.as_str()).unwrap();
    assert_eq!(r1["tie"]["how"], "took_it");
    assert_eq!(r3["tie"]["how"], "inferred", "{r3:#}");
    assert_eq!(va["jobs_already_resumed"], serde_json::json!([]));
    assert_eq!(va["jobs_maybe_resumed"], serde_json::json!([j3]));
    let likely = r3["tie"]["likely_checkpoint"].as_i64().unwrap();
    let b = row("B")["verdict"]["checkpoint_id"].as_i64().unwrap();
    assert!((likely - a).abs() < (likely - b).abs(), "likely {likely}, A {a}, B {b}");
    // Job 3's rows as Spark attributes them; job 1's after A are at most what job 3 wrote twice.
    let spark = |job: &str| f["rows_by_writer"]["per_job"].as_array().unwrap().iter().find(|p| p["job"] == job).unwrap()["rows"].as_u64().unwrap();
    assert_eq!(r3["rows"].as_u64(), Some(spark(&j3)));
    let twice = f["rows_by_writer"]["duplicated_ids_by_job_set"].as_array().unwrap().iter().find(|d| d["jobs"].as_str().unwrap().contains(&j3)).unwrap();
    assert!(r1["rows"].as_u64().unwrap() >= twice["ids"].as_u64().unwrap(), "{r1:#} vs {twice:#}");
    assert_eq!(r1["estimated"], true, "A was taken while job 1 ran on, and job 1 made no commit of A's checkpoint");
    let vb = &row("B")["verdict"];
    let b3 = vb["replayed"].as_array().unwrap().iter().find(|r| r["job_id"] == j3.as_str()).unwrap();
    assert_eq!((&b3["tie"]["how"], &b3["estimated"]), (&"other".into(), &Value::Bool(true)));
}
