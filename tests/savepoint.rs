//! Before you resume, on what the lab's real Flink 2.1.1 wrote (tests/savepoints/savepoint-resume:
//! savepoint S1 of job A, resumed by B and again by C; B's retained checkpoint and its savepoint
//! S2): the decoded ids against Flink's REST API records (flink.json, facts.json), and each verdict
//! taken on the table as it stood just before each resume (time travel by metadata file) against
//! what that resume then did (Spark's counts). Then hostile `_metadata` files: every one ends in an
//! error naming the file and the field.

use std::path::{Path, PathBuf};
use std::process::Command;

use icescope::analysis::savepoint::{read, SavepointRead};
use icescope::decode::flink_savepoint::committer::SinkKind;
use icescope::decode::flink_savepoint::StreamHandle;
use icescope::decode::DecodeError;
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn flink_dir() -> PathBuf {
    root().join("tests/savepoints/savepoint-resume")
}

fn json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn no_files(_: &StreamHandle) -> Result<&'static [u8], DecodeError> {
    Err(DecodeError::new("test", "state_file", "no state files in this test"))
}

fn read_label(label: &str) -> SavepointRead {
    let p = flink_dir().join(label).join("_metadata");
    read(&p.display().to_string(), &std::fs::read(&p).unwrap(), &mut no_files).unwrap()
}

fn cli(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_icescope")).args(args).current_dir(root()).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Every kept savepoint and checkpoint: checkpoint id, operator ids and the committer's job id
/// as Flink's REST API recorded them.
#[test]
fn decoded_ids_equal_flinks() {
    let flink = json(&flink_dir().join("flink.json"));
    let facts = json(&root().join("tests/fixtures/savepoint-resume/facts.json"));
    let kept = flink["kept"].as_array().unwrap();
    assert_eq!(kept.len(), 3, "S1, B's retained checkpoint, S2");
    for k in kept {
        let label = k["label"].as_str().unwrap();
        let r = read_label(label);
        assert_eq!(r.metadata.checkpoint_id, k["checkpoint_id"].as_i64().unwrap(), "{label}");
        assert_eq!(r.metadata.format_version, 6, "Flink 2.1.1 writes format 6");
        // operator chaining is off in the lab: each REST vertex is one operator, its id the operator's
        let job = k["job_id"].as_str().unwrap();
        let mut rest: Vec<&str> = flink["vertices"][job].as_array().unwrap().iter().map(|v| v["id"].as_str().unwrap()).collect();
        let mut ours: Vec<&str> = r.metadata.operators.iter().map(|o| o.operator_id.as_str()).collect();
        rest.sort();
        ours.sort();
        assert_eq!(ours, rest, "{label}: operator ids");
        assert_eq!(r.committers.len(), 1, "{label}");
        let c = &r.committers[0];
        assert_eq!(c.sink, SinkKind::FlinkSink);
        assert_eq!(c.job_id.as_deref(), Some(job), "{label}: the committer's job id is the job that took it");
        assert_eq!(c.uid.as_deref(), Some("lab-iceberg-sink-committer"));
        // the table's commits name the same operator
        let ops: Vec<&str> = facts["commits_before_expire"].as_array().unwrap().iter().filter_map(|c| c["flink_operator_id"].as_str()).collect();
        assert!(ops.iter().all(|o| *o == c.operator_id), "{label}: {ops:?} vs {}", c.operator_id);
        // FlinkSink keeps the savepoint's own checkpoint in its state (committed on notify, kept for the restore check)
        assert_eq!(c.pending_checkpoints.iter().map(|p| p.checkpoint_id).collect::<Vec<_>>(), vec![r.metadata.checkpoint_id], "{label}");
        assert_eq!(c.pending_checkpoints[0].manifests.len(), 1);
        assert!(c.pending_checkpoints[0].manifests[0].contains(job), "{label}: the temporary manifest is named for its job");
        for o in &r.metadata.operators {
            assert!(o.uid.is_some(), "{label}: the lab's job sets every uid");
        }
    }
}

/// `icescope savepoint` with the table as it stood at `metadata`: the JSON rows.
fn verdicts_at(target: &str, metadata: Option<&str>) -> Value {
    verdicts_on("tests/fixtures/savepoint-resume", target, metadata)
}

/// `icescope savepoint` against `table` (a fixture folder) as it stood at `metadata`: the JSON rows.
fn verdicts_on(table: &str, target: &str, metadata: Option<&str>) -> Value {
    let mut args = vec!["savepoint", target, "--table", table, "--format", "json"];
    if let Some(m) = metadata {
        args.extend(["--metadata", m]);
    }
    let (code, out, err) = cli(&args);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn row<'a>(v: &'a Value, path_end: &str) -> &'a Value {
    v["savepoints"].as_array().unwrap().iter().find(|r| r["savepoint"]["path"].as_str().unwrap().ends_with(path_end)).unwrap()
}

/// The verdict taken just before each resume predicts what it then did.
#[test]
fn verdicts_predict_the_resumes() {
    let facts = json(&root().join("tests/fixtures/savepoint-resume/facts.json"));
    let resumes = facts["resumes"].as_array().unwrap();
    let s1 = "tests/savepoints/savepoint-resume/S1";
    // Before B: S1 is safe.
    let before_b = verdicts_at(s1, resumes[0]["table_before"]["metadata_file"].as_str());
    let v = &row(&before_b, "S1/_metadata")["verdict"];
    assert_eq!(v["kind"], "safe", "{v}");
    // Before C: S1 replays exactly what B wrote, which Spark then counted as duplicates.
    let before_c = verdicts_at(s1, resumes[1]["table_before"]["metadata_file"].as_str());
    let v = &row(&before_c, "S1/_metadata")["verdict"];
    assert_eq!(v["kind"], "replays", "{v}");
    let b = facts["job_labels"]["B"].as_str().unwrap();
    assert_eq!(v["jobs_already_resumed"], serde_json::json!([b]));
    let dup = facts["after_c"]["duplicates"].as_u64().unwrap();
    let b_rows: u64 =
        facts["commits_before_expire"].as_array().unwrap().iter().filter(|c| c["flink_job_id"] == b).map(|c| c["added_records"].as_u64().unwrap()).sum();
    assert_eq!(v["rows_committed_after"].as_u64().unwrap(), b_rows);
    assert_eq!(b_rows, dup, "the rows S1 would replay are the rows Spark counted twice after C");
    assert!(v["statement"].as_str().unwrap().starts_with("CALL <catalog>.system.rollback_to_snapshot(table => 'icescope.savepoint_resume', snapshot_id => "));
    // the rollback target is A's last commit (checkpoint 6's snapshot), before B's first
    let a = facts["job_labels"]["A"].as_str().unwrap();
    let a_last = facts["commits_before_expire"].as_array().unwrap().iter().rfind(|c| c["flink_job_id"] == a).unwrap()["snapshot_id"].as_i64().unwrap();
    assert_eq!(v["rollback_target_snapshot_id"].as_i64(), Some(a_last));
    // The folder at the same moment: S2 is the one to resume from, B's retained checkpoint 10
    // replays B's own checkpoint 11 (B ran on past it), and both others name S2 as the safe one.
    let all = verdicts_at("tests/savepoints/savepoint-resume", resumes[1]["table_before"]["metadata_file"].as_str());
    assert_eq!(row(&all, "S2/_metadata")["verdict"]["kind"], "safe");
    let chk = &row(&all, "chk-10/_metadata")["verdict"];
    assert_eq!(chk["kind"], "replays");
    let b11 = facts["commits_before_expire"].as_array().unwrap().iter().find(|c| c["flink_job_id"] == b && c["max_committed_checkpoint_id"] == 11).unwrap();
    assert_eq!(chk["rows_committed_after"], b11["added_records"]);
    assert_eq!(chk["replayed"][0]["took_the_savepoint"], true);
    for r in ["chk-10/_metadata", "S1/_metadata"] {
        assert!(row(&all, r)["verdict"]["safe_alternative"].as_str().unwrap().ends_with("S2/_metadata"), "{r}");
    }
    // After the expiry: S2's job has no snapshot left.
    let now = verdicts_at("tests/savepoints/savepoint-resume", None);
    let v = &row(&now, "S2/_metadata")["verdict"];
    assert_eq!(v["kind"], "restore_point_expired", "{v}");
    let rows = now["savepoints"].as_array().unwrap();
    let ids: Vec<i64> = rows.iter().map(|r| r["savepoint"]["checkpoint_id"].as_i64().unwrap()).collect();
    let mut sorted = ids.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(ids, sorted, "newest first");
}

// ------------------------------------------------------------------ hostile savepoints

fn s1() -> Vec<u8> {
    std::fs::read(flink_dir().join("S1/_metadata")).unwrap()
}

fn err(bytes: &[u8]) -> String {
    match read("hostile/_metadata", bytes, &mut no_files) {
        Err(e) => {
            assert_eq!(e.file, "hostile/_metadata");
            e.to_string()
        }
        Ok(r) => panic!("read: {} operators", r.metadata.operators.len()),
    }
}

#[test]
fn truncated_anywhere_is_an_error_naming_the_field() {
    let b = s1();
    // The properties after the operators are Java serialization, read past: a cut inside them
    // (after their magic) cannot be seen.
    let props = read("S1", &b, &mut no_files).unwrap().metadata.properties_bytes as usize;
    assert!(props > 4);
    for n in 0..b.len() - props + 4 {
        let e = err(&b[..n]);
        assert!(e.contains("field `"), "cut at {n}: {e}");
    }
}

