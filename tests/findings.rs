//! Findings on tables real engines wrote (tests/fixtures, made by tests/lab): each finding fires
//! where the lab produced its failure and stays silent where it did not. Expected numbers come
//! from the fixture's facts.json (Flink's REST API, Spark queries), never typed here.

use std::path::Path;

use icescope::analysis::findings::{Finding, Severity, TableRef};
use icescope::load::load_table;
use icescope::model::{ReadMode, TableHistory};
use icescope::report::findings::findings;
use icescope::source::local::LocalFolder;
use icescope::source::newest_metadata;
use serde_json::Value;

struct Fixture {
    history: TableHistory,
    facts: Value,
    findings: Vec<Finding>,
}

fn fixture(name: &str) -> Fixture {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let folder = LocalFolder::open(&root).unwrap_or_else(|e| panic!("{name}: {e}"));
    let history = load_table(&folder, &newest_metadata(&folder).expect("metadata"), ReadMode::All).expect("fixture loads");
    let facts: Value = serde_json::from_slice(&std::fs::read(root.join("facts.json")).expect("facts.json")).unwrap();
    let table = TableRef { catalog: "lab".into(), table: facts["table"].as_str().unwrap().into() };
    let findings = findings(&history, &table);
    Fixture { history, facts, findings }
}

impl Fixture {
    fn of_kind(&self, kind: &str) -> Vec<&Finding> {
        self.findings.iter().filter(|f| f.kind == kind).collect()
    }

    fn none_of(&self, kind: &str) {
        assert!(self.of_kind(kind).is_empty(), "unexpected {kind}: {:#?}", self.of_kind(kind));
    }

    fn records_at(&self, snapshot_id: i64) -> u64 {
        let i = self.history.index_of_avro_id(snapshot_id).expect("snapshot in history");
        self.history.counts(i).expect("counts").records
    }
}

