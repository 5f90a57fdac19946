//! `icescope diff` on the lab's tables: what the engines did between two snapshots, read back.
//! Every expected number comes from the writer's facts.json.

use std::path::Path;

use icescope::analysis::diff::{compare, diff, point, resolve, Point, Refusal};
use icescope::load::load_table;
use icescope::model::{ReadMode, TableHistory};
use icescope::report::diff::markdown;
use icescope::source::local::LocalFolder;
use icescope::source::newest_metadata;
use serde_json::Value;

fn fixture(name: &str) -> (TableHistory, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let folder = LocalFolder::open(&dir).unwrap();
    let metadata = newest_metadata(&folder).unwrap();
    let facts = serde_json::from_str(&std::fs::read_to_string(dir.join("facts.json")).unwrap()).unwrap();
    (load_table(&folder, &metadata, ReadMode::All).unwrap(), facts)
}

#[test]
fn savepoint_twice_the_third_job_added_the_duplicates() {
    let (h, f) = fixture("savepoint-twice");
    let second_job = f["jobs"][1]["job_id"].as_str().unwrap();
    let (a, b) = (resolve(&h, &format!("job:{}", &second_job[..8])).unwrap(), resolve(&h, "current").unwrap());
    assert_eq!(h.snapshots[a].snapshot.snapshot_id.0, f["after_first_resume"]["snapshot_id"].as_i64().unwrap() as i128);
    let d = diff(&h, a, b);
    assert!(d.exact && !d.backwards);
    let rows = |k: &str| f[k]["rows"].as_u64().unwrap();
    assert_eq!(d.totals.records_added, rows("after_second_resume") - rows("after_first_resume"));
    assert_eq!((d.totals.records_removed, d.totals.data_files_removed), (0, 0));
    assert_eq!(d.from.records, rows("after_first_resume"));
    assert_eq!(d.to.records, f["final_table"]["rows"].as_u64().unwrap());
    // Every commit in between is the third job's.
    let third = f["jobs"][2]["job_id"].as_str().unwrap();
    assert_eq!(d.between_total, d.between.len());
    assert!(d.between.iter().all(|c| c.flink_job_id.as_deref() == Some(third)), "{:?}", d.between);
    assert_eq!(d.partitions.iter().map(|p| p.changes.records_added).sum::<u64>(), d.totals.records_added);
    // Backwards: the same files, the other way round.
    let back = diff(&h, b, a);
    assert!(back.backwards);
    assert_eq!((back.totals.records_removed, back.totals.records_added), (d.totals.records_added, 0));
}

