//! The growth projection against what real writers did (tests/fixtures, made by tests/lab): a
//! merging writer's manifests, simulated from an early snapshot's list with Iceberg's rule, are the
//! manifests the writer held that many commits later; the day's projection of a merging writer
//! swings within its merge threshold; with merging off it adds up. Expected numbers come from the
//! fixture's facts.json (Flink's commits, Spark's `all_manifests` and snapshots tables).

use std::path::Path;

use icescope::analysis::merge::MergePolicy;
use icescope::analysis::merge_simulation::{MergedSize, Simulation};
use icescope::analysis::projection::{new_manifests, projection, ManifestModel, Projection, Start, Unmerged};
use icescope::load::load_table;
use icescope::model::{ReadMode, TableHistory};
use icescope::source::local::LocalFolder;
use icescope::source::newest_metadata;
use serde_json::Value;

fn fixture(name: &str) -> (TableHistory, Value) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let folder = LocalFolder::open(&root).unwrap_or_else(|e| panic!("{name}: {e}"));
    let history = load_table(&folder, &newest_metadata(&folder).expect("metadata"), ReadMode::All).expect("fixture loads");
    let facts = serde_json::from_slice(&std::fs::read(root.join("facts.json")).expect("facts.json")).unwrap();
    (history, facts)
}

/// (history index, manifests in its list) for each commit the lab recorded, in commit order.
fn held(history: &TableHistory, commits: &[(i64, u64)]) -> Vec<(usize, u64)> {
    commits.iter().map(|&(id, n)| (history.index_of_avro_id(id).expect("commit in history"), n)).collect()
}

/// From each start, every commit after it simulated with what the writer's commits wrote:
/// returns how many predictions were checked.
fn simulate_forward(history: &TableHistory, held: &[(usize, u64)], starts: &[usize]) -> usize {
    let policy = MergePolicy::of(&history.metadata.properties);
    let mut checked = 0;
    for &s in starts {
        let (i, _) = held[s];
        let list = history.list_of(i).expect("the start's list is in the fixture");
        // What the writer's commits up to the start wrote (the start itself may have merged).
        let window: Vec<usize> = held[s.saturating_sub(4)..=s].iter().map(|h| h.0).collect();
        let new = new_manifests(history, &window, false).expect("the writer's commits wrote manifests");
        let mut sim = Simulation::from_list(list, &new, &policy, MergedSize::Largest);
        for (k, &(_, actual)) in held[s + 1..].iter().enumerate() {
            assert_eq!(sim.commit().manifests, actual, "from commit {} ({} manifests), {} commits forward", s + 1, held[s].1, k + 1);
            checked += 1;
        }
    }
    checked
}

fn merging(p: &Projection) -> &icescope::analysis::projection::Merging {
    match &p.manifest_model {
        ManifestModel::Merging(m) => m,
        other => panic!("not merging: {other:?}"),
    }
}

/// The merge-pending finding names the commit the projection's first merge comes at.
fn finding_agrees(history: &TableHistory, p: &Projection) {
    let table = icescope::analysis::findings::TableRef { catalog: "lab".into(), table: "t".into() };
    let found = icescope::report::findings::findings(history, &table);
    let pending = found.iter().find(|f| f.kind == "manifests_merge_pending").expect("a merge pending");
    let first = merging(p).run.first_merge.expect("a merge within the day");
    assert!(pending.title.ends_with(&format!("merged in {first} commits")), "{} vs {first}", pending.title);
}

/// The sentence and the chart say each series with the same words.
fn chart_agrees_with_sentence(p: &Projection) {
    let sentence = icescope::report::projection::sentence(p);
    for row in icescope::report::projection::rows(p) {
        assert!(sentence.contains(&row.after_text), "{}: `{}` not in `{sentence}`", row.label, row.after_text);
        assert!(sentence.contains(&format!("{} {} now", row.label, row.now_text.trim_start_matches("now "))), "{}: {sentence}", row.label);
    }
}

#[test]
fn merge_append_long_simulated_from_early_lists_holds_what_the_writer_held() {
    let (history, facts) = fixture("merge-append-long");
    let commits: Vec<(i64, u64)> =
        facts["commits"].as_array().unwrap().iter().map(|c| (c["snapshot_id"].as_i64().unwrap(), c["manifests_in_list"].as_u64().unwrap())).collect();
    let held = held(&history, &commits);
    let merge = &facts["merges"][0];
    let before = merge["manifests_before"].as_u64().unwrap();
    let at = held
        .iter()
        .position(|&(i, _)| history.snapshots[i].flink.as_ref().and_then(|f| f.checkpoint_id) == merge["max_committed_checkpoint_id"].as_i64())
        .expect("the merging commit");
    // Starts before the merge (from the first commit, and from one short of it), at it, and after.
    let starts = [0, 9, at - 1, at, at + 10];
    let checked = simulate_forward(&history, &held, &starts);
    assert_eq!(checked, starts.iter().map(|s| held.len() - 1 - s).sum::<usize>());
    // The day: the list now, merging by count as the run did, up to `before` and down to `after`.
    let p = projection(&history).expect("a streaming job");
    let m = merging(&p);
    assert_eq!(m.start, Start::List);
    assert!(matches!(m.merged_size, MergedSize::Fitted { .. }), "the merged manifest in the list sizes the rest: {:?}", m.merged_size);
    let now = held.last().unwrap().1;
    assert_eq!(p.day.manifests.now, now as f64);
    assert_eq!(m.run.first_merge, Some(before + 1 - now), "the writer merged when its bin reached {} with the new one", before + 1);
    let swing = p.day.manifests.over_the_day.expect("a swing");
    assert_eq!((swing.fewest, swing.most), (merge["manifests_after"].as_u64().unwrap() as f64, before as f64));
    assert_eq!(m.run.merges_by_size, 0);
    assert!(m.run.merges_by_count >= p.commits_in_a_day / before);
    assert_eq!(p.day.manifests.total_after_a_day, p.day.manifests.now + p.day.manifests.added_in_a_day);
    chart_agrees_with_sentence(&p);
    finding_agrees(&history, &p);
}