/// Flink's job ids in the order the lab started them.
fn job_ids(facts: &Value) -> Vec<String> {
    facts["jobs"].as_array().unwrap().iter().map(|j| j["job_id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn savepoint_used_twice_is_one_critical_finding_with_the_right_job_and_rollback_target() {
    let fx = fixture("savepoint-twice");
    let jobs = job_ids(&fx.facts);
    assert_eq!(jobs.len(), 3);
    let replays = fx.of_kind("savepoint_replayed");
    assert_eq!(replays.len(), 1, "{replays:#?}");
    let f = replays[0];
    assert_eq!(f.severity, Severity::Critical);
    assert_eq!(f.job_ids, vec![jobs[2].clone(), jobs[1].clone()], "the second resume replays the first resume");
    let first_resume = &fx.facts["after_first_resume"];
    let target = first_resume["snapshot_id"].as_i64().unwrap();
    assert_eq!(
        f.statement.as_ref().map(|s| s.sql()).as_deref(),
        Some(format!("CALL lab.system.rollback_to_snapshot(table => '{}', snapshot_id => {target});", fx.facts["table"].as_str().unwrap()).as_str())
    );
    assert_eq!(fx.records_at(target), first_resume["rows"].as_u64().unwrap(), "rollback target holds the first resume's rows");
    let dupes = fx.facts["after_second_resume"]["duplicates"].as_u64().unwrap();
    assert!(f.evidence.contains(&icescope::report::format::thousands(dupes)), "duplicates {dupes} not in: {}", f.evidence);
    // The first resume is normal and says so.
    let resumes = fx.of_kind("job_resumed");
    assert_eq!(resumes.len(), 1);
    assert_eq!(resumes[0].severity, Severity::Info);
    assert_eq!(resumes[0].job_ids, vec![jobs[0].clone(), jobs[1].clone()]);
    fx.none_of("concurrent_writers");
}

#[test]
fn end_of_input_commits_are_labelled_exactly_where_spark_sees_them() {
    for name in ["savepoint-twice", "append-stream"] {
        let fx = fixture(name);
        let mut want: Vec<i64> = fx.facts["final_table"]["snapshots"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["summary"]["flink.max-committed-checkpoint-id"].as_str() == Some("9223372036854775807"))
            .map(|s| s["snapshot_id"].as_i64().unwrap())
            .collect();
        let mut got: Vec<i64> = fx.of_kind("end_of_input_commit").iter().flat_map(|f| f.snapshot_ids.iter().map(|s| s.0 as i64)).collect();
        want.sort_unstable();
        got.sort_unstable();
        assert_eq!(got, want, "{name}");
        assert!(fx.of_kind("end_of_input_commit").iter().all(|f| f.severity == Severity::Info), "{name}: never an alarm");
    }
}

#[test]
fn an_unbroken_stream_has_no_replay_resume_gap_or_schema_finding() {
    let fx = fixture("append-stream");
    for kind in [
        "savepoint_replayed",
        "job_resumed",
        "concurrent_writers",
        "checkpoint_gaps",
        "schema_under_running_writer",
        "late_one_row_files",
        "delete_debt",
        "retention",
    ] {
        fx.none_of(kind);
    }
}

#[test]
fn manifests_one_per_checkpoint_are_a_merge_due_not_a_fault_below_the_threshold() {
    // FlinkSink commits with a merge append (Iceberg's default min-count-to-merge 100): twelve
    // manifests are a merge that has not come yet, not manifests that never merge.
    let fx = fixture("append-stream");
    fx.none_of("manifests_never_merged");
    let f = fx.of_kind("manifests_merge_pending");
    assert_eq!(f.len(), 1);
    let spark_snapshots = fx.facts["final_table"]["snapshots"].as_array().unwrap().len() as u64;
    assert_eq!(f[0].title, format!("{spark_snapshots} manifests, one per commit: merged in {} commits", 100 - spark_snapshots));
    assert!(f[0].evidence.contains(&format!("{} commits from now the newest bin reaches 100 manifests", 100 - spark_snapshots)), "{}", f[0].evidence);
    assert!(f[0].evidence.contains("commit.manifest.min-count-to-merge 100 (Iceberg's default)"), "{}", f[0].evidence);
    assert_eq!(f[0].job_ids, job_ids(&fx.facts));
    // Every job whose commits added one, not only the last (savepoint-twice: three job ids).
    let sp = fixture("savepoint-twice");
    assert_eq!(sp.of_kind("manifests_merge_pending")[0].job_ids, job_ids(&sp.facts));
    fixture("maintenance-live").none_of("manifests_merge_pending");
    // maintenance-live ran rewrite_manifests while the job kept committing.
    fixture("maintenance-live").none_of("manifests_never_merged");
}

#[test]
fn fleet_score_is_files_beyond_one_per_partition_as_spark_counts_them() {
    let fx = fixture("append-stream");
    let parts = fx.facts["final_table"]["files_by_partition"].as_array().unwrap();
    let files: u64 = parts.iter().filter(|p| p["content"] == "data").map(|p| p["files"].as_u64().unwrap()).sum();
    let score = files - parts.iter().filter(|p| p["content"] == "data").count() as u64;
    let f = fx.of_kind("small_files");
    assert_eq!(f.len(), 1);
    assert!(f[0].title.starts_with(&format!("{score} data files beyond one per partition")), "{}", f[0].title);
    fixture("late-data").none_of("small_files");
}

#[test]
fn late_one_row_files_name_every_old_one_row_partition() {
    let fx = fixture("late-data");
    let parts = fx.facts["final_table"]["files_by_partition"].as_array().unwrap();
    let newest = parts.iter().filter_map(|p| p["partition"]["ts_day"].as_str()).max().unwrap();
    let late: Vec<&str> = parts
        .iter()
        .filter(|p| p["records"] == 1 && p["files"] == 1 && p["partition"]["ts_day"].as_str() != Some(newest))
        .map(|p| p["partition"]["ts_day"].as_str().unwrap())
        .collect();
    assert!(!late.is_empty());
    let f = fx.of_kind("late_one_row_files");
    assert_eq!(f.len(), 1);
    for day in &late {
        assert!(f[0].evidence.contains(day), "{day} missing: {}", f[0].evidence);
    }
    assert!(f[0].title.starts_with(&format!("{} one-row files", late.len())));
    // The where must reach the oldest late partition, which the lab's month-scoped compaction missed.
    let oldest = late.iter().min().unwrap();
    assert!(f[0].statement.as_ref().map(|s| s.sql()).as_deref().unwrap().contains(&format!("TIMESTAMP '{oldest} 00:00:00'")));
    assert_eq!(fx.facts["compaction_scoped_to_month"]["result"][0]["rewritten_data_files_count"], 0);
    // The Partitions chart marks as late exactly the partitions the finding names.
    let marked: Vec<String> =
        icescope::analysis::partitions::partition_stats(&fx.history).into_iter().filter(|p| p.max_lateness_ms.is_some()).map(|p| p.label).collect();
    let mut expected: Vec<String> = late.iter().map(|d| format!("ts_day={d}")).collect();
    expected.sort();
    assert_eq!(marked, expected);
}

#[test]
fn dropped_column_under_a_running_job_names_the_column_the_job_keeps_writing() {
    let fx = fixture("schema-on-the-wire");
    let drop = fx.facts["schema_changes"].as_array().unwrap().iter().find(|c| c["change"] == "drop-column").unwrap();
    let column = drop["statements"][0].as_str().unwrap().rsplit(' ').next().unwrap();
    let f = fx.of_kind("schema_under_running_writer");
    assert_eq!(f.len(), 1, "{f:#?}");
    assert_eq!(f[0].severity, Severity::Warning);
    assert!(f[0].title.contains(&format!("`{column}`")), "{}", f[0].title);
    assert_eq!(f[0].job_ids, job_ids(&fx.facts));
    // The Spark insert in between wrote the new column: its snapshot is not among the stale ones.
    let spark: Vec<i64> = fx.facts["final_table"]["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["summary"]["flink.job-id"].is_null())
        .map(|s| s["snapshot_id"].as_i64().unwrap())
        .collect();
    assert_eq!(spark.len(), 1);
    assert!(f[0].snapshot_ids.iter().all(|s| s.0 as i64 != spark[0]));
    fixture("savepoint-twice").none_of("schema_under_running_writer");
}

#[test]
fn retention_fires_against_the_tables_own_properties() {
    let fx = fixture("maintenance-live");
    let props = &fx.facts["created"]["properties"];
    let max_age: i64 = props["history.expire.max-snapshot-age-ms"].as_str().unwrap().parse().unwrap();
    let f = fx.of_kind("retention");
    assert_eq!(f.len(), 1);
    let newest = fx.history.snapshots.iter().map(|s| s.snapshot.timestamp_ms).max().unwrap();
    let keep: usize = props["history.expire.min-snapshots-to-keep"].as_str().unwrap().parse().unwrap();
    let n = fx.history.snapshots.len();
    let expirable = fx.history.snapshots[..n - keep].iter().filter(|s| s.snapshot.timestamp_ms < newest - max_age).count();
    assert!(f[0].title.contains(&format!("{expirable} past the table's retention")), "{}", f[0].title);
}

#[test]
fn a_column_name_re_added_with_a_new_field_id_is_found() {
    // The lab's schema-on-the-wire table with the dropped column re-added by name, as the chapter
    // warns: derived from the real metadata, with one schema appended.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/schema-on-the-wire");
    let folder = LocalFolder::open(&root).unwrap();
    let path = newest_metadata(&folder).unwrap();
    let mut json: Value = serde_json::from_slice(&std::fs::read(root.join(&path)).unwrap()).unwrap();
    let schemas = json["schemas"].as_array_mut().unwrap();
    let mut last = schemas.last().unwrap().clone();
    let next_id = last["schema-id"].as_i64().unwrap() + 1;
    last["schema-id"] = next_id.into();
    last["fields"].as_array_mut().unwrap().push(serde_json::json!({"id": 99, "name": "note", "required": false, "type": "string"}));
    schemas.push(last);
    let history = TableHistory::new(&path, icescope::decode::TableMetadata::from_bytes(&path, json.to_string().as_bytes()).unwrap());
    let found = findings(&history, &TableRef { catalog: "lab".into(), table: "t".into() });
    let reused: Vec<_> = found.iter().filter(|f| f.kind == "column_name_reused").collect();
    assert_eq!(reused.len(), 1, "{found:#?}");
    assert!(reused[0].title.contains("`note`") && reused[0].title.contains("5 → 99"), "{}", reused[0].title);
    assert!(fixture("schema-on-the-wire").of_kind("column_name_reused").is_empty());
}

#[test]
fn projection_uses_the_interval_spark_sees_and_the_metadata_files_on_the_store() {
    let fx = fixture("append-stream");
    let p = icescope::analysis::projection::projection(&fx.history).expect("a streaming job");
    let job = &job_ids(&fx.facts)[0];
    assert_eq!(&p.job_id, job);
    // Spark's snapshots table: the last `commits` commits of the job, and their mean spacing.
    let times: Vec<f64> = fx.facts["final_table"]["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["summary"]["flink.job-id"].as_str() == Some(job))
        .map(|s| {
            let t = s["committed_at"].as_str().unwrap();
            let secs: f64 = t[17..].parse().unwrap();
            let (h, m): (f64, f64) = (t[11..13].parse().unwrap(), t[14..16].parse().unwrap());
            (h * 3600.0 + m * 60.0 + secs) * 1000.0
        })
        .collect();
    let window = &times[times.len() - p.commits..];
    let interval = (window[window.len() - 1] - window[0]) / (window.len() - 1) as f64;
    assert!((p.interval_ms - interval).abs() < 1.0, "{} vs Spark's {interval}", p.interval_ms);
    // A day in whole commits, each a snapshot.
    assert!((p.commits_in_a_day as f64 - 86_400_000.0 / interval).abs() <= 1.0);
    assert_eq!(p.day.snapshots.added_in_a_day, p.commits_in_a_day as f64);
    // One manifest per checkpoint, three partitions touched per checkpoint.
    let partitions = fx.facts["final_table"]["files_by_partition"].as_array().unwrap().len() as f64;
    assert_eq!(p.per_commit.manifests, 1.0);
    assert_eq!(p.per_commit.data_files, partitions);
    // metadata.json growth read from the metadata files the lab exported, one per commit.
    let growth = p.per_commit.metadata_json_bytes.expect("metadata log files are in the fixture");
    assert!(growth > 0.0);
}

#[test]
fn delete_debt_counts_the_delete_files_spark_sees_and_the_ones_left_dangling() {
    let fx = fixture("upsert-stream");
    let rewrite = fx.facts["maintenance"].as_array().unwrap().iter().find(|m| m["call"].as_str().unwrap().contains("rewrite_data_files")).unwrap();
    let after = rewrite["files_by_content_after"].as_array().unwrap();
    let deletes: u64 = after.iter().filter(|c| c["content"] != 0).map(|c| c["files"].as_u64().unwrap()).sum();
    let data: u64 = after.iter().filter(|c| c["content"] == 0).map(|c| c["files"].as_u64().unwrap()).sum();
    let f = fx.of_kind("delete_debt");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].title, format!("Delete debt: {deletes} delete files on {data} data file{}", if data == 1 { "" } else { "s" }));
    // Spark's rewrite reported it removed none, and one data file replaced all: every delete left is dangling.
    assert_eq!(rewrite["result"][0]["removed_delete_files_count"], 0);
    assert!(f[0].evidence.contains(&format!("{deletes} of them apply to no live data file")), "{}", f[0].evidence);
    assert!(f[0].statement.as_ref().map(|s| s.sql()).as_deref().unwrap().contains("'delete-file-threshold', '1'"));
    fixture("savepoint-twice").none_of("delete_debt");
}

#[test]
fn checkpoint_gaps_are_exactly_the_checkpoints_flink_reports_failed() {
    let fx = fixture("taskmanager-kill");
    let job = &fx.facts["jobs"][0];
    let failed: Vec<i64> = job["checkpoints"]["failed_ids"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
    assert!(!failed.is_empty(), "the lab's kill failed no checkpoint");
    let spans = icescope::analysis::jobs::job_spans(&fx.history);
    assert_eq!(spans.len(), 1);
    let missing: Vec<i64> = spans[0].checkpoint_holes().into_iter().flat_map(|(a, b)| a..=b).collect();
    assert_eq!(missing, failed);
    assert_eq!(spans[0].missing_count(), failed.len() as u64);
    let f = fx.of_kind("checkpoint_gaps");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].job_ids, vec![job["job_id"].as_str().unwrap().to_string()]);
    assert!(f[0].statement.as_ref().map(|s| s.sql()).as_deref().unwrap().contains("remove_orphan_files"), "a restore leaves orphans");
    // The commits either side of the failed checkpoint, 5 s apart per id, came 22 s apart: the
    // restart delay (10 s fixed) shows, so this is not read as a savepoint without stop.
    assert!(f[0].evidence.contains("the commits paused (22.0 s instead of about 10.0 s)"), "{}", f[0].evidence);
    fixture("savepoint-twice").none_of("checkpoint_gaps");
}

#[test]
fn two_jobs_writing_at_once_are_concurrent_writers_not_a_savepoint_replay() {
    let fx = fixture("concurrent-writers");
    let mut jobs = job_ids(&fx.facts);
    jobs.sort();
    let f = fx.of_kind("concurrent_writers");
    assert_eq!(f.len(), 1, "{:#?}", fx.findings);
    let mut named = f[0].job_ids.clone();
    named.sort();
    assert_eq!(named, jobs);
    assert_eq!(f[0].severity, Severity::Critical);
    // Each job added its whole input; Spark counted the duplicates.
    let dupes = fx.facts["after_both_finished"]["duplicates"].as_u64().unwrap();
    assert!(f[0].evidence.contains(&icescope::report::format::thousands(dupes)), "{}", f[0].evidence);
    fx.none_of("savepoint_replayed");
    fx.none_of("job_resumed");
    // And a sequential replay is not mistaken for concurrency.
    fixture("savepoint-twice").none_of("concurrent_writers");
}

#[test]
fn partition_timeline_ends_at_the_files_spark_counts_per_partition() {
    use icescope::analysis::partitions::partition_timeline;
    let fx = fixture("late-data");
    let t = partition_timeline(&fx.history, 200);
    assert_eq!(t.snapshots.len(), fx.history.snapshots.len());
    let (_, last) = t.snapshots.last().unwrap();
    for p in fx.facts["final_table"]["files_by_partition"].as_array().unwrap().iter().filter(|p| p["content"] == "data") {
        let label = format!("ts_day={}", p["partition"]["ts_day"].as_str().unwrap());
        let i = t.partitions.iter().position(|l| *l == label).unwrap_or_else(|| panic!("{label} not in {:?}", t.partitions));
        assert_eq!(last[i], p["files"].as_u64().unwrap(), "{label}");
    }
}

/// Semicolons outside quotes (Spark's lexer: `'…'` and `"…"` with backslash escapes, `` `…` `` with
/// doubled backticks): exactly one, at the end, in every printed statement.
fn statement_ends(stmt: &str) -> Vec<usize> {
    let (mut ends, mut quote, mut escaped) = (Vec::new(), None::<char>, false);
    let chars: Vec<char> = stmt.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match quote {
            Some(_) if escaped => escaped = false,
            Some('`') if c == '`' => quote = None, // a doubled backtick reopens on the next char
            Some(q) if q != '`' && c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' || c == '`' => quote = Some(c),
            None if c == ';' => ends.push(i),
            None => {}
        }
    }
    ends
}

#[test]
fn names_from_the_table_cannot_end_or_extend_a_printed_statement() {
    // Every lab fixture, its location rewritten to carry an injection: the derived table name and
    // every statement built from it stay one statement.
    for name in ["savepoint-twice", "taskmanager-kill", "late-data", "upsert-stream", "append-stream"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
        let folder = LocalFolder::open(&root).unwrap();
        let history = load_table(&folder, &newest_metadata(&folder).unwrap(), ReadMode::All).unwrap();
        for hostile in ["db.ev'); CALL x.system.expire_snapshots(table => 'y'); --", "db.e`v\";--", "db.a\\'b"] {
            let found = findings(&history, &TableRef { catalog: "lab".into(), table: hostile.into() });
            let statements: Vec<String> = found.iter().filter_map(|f| f.statement.as_ref().map(|s| s.sql())).collect();
            assert!(!statements.is_empty(), "{name}: no statement to check");
            for s in statements {
                let s = &s;
                let ends = statement_ends(s);
                assert_eq!(ends, vec![s.chars().count() - 1], "{name}: `{s}` is not exactly one statement");
                assert!(!s.contains('\n'));
            }
        }
        // A name with a line break or a bidi override gets no statement, and the finding says why.
        let found = findings(&history, &TableRef { catalog: "lab".into(), table: "db.ev\n; DROP".into() });
        assert!(found.iter().all(|f| f.statement.is_none()), "{name}");
        assert!(found.iter().all(|f| f.action.contains("No statement is printed")), "{name}");
    }
}