#[test]
fn a_job_alone_compares_everything_it_added_from_the_table_just_before_it() {
    let (h, f) = fixture("savepoint-twice");
    let commits = f["commits"].as_array().unwrap();
    let id = |v: &Value| icescope::decode::SnapshotId(v.as_i64().unwrap() as i128);
    for job in f["jobs"].as_array().unwrap().iter().map(|j| j["job_id"].as_str().unwrap()) {
        let own: Vec<&Value> = commits.iter().filter(|c| c["flink_job_id"] == job).collect();
        let added: u64 = own.iter().map(|c| c["added_records"].as_u64().unwrap()).sum();
        let p = &job[..8];
        let d = compare(&h, &format!("job:{p}"), "").unwrap();
        assert!(d.exact && !d.backwards, "{job}");
        assert_eq!(d.totals.records_added, added, "{job}: the sum of its commits' added-records in facts.json");
        assert_eq!((d.totals.records_removed, d.totals.data_files_removed), (0, 0), "{job}");
        assert_eq!(d.to.snapshot_id, Some(id(&own.last().unwrap()["snapshot_id"])), "{job}: its last commit");
        // Every commit of the range is the job's, and every commit of the job is in it.
        assert_eq!(d.between_total, own.len(), "{job}");
        assert_eq!(d.between.iter().map(|c| c.snapshot_id).collect::<Vec<_>>(), own.iter().map(|c| id(&c["snapshot_id"])).collect::<Vec<_>>());
        // The same range, written out or given on the other side.
        assert_eq!(compare(&h, &format!("first:{p}"), &format!("last:{p}")).unwrap(), d);
        assert_eq!(compare(&h, "", &format!("job:{p}")).unwrap(), d);
    }
    // Exact numbers: the third job added 72,726 rows (its 8 commits' added-records, 2,765 + 10,013 + …
    // + 9,953), from the table the second left (facts' after_first_resume) to the current snapshot.
    let third = compare(&h, "job:eb1278fa", "").unwrap();
    assert_eq!(third.totals.records_added, 72_726);
    assert_eq!(third.from.snapshot_id, Some(id(&f["after_first_resume"]["snapshot_id"])));
    assert_eq!(third.from.records, f["after_first_resume"]["rows"].as_u64().unwrap());
    assert_eq!(third.to.records, f["final_table"]["rows"].as_u64().unwrap());
    // The second job starts where the first stopped (after_stop).
    assert_eq!(point(&h, "first:8761a05b"), point(&h, &f["after_stop"]["snapshot_id"].to_string()));
    // The first job created the table: its range starts from the empty table.
    let first = compare(&h, "job:82295459", "").unwrap();
    assert_eq!(first.from.snapshot_id, None);
    assert_eq!((first.from.records, first.from.data_files), (0, 0));
    assert_eq!(first.totals.records_added, 27_274);
    assert_eq!(first.totals.records_added, f["after_stop"]["rows"].as_u64().unwrap());
    assert_eq!(point(&h, "first:82295459"), Ok(Point::Empty));
    assert!(resolve(&h, "first:82295459").is_err(), "a walk needs a snapshot");
    let md = markdown(&first, "t");
    assert!(md.starts_with(&format!("### t: the empty table → snapshot {}\n", f["after_stop"]["snapshot_id"])), "{md}");
    assert!(md.contains("| snapshot | the empty table | "), "{md}");
    let text = icescope::report::diff::text::text(&first, "t");
    assert!(text.starts_with(&format!("t: the empty table -> snapshot {}\n", f["after_stop"]["snapshot_id"])), "{text}");
    // Backwards to the empty table: everything the first job added, removed.
    let back = compare(&h, "last:82295459", "first:82295459").unwrap();
    assert!(back.backwards && back.to.snapshot_id.is_none());
    assert_eq!((back.totals.records_removed, back.totals.records_added), (27_274, 0));
}

#[test]
fn a_snapshot_compared_with_itself_is_refused_with_why() {
    let (h, f) = fixture("savepoint-twice");
    let current = f["after_second_resume"]["snapshot_id"].as_i64().unwrap();
    assert_eq!(current, 9185495785604472153);
    // The third job is the current one: its last commit is current.
    let same = compare(&h, "job:eb1278fa", "current").unwrap_err();
    assert_eq!(same, Refusal::Same { snapshot_id: Some(icescope::decode::SnapshotId(current as i128)), job: Some("eb1278fa".into()) });
    assert_eq!(
        icescope::report::diff::refusal(&same),
        "both sides are snapshot 9185495785604472153: nothing to compare. What job eb1278fa added: first:eb1278fa → last:eb1278fa (or job:eb1278fa alone, the other side left empty)"
    );
    let plain = compare(&h, "current", &current.to_string()).unwrap_err();
    assert_eq!(icescope::report::diff::refusal(&plain), "both sides are snapshot 9185495785604472153: nothing to compare");
    let empty = compare(&h, "first:82295459", "first:8229").unwrap_err();
    assert_eq!(icescope::report::diff::refusal(&empty), "both sides are the empty table, before its first commit: nothing to compare");
    // Names that match nothing, or more than one job, are said as before.
    for bad in ["job:", "first:", "last:", "first:zz", "job:8"] {
        assert!(matches!(compare(&h, bad, "current"), Err(Refusal::Reference(_))), "{bad}");
    }
    let Err(Refusal::Reference(two)) = compare(&h, "first:8", "") else { panic!("two jobs start with 8") };
    assert_eq!(two, "`first:8` matches 2 job ids: give more of it");
}