#[test]
fn savepoint_twice_simulated_from_its_first_list_holds_what_spark_counts_and_its_day_stays_under_the_count() {
    let (history, facts) = fixture("savepoint-twice");
    // Spark's snapshots table: the manifests each commit kept and created are its list.
    let commits: Vec<(i64, u64)> = facts["final_table"]["snapshots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let n = |k: &str| s["summary"][k].as_str().unwrap().parse::<u64>().unwrap();
            (s["snapshot_id"].as_i64().unwrap(), n("manifests-created") + n("manifests-kept"))
        })
        .collect();
    let held = held(&history, &commits);
    assert_eq!(simulate_forward(&history, &held, &[0, 5, 12]), 18 + 13 + 6);
    let p = projection(&history).expect("a streaming job");
    let m = merging(&p);
    let min = m.min_count.value as u64;
    let now = held.last().unwrap().1;
    assert_eq!(p.day.manifests.now, now as f64);
    assert_eq!(m.run.first_merge, Some(min - now));
    // By count alone the list never holds the hundredth; merges by size only in the bracket's
    // upper run, where a merged manifest is taken as large as all it folds.
    assert_eq!((m.run.fewest, m.run.most, m.run.merges_by_size), (1, min - 1, 0));
    assert!(p.day.manifests.total_after_a_day < min as f64);
    assert!(p.day.manifests.total_after_a_day < p.day.snapshots.added_in_a_day / 10.0, "not one manifest per commit");
    // Snapshots and files add up, each now + what a day adds.
    assert_eq!(p.day.snapshots.added_in_a_day, p.commits_in_a_day as f64);
    assert_eq!(p.day.data_files.total_after_a_day, p.day.data_files.now + p.day.data_files.added_in_a_day);
    chart_agrees_with_sentence(&p);
    finding_agrees(&history, &p);
    let sentence = icescope::report::projection::sentence(&p);
    assert!(sentence.contains("by count") && sentence.contains(&format!("the first {} commits from now", min - now)), "{sentence}");
}

#[test]
fn with_merging_off_or_a_writer_past_the_count_manifests_add_up() {
    let (mut history, _) = fixture("savepoint-twice");
    history.metadata.properties.insert("commit.manifest-merge.enabled".into(), "false".into());
    let p = projection(&history).expect("a streaming job");
    assert!(matches!(p.manifest_model, ManifestModel::Linear { why: Unmerged::MergingOff { .. } }), "{:?}", p.manifest_model);
    let m = &p.day.manifests;
    assert_eq!(m.added_in_a_day, p.per_commit.manifests * p.commits_in_a_day as f64);
    assert_eq!(m.total_after_a_day, m.now + m.added_in_a_day);
    assert_eq!(m.over_the_day, None);
    let sentence = icescope::report::projection::sentence(&p);
    assert!(sentence.contains("merging is off"), "{sentence}");
    chart_agrees_with_sentence(&p);
    // A count the list's 19 manifests are past, yet none merged: the writer does not merge.
    history.metadata.properties.insert("commit.manifest-merge.enabled".into(), "true".into());
    history.metadata.properties.insert("commit.manifest.min-count-to-merge".into(), "10".into());
    let p = projection(&history).expect("a streaming job");
    assert!(
        matches!(p.manifest_model, ManifestModel::Linear { why: Unmerged::WriterDoesNotMerge { newest_bin: 19, min_count: 10 } }),
        "{:?}",
        p.manifest_model
    );
}

#[test]
fn upsert_stream_merges_its_delete_manifests_apart() {
    let (history, facts) = fixture("upsert-stream");
    let p = projection(&history).expect("a streaming job");
    let m = merging(&p);
    assert_eq!((m.new_data_manifests.len(), m.new_delete_manifests.len()), (1, 1), "each commit writes a data and a delete manifest");
    // Data and delete manifests merge apart: the day never holds two bins' worth of either.
    let min = m.min_count.value as f64;
    let swing = p.day.manifests.over_the_day.unwrap();
    assert!(swing.most < 2.0 * min + 5.0 && swing.most >= min, "{swing:?}");
    // Spark's last snapshot's manifests are the projection's now.
    let last = facts["final_table"]["snapshots"].as_array().unwrap().last().unwrap();
    let n = |k: &str| last["summary"][k].as_str().unwrap().parse::<f64>().unwrap();
    assert_eq!(p.day.manifests.now, n("manifests-created") + n("manifests-kept"));
    chart_agrees_with_sentence(&p);
}