#[test]
fn deletion_vectors_count_as_their_puffin_files_and_live_rows_are_spark_count() {
    // Spark 3.5.7 merge-on-read DELETE, UPDATE, MERGE and DELETE on a format v3 table.
    let fx = fixture("v3-deletion-vectors");
    let dv = &fx.facts["deletion_vectors"];
    let u = |k: &str| dv[k].as_u64().unwrap_or_else(|| panic!("facts: {k}"));
    let cur = fx.history.current_index().unwrap();
    let report = icescope::report::findings::inspect(&fx.history, &TableRef::guess(&fx.history, None));
    let row = &report.snapshots[cur];
    let (live_rows, live_rows_are) = row.live_rows();
    let row = row.totals();
    assert_eq!(row.data_files, Some(u("live_data_files")));
    assert_eq!(row.deletion_vectors, Some(u("live_deletion_vectors")));
    assert_eq!(row.records, Some(u("data_records")));
    assert_eq!(row.position_deletes, Some(u("dv_cardinality_sum")));
    // Records minus the vectors' cardinalities is Spark's count(*), exactly.
    assert_eq!(live_rows, Some(u("count_star")));
    assert_eq!(live_rows_are, Some(icescope::analysis::inspect::LiveRows::Exact));
    let f = fx.of_kind("delete_debt");
    assert_eq!(f.len(), 1);
    let opened = u("live_data_files") + u("puffin_files");
    assert!(
        f[0].evidence.contains(&format!(
            "a full scan opens {opened} files (the {} deletion vectors sit in {} Puffin files)",
            u("live_deletion_vectors"),
            u("puffin_files")
        )),
        "{}",
        f[0].evidence
    );
    // Only Spark batches wrote it: no finding speaks of checkpoints.
    for f in &fx.findings {
        assert!(!format!("{} {} {}", f.title, f.evidence, f.action).contains("checkpoint"), "{f:?}");
    }
}