#[test]
fn upsert_rewrites_replace_delete_files_then_compact_data_files() {
    let (h, f) = fixture("upsert-stream");
    let steps = f["maintenance"].as_array().unwrap();
    let at = |id: &Value| resolve(&h, &id.as_i64().unwrap().to_string()).unwrap();
    let count = |step: &Value, k: &str| step["result"][0][k].as_u64().unwrap();
    // rewrite_position_delete_files: each rewritten delete file replaced by a new one.
    let d = diff(&h, at(&steps[0]["snapshot_before"]), at(&steps[0]["snapshot_after"]));
    assert_eq!(d.totals.delete_files_removed, count(&steps[0], "rewritten_delete_files_count"));
    assert_eq!(d.totals.delete_files_added, count(&steps[0], "added_delete_files_count"));
    assert_eq!((d.totals.data_files_added, d.totals.data_files_removed), (0, 0));
    // rewrite_data_files: the data files compacted; Spark's count of files by content before and after.
    let d = diff(&h, at(&steps[1]["snapshot_before"]), at(&steps[1]["snapshot_after"]));
    assert_eq!(d.totals.data_files_removed, count(&steps[1], "rewritten_data_files_count"));
    assert_eq!(d.totals.data_files_added, count(&steps[1], "added_data_files_count"));
    let files = |step: &Value, content: u64| {
        step["files_by_content_after"].as_array().unwrap().iter().find(|c| c["content"] == content).map(|c| c["files"].as_u64().unwrap()).unwrap_or(0)
    };
    assert_eq!(d.from.data_files, files(&steps[0], 0));
    assert_eq!(d.to.data_files, files(&steps[1], 0));
    let data_records = steps[1]["files_by_content_after"].as_array().unwrap().iter().find(|c| c["content"] == 0).unwrap()["records"].as_u64().unwrap();
    assert_eq!(d.to.records, data_records);
}

