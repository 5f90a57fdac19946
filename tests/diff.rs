//! `icescope diff` on the lab's tables: what the engines did between two snapshots, read back.
//! Every expected number comes from the writer's facts.json.

use std::path::Path;

use icescope::analysis::diff::{diff, markdown, resolve};
use icescope::load::load_table;
use icescope::model::{ReadMode, TableHistory};
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
    let files = |step: &Value, content: u64| step["files_by_content_after"].as_array().unwrap().iter().find(|c| c["content"] == content).map(|c| c["files"].as_u64().unwrap()).unwrap_or(0);
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
    assert_eq!((s.from_schema_id as i64, s.to_schema_id as i64), (changes[0]["schema_id_before"].as_i64().unwrap(), changes[1]["schema_id_after"].as_i64().unwrap()));
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
    assert_eq!(ids, vec![changes[0]["schema_id_before"].as_i64().unwrap(), changes[0]["schema_id_after"].as_i64().unwrap(), changes[1]["schema_id_after"].as_i64().unwrap()]);
    let added = s.schemas[1].change.as_ref().unwrap();
    assert_eq!(added.added.iter().map(|x| x.1.as_str()).collect::<Vec<_>>(), ["extra"]);
    let dropped = s.schemas[2].change.as_ref().unwrap();
    let gone: Vec<String> = changes[0]["columns_after"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).filter(|c| !changes[1]["columns_after"].as_array().unwrap().iter().any(|x| x == c.as_str())).collect();
    assert_eq!(dropped.dropped.iter().map(|x| x.1.clone()).collect::<Vec<_>>(), gone);
    // First used: the first snapshot recording the schema id, in commit order.
    for v in &s.schemas {
        let first = h.snapshots.iter().find(|x| x.snapshot.schema_id == Some(v.schema_id)).unwrap();
        assert_eq!(v.first_used.as_ref().unwrap().0, first.snapshot.snapshot_id);
    }
    assert!(s.schemas[2].current && !s.schemas[0].current);
    assert!(s.properties.iter().all(|p| p.meaning.is_some() == icescope::analysis::shape::meaning(&p.key).is_some()));
    assert_eq!(s.refs.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), ["main"]);
    assert_eq!(s.refs[0].snapshot_id, h.metadata.current_snapshot_id.unwrap());
}