fn number_before(text: &str, marker: &str) -> u64 {
    let end = text.find(marker).unwrap_or_else(|| panic!("`{marker}` not in: {text}"));
    let digits: String = text[..end].chars().rev().take_while(|c| c.is_ascii_digit() || *c == ',').filter(|c| *c != ',').collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

#[test]
fn a_resume_from_an_older_savepoint_names_where_it_went_back_to_and_whose_rows_it_repeats() {
    // Job 1 took savepoint A (without stop) at checkpoint 8 and stopped with B at 13; job 2
    // resumed from B; job 3 from A. Spark counted which job ids wrote each duplicated id.
    let fx = fixture("older-savepoint");
    let jobs = job_ids(&fx.facts);
    let by = &fx.facts["rows_by_writer"]["rows_of_duplicated_ids_per_job"];
    let dup_rows = |job: &str| by.as_array().unwrap().iter().find(|r| r["job"] == job).unwrap()["rows"].as_u64().unwrap();
    let a = fx.facts["savepoints"].as_array().unwrap().iter().find(|s| s["label"] == "A").unwrap()["checkpoint_id"].as_i64().unwrap();
    let replays = fx.of_kind("savepoint_replayed");
    assert_eq!(replays.len(), 1, "{replays:#?}");
    let f = replays[0];
    let short = |j: &str| format!("{}…", &j[..8]);
    assert_eq!(f.title, format!("Savepoint replayed: job {} restored from about checkpoint {a} and wrote again what followed it", short(&jobs[2])));
    // All of job 2's rows are repeated, exactly as Spark counted them.
    assert!(f.evidence.contains(&format!("all {} rows of job {}", icescope::report::format::thousands(dup_rows(&jobs[1])), short(&jobs[1]))), "{}", f.evidence);
    // Job 1's share is bounded from above by its commits after the restore point: the commit
    // after a savepoint without stop also holds rows from before it.
    let bound = number_before(&f.evidence, &format!(" rows of job {} (its commits after checkpoint {a})", short(&jobs[0])));
    let truth = dup_rows(&jobs[0]);
    // Over by less than one checkpoint's rows (the generator's rate × the checkpoint interval).
    let per_checkpoint = fx.facts["rows_per_second"].as_u64().unwrap() * fx.facts["checkpoint_ms"].as_u64().unwrap() / 1000;
    assert!(bound >= truth && bound - truth < per_checkpoint, "bound {bound}, Spark {truth}, per checkpoint {per_checkpoint}");
    assert!(f.evidence.contains(&format!("older state than job {}'s", short(&jobs[1]))), "{}", f.evidence);
    let target = fx.history.snapshots[icescope::analysis::jobs::job_spans(&fx.history)[1].last_index()].snapshot.snapshot_id;
    assert!(f.statement.as_ref().map(|s| s.sql()).as_deref().unwrap().ends_with(&format!("snapshot_id => {target});")));
}

#[test]
fn a_savepoint_without_stop_is_a_hole_on_schedule_with_nothing_to_clean() {
    let fx = fixture("savepoint-no-stop");
    let sp = fx.facts["savepoints"].as_array().unwrap().iter().find(|s| s["stopped_job"] == false).unwrap()["checkpoint_id"].as_i64().unwrap();
    let f = fx.of_kind("checkpoint_gaps");
    assert_eq!(f.len(), 1, "{f:#?}");
    assert!(f[0].title.starts_with(&format!("Checkpoint {sp} of job ")), "{}", f[0].title);
    assert!(f[0].evidence.contains("came on the job's usual schedule"), "{}", f[0].evidence);
    assert_eq!(f[0].statement, None, "no orphans to remove after a savepoint");
    fx.none_of("savepoint_replayed");
}

#[test]
fn the_merge_append_merges_at_its_threshold_and_the_finding_counts_down_to_it() {
    // FlinkSink, 1 s checkpoints, 134 commits: the manifest lists as Spark and fastavro read them.
    let fx = fixture("merge-append-long");
    let commits = fx.facts["commits"].as_array().unwrap();
    assert_eq!(commits.len(), fx.history.snapshots.len());
    for (i, c) in commits.iter().enumerate() {
        assert_eq!(fx.history.totals(i).manifests, c["manifests_in_list"].as_u64(), "snapshot {i}");
    }
    let now = commits.last().unwrap()["manifests_in_list"].as_u64().unwrap();
    fx.none_of("manifests_never_merged");
    let f = fx.of_kind("manifests_merge_pending");
    assert_eq!(f.len(), 1);
    // Flink's one merge so far came at the commit that made the newest bin 100 (99 kept + 1 new):
    // the forecast is the same rule run forward from today's list.
    let merge = &fx.facts["merges"][0];
    let at = merge["manifests_before"].as_u64().unwrap() + 1;
    assert_eq!((at, merge["manifests_after"].as_u64()), (100, Some(1)));
    assert_eq!(f[0].title, format!("{now} manifests, one per commit: merged in {} commits", at - now));
    assert!(f[0].evidence.contains(&format!("the last {} streaming commits each added a manifest", now - 1)), "{}", f[0].evidence);
}

#[test]
fn each_snapshot_names_its_writer_and_in_job_maintenance_is_not_another_writer() {
    let fx = fixture("flink-maintenance");
    let report = icescope::report::findings::inspect(&fx.history, &TableRef::guess(&fx.history, None));
    let maintenance: std::collections::HashSet<i128> =
        fx.facts["maintenance_commits"].as_array().unwrap().iter().map(|c| i128::from(c["snapshot_id"].as_i64().unwrap())).collect();
    let mut seen = 0;
    for r in &report.snapshots {
        let want = if maintenance.contains(&r.snapshot_id.0) { icescope::model::Writer::FlinkMaintenance } else { icescope::model::Writer::FlinkSink };
        seen += usize::from(want == icescope::model::Writer::FlinkMaintenance);
        assert_eq!(r.writer, want, "snapshot {}", r.snapshot_id);
    }
    // Four of the eight maintenance commits are still in the table (expiry dropped the others).
    let live = fx.facts["final_table"]["snapshots"].as_array().unwrap().iter().filter(|s| s["operation"] == "replace").count();
    assert_eq!(seen, live);
    assert!(seen > 0);
    fx.none_of("concurrent_writers");
    fx.none_of("savepoint_replayed");
    // Spark wrote every snapshot of the v3 table; the dynamic sink's first commit (its branch) names no engine.
    let v3 = fixture("v3-deletion-vectors");
    assert!(icescope::report::findings::inspect(&v3.history, &TableRef::guess(&v3.history, None))
        .snapshots
        .iter()
        .all(|r| r.writer == icescope::model::Writer::Spark));
}

#[test]
fn a_jobs_restore_point_followed_by_other_commits_is_watched_against_the_retention() {
    // upsert-stream: the job was cancelled, then Spark rewrote position deletes and data files.
    let fx = fixture("upsert-stream");
    let jobs = job_ids(&fx.facts);
    let snaps = fx.facts["final_table"]["snapshots"].as_array().unwrap();
    let last_job = snaps.iter().rposition(|s| s["summary"]["flink.job-id"].as_str() == Some(jobs.last().unwrap())).unwrap();
    let after = snaps.len() - 1 - last_job;
    let f = fx.of_kind("restore_point_expiry");
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].severity, Severity::Info, "5 days (the default) have not passed since");
    assert_eq!(f[0].job_ids, vec![jobs.last().unwrap().clone()]);
    assert_eq!(f[0].snapshot_ids[0].0, i128::from(snaps[last_job]["snapshot_id"].as_i64().unwrap()));
    assert!(f[0].evidence.contains(&format!("{after} commits by others followed it")), "{}", f[0].evidence);
    assert!(f[0].evidence.contains("apache/iceberg#5846"));
    // A job whose last commit is the current snapshot is safe: expiry never removes it.
    fixture("append-stream").none_of("restore_point_expiry");
}