#[test]
fn unknown_version_and_magic() {
    let mut b = s1();
    b[4..8].copy_from_slice(&99i32.to_be_bytes());
    assert!(err(&b).contains("field `version`: checkpoint metadata format 99"), "{}", err(&b));
    let mut b = s1();
    b[0] = 0;
    assert!(err(&b).contains("field `magic`"));
}

/// The offset of the first inline state's data length in S1 (after its handle name).
fn first_inline_length(b: &[u8]) -> usize {
    // the handle name of the committer's inline state is a path ending in the state file's name
    let needle = b"file:/";
    let at = b.windows(needle.len()).position(|w| w == needle).unwrap();
    let name_len = u16::from_be_bytes([b[at - 2], b[at - 1]]) as usize;
    assert_eq!(b[at - 3], 1, "a byte-stream handle");
    at + name_len
}

#[test]
fn lengths_past_the_file_and_a_gigabyte_inline_handle() {
    let b = s1();
    let at = first_inline_length(&b);
    for declared in [b.len() as i32, 1 << 30, i32::MAX] {
        let mut h = b.clone();
        h[at..at + 4].copy_from_slice(&declared.to_be_bytes());
        let e = err(&h);
        assert!(e.contains("managed_operator_state.delegate.data_length") && e.contains(&format!("declares {declared} bytes")), "{e}");
    }
    let mut h = b.clone();
    h[at..at + 4].copy_from_slice(&(-1i32).to_be_bytes());
    assert!(err(&h).contains("cannot be negative"));
}