#[test]
fn schema_on_the_wire_names_the_column_added_and_the_one_dropped() {
    let (h, f) = fixture("schema-on-the-wire");
    let changes = f["schema_changes"].as_array().unwrap();
    let d = diff(&h, 0, resolve(&h, "current").unwrap());
    let s = d.schema.expect("a schema change between the first and the current snapshot");
    assert_eq!(
        (s.from_schema_id as i64, s.to_schema_id as i64),
        (changes[0]["schema_id_before"].as_i64().unwrap(), changes[1]["schema_id_after"].as_i64().unwrap())
    );
    let cols = |c: &Value| c["columns_after"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect::<Vec<_>>();
    let dropped: Vec<String> = cols(&changes[0]).into_iter().filter(|c| !cols(&changes[1]).contains(c)).collect();
    let added = changes[0]["statements"][0].as_str().unwrap().split("ADD COLUMN ").nth(1).unwrap().split_whitespace().next().unwrap().to_string();
    assert_eq!(s.dropped.iter().map(|x| x.1.clone()).collect::<Vec<_>>(), dropped);
    assert_eq!(s.added.iter().map(|x| x.1.clone()).collect::<Vec<_>>(), vec![added]);
    assert!(s.renamed.is_empty() && s.retyped.is_empty());
}

#[test]
fn the_markdown_escapes_the_table_and_marks_a_partial_read() {
    let (h, _) = fixture("savepoint-twice");
    let md = markdown(&diff(&h, 0, 1), "a|b<script>");
    assert!(md.starts_with("### a\\|b&lt;script&gt;: snapshot "), "{md}");
    // Read in metadata-first mode, an old snapshot's files are not at hand: the diff says so.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/savepoint-twice");
    let folder = LocalFolder::open(&dir).unwrap();
    let partial = load_table(&folder, &newest_metadata(&folder).unwrap(), ReadMode::MetadataFirst).unwrap();
    let unread = (0..partial.snapshots.len()).find(|&i| !partial.has_files(i)).expect("metadata-first leaves some snapshot unread");
    let d = diff(&partial, unread, resolve(&partial, "current").unwrap());
    assert!(!d.exact && markdown(&d, "t").contains("**Not exact:**"), "{:?}", d.missing);
    assert!(resolve(&h, "job:").is_err() && resolve(&h, "checkpoint:x").is_err() && resolve(&h, "42").is_err());
}

#[test]
fn shape_over_time_names_each_schema_change_and_its_first_commit() {
    let (h, f) = fixture("schema-on-the-wire");
    let s = icescope::analysis::shape::shape(&h);
    let changes = f["schema_changes"].as_array().unwrap();
    let ids: Vec<i64> = s.schemas.iter().map(|v| v.schema_id as i64).collect();
    assert_eq!(
        ids,
        vec![
            changes[0]["schema_id_before"].as_i64().unwrap(),
            changes[0]["schema_id_after"].as_i64().unwrap(),
            changes[1]["schema_id_after"].as_i64().unwrap()
        ]
    );
    let added = s.schemas[1].change.as_ref().unwrap();
    assert_eq!(added.added.iter().map(|x| x.1.as_str()).collect::<Vec<_>>(), ["extra"]);
    let dropped = s.schemas[2].change.as_ref().unwrap();
    let gone: Vec<String> = changes[0]["columns_after"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .filter(|c| !changes[1]["columns_after"].as_array().unwrap().iter().any(|x| x == c.as_str()))
        .collect();
    assert_eq!(dropped.dropped.iter().map(|x| x.1.clone()).collect::<Vec<_>>(), gone);
    // First used: the first snapshot recording the schema id, in commit order.
    for v in &s.schemas {
        let first = h.snapshots.iter().find(|x| x.snapshot.schema_id == Some(v.schema_id)).unwrap();
        assert_eq!(v.first_used.as_ref().unwrap().0, first.snapshot.snapshot_id);
    }
    assert!(s.schemas[2].current && !s.schemas[0].current);
    assert!(s.properties.iter().all(|p| p.meaning.is_some() == icescope::analysis::properties::meaning(&p.key).is_some()));
    assert_eq!(s.refs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["main"]);
    assert_eq!(s.refs[0].snapshot_id, h.metadata.current_snapshot_id.unwrap());
}

// ---------------------------------------------------------------- against Spark's `entries`
//
// tests/spark-exports/<scenario>/diffs.json (tests/lab/run_spark_export.sh): for snapshot pairs A → B
// (first → current, current's parent → current, the first Flink job's last snapshot → the last job's),
// the files Spark 3.5.7 + Iceberg 1.11.0 list as live (`entries` as of A and as of B, status < 2) in B
// and not in A (added) and the other way round (removed), keyed by (path, content, content_offset):
// a deletion vector is one blob of a Puffin file that holds several.

use std::collections::BTreeMap;

use icescope::analysis::diff::Changes;
use icescope::decode::manifest::{DataContent, PartitionValue};
use icescope::decode::schema::Transform;
use icescope::model::time::date_of_days;

fn spark_exports() -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spark-exports");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("diffs.json").is_file())
        .map(|p| {
            (p.file_name().unwrap().to_string_lossy().into_owned(), serde_json::from_str(&std::fs::read_to_string(p.join("diffs.json")).unwrap()).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// One file as Spark lists it, or as icescope read it: (path, content code, content_offset) → the rest.
type Key = (String, i64, Option<i64>);
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct File {
    content: i64,
    /// data / position deletes / equality deletes / deletion vector
    kind: &'static str,
    records: u64,
    bytes: u64,
    partition: String,
}

fn kind(content: i64, format: &str) -> &'static str {
    match (content, format.to_ascii_uppercase().as_str()) {
        (0, _) => "data",
        (1, "PUFFIN") => "deletion vectors",
        (1, _) => "position deletes",
        (2, _) => "equality deletes",
        _ => "unknown",
    }
}

/// Spark's partition struct as icescope labels a partition: `ts_day=2026-11-28` (a day is its date in
/// both), fields in the spec's order joined by `/`, `(unpartitioned)` without fields.
fn spark_label(h: &TableHistory, p: &Value) -> String {
    let p = p.as_object().unwrap();
    let order = |k: &str| h.metadata.partition_specs.iter().flat_map(|s| s.fields.iter()).position(|f| &*f.name == k).unwrap_or(usize::MAX);
    let mut keys: Vec<&String> = p.keys().collect();
    keys.sort_by_key(|k| order(k));
    let parts: Vec<String> = keys.iter().map(|k| format!("{k}={}", p[k.as_str()].as_str().unwrap_or("null"))).collect();
    if parts.is_empty() {
        "(unpartitioned)".into()
    } else {
        parts.join("/")
    }
}

fn spark_files(h: &TableHistory, list: &Value) -> BTreeMap<Key, File> {
    let mut out = BTreeMap::new();
    for f in list.as_array().unwrap() {
        let content = f["content"].as_i64().unwrap();
        let key = (f["path"].as_str().unwrap().to_string(), content, f.get("content_offset").and_then(Value::as_i64));
        let file = File {
            content,
            kind: kind(content, f["file_format"].as_str().unwrap()),
            records: f["records"].as_u64().unwrap(),
            bytes: f["bytes"].as_u64().unwrap(),
            partition: spark_label(h, &f["partition"]),
        };
        assert!(out.insert(key.clone(), file).is_none(), "Spark lists {key:?} twice");
    }
    out
}

/// The live files of snapshot `i` as icescope read them, keyed like Spark's.
fn icescope_files(h: &TableHistory, i: usize) -> BTreeMap<Key, File> {
    let mut out = BTreeMap::new();
    for f in h.live_files(i) {
        let d = f.file;
        let content = match d.content {
            DataContent::Data => 0,
            DataContent::PositionDeletes => 1,
            DataContent::EqualityDeletes => 2,
            DataContent::Unknown(c) => c,
        };
        let spec = h.metadata.partition_spec(f.partition_spec_id);
        let parts: Vec<String> = d
            .partition
            .iter()
            .map(|(name, v)| match (spec.and_then(|s| s.fields.iter().find(|pf| *pf.name == **name)).map(|pf| &pf.transform), v) {
                (Some(Transform::Day), PartitionValue::Int(days)) => format!("{name}={}", date_of_days(*days)),
                _ => format!("{name}={v}"),
            })
            .collect();
        let key = (d.file_path.to_string(), content, d.v3.as_ref().and_then(|v| v.content_offset));
        let file = File {
            content,
            kind: kind(content, &format!("{:?}", d.file_format)),
            records: d.record_count as u64,
            bytes: d.file_size_in_bytes as u64,
            partition: if parts.is_empty() { "(unpartitioned)".into() } else { parts.join("/") },
        };
        assert!(out.insert(key.clone(), file).is_none(), "snapshot {}: {key:?} is live twice", h.snapshots[i].snapshot.snapshot_id.0);
    }
    out
}

/// Per (partition, kind): (files, records, bytes).
fn sums(files: &BTreeMap<Key, File>) -> BTreeMap<(String, &'static str), (u64, u64, u64)> {
    let mut out: BTreeMap<(String, &'static str), (u64, u64, u64)> = BTreeMap::new();
    for f in files.values() {
        let s = out.entry((f.partition.clone(), f.kind)).or_default();
        *s = (s.0 + 1, s.1 + f.records, s.2 + f.bytes);
    }
    out
}

/// What `diff` must say, from Spark's added and removed files: per partition and in total.
fn expected_changes(added: &BTreeMap<Key, File>, removed: &BTreeMap<Key, File>) -> (Changes, BTreeMap<String, Changes>) {
    let mut totals = Changes::default();
    let mut by: BTreeMap<String, Changes> = BTreeMap::new();
    for (files, is_added) in [(added, true), (removed, false)] {
        for f in files.values() {
            for c in [&mut totals, by.entry(f.partition.clone()).or_default()] {
                let (n, r) = match (f.content == 0, is_added) {
                    (true, true) => (&mut c.data_files_added, &mut c.records_added),
                    (true, false) => (&mut c.data_files_removed, &mut c.records_removed),
                    (false, true) => (&mut c.delete_files_added, &mut c.deletes_added),
                    (false, false) => (&mut c.delete_files_removed, &mut c.deletes_removed),
                };
                *n += 1;
                *r += f.records;
            }
        }
    }
    (totals, by)
}

/// Every pair of one scenario: (pair name, A, B, Spark's added, Spark's removed).
fn spark_pairs<'a>(h: &TableHistory, diffs: &'a Value) -> Vec<(&'a str, usize, usize, BTreeMap<Key, File>, BTreeMap<Key, File>)> {
    diffs["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let at = |k: &str| resolve(h, p[k].as_str().unwrap()).unwrap_or_else(|e| panic!("{}: {e}", p["name"]));
            (p["name"].as_str().unwrap(), at("from"), at("to"), spark_files(h, &p["added"]), spark_files(h, &p["removed"]))
        })
        .collect()
}

/// The scenarios whose diffs.json Spark wrote; every stageable fixture has one.
fn scenarios() -> Vec<(String, Value)> {
    let all = spark_exports();
    assert!(all.len() >= 15, "only {} diffs.json under tests/spark-exports: run bash tests/lab/run_spark_export.sh", all.len());
    all
}

/// The diff's sums against Spark's for one scenario: a list of disagreements.
fn diff_against_spark(name: &str, diffs: &Value) -> Vec<String> {
    let (h, _) = fixture(name);
    let mut wrong = Vec::new();
    for (pair, a, b, added, removed) in spark_pairs(&h, diffs) {
        let d = diff(&h, a, b);
        assert!(d.exact, "{name} {pair}: {:?}", d.missing);
        let (totals, by) = expected_changes(&added, &removed);
        if d.totals != totals {
            wrong.push(format!("{name} {pair} ({:?} → {:?}) totals: icescope {:?}, Spark {:?}", d.from.snapshot_id, d.to.snapshot_id, d.totals, totals));
        }
        let got: BTreeMap<String, Changes> = d.partitions.iter().map(|p| (p.partition.clone(), p.changes.clone())).collect();
        if got != by {
            wrong.push(format!("{name} {pair} by partition: icescope {got:?}, Spark {by:?}"));
        }
    }
    wrong
}

#[test]
fn diff_equals_spark_entries_on_every_lab_table() {
    let mut wrong = Vec::new();
    let mut pairs = 0;
    for (name, diffs) in scenarios() {
        pairs += diffs["pairs"].as_array().unwrap().len();
        wrong.extend(diff_against_spark(&name, &diffs));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(pairs >= 30, "{pairs} pairs");
}

#[test]
fn live_files_of_each_pair_equal_spark_entries_file_by_file() {
    // What diff's sums are made of: icescope's live files of A and B, keyed as Spark keys them,
    // give Spark's added and removed files exactly (path, content, offset, records, bytes, partition),
    // and so the same files, records and bytes per partition and kind.
    let mut checked = 0;
    for (name, diffs) in scenarios() {
        let (h, _) = fixture(&name);
        for (pair, a, b, added, removed) in spark_pairs(&h, &diffs) {
            let (before, after) = (icescope_files(&h, a), icescope_files(&h, b));
            let got_added: BTreeMap<Key, File> = after.iter().filter(|(k, _)| !before.contains_key(*k)).map(|(k, f)| (k.clone(), f.clone())).collect();
            let got_removed: BTreeMap<Key, File> = before.iter().filter(|(k, _)| !after.contains_key(*k)).map(|(k, f)| (k.clone(), f.clone())).collect();
            assert_eq!(got_added, added, "{name} {pair}: added files");
            assert_eq!(got_removed, removed, "{name} {pair}: removed files");
            assert_eq!(sums(&got_added), sums(&added), "{name} {pair}");
            assert_eq!(sums(&got_removed), sums(&removed), "{name} {pair}");
            checked += 1;
        }
    }
    assert!(checked >= 30, "{checked} pairs");
}

#[test]
fn walk_shows_what_a_null_sequence_number_inherits() {
    // Flink writes added entries without sequence numbers; they inherit the manifest list's, which
    // for a manifest added by the snapshot is that snapshot's own sequence number (metadata.json).
    let (h, _) = fixture("savepoint-twice");
    let i = resolve(&h, "current").unwrap();
    let first = h.list_of(i).unwrap().iter().find(|m| m.added_snapshot_id == Some(h.snapshots[i].snapshot.snapshot_id.0 as i64)).unwrap().manifest_path.clone();
    let w = icescope::analysis::walk::walk(&h, i, Some(&first), 10);
    let entry = &w.manifest.unwrap().entries[0];
    let field = |n: &str| entry.iter().find(|f| f.name == n).unwrap().value.clone();
    let seq = h.snapshots[i].snapshot.sequence_number;
    assert_eq!(field("status"), "1 (added)");
    assert_eq!(field("sequence_number"), format!("null → {seq} (inherited from the manifest list's sequence_number)"));
    assert_eq!(field("file_sequence_number"), format!("null → {seq} (inherited from the manifest list's sequence_number)"));
}

#[test]
fn walk_counts_the_snapshots_and_shows_each_summary_as_metadata_json_holds_it() {
    // metadata.json's own text, read with serde_json, is the reference (not the model).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/savepoint-twice");
    let folder = LocalFolder::open(&root).unwrap();
    let path = newest_metadata(&folder).unwrap();
    let raw: Value = serde_json::from_slice(&std::fs::read(root.join(&path)).unwrap()).unwrap();
    let (h, _) = fixture("savepoint-twice");
    let snapshots = raw["snapshots"].as_array().unwrap();
    for (i, s) in snapshots.iter().enumerate() {
        let w = icescope::analysis::walk::walk(&h, i, None, 10);
        let field = |n: &str| w.metadata.iter().chain(&w.snapshot).find(|f| f.name == n).map(|f| f.value.clone());
        assert_eq!(field("snapshots"), Some(format!("{} entries", snapshots.len())));
        assert_eq!(field("snapshot-id").unwrap(), s["snapshot-id"].to_string());
        let summary = s["summary"].as_object().unwrap();
        for (k, v) in summary {
            assert_eq!(field(&format!("summary.{k}")).as_deref(), v.as_str(), "snapshot {i} summary.{k}");
        }
        assert_eq!(w.snapshot.iter().filter(|f| f.name.starts_with("summary.")).count(), summary.len());
    }
}