#[test]
fn icebergsink_and_the_dynamic_sink_end_without_a_long_max_commit_and_raise_nothing() {
    // IcebergSink commits end of input under its last checkpoint id, not Long.MAX_VALUE; the
    // dynamic sink's first snapshot is its branch, committed with no keys at all.
    for name in ["icebergsink-v2", "dynamic-sink"] {
        let fx = fixture(name);
        let job = fx.facts["jobs"][0]["job_id"].as_str().unwrap().to_string();
        let spans = icescope::analysis::jobs::job_spans(&fx.history);
        assert_eq!(spans.len(), 1, "{name}");
        assert_eq!(spans[0].job_id, job);
        assert!(!spans[0].end_of_input, "{name}: no Long.MAX_VALUE commit");
        let committed: Vec<i64> = fx.facts["commits"].as_array().unwrap().iter().filter_map(|c| c["max_committed_checkpoint_id"].as_i64()).collect();
        assert_eq!(spans[0].checkpoint_ids, committed, "{name}");
        for kind in ["end_of_input_commit", "checkpoint_gaps", "savepoint_replayed", "concurrent_writers", "job_resumed", "manifests_never_merged"] {
            fx.none_of(kind);
        }
        let report = icescope::report::findings::inspect(&fx.history, &TableRef::guess(&fx.history, None));
        for r in &report.snapshots {
            let want = if r.flink_job_id.is_some() { icescope::model::Writer::FlinkSink } else { icescope::model::Writer::Unknown };
            assert_eq!(r.writer, want, "{name} {}", r.snapshot_id);
        }
        let rows = fx.facts["at_end"]["rows"].as_u64().unwrap();
        assert_eq!(report.snapshots.last().unwrap().totals().records, Some(rows), "{name}");
    }
}