#[test]
fn absurd_counts() {
    let b = s1();
    // master states count (right after the checkpoint id), then operator count
    for (at, field) in [(16usize, "master_states"), (20, "operators")] {
        let mut h = b.clone();
        h[at..at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
        let e = err(&h);
        assert!(e.contains(&format!("field `{field}`")) && e.contains("2147483647 items"), "{e}");
    }
}

/// A Flink 2.x `_metadata` built by hand around one operator whose committer state is a FILE
/// handle pointing wherever the test says.
fn with_state_file(path: &str) -> Vec<u8> {
    with_state_files(path, 1, 1)
}

/// The same with `subtasks` subtasks, each naming `path`, the committer state's element at `second`.
fn with_state_files(path: &str, subtasks: i32, second: i64) -> Vec<u8> {
    fn utf(out: &mut Vec<u8>, s: &str) {
        out.extend((s.len() as u16).to_be_bytes());
        out.extend(s.as_bytes());
    }
    let mut b = Vec::new();
    b.extend(0x4960_672du32.to_be_bytes());
    b.extend(6i32.to_be_bytes());
    b.extend(3i64.to_be_bytes()); // checkpoint id
    b.extend(0i32.to_be_bytes()); // master states
    b.extend(1i32.to_be_bytes()); // operators
    utf(&mut b, "committer");
    utf(&mut b, "uid");
    b.extend([7u8; 16]); // operator id
    b.extend(1i32.to_be_bytes());
    b.extend(1i32.to_be_bytes());
    b.push(0); // no coordinator state
    b.extend(subtasks.to_be_bytes());
    for index in 0..subtasks {
        b.extend(index.to_be_bytes());
        b.extend(1i32.to_be_bytes()); // managed operator state
        b.push(4);
        b.extend(2i32.to_be_bytes());
        for (n, at) in [("iceberg-flink-job-id", 0i64), ("iceberg-files-committer-state", second)] {
            utf(&mut b, n);
            b.push(0);
            b.extend(1i32.to_be_bytes());
            b.extend(at.to_be_bytes());
        }
        b.push(2); // a file handle
        b.extend(100i64.to_be_bytes());
        utf(&mut b, path);
        b.extend(0i32.to_be_bytes()); // no raw operator state
        b.push(0);
        b.push(0); // no keyed state
        b.extend(0i32.to_be_bytes());
        b.extend(0i32.to_be_bytes()); // no channel state
    }
    b.extend([0xac, 0xed, 0x00, 0x05, 0x73]); // the checkpoint properties' Java serialization begins
    b
}

#[test]
fn state_files_outside_the_folder_are_never_read() {
    let dir = std::env::temp_dir().join(format!("icescope-savepoint-{}", std::process::id()));
    let sp = dir.join("savepoint-x");
    std::fs::create_dir_all(&sp).unwrap();
    // a file beside the folder that a handle tries to reach
    std::fs::write(dir.join("secret"), b"not a state").unwrap();
    for path in ["/etc/passwd", "file:/etc/passwd", "../secret", "s3://bucket/elsewhere/secret", "file:/somewhere/savepoint-y/state"] {
        std::fs::write(sp.join("_metadata"), with_state_file(path)).unwrap();
        let (code, out, err) = cli(&["savepoint", sp.to_str().unwrap()]);
        assert_eq!(code, 3, "{path}: {out}{err}");
        assert!(err.contains("_metadata: field `state_file`") && err.contains("outside the savepoint folder"), "{path}: {err}");
    }
    // the folder's own file is read (and, not being a state, refused with its field)
    std::fs::write(sp.join("state"), b"xx").unwrap();
    std::fs::write(sp.join("_metadata"), with_state_file("file:/anywhere/savepoint-x/state")).unwrap();
    let (code, _, err) = cli(&["savepoint", sp.to_str().unwrap()]);
    assert_eq!(code, 3);
    assert!(err.contains("state: field `iceberg-flink-job-id[0]"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_prefix_and_byte_flip_of_a_real_savepoint_ends_without_panic() {
    let b = s1();
    for i in 0..b.len() {
        for x in [0x00u8, 0xff, 0x80, 0x7f] {
            let mut h = b.clone();
            h[i] = x;
            let _ = read("flip/_metadata", &h, &mut no_files);
        }
    }
}

/// The savepoint against a table another sink wrote (IcebergSink's committer has another
/// operator id): no committer in the savepoint is the table's.
#[test]
fn another_sinks_table_is_a_committer_mismatch() {
    let (code, out, err) = cli(&["savepoint", "tests/savepoints/savepoint-resume/S1", "--table", "tests/fixtures/icebergsink-v2", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let v = &v["savepoints"][0]["verdict"];
    assert_eq!(v["kind"], "committer_mismatch");
    assert_eq!(v["committer_operator_ids"], serde_json::json!(["e12b47b8677373f66d56798d6af62faa"]));
    assert!(!v["table_operator_ids"].as_array().unwrap().iter().any(|o| o == "e12b47b8677373f66d56798d6af62faa"));
}

/// Without a table the committer is still decoded, and the verdict says why it is unknown.
#[test]
fn without_a_table_the_verdict_is_unknown() {
    let (code, out, err) = cli(&["savepoint", "tests/savepoints/savepoint-resume/S1/_metadata", "--format", "text"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("UNKNOWN  checkpoint 6") && out.contains("no table was given"), "{out}");
}

/// IcebergSink (sink v2) and DynamicIcebergSink savepoints, taken with and without stopping: the
/// committer's state is Flink's `streaming_committer_raw_states` in the `Committer` operator, and
/// its committables name the job, the checkpoint and the operator id the table's commits carry
/// (the pre-commit aggregator's, not the committer operator's).
#[test]
fn sink_v2_and_dynamic_committables_equal_flinks_records() {
    let dir = root().join("tests/savepoints/savepoint-sinks");
    let flink = json(&dir.join("flink.json"));
    for s in flink["sinks"].as_array().unwrap() {
        let job = s["job_id"].as_str().unwrap();
        let table_ops: Vec<&str> = s["commits"].as_array().unwrap().iter().filter_map(|c| c["flink_operator_id"].as_str()).collect();
        let committer_vertex =
            s["vertices"].as_array().unwrap().iter().find(|v| v["name"].as_str().unwrap().ends_with("Committer")).unwrap()["id"].as_str().unwrap();
        for k in s["kept"].as_array().unwrap() {
            let label = k["label"].as_str().unwrap();
            let p = dir.join(label).join("_metadata");
            let r = read(label, &std::fs::read(&p).unwrap(), &mut no_files).unwrap();
            assert_eq!(r.metadata.checkpoint_id, k["checkpoint_id"].as_i64().unwrap(), "{label}");
            let mut rest: Vec<&str> = s["vertices"].as_array().unwrap().iter().map(|v| v["id"].as_str().unwrap()).collect();
            rest.sort();
            let mut ours: Vec<&str> = r.metadata.operators.iter().map(|o| o.operator_id.as_str()).collect();
            ours.sort();
            // the dynamic sink's chained operators have ids of their own inside one vertex
            assert!(rest.iter().all(|v| ours.contains(v)), "{label}: {rest:?} ⊄ {ours:?}");
            assert_eq!(r.committers.len(), 1, "{label}");
            let c = &r.committers[0];
            let want = if s["sink"] == "dynamic" { SinkKind::DynamicSink } else { SinkKind::SinkV2 };
            assert_eq!(c.sink, want, "{label}");
            assert_eq!(c.operator_id, committer_vertex, "{label}: the state is in the Committer operator");
            assert_eq!(c.job_id.as_deref(), Some(job), "{label}");
            let op = c.table_operator_id().unwrap();
            assert!(table_ops.iter().all(|o| *o == op), "{label}: the table's commits carry {table_ops:?}, the committables {op}");
            assert_ne!(op, c.operator_id);
            let pending: Vec<i64> = c.pending_checkpoints.iter().map(|p| p.checkpoint_id).collect();
            assert_eq!(pending, vec![r.metadata.checkpoint_id], "{label}: the savepoint's own committables are pending in it");
            assert!(c.pending_checkpoints[0].manifests[0].contains(job));
        }
    }
}

/// Flink's own reader (its savepoint loader and the State Processor API, run by the lab:
/// `flink-reader.json`) and icescope's decoder agree on every kept savepoint: checkpoint id, every
/// operator's id, name, uid, parallelism, max parallelism and state names, the committer's job id.
#[test]
fn equal_to_flinks_own_reader() {
    let mut scenarios: Vec<String> =
        std::fs::read_dir(root().join("tests/savepoints")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    scenarios.sort();
    assert!(scenarios.len() >= 6, "{scenarios:?}");
    for scenario in &scenarios {
        // Every `_metadata` the lab kept there, one level down (a savepoint's or checkpoint's folder).
        let dir = root().join("tests/savepoints").join(scenario);
        let kept = std::fs::read_dir(&dir).unwrap().filter(|e| e.as_ref().unwrap().path().join("_metadata").is_file()).count();
        assert_eq!(agrees_with_flinks_reader(scenario), kept, "{scenario}: every kept savepoint read by Flink's reader and by icescope");
    }
}

/// Every savepoint in `tests/savepoints/<scenario>/flink-reader.json` decoded by icescope as Flink's
/// own reader read it; how many.
fn agrees_with_flinks_reader(scenario: &str) -> usize {
    let mut checked = 0;
    let dir = root().join("tests/savepoints").join(scenario);
    let flink = json(&dir.join("flink-reader.json"));
    for s in flink["savepoints"].as_array().unwrap() {
        let label = s["path"].as_str().unwrap();
        let r = read(label, &std::fs::read(dir.join(label).join("_metadata")).unwrap(), &mut no_files).unwrap();
        assert_eq!(r.metadata.checkpoint_id, s["checkpoint_id"].as_i64().unwrap(), "{scenario}/{label}");
        let theirs = s["operators"].as_array().unwrap();
        assert_eq!(r.metadata.operators.len(), theirs.len(), "{scenario}/{label}");
        for t in theirs {
            let id = t["operator_id"].as_str().unwrap();
            let o = r.metadata.operators.iter().find(|o| o.operator_id == id).unwrap_or_else(|| panic!("{scenario}/{label}: operator {id}"));
            assert_eq!(o.name.as_deref(), t["name"].as_str(), "{scenario}/{label} {id}");
            assert_eq!(o.uid.as_deref(), t["uid"].as_str(), "{scenario}/{label} {id}");
            assert_eq!(i64::from(o.parallelism), t["parallelism"].as_i64().unwrap());
            assert_eq!(i64::from(o.max_parallelism), t["max_parallelism"].as_i64().unwrap());
            let mut names = o.state_names();
            names.sort();
            let want: Vec<&str> = t["state_names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
            assert_eq!(names, want, "{scenario}/{label} {id}");
        }
        if let Some(ids) = s["committer_job_ids"].as_array() {
            let ids: Vec<&str> = ids.iter().map(|i| i.as_str().unwrap()).collect();
            assert_eq!(ids, vec![r.committers[0].job_id.as_deref().unwrap()], "{scenario}/{label}: iceberg-flink-job-id");
        }
        checked += 1;
    }
    checked
}

/// The second seed's upgrade: a savepoint of a job written without uids. Format 6 carries the uid
/// field, empty for every operator; Flink refused that savepoint to the same job with uids, naming
/// one of the operator ids decoded here; the verdict lists every operator as without uid.
#[test]
fn a_savepoint_without_uids_says_so() {
    let dir = root().join("tests/savepoints/savepoint-uids");
    let flink = json(&dir.join("flink.json"));
    let r = read_label_in(&dir, "S");
    assert!(r.metadata.operators.iter().all(|o| o.uid.is_none()), "no operator has a uid");
    let refused = flink["b_error"].as_str().unwrap();
    assert!(refused.contains("Cannot map checkpoint/savepoint state for operator"), "{refused}");
    assert!(r.metadata.operators.iter().any(|o| refused.contains(&o.operator_id)), "{refused}");
    // the table's commits by job A carry the committer's generated operator id
    let a = flink["job_labels"]["A"].as_str().unwrap();
    let ops: Vec<&str> =
        flink["commits"].as_array().unwrap().iter().filter(|c| c["flink_job_id"] == a).filter_map(|c| c["flink_operator_id"].as_str()).collect();
    assert!(!ops.is_empty() && ops.iter().all(|o| *o == r.committers[0].operator_id), "{ops:?}");
    let (code, out, err) = cli(&["savepoint", dir.join("S").to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let without = v["savepoints"][0]["verdict"]["operators_without_uid"].as_array().unwrap().len();
    assert_eq!(without, r.metadata.operators.len());
    assert!(v["savepoints"][0]["advice"].as_str().unwrap().contains("carry no uid"));
}

/// The same upgrade forced for real: `flink run -s S --allowNonRestoredState` (B_forced). Flink's REST
/// record says the job was restored from S (a savepoint, its path and checkpoint id), yet none of S's
/// operator ids is one of its vertices, so every operator's state was skipped: its committer restored
/// nothing (its commits carry its own job and operator ids, not those in S's committer state), and
/// its checkpoints continue after S's id (Flink sets a job restored from a savepoint to the
/// savepoint's id + 1). Spark's duplicates are the rows it wrote again. Every number is flink.json's.
#[test]
fn the_forced_start_restores_nothing() {
    let dir = root().join("tests/savepoints/savepoint-uids");
    let flink = json(&dir.join("flink.json"));
    let r = read_label_in(&dir, "S");
    let s = &flink["kept"][0];
    let a = flink["job_labels"]["A"].as_str().unwrap();
    let forced = flink["job_labels"]["B_forced"].as_str().unwrap();
    assert_ne!(forced, a);
    let f = &flink["b_forced"];
    assert_eq!(f["job_id"], forced);
    assert_eq!(f["state"], "FINISHED");
    let run: Vec<&str> = f["flink_run"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert!(run.contains(&"--allowNonRestoredState") && run.contains(&s["savepoint_path"].as_str().unwrap()), "{run:?}");
    assert_eq!(f["environment_configuration"]["ignore_unclaimed_state"], true);
    // the remote environment, given the option in its configuration, handed Flink false and was refused
    let rk = &flink["b_remote_key"];
    assert_eq!(rk["set_in_configuration"]["execution.state-recovery.ignore-unclaimed-state"], "true");
    assert_eq!(rk["environment_configuration"]["ignore_unclaimed_state"], false);
    assert!(rk["error"].as_str().unwrap().contains("Cannot map checkpoint/savepoint state for operator"));
    // Flink's REST API: restored from S
    let restored = &f["latest_restored"];
    assert_eq!(restored["is_savepoint"], true);
    assert_eq!(restored["external_path"], s["external_path"]);
    let sid = restored["id"].as_i64().unwrap();
    assert_eq!(sid, s["checkpoint_id"].as_i64().unwrap());
    assert_eq!(sid, r.metadata.checkpoint_id);
    // none of S's operators is in the forced job: every state in S was skipped
    let vertices: Vec<&str> = flink["vertices"][forced].as_array().unwrap().iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert!(!vertices.is_empty());
    assert!(r.metadata.operators.iter().all(|o| !vertices.contains(&o.operator_id.as_str())), "{vertices:?}");
    // its checkpoints and commits: first at S's id + 1, with its own job and committer ids
    assert_eq!(f["completed_checkpoint_ids"][0].as_i64(), Some(sid + 1));
    let commits = flink["commits"].as_array().unwrap();
    let by = |job: &str| commits.iter().filter(|c| c["flink_job_id"] == job).collect::<Vec<_>>();
    let (of_a, of_forced) = (by(a), by(forced));
    assert!(!of_a.is_empty() && !of_forced.is_empty());
    assert_eq!(of_forced[0]["max_committed_checkpoint_id"].as_i64(), Some(sid + 1), "the forced job's first commit");
    let committer = &r.committers[0];
    assert_eq!(committer.job_id.as_deref(), Some(a), "S's committer state is A's");
    assert!(of_forced.iter().all(|c| c["flink_operator_id"].as_str() != Some(committer.operator_id.as_str())));
    // A's last commit is S's checkpoint; the forced job wrote every id again
    assert_eq!(of_a.last().unwrap()["max_committed_checkpoint_id"].as_i64(), Some(sid));
    let added = |cs: &[&Value]| cs.iter().map(|c| c["added_records"].as_i64().unwrap()).sum::<i64>();
    let at_end = &flink["at_end"];
    assert_eq!(at_end["rows"].as_i64(), Some(added(&of_a) + added(&of_forced)));
    assert_eq!(at_end["distinct_ids"].as_i64(), Some(added(&of_forced)), "the forced job wrote every id");
    let again = flink["rows_by_writer"]["rows_of_duplicated_ids_per_job"].as_array().unwrap().iter().find(|x| x["job"] == forced).unwrap();
    assert_eq!(again["min_id"], 0, "its source started from the first id");
    let duplicates = at_end["duplicates"].as_i64().unwrap();
    assert_eq!(duplicates, again["rows"].as_i64().unwrap(), "Spark's duplicates are the rows the forced job wrote again");
    assert_eq!(duplicates, added(&of_a), "every row A had committed");
}

fn read_label_in(dir: &Path, label: &str) -> SavepointRead {
    let p = dir.join(label).join("_metadata");
    read(&p.display().to_string(), &std::fs::read(&p).unwrap(), &mut no_files).unwrap()
}

// ------------------------------------------------------------------ the live run's savepoints

/// tests/savepoints/live-watch: savepoints A (job 1, taken without stopping it), B (job 1 stopped)
/// and C (job 2, resumed from B, stopped), kept by the lab's live-watch run (FlinkSink) beside its
/// table fixture, with Flink's REST record of each (flink.json) and the run's facts.json.
fn live() -> (PathBuf, Value, Value) {
    let dir = root().join("tests/savepoints/live-watch");
    let flink = json(&dir.join("flink.json"));
    (dir, flink, json(&root().join("tests/fixtures/live-watch/facts.json")))
}

fn kept<'a>(flink: &'a Value, label: &str) -> &'a Value {
    flink["kept"].as_array().unwrap().iter().find(|k| k["label"] == label).unwrap_or_else(|| panic!("{label} is not kept"))
}

fn int(v: &Value) -> i64 {
    v.as_i64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Every savepoint the live run took is kept as Flink wrote it, with Flink's REST record of it: its
/// `_metadata` decodes with the checkpoint id Flink recorded, the committer's job id is the job that
/// took it, and its operators are the job's REST vertices and Flink's own reader's.
#[test]
fn live_watch_savepoints_decode_as_flink_recorded_them() {
    let (dir, flink, facts) = live();
    let taken: Vec<&str> = facts["savepoints"].as_array().unwrap().iter().map(|s| s["label"].as_str().unwrap()).collect();
    assert_eq!(taken, ["A", "B", "C"]);
    let labels: Vec<&str> = flink["kept"].as_array().unwrap().iter().map(|k| k["label"].as_str().unwrap()).collect();
    assert_eq!(labels, taken, "every savepoint taken is kept");
    assert_eq!(flink["job_labels"], facts["job_labels"]);
    for sp in facts["savepoints"].as_array().unwrap() {
        let label = sp["label"].as_str().unwrap();
        let k = kept(&flink, label);
        for key in ["job_id", "checkpoint_id", "savepoint_path", "stopped_job"] {
            assert_eq!(k[key], sp[key], "{label}: {key}");
        }
        // Flink's checkpoint history has it as a completed savepoint, at that path, between the request and its answer
        assert_eq!(k["is_savepoint"], true, "{label}");
        assert_eq!(k["status"], "COMPLETED", "{label}");
        let external = k["external_path"].as_str().unwrap();
        assert!(
            sp["savepoint_path"].as_str().unwrap().trim_end_matches('/').ends_with(external.rsplit("://").next().unwrap().trim_end_matches('/')),
            "{label}: {external}"
        );
        let (asked, triggered, acked, answered) =
            (int(&k["requested_at_ms"]), int(&k["trigger_timestamp_ms"]), int(&k["latest_ack_timestamp_ms"]), int(&k["completed_by_ms"]));
        assert!(asked <= triggered && triggered <= acked && acked <= answered, "{label}: {asked} {triggered} {acked} {answered}");

        let job = k["job_id"].as_str().unwrap();
        let r = read_label_in(&dir, label);
        assert_eq!(r.metadata.checkpoint_id, int(&k["checkpoint_id"]), "{label}");
        assert_eq!(r.metadata.format_version, 6, "Flink 2.1.1 writes format 6");
        assert_eq!(r.committers.len(), 1, "{label}");
        let c = &r.committers[0];
        assert_eq!(c.sink, SinkKind::FlinkSink, "{label}");
        assert_eq!(c.job_id.as_deref(), Some(job), "{label}: the committer's job id is the job that took it");
        assert_eq!(c.uid.as_deref(), Some("lab-iceberg-sink-committer"));
        // the table's commits by that job name the same committer
        let ops: Vec<&str> =
            facts["commits"].as_array().unwrap().iter().filter(|x| x["flink_job_id"] == job).filter_map(|x| x["flink_operator_id"].as_str()).collect();
        assert!(!ops.is_empty() && ops.iter().all(|o| *o == c.operator_id), "{label}: {ops:?} vs {}", c.operator_id);
        // the savepoint's own checkpoint is pending in the committer's state
        assert!(c.pending_checkpoints.iter().any(|p| p.checkpoint_id == r.metadata.checkpoint_id), "{label}: {:?}", c.pending_checkpoints);
        // operator chaining is off in the lab: each REST vertex of the job is one operator
        let mut rest: Vec<&str> = flink["vertices"][job].as_array().unwrap().iter().map(|v| v["id"].as_str().unwrap()).collect();
        let mut ours: Vec<&str> = r.metadata.operators.iter().map(|o| o.operator_id.as_str()).collect();
        rest.sort();
        ours.sort();
        assert_eq!(ours, rest, "{label}: operator ids");
    }
    // Flink's own reader (flink-reader.json): every operator's id, name, uid, parallelism, state names; the committer's job id
    assert_eq!(agrees_with_flinks_reader("live-watch"), 3);
}

/// The verdict taken on the live run's table as it stood just before each resume (the metadata file
/// the lab read then, opened as that version) predicts what the resume then did: job 2 from B is
/// `safe` and repeated nothing; job 3 from the older A `replays` job 1's commits after A and job 2's,
/// and Spark counted those rows twice at the end, less the rows of A's own checkpoint (see below).
#[test]
fn live_watch_verdicts_predict_the_resumes() {
    let (dir, flink, facts) = live();
    let table = "tests/fixtures/live-watch";
    let lab = &facts["job_labels"];
    let (j1, j2, j3) = (lab["1"].as_str().unwrap(), lab["2"].as_str().unwrap(), lab["3"].as_str().unwrap());
    let (a, b) = (int(&kept(&flink, "A")["checkpoint_id"]), int(&kept(&flink, "B")["checkpoint_id"]));
    let commits = facts["commits"].as_array().unwrap();
    let of = |job: &str| commits.iter().filter(|c| c["flink_job_id"] == job).collect::<Vec<&Value>>();
    let cp = |c: &Value| int(&c["max_committed_checkpoint_id"]);
    let min_id = |c: &Value| int(&c["added_ids"]["min_id"]);
    let max_id = |c: &Value| int(&c["added_ids"]["max_id"]);
    let resume = |from: &str| flink["resumes"].as_array().unwrap().iter().find(|r| r["from"] == from).unwrap();
    let (r2, r3) = (resume("B"), resume("A"));
    assert_eq!(r2["job_id"], j2);
    assert_eq!(r3["job_id"], j3);
    // The recorded metadata file is the table as the resume found it: the catalog named the same file,
    // and its current snapshot is the one recorded, the stopped job's last commit (B's checkpoint for job 1).
    assert_eq!(cp(of(j1).last().unwrap()), b, "stop-with-savepoint B committed its own checkpoint");
    for (r, stopped) in [(r2, j1), (r3, j2)] {
        let t = &r["table_before"];
        let file = t["metadata_file"].as_str().unwrap();
        assert!(t["catalog_metadata_location"].as_str().unwrap().ends_with(&format!("/{file}")), "{t}");
        let m = json(&root().join(table).join("metadata").join(file));
        assert_eq!(m["current-snapshot-id"].as_i64(), t["snapshot_id"].as_i64(), "{file}");
        assert_eq!(t["snapshot_id"].as_i64(), of(stopped).last().unwrap()["snapshot_id"].as_i64(), "{file}");
    }

    // Before job 2: B is safe. Job 2 then committed from B + 1, its first id right after job 1's last.
    let at2 = verdicts_on(table, "tests/savepoints/live-watch/B", r2["table_before"]["metadata_file"].as_str());
    let v = &row(&at2, "B/_metadata")["verdict"];
    assert_eq!(v["kind"], "safe", "{v}");
    assert_eq!(v["job_id"], j1);
    assert_eq!(int(&v["restore_point"]["checkpoint_id"]), b);
    assert_eq!(v["restore_point"]["snapshot_id"].as_i64(), r2["table_before"]["snapshot_id"].as_i64());
    assert_eq!(cp(of(j2)[0]), b + 1);
    assert_eq!(min_id(of(j2)[0]), of(j1).iter().map(|c| max_id(c)).max().unwrap() + 1, "job 2 wrote no row twice");

    // Before job 3: A replays.
    let file3 = r3["table_before"]["metadata_file"].as_str();
    let at3 = verdicts_on(table, "tests/savepoints/live-watch/A", file3);
    let v = &row(&at3, "A/_metadata")["verdict"];
    assert_eq!(v["kind"], "replays", "{v}");
    assert_eq!(v["job_id"], j1);
    // The restored committer looks up the job id in A's state, job 1's, whose last commit is B's
    // checkpoint (IcebergFilesCommitter.initializeState → SinkUtil.getMaxCommittedCheckpointId): A's
    // own pending checkpoint is below it, so nothing of A's state is committed again.
    assert_eq!(int(&v["restore_point"]["checkpoint_id"]), b);
    assert_eq!(v["recommitted_checkpoints"], serde_json::json!([]));
    // Named: job 1, which ran on past A, and job 2, which resumed from job 1's later savepoint B, so
    // every row it wrote lies past A's source position. No job has resumed from A yet.
    let replayed = v["replayed"].as_array().unwrap();
    let named: Vec<&str> = replayed.iter().map(|r| r["job_id"].as_str().unwrap()).collect();
    assert_eq!(named, [j1, j2], "{v}");
    assert_eq!(replayed[0]["took_the_savepoint"], true);
    assert_eq!((&replayed[1]["took_the_savepoint"], &replayed[1]["resumed_from_it"]), (&Value::Bool(false), &Value::Bool(false)));
    assert_eq!(v["jobs_already_resumed"], serde_json::json!([]));
    // Its rows: the added-records of those jobs' commits above A's checkpoint, in the table job 3 found.
    let first3 = commits.iter().position(|c| c["flink_job_id"] == j3).expect("job 3 committed");
    let after_a = |job: &str| commits[..first3].iter().filter(|c| c["flink_job_id"] == job && cp(c) > a).collect::<Vec<_>>();
    let added = |cs: &[&Value]| cs.iter().map(|c| c["added_records"].as_u64().unwrap()).sum::<u64>();
    for (r, job) in replayed.iter().zip([j1, j2]) {
        let cs = after_a(job);
        assert_eq!(r["rows"].as_u64(), Some(added(&cs)), "{job}");
        assert_eq!(r["commits"].as_u64(), Some(cs.len() as u64), "{job}");
        assert_eq!((int(&r["first_checkpoint"]), int(&r["last_checkpoint"])), (cp(cs[0]), cp(cs[cs.len() - 1])), "{job}");
    }
    let replayed_rows = added(&after_a(j1)) + added(&after_a(j2));
    assert_eq!(v["rows_committed_after"].as_u64(), Some(replayed_rows));
    // Job 2 continues the lineage (its first checkpoint follows job 1's last): its rows are exact.
    // A was taken while job 1 ran on (its properties: NONE), so job 1's first commit after A also
    // holds A's own checkpoint's rows: job 1's count is an upper bound, and the whole is "about".
    assert_eq!(ra_properties(&dir, "A"), Some("NONE".to_string()));
    assert_eq!((&replayed[0]["estimated"], &replayed[1]["estimated"]), (&Value::Bool(true), &Value::Bool(false)), "{v}");
    assert_eq!(v["rows_estimated"], true);
    // No rollback is offered: after rolling back to job 1's last commit at or below A the restored
    // committer would find job 1's checkpoint below A and commit A's pending checkpoint again, from
    // its temporary manifest; but job 1 committed that checkpoint with its next one and then deleted
    // the manifest (FlinkManifestUtil.deleteCommittedManifests): it is not in the table's folder.
    let last_at_a = of(j1).into_iter().rfind(|c| cp(c) <= a).unwrap();
    assert_eq!((&v["rollback_target_snapshot_id"], &v["statement"]), (&Value::Null, &Value::Null), "{v}");
    let next = after_a(j1)[0];
    assert_eq!(int(&v["rollback_fails"]["pending_checkpoint"]), a);
    assert_eq!(int(&v["rollback_fails"]["committed_with_checkpoint"]), cp(next));
    assert_eq!(v["rollback_fails"]["committed_in_snapshot_id"].as_i64(), next["snapshot_id"].as_i64());
    assert!(row(&at3, "A/_metadata")["advice"].as_str().unwrap().contains("Do not roll back"), "{}", row(&at3, "A/_metadata")["advice"]);
    let ra = read_label_in(&dir, "A");
    let pending = &ra.committers[0].pending_checkpoints;
    assert_eq!(pending.iter().map(|p| p.checkpoint_id).collect::<Vec<_>>(), vec![a]);
    assert!(cp(last_at_a) < a && a < cp(after_a(j1)[0]));
    for m in &pending[0].manifests {
        let name = m.rsplit('/').next().unwrap();
        assert!(m.contains(j1) && !root().join(table).join("metadata").join(name).exists(), "{m}");
    }
    // The folder at the same moment: C is the one to resume from; B replays job 2's rows. Which of
    // A and B job 2 restored is not in the table: through FlinkSink a restore of A (job 1 had
    // committed past it, up to B) starts with the same commit, B + 1, as one of B. So job 2 is
    // "maybe resumed" from B, A named as the alternative, and its first commit's size (one usual
    // checkpoint's rows) points to B; job 3, restored from A, later made a first commit of many.
    let all = verdicts_on(table, "tests/savepoints/live-watch", file3);
    assert_eq!(row(&all, "C/_metadata")["verdict"]["kind"], "safe");
    let vb = &row(&all, "B/_metadata")["verdict"];
    assert_eq!(vb["kind"], "replays");
    assert_eq!(vb["jobs_already_resumed"], serde_json::json!([]), "{vb}");
    assert_eq!(vb["jobs_maybe_resumed"], serde_json::json!([j2]), "{vb}");
    let tie = &vb["replayed"][0]["tie"];
    assert_eq!(tie["how"], "inferred", "{tie}");
    assert_eq!(tie["alternatives"][0]["checkpoint_id"].as_i64(), Some(a), "{tie}");
    assert_eq!(tie["likely_checkpoint"].as_i64(), Some(b), "{tie}");
    assert_eq!(vb["rows_committed_after"].as_u64(), Some(added(&of(j2))));
    for r in ["A/_metadata", "B/_metadata"] {
        assert!(row(&all, r)["verdict"]["safe_alternative"].as_str().unwrap().ends_with("C/_metadata"), "{r}");
    }

    // What job 3 then did. Its committer skipped its checkpoints up to B (job 1's, looked up by the
    // restored job id) but kept their files: commitUpToCheckpoint commits every pending checkpoint up
    // to the one notified, so its first commit, past B, holds every row its source read from A's
    // position on (the generator's id is its position: its first id is where A left the source).
    let of3 = of(j3);
    assert!(cp(of3[0]) > b, "{}", cp(of3[0]));
    let from_a = min_id(of3[0]);
    let last2 = of(j2).iter().map(|c| max_id(c)).max().unwrap();
    assert!(of3.iter().map(|c| max_id(c)).max().unwrap() >= last2, "job 3 ran past job 2's last row");
    // Spark's duplicates at the end: exactly the rows from A's position to job 2's last.
    let dup = int(&facts["at_end"]["duplicates"]);
    assert_eq!(dup, last2 + 1 - from_a);
    // The verdict counts job 1's first commit after A whole, but A's own checkpoint is in it too: a
    // savepoint that does not stop the job gets no commit of its own (Flink notifies no completion
    // for it), so job 1 committed its files with the next checkpoint's. Those rows lie before A's
    // position: job 3 never read them again, and skipped A's pending checkpoint (below B). So
    // rows_committed_after exceeds what job 3 repeated by exactly the rows of A's own checkpoint.
    let first1 = after_a(j1)[0];
    let own = from_a - min_id(first1);
    assert!(own >= 0 && own <= first1["added_records"].as_i64().unwrap());
    assert_eq!(replayed_rows as i64 - dup, own, "rows_committed_after {replayed_rows}, Spark's duplicates {dup}");
}

/// Every kept savepoint and checkpoint: the properties its `_metadata` ends with (Java
/// serialization of Flink's `CheckpointProperties`) say what Flink's REST API recorded of it: a
/// savepoint or a checkpoint, and a stop-with-savepoint's SUSPEND.
#[test]
fn the_checkpoint_properties_say_what_flink_recorded() {
    let mut seen = 0;
    for scenario in ["savepoint-resume", "savepoint-uids", "live-watch", "savepoint-sinks", "savepoint-twice", "older-savepoint"] {
        let dir = root().join("tests/savepoints").join(scenario);
        let flink = json(&dir.join("flink.json"));
        let kept: Vec<&Value> = match flink["kept"].as_array() {
            Some(k) => k.iter().collect(),
            None => flink["sinks"].as_array().unwrap().iter().flat_map(|s| s["kept"].as_array().unwrap()).collect(),
        };
        for k in kept {
            let folder = k["folder"].as_str().unwrap();
            let p = dir.join(folder).join("_metadata");
            let m = icescope::decode::flink_savepoint::metadata::decode_checkpoint_metadata(&p.display().to_string(), &std::fs::read(&p).unwrap()).unwrap();
            let props = m.properties.as_ref().unwrap_or_else(|| panic!("{scenario}/{folder}: {:?}", m.gaps));
            assert!(m.gaps.iter().all(|g| !g.contains("checkpoint properties")), "{scenario}/{folder}: {:?}", m.gaps);
            let savepoint = k["is_savepoint"].as_bool().unwrap();
            assert_eq!(props.savepoint, savepoint, "{scenario}/{folder}");
            if savepoint {
                assert_eq!(props.format_type.as_deref(), Some("CANONICAL"), "{scenario}/{folder}");
                if let Some(stopped) = k["stopped_job"].as_bool() {
                    assert_eq!(props.post_checkpoint_action.as_deref(), Some(if stopped { "SUSPEND" } else { "NONE" }), "{scenario}/{folder}");
                }
            } else {
                assert!(props.sharing_files_strategy.is_some() && props.format_type.is_none(), "{scenario}/{folder}: {props:?}");
            }
            seen += 1;
        }
    }
    assert_eq!(seen, 15);
}

/// The properties are a stranger's Java serialization: cut anywhere, or with a type code changed,
/// the `_metadata` still decodes, the properties become a named gap, and nothing panics.
#[test]
fn damaged_checkpoint_properties_are_a_named_gap() {
    let p = flink_dir().join("S1").join("_metadata");
    let bytes = std::fs::read(&p).unwrap();
    let start = bytes.windows(4).rposition(|w| w == [0xac, 0xed, 0x00, 0x05]).unwrap();
    let decode = |b: &[u8]| icescope::decode::flink_savepoint::metadata::decode_checkpoint_metadata("S1/_metadata", b);
    for cut in start + 4..bytes.len() {
        let m = decode(&bytes[..cut]).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        assert!(m.properties.is_none(), "cut at {cut}");
        assert!(m.gaps.iter().any(|g| g.contains("checkpoint properties") && g.contains("S1/_metadata")), "cut at {cut}: {:?}", m.gaps);
    }
    for at in start + 4..bytes.len() {
        for b in [0x00, 0x71, 0x72, 0x73, 0x7e, 0xff] {
            let mut changed = bytes.clone();
            changed[at] = b;
            // Decodes or names a gap; never a panic, never an error for the part before.
            let m = decode(&changed).unwrap();
            assert!(m.properties.is_some() || m.gaps.iter().any(|g| g.contains("checkpoint properties")));
        }
    }
}

/// A kept savepoint's post-checkpoint action, as its properties say.
fn ra_properties(dir: &Path, label: &str) -> Option<String> {
    read_label_in(dir, label).metadata.properties.and_then(|p| p.post_checkpoint_action)
}

// ------------------------------------------------------------------ savepoint-twice and older-savepoint, kept

/// The kept savepoints of a lab scenario (tests/savepoints/<scenario>/: flink.json) and its table's facts.
fn kept_run(scenario: &str) -> (PathBuf, Value, Value) {
    let dir = root().join("tests/savepoints").join(scenario);
    let flink = json(&dir.join("flink.json"));
    (dir, flink, json(&root().join("tests/fixtures").join(scenario).join("facts.json")))
}

/// The snapshots of the table's metadata file `file` (the fixture's), in commit order.
fn snapshots_at(table: &str, file: &str) -> Vec<Value> {
    let m = json(&root().join(table).join("metadata").join(file));
    let mut s = m["snapshots"].as_array().unwrap().clone();
    s.sort_by_key(|x| x["sequence-number"].as_i64().unwrap());
    s
}

/// A snapshot's summary value as a number (the summary keeps numbers as strings).
fn summary_int(s: &Value, key: &str) -> i64 {
    s["summary"][key].as_str().unwrap_or_else(|| panic!("no {key} in {s}")).parse().unwrap()
}

/// `added-records` summed over `job`'s commits above checkpoint `above` in `snapshots`; and how many commits.
fn added_after(snapshots: &[Value], job: &str, above: i64) -> (u64, usize) {
    let cs: Vec<&Value> =
        snapshots.iter().filter(|s| s["summary"]["flink.job-id"] == job && summary_int(s, "flink.max-committed-checkpoint-id") > above).collect();
    (cs.iter().map(|s| summary_int(s, "added-records") as u64).sum(), cs.len())
}

/// The savepoint each run took is kept as Flink wrote it: the REST record (job, checkpoint id,
/// path) matches the facts, the `_metadata` decodes with that checkpoint id and the committer's job
/// id is the job that took it, and Flink's own reader agrees.
#[test]
fn savepoint_twice_and_older_savepoint_keep_what_flink_wrote() {
    for (scenario, labels, n) in [("savepoint-twice", vec!["A"], 1), ("older-savepoint", vec!["A", "B", "C"], 3)] {
        let (dir, flink, facts) = kept_run(scenario);
        let got: Vec<&str> = flink["kept"].as_array().unwrap().iter().map(|k| k["label"].as_str().unwrap()).collect();
        assert_eq!(got, labels, "{scenario}");
        assert_eq!(flink["job_labels"], facts["job_labels"], "{scenario}");
        assert_eq!(flink["resumes"], facts["resumes"], "{scenario}");
        for sp in facts["savepoints"].as_array().unwrap() {
            let label = sp["label"].as_str().unwrap();
            let k = kept(&flink, label);
            for key in ["job_id", "checkpoint_id", "savepoint_path", "stopped_job"] {
                assert_eq!(k[key], sp[key], "{scenario} {label}: {key}");
            }
            assert_eq!((&k["is_savepoint"], &k["status"]), (&Value::Bool(true), &Value::from("COMPLETED")), "{scenario} {label}");
            let r = read_label_in(&dir, label);
            assert_eq!(r.metadata.checkpoint_id, int(&k["checkpoint_id"]), "{scenario} {label}");
            assert_eq!(r.committers.len(), 1, "{scenario} {label}");
            assert_eq!(r.committers[0].sink, SinkKind::FlinkSink);
            assert_eq!(r.committers[0].job_id.as_deref(), k["job_id"].as_str(), "{scenario} {label}: the committer's job id is the job that took it");
            assert_eq!(ra_properties(&dir, label).as_deref(), Some(if k["stopped_job"] == true { "SUSPEND" } else { "NONE" }), "{scenario} {label}");
        }
        // The metadata file recorded before each resume is the one the catalog named, at the snapshot recorded.
        for r in flink["resumes"].as_array().unwrap() {
            let t = &r["table_before"];
            let file = t["metadata_file"].as_str().unwrap();
            assert!(t["catalog_metadata_location"].as_str().unwrap().ends_with(&format!("/{file}")), "{scenario}: {t}");
            let m = json(&root().join("tests/fixtures").join(scenario).join("metadata").join(file));
            assert_eq!(m["current-snapshot-id"].as_i64(), t["snapshot_id"].as_i64(), "{scenario} {file}");
        }
        assert_eq!(agrees_with_flinks_reader(scenario), n, "{scenario}");
    }
}

/// savepoint-twice: job A stopped with savepoint A; job B resumed from A and finished; just before
/// job C resumed from A again, the verdict on A is `replays`, naming job B as already resumed from
/// it, with every row B committed after A's checkpoint, which Spark then counted twice. Before B it
/// was `safe`.
#[test]
fn savepoint_twice_a_before_job_c_replays_job_b() {
    let (_, flink, facts) = kept_run("savepoint-twice");
    let table = "tests/fixtures/savepoint-twice";
    let lab = &facts["job_labels"];
    let (ja, jb, jc) = (lab["A"].as_str().unwrap(), lab["B"].as_str().unwrap(), lab["C"].as_str().unwrap());
    let a = int(&kept(&flink, "A")["checkpoint_id"]);
    let resume = |job: &str| flink["resumes"].as_array().unwrap().iter().find(|r| r["job_id"] == job).unwrap();
    let (rb, rc) = (resume(jb), resume(jc));
    assert_eq!((&rb["from"], &rc["from"]), (&Value::from("A"), &Value::from("A")));

    let before_b = rb["table_before"]["metadata_file"].as_str().unwrap();
    let v = verdicts_on(table, "tests/savepoints/savepoint-twice/A", Some(before_b));
    let v = &row(&v, "A/_metadata")["verdict"];
    assert_eq!(v["kind"], "safe", "before job B: {v}");
    assert_eq!(v["job_id"], ja);

    let before_c = rc["table_before"]["metadata_file"].as_str().unwrap();
    let snaps = snapshots_at(table, before_c);
    let (rows_b, commits_b) = added_after(&snaps, jb, a);
    assert!(commits_b > 0, "job B committed before job C started");
    let at_c = verdicts_on(table, "tests/savepoints/savepoint-twice/A", Some(before_c));
    let v = &row(&at_c, "A/_metadata")["verdict"];
    assert_eq!(v["kind"], "replays", "{v}");
    assert_eq!(v["job_id"], ja);
    assert_eq!(v["jobs_already_resumed"], serde_json::json!([jb]), "{v}");
    assert_eq!(v["rows_committed_after"].as_u64(), Some(rows_b), "{v}");
    // What job C then did: Spark counted exactly those rows twice.
    assert_eq!(facts["after_second_resume"]["duplicates"].as_u64(), Some(rows_b));
}

/// older-savepoint: job 1 took savepoint A and ran on, was stopped with savepoint B; job 2 resumed
/// from B (then `safe`) and was stopped with C; just before job 3 resumed from the OLDER A, the
/// verdict on A is `replays`, naming job 1 (it ran on past A) and job 2, with their commits' rows
/// above A's checkpoint in the table job 3 found.
#[test]
fn older_savepoint_verdicts_before_each_resume() {
    let (_, flink, facts) = kept_run("older-savepoint");
    let table = "tests/fixtures/older-savepoint";
    let lab = &facts["job_labels"];
    let (j1, j2, j3) = (lab["1"].as_str().unwrap(), lab["2"].as_str().unwrap(), lab["3"].as_str().unwrap());
    let (a, b) = (int(&kept(&flink, "A")["checkpoint_id"]), int(&kept(&flink, "B")["checkpoint_id"]));
    let resume = |from: &str| flink["resumes"].as_array().unwrap().iter().find(|r| r["from"] == from).unwrap();
    let (r2, r3) = (resume("B"), resume("A"));
    assert_eq!((r2["job_id"].as_str(), r3["job_id"].as_str()), (Some(j2), Some(j3)));

    let at2 = verdicts_on(table, "tests/savepoints/older-savepoint/B", r2["table_before"]["metadata_file"].as_str());
    let v = &row(&at2, "B/_metadata")["verdict"];
    assert_eq!(v["kind"], "safe", "before job 2: {v}");
    assert_eq!(v["job_id"], j1);
    assert_eq!(int(&v["restore_point"]["checkpoint_id"]), b);

    let file3 = r3["table_before"]["metadata_file"].as_str().unwrap();
    let snaps = snapshots_at(table, file3);
    let at3 = verdicts_on(table, "tests/savepoints/older-savepoint/A", Some(file3));
    let v = &row(&at3, "A/_metadata")["verdict"];
    assert_eq!(v["kind"], "replays", "{v}");
    assert_eq!(v["job_id"], j1);
    let replayed = v["replayed"].as_array().unwrap();
    let named: Vec<&str> = replayed.iter().map(|r| r["job_id"].as_str().unwrap()).collect();
    assert_eq!(named, [j1, j2], "{v}");
    assert_eq!(replayed[0]["took_the_savepoint"], true, "job 1 took A and ran on");
    assert_eq!(v["jobs_already_resumed"], serde_json::json!([]), "no job has resumed from A yet");
    let mut total = 0;
    for (r, job) in replayed.iter().zip([j1, j2]) {
        let (rows, commits) = added_after(&snaps, job, a);
        assert!(commits > 0, "{job}");
        assert_eq!(r["rows"].as_u64(), Some(rows), "{job}: {r}");
        assert_eq!(r["commits"].as_u64(), Some(commits as u64), "{job}: {r}");
        total += rows;
    }
    assert_eq!(v["rows_committed_after"].as_u64(), Some(total), "{v}");
    // Job 2 continues job 1's lineage from B: its rows are exact, and they are the ids Spark found
    // written by job 2 and again by job 3. Job 1's count includes A's own checkpoint (A did not stop
    // the job, so its rows were committed with the next checkpoint's): an upper bound, said so.
    assert_eq!(
        (&replayed[0]["estimated"], &replayed[1]["estimated"], &v["rows_estimated"]),
        (&Value::Bool(true), &Value::Bool(false), &Value::Bool(true)),
        "{v}"
    );
    let dup_sets = facts["rows_by_writer"]["duplicated_ids_by_job_set"].as_array().unwrap();
    let ids_of = |a: &str, b: &str| {
        dup_sets
            .iter()
            .find(|d| d["jobs"].as_str().unwrap().split('+').collect::<std::collections::BTreeSet<_>>() == [a, b].into())
            .map(|d| d["ids"].as_u64().unwrap())
    };
    assert_eq!(ids_of(j2, j3), replayed[1]["rows"].as_u64(), "job 2's rows, written again by job 3");
    let dup = facts["at_end"]["duplicates"].as_u64().unwrap();
    assert!(ids_of(j1, j3).unwrap() <= replayed[0]["rows"].as_u64().unwrap() && dup <= total, "{dup} duplicates vs {total} replayed");
}

/// savepoint-twice: what a resume from A writes is one copy of the stretch after it, whatever the
/// table holds already. Before job C resumed, the table held one copy (job B's); the verdict's
/// `resume_writes` is what Spark then counted job C wrote. At the end it holds two, and a third
/// resume would write the same rows once more, not the two copies' sum (`rows_committed_after`).
#[test]
fn savepoint_twice_a_resume_writes_one_copy_of_the_stretch() {
    let (_, flink, facts) = kept_run("savepoint-twice");
    let table = "tests/fixtures/savepoint-twice";
    let lab = &facts["job_labels"];
    let (jb, jc) = (lab["B"].as_str().unwrap(), lab["C"].as_str().unwrap());
    let rc = flink["resumes"].as_array().unwrap().iter().find(|r| r["job_id"] == jc).unwrap();
    // Spark's counts before and after job C's resume: the rows job C wrote.
    let written_by_c = facts["after_second_resume"]["rows"].as_u64().unwrap() - facts["after_first_resume"]["rows"].as_u64().unwrap();
    let before_c = verdicts_on(table, "tests/savepoints/savepoint-twice/A", rc["table_before"]["metadata_file"].as_str());
    let w = &row(&before_c, "A/_metadata")["verdict"]["resume_writes"];
    assert_eq!(w["rows"].as_u64(), Some(written_by_c), "{w}");
    assert_eq!((&w["at_least"], &w["estimated"], w["copies_in_table"].as_u64()), (&Value::Bool(false), &Value::Bool(false), Some(1)), "{w}");
    assert_eq!(w["measured_from"], serde_json::json!([jb]));

    let now = verdicts_on(table, "tests/savepoints/savepoint-twice/A", None);
    let v = &row(&now, "A/_metadata")["verdict"];
    let w = &v["resume_writes"];
    assert_eq!(w["rows"].as_u64(), Some(written_by_c), "{w}");
    assert_eq!(w["copies_in_table"].as_u64(), Some(2), "{w}");
    assert_eq!(v["rows_committed_after"].as_u64(), Some(2 * written_by_c));
    assert_eq!(v["jobs_already_resumed"], serde_json::json!([jb, jc]));
    // The rollback offered removes both resumes: said in numbers, and said to answer another question.
    let removes = &v["rollback_removes"];
    assert_eq!(removes["rows"].as_u64(), Some(2 * written_by_c), "{removes}");
    let commits = facts["commits"].as_array().unwrap();
    let later = commits.iter().filter(|c| c["flink_job_id"] == jb || c["flink_job_id"] == jc).count();
    assert_eq!(removes["commits"].as_u64(), Some(later as u64));
    let advice = row(&now, "A/_metadata")["advice"].as_str().unwrap().to_string();
    assert!(advice.contains("not \"undo a replay\""), "{advice}");
    let summary = row(&now, "A/_metadata")["summary"].as_str().unwrap().to_string();
    let digits = written_by_c.to_string();
    let grouped: Vec<&str> = (0..digits.len()).rev().step_by(3).map(|end| &digits[end.saturating_sub(2)..=end]).collect();
    let writes = format!("writes {} rows again", grouped.into_iter().rev().collect::<Vec<_>>().join(","));
    assert!(summary.contains(&writes) && summary.contains("3rd copy"), "{summary}");
}

/// older-savepoint, every savepoint read together against the final table: job 3 restored A, but
/// its first commit (B + 1) is the one a restore of B makes too, since FlinkSink skipped what job 1
/// had committed up to B. The table cannot decide: job 3 is "maybe resumed" from B, with A named,
/// its rows marked estimated, and its first commit's size pointing nearer A than B.
#[test]
fn older_savepoint_lineage_the_table_cannot_decide_is_inferred() {
    let (_, flink, facts) = kept_run("older-savepoint");
    let table = "tests/fixtures/older-savepoint";
    let j3 = facts["job_labels"]["3"].as_str().unwrap();
    let (a, b) = (int(&kept(&flink, "A")["checkpoint_id"]), int(&kept(&flink, "B")["checkpoint_id"]));
    let all = verdicts_on(table, "tests/savepoints/older-savepoint", None);
    let vb = &row(&all, "B/_metadata")["verdict"];
    assert!(!vb["jobs_already_resumed"].as_array().unwrap().iter().any(|j| j == j3), "{vb}");
    assert!(vb["jobs_maybe_resumed"].as_array().unwrap().iter().any(|j| j == j3), "{vb}");
    let r3 = vb["replayed"].as_array().unwrap().iter().find(|r| r["job_id"] == j3).unwrap();
    assert_eq!(r3["tie"]["how"], "inferred", "{r3}");
    assert!(r3["tie"]["alternatives"].as_array().unwrap().iter().any(|x| int(&x["checkpoint_id"]) == a), "{r3}");
    assert_eq!(r3["estimated"], true, "restored from before B: its rows above B are not all B's stretch");
    assert_eq!(vb["rows_estimated"], true);
    let likely = int(&r3["tie"]["likely_checkpoint"]);
    assert!((likely - a).abs() < (likely - b).abs(), "likely {likely}, A {a}, B {b}");
    // And on A: the same job is tied to A only by inference (B explains it as well).
    let va = &row(&all, "A/_metadata")["verdict"];
    assert!(va["jobs_maybe_resumed"].as_array().unwrap().iter().any(|j| j == j3), "{va}");
    assert!(!va["jobs_already_resumed"].as_array().unwrap().iter().any(|j| j == j3), "{va}");
    // A resume from A writes at least what the table shows written after it, and the source held
    // more: job 3 (from A) wrote the rows Spark attributes to it, at least as many.
    let w = &va["resume_writes"];
    let by3 = facts["rows_by_writer"]["per_job"].as_array().unwrap().iter().find(|p| p["job"] == j3).unwrap()["rows"].as_u64().unwrap();
    assert!(w["rows"].as_u64().unwrap() <= by3, "{w} vs job 3's {by3}");
}

/// older-savepoint through IcebergSink (parallelism 2) and through the dynamic sink: their
/// committers skip only the new job's own checkpoints, so job 3, restored from the OLDER A, first
/// commits A + 1 — decided, not inferred — and job 2 (from B) B + 1. Both commit on the savepoint's
/// own completion, so nothing before A's position rides in job 1's later commits: the rows after
/// A in job 1's and job 2's commits are exactly the ids Spark found twice.
#[test]
fn older_savepoint_through_the_v2_sinks_ties_each_job_to_its_savepoint() {
    for scenario in ["older-savepoint-icebergsink", "older-savepoint-dynamic"] {
        let (_, flink, facts) = kept_run(scenario);
        let table = format!("tests/fixtures/{scenario}");
        let lab = &facts["job_labels"];
        let (j1, j2, j3) = (lab["1"].as_str().unwrap(), lab["2"].as_str().unwrap(), lab["3"].as_str().unwrap());
        let (a, b) = (int(&kept(&flink, "A")["checkpoint_id"]), int(&kept(&flink, "B")["checkpoint_id"]));
        let commits = facts["commits"].as_array().unwrap();
        let first_of = |job: &str| commits.iter().find(|c| c["flink_job_id"] == job).map(|c| int(&c["max_committed_checkpoint_id"])).unwrap();
        assert_eq!((first_of(j2), first_of(j3)), (b + 1, a + 1), "{scenario}: the committers started from the restored counter");
        let all = verdicts_on(&table, &format!("tests/savepoints/{scenario}"), None);
        let va = &row(&all, "A/_metadata")["verdict"];
        assert_eq!(va["jobs_already_resumed"], serde_json::json!([j3]), "{scenario}: {va}");
        let replayed = va["replayed"].as_array().unwrap();
        let of = |job: &str| replayed.iter().find(|r| r["job_id"] == job).unwrap_or_else(|| panic!("{scenario}: {job} in {va}"));
        assert_eq!((&of(j1)["tie"]["how"], &of(j2)["tie"]["how"], &of(j3)["tie"]["how"]), (&"took_it".into(), &"continues".into(), &"resumed".into()));
        let spark = |job: &str| facts["rows_by_writer"]["per_job"].as_array().unwrap().iter().find(|p| p["job"] == job).unwrap()["rows"].as_u64().unwrap();
        assert_eq!(of(j3)["rows"].as_u64(), Some(spark(j3)), "{scenario}: job 3's rows as Spark attributes them");
        let stretch = of(j1)["rows"].as_u64().unwrap() + of(j2)["rows"].as_u64().unwrap();
        assert_eq!(Some(stretch), facts["at_end"]["duplicates"].as_u64(), "{scenario}: the first copy of the stretch is what job 3 wrote again");
        assert_eq!((&of(j1)["estimated"], &va["rows_estimated"]), (&Value::Bool(false), &Value::Bool(false)), "{scenario}: {va}");
        assert_eq!(va["resume_writes"]["copies_in_table"].as_u64(), Some(2));
        let vb = &row(&all, "B/_metadata")["verdict"];
        assert_eq!(vb["jobs_already_resumed"], serde_json::json!([j2]), "{scenario}: {vb}");
        assert_eq!(vb["jobs_maybe_resumed"], serde_json::json!([]), "{scenario}: {vb}");
        let r3 = vb["replayed"].as_array().unwrap().iter().find(|r| r["job_id"] == j3).unwrap();
        assert_eq!((&r3["tie"]["how"], &r3["estimated"]), (&"other".into(), &Value::Bool(true)), "{scenario}: job 3 is A's, not B's");
    }
}

// ------------------------------------------------------------------ what a savepoint can make

/// S1 with the committer's checkpoints state naming its one element `times` times (offsets that
/// cost 8 bytes each and would each read the element again).
fn s1_with_repeated_offset(times: i32) -> Vec<u8> {
    let b = s1();
    let name = b"iceberg-files-committer-state";
    let at = b.windows(name.len()).position(|w| w == name).unwrap() + name.len();
    // the mode byte, then the offsets' count and the offsets
    assert_eq!(i32::from_be_bytes(b[at + 1..at + 5].try_into().unwrap()), 1, "S1's state holds one element");
    let offset = &b[at + 5..at + 13];
    let mut h = b[..at + 1].to_vec();
    h.extend(times.to_be_bytes());
    for _ in 0..times {
        h.extend(offset);
    }
    h.extend(&b[at + 13..]);
    h
}

/// Offsets that name one element many times are refused, naming the repeated one: 100,000 of
/// them (800 KB) would otherwise make 100,000 copies of the element.
#[test]
fn offsets_that_name_one_element_again_are_refused() {
    let real = read("S1", &s1(), &mut no_files).unwrap();
    assert_eq!(real.committers[0].pending_checkpoints.len(), 1);
    let b = s1();
    let name = b"iceberg-files-committer-state";
    let p = b.windows(name.len()).position(|w| w == name).unwrap() + name.len();
    let at = i64::from_be_bytes(b[p + 5..p + 13].try_into().unwrap());
    for times in [2, 100_000] {
        let e = err(&s1_with_repeated_offset(times));
        assert!(
            e.contains(&format!(
                "field `iceberg-files-committer-state[1]`: starts at offset {at}, where another element starts: Flink writes each element once"
            )),
            "{times}: {e}"
        );
    }
}

/// A state file named by many handles is read once, and the committer's streams together are
/// bounded: 15 handles of one 16 MiB state file are read, 17 (272 MiB to parse) are refused, naming the bound.
#[test]
fn one_state_file_named_by_many_handles_is_read_once_and_bounded() {
    use icescope::session::savepoint::read_savepoint;
    let dir = std::env::temp_dir().join(format!("icescope-savepoint-many-{}", std::process::id()));
    let sp = dir.join("savepoint-x");
    std::fs::create_dir_all(&sp).unwrap();
    // A valid FlinkSink stream: the job id (Flink's StringValue), then a map of one checkpoint
    // whose serialized manifests are 16 MiB.
    let job = "0123456789abcdef0123456789abcdef";
    let mut state = vec![(job.len() + 1) as u8];
    state.extend(job.as_bytes());
    let second = state.len() as i64;
    state.extend(1i32.to_be_bytes());
    state.extend(7i64.to_be_bytes());
    state.push(0);
    state.extend((16i32 << 20).to_be_bytes());
    state.resize(state.len() + (16 << 20), 0);
    std::fs::write(sp.join("state"), &state).unwrap();
    let files = Counting::default();
    let metadata = sp.join("_metadata").display().to_string();
    let path = "file:/anywhere/savepoint-x/state";

    std::fs::write(sp.join("_metadata"), with_state_files(path, 15, second)).unwrap();
    let read = futures::executor::block_on(read_savepoint(&files, &metadata, "savepoint-x")).unwrap();
    assert_eq!(read.committers[0].job_id.as_deref(), Some(job));
    assert_eq!(read.committers[0].pending_checkpoints.iter().map(|p| p.checkpoint_id).collect::<Vec<_>>(), vec![7; 15]);
    assert_eq!(files.reads(&sp.join("state").display().to_string()), 1, "15 handles, one read");

    std::fs::write(sp.join("_metadata"), with_state_files(path, 17, second)).unwrap();
    let e = futures::executor::block_on(read_savepoint(&files, &metadata, "savepoint-x")).unwrap_err().to_string();
    assert!(e.contains("field `operators[0].state`: the committer's state streams add up to more than 268435456 bytes"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Many large state files together are bounded before they are read: five of 60 MiB (sparse on
/// the disk) pass the per-file bound, and the fifth is refused by what is left of 256 MiB.
#[test]
fn many_large_state_files_are_bounded_together() {
    use icescope::session::savepoint::read_savepoint;
    let dir = std::env::temp_dir().join(format!("icescope-savepoint-large-{}", std::process::id()));
    let sp = dir.join("savepoint-x");
    std::fs::create_dir_all(&sp).unwrap();
    let mut meta = Vec::new();
    for i in 0..5 {
        let f = std::fs::File::create(sp.join(format!("state-{i}"))).unwrap();
        f.set_len(60 << 20).unwrap();
        let one = with_state_files(&format!("file:/anywhere/savepoint-x/state-{i}"), 1, 1);
        meta.push(one);
    }
    // one operator with five subtasks, each naming its own file: spliced from the one-subtask builds
    let mut b = Vec::new();
    let first = &meta[0];
    let count_at = SUBTASK_COUNT_AT;
    b.extend(&first[..count_at]);
    b.extend(5i32.to_be_bytes());
    for (i, m) in meta.iter().enumerate() {
        let start = SUBTASK_COUNT_AT + 4;
        let end = m.len() - 5; // the properties' first bytes
        let mut sub = m[start..end].to_vec();
        sub[..4].copy_from_slice(&(i as i32).to_be_bytes());
        b.extend(sub);
    }
    b.extend(&first[first.len() - 5..]);
    std::fs::write(sp.join("_metadata"), &b).unwrap();
    let files = Counting::default();
    let metadata = sp.join("_metadata").display().to_string();
    let e = futures::executor::block_on(read_savepoint(&files, &metadata, "savepoint-x")).unwrap_err().to_string();
    assert!(
        e.contains("state-4: is 62914560 bytes, above the 16777216 icescope reads for the rest of this savepoint's state files (268435456 for them all)"),
        "{e}"
    );
    assert_eq!(files.reads(&sp.join("state-4").display().to_string()), 0, "refused by its size, not read");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Where the builder writes the operator's subtask count: after magic, version, checkpoint id,
/// master states, operators, "committer", "uid", the id, two parallelisms and the coordinator byte.
const SUBTASK_COUNT_AT: usize = 4 + 4 + 8 + 4 + 4 + (2 + 9) + (2 + 3) + 16 + 4 + 4 + 1;

/// Checkpoint properties whose back references repeat one 64 KiB string in 64 fields (4 MiB made
/// from 65 KB): a gap naming the bound, and the savepoint's operators still read.
#[test]
fn checkpoint_properties_that_repeat_a_string_are_bounded() {
    fn utf(out: &mut Vec<u8>, s: &str) {
        out.extend((s.len() as u16).to_be_bytes());
        out.extend(s.as_bytes());
    }
    let b = s1();
    let real = read("S1", &b, &mut no_files).unwrap();
    let props_at = b.len() - real.metadata.properties_bytes as usize;
    let mut h = b[..props_at + 4].to_vec(); // through Java serialization's magic
    h.push(0x73); // an object
    h.push(0x72); // of a class described here (handle 0)
    utf(&mut h, "org.apache.flink.runtime.checkpoint.CheckpointProperties");
    h.extend([0u8; 8]);
    h.push(0x02);
    h.extend(64u16.to_be_bytes());
    for i in 0..64 {
        h.push(b'L');
        utf(&mut h, &format!("f{i}"));
        if i == 0 {
            h.push(0x74); // the field's type, a string (handle 1)
            utf(&mut h, "Ljava/lang/String;");
        } else {
            h.push(0x71);
            h.extend(0x7e_0001u32.to_be_bytes());
        }
    }
    h.push(0x78); // end of the class annotation
    h.push(0x70); // no superclass; the object is handle 2
    h.push(0x74); // field 0: a 65,535-byte string (handle 3)
    utf(&mut h, &"a".repeat(65_535));
    for _ in 1..64 {
        h.push(0x71);
        h.extend(0x7e_0003u32.to_be_bytes());
    }
    let r = read("hostile/_metadata", &h, &mut no_files).unwrap();
    assert_eq!(r.metadata.operators.len(), real.metadata.operators.len());
    assert_eq!(r.committers, real.committers);
    assert!(r.metadata.properties.is_none());
    let gap = r.metadata.gaps.join("\n");
    assert!(gap.contains("makes more than 1048576 bytes of values (checkpoint properties make a few hundred): not read"), "{gap}");
}

/// A `Fetch` over the disk that counts the reads of each file.
#[derive(Default)]
struct Counting {
    reads: std::sync::Mutex<std::collections::HashMap<String, usize>>,
}

impl Counting {
    fn reads(&self, path: &str) -> usize {
        self.reads.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

impl icescope::source::Fetch for Counting {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, icescope::source::SourceError> {
        *self.reads.lock().unwrap().entry(reference.to_string()).or_default() += 1;
        std::fs::read(reference).map_err(|e| icescope::source::SourceError::Io { path: reference.to_string(), message: e.to_string() })
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        std::fs::metadata(reference).ok().map(|m| m.len())
    }
}