#[test]
fn the_sink_is_named_where_the_commits_tell_it() {
    use icescope::analysis::jobs::{job_spans, Sink};
    let sink = |name: &str| job_spans(&fixture(name).history).iter().map(|j| j.sink).collect::<Vec<_>>();
    // FlinkSink's bounded jobs end under Long.MAX_VALUE; IcebergSink's under its last checkpoint id.
    assert_eq!(sink("savepoint-twice"), vec![Sink::FlinkSink; 3]);
    assert_eq!(sink("icebergsink-v2"), vec![Sink::FlinkSinkOrIcebergSink]);
    assert_eq!(sink("append-stream"), vec![Sink::FlinkSinkOrIcebergSink], "unbounded: nothing tells");
    // The dynamic sink's committer writes no engine-name (Iceberg 1.11.0).
    assert_eq!(sink("dynamic-sink"), vec![Sink::DynamicSink]);
}

/// The fixture's newest metadata.json, changed by `edit`, as a history (summaries only).
fn edited(name: &str, edit: impl FnOnce(&mut Value)) -> TableHistory {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let folder = LocalFolder::open(&root).unwrap();
    let path = newest_metadata(&folder).unwrap();
    let mut json: Value = serde_json::from_slice(&std::fs::read(root.join(&path)).unwrap()).unwrap();
    edit(&mut json);
    TableHistory::new(&path, icescope::decode::TableMetadata::from_bytes(&path, json.to_string().as_bytes()).unwrap())
}

#[test]
fn the_dynamic_sink_is_told_by_any_commit_without_engine_name_and_says_which() {
    use icescope::analysis::jobs::{job_spans, Sink};
    // The dynamic sink's commits carry engine-name only where the committing JVM opened a Flink
    // TableLoader (FlinkEnvironmentContext.init): its first commits on a TaskManager that did,
    // then none after a restore on a fresh one. Mimicked on the real run: its first two Flink
    // commits get the keys Iceberg 1.11's EnvironmentContext writes.
    let facts: Value =
        serde_json::from_slice(&std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dynamic-sink/facts.json")).unwrap()).unwrap();
    let flink: Vec<i64> =
        facts["commits"].as_array().unwrap().iter().filter(|c| c["max_committed_checkpoint_id"].is_i64()).map(|c| c["snapshot_id"].as_i64().unwrap()).collect();
    let h = edited("dynamic-sink", |json| {
        for s in json["snapshots"].as_array_mut().unwrap() {
            if flink[..2].contains(&s["snapshot-id"].as_i64().unwrap()) {
                s["summary"]["engine-name"] = "flink".into();
                s["summary"]["engine-version"] = "2.1.1".into();
            }
        }
    });
    let spans = job_spans(&h);
    assert_eq!(spans[0].sink, Sink::DynamicSink);
    let without = flink.len() - 2;
    assert_eq!((spans[0].sink_by.commits, spans[0].sink_by.with_engine_name), (without, 2));
    let e = spans[0].sink_evidence();
    assert!(
        e.starts_with(&format!(
            "dynamic sink: {without} of its commits from Iceberg 1.10 or later lack engine-name (snapshot {}, {}, {} and {} more), though 2 carry it",
            flink[2],
            flink[3],
            flink[4],
            without - 3
        )),
        "{e}"
    );
    // IcebergSink's committer opens a TableLoader: every commit carries engine-name.
    let ib = job_spans(&fixture("icebergsink-v2").history);
    assert_eq!(ib[0].sink, Sink::FlinkSinkOrIcebergSink);
    assert_eq!(ib[0].sink_by.with_engine_name, ib[0].snapshot_indexes.len());
    // A FlinkSink job names the Long.MAX_VALUE commit that decided it.
    let sp = fixture("savepoint-twice");
    let spans = job_spans(&sp.history);
    let last = spans.iter().find(|s| s.end_of_input).unwrap();
    let eoi = sp.history.snapshots.iter().find(|s| s.flink.as_ref().is_some_and(|f| f.is_end_of_input())).unwrap().snapshot.snapshot_id;
    assert!(last.sink_evidence().contains(&format!("(snapshot {eoi})")), "{}", last.sink_evidence());
}

/// The live runs: job 2 resumed from savepoint B after job 1, then job 3 from the older A. Job 3
/// replays job 1's commits after A (the latest job whose range holds its first checkpoint), but
/// the table to go back to is the one just before job 3's first commit: job 2's commits stay.
#[test]
fn a_replay_after_another_resume_rolls_back_to_just_before_it_and_never_repeats_more_than_it_wrote() {
    for name in ["live-watch", "live-watch-icebergsink", "live-watch-dynamic"] {
        let fx = fixture(name);
        let j3 = fx.facts["job_labels"]["3"].as_str().unwrap();
        let commits = fx.facts["commits"].as_array().unwrap();
        let first = commits.iter().position(|c| c["flink_job_id"] == j3).expect("job 3 committed");
        let before = commits[first - 1]["snapshot_id"].as_i64().unwrap();
        let replays = fx.of_kind("savepoint_replayed");
        assert_eq!(replays.len(), 1, "{name}: {replays:#?}");
        let f = replays[0];
        assert_eq!(f.job_ids[0], j3, "{name}");
        assert_eq!(
            f.statement.as_ref().map(|s| s.sql()).as_deref(),
            Some(format!("CALL lab.system.rollback_to_snapshot(table => '{}', snapshot_id => {before});", fx.facts["table"].as_str().unwrap()).as_str()),
            "{name}"
        );
        assert!(f.action.starts_with(&format!("Roll back to snapshot {before}, the last before job ")), "{name}: {}", f.action);
        // "… so [at most] X of the Y rows job … added …": X never above Y.
        let (x, y) = repeated_of_added(&f.evidence);
        assert!(x <= y, "{name}: {x} of {y}: {}", f.evidence);
    }
}

/// The two numbers of "so [at most] X of the Y rows" in a replay's evidence.
fn repeated_of_added(evidence: &str) -> (u64, u64) {
    let num = |s: &str| s.replace(',', "").parse::<u64>().unwrap_or_else(|_| panic!("{s:?} in {evidence}"));
    let after = evidence.split_once("so at most ").or_else(|| evidence.split_once(": so ")).map(|(_, r)| r).expect("so …");
    let (x, rest) = after.split_once(" of the ").expect("of the");
    let y = rest.split_once(" rows").expect("rows").0;
    (num(x), num(y))
}
