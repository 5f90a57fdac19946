//! Findings over pairs of jobs and over checkpoint holes stay proportional to the table: 2,000
//! interleaved job ids (two million pairs) and 10,000 holes of 9,999 ids (a hundred million ids)
//! give a handful of findings that say how many were left out. The histories repeat late-data's
//! first commit under new ids, job ids and checkpoint ids.

use std::path::Path;

use icescope::analysis::findings::{Finding, TableRef, CAP};
use icescope::decode::TableMetadata;
use icescope::model::TableHistory;
use icescope::report::findings::{findings, inspect};
use icescope::report::inspect::markdown::markdown;
use serde_json::{json, Value};

/// late-data's first commit repeated once per (job id, checkpoint id), in commit order.
fn history(commits: impl Iterator<Item = (String, i64)>) -> TableHistory {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/late-data/metadata/v2.metadata.json");
    let mut meta: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let mut first = meta["snapshots"][0].clone();
    // Only what the job findings read and the totals: the rest of a Flink summary is bulk here.
    let keep = ["operation", "total-data-files", "total-delete-files", "total-records", "added-records"];
    first["summary"] =
        Value::Object(first["summary"].as_object().unwrap().iter().filter(|(k, _)| keep.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect());
    let base = first["snapshot-id"].as_i64().unwrap();
    let snapshots: Vec<Value> = commits
        .enumerate()
        .map(|(k, (job, checkpoint))| {
            let mut s = first.clone();
            s["snapshot-id"] = json!(base + k as i64);
            s["sequence-number"] = json!(k + 1);
            s["timestamp-ms"] = json!(first["timestamp-ms"].as_i64().unwrap() + 1000 * k as i64);
            s["summary"]["flink.job-id"] = json!(job);
            s["summary"]["flink.max-committed-checkpoint-id"] = json!(checkpoint.to_string());
            s
        })
        .collect();
    meta["current-snapshot-id"] = snapshots.last().unwrap()["snapshot-id"].clone();
    meta["snapshots"] = Value::Array(snapshots);
    let m = TableMetadata::from_bytes("v2.metadata.json", meta.to_string().as_bytes()).unwrap();
    TableHistory::new("v2.metadata.json", m)
}

fn of<'a>(all: &'a [Finding], kind: &str) -> Vec<&'a Finding> {
    all.iter().filter(|f| f.kind == kind).collect()
}

/// Every finding reads in a minute: a bounded title, evidence and lists, whatever the table holds.
fn readable(all: &[Finding]) {
    for f in all {
        assert!(f.title.len() < 600 && f.evidence.len() < 4000, "{}: {} + {} bytes", f.kind, f.title.len(), f.evidence.len());
        assert!(f.job_ids.len() <= 2 * CAP, "{}: {} job ids", f.kind, f.job_ids.len());
    }
}

#[test]
fn two_thousand_interleaved_jobs_give_cap_plus_one_findings() {
    let n: usize = 2000;
    let job = |k: usize| format!("{k:032x}");
    // Every job commits checkpoint 1, then every job commits checkpoint 2: all pairs interleave.
    let h = history((0..n).map(|k| (job(k), 1)).chain((0..n).map(|k| (job(k), 2))));
    let table = TableRef { catalog: "lab".into(), table: "icescope.late_data".into() };
    let all = findings(&h, &table);
    let cw = of(&all, "concurrent_writers");
    assert_eq!(cw.len(), CAP + 1);
    let pairs = n * (n - 1) / 2;
    assert_eq!(cw[CAP].title, format!("{} more pairs of Flink jobs writing at once", icescope::report::format::thousands((pairs - CAP) as u64)));
    assert!(cw[CAP].evidence.contains("2,000 jobs in all"), "{}", cw[CAP].evidence);
    assert!(of(&all, "savepoint_replayed").is_empty() && of(&all, "job_resumed").is_empty());
    readable(&all);
    let report = inspect(&h, &table);
    assert_eq!(report.jobs.len(), n);
    let md = markdown(&report);
    assert!(md.len() < 600 * (2 * n) + 50_000, "{} bytes of Markdown for {} snapshots", md.len(), 2 * n);
}

#[test]
fn two_thousand_jobs_each_replaying_the_last_are_counted_not_listed() {
    let n: usize = 2000;
    let h = history((0..n).flat_map(|k| [(format!("{k:032x}"), 1), (format!("{k:032x}"), 2)]));
    let all = findings(&h, &TableRef { catalog: "lab".into(), table: "icescope.late_data".into() });
    let replays = of(&all, "savepoint_replayed");
    assert_eq!(replays.len(), CAP + 1);
    // The newest job, right after the one before it, is two writers or a restart from scratch: the
    // table cannot tell yet (`replay.rs` fresh_beside_running); every earlier one is a replay.
    assert!(replays[CAP].title.starts_with(&format!("{} more jobs", icescope::report::format::thousands((n - 2 - CAP) as u64))), "{}", replays[CAP].title);
    assert_eq!(of(&all, "concurrent_writers").len(), 1);
    readable(&all);
}

#[test]
fn ten_thousand_checkpoint_holes_are_ranges_not_ids() {
    let holes: i64 = 10_000;
    let h = history((0..=holes).map(|k| ("00000000000000000000000000000001".to_string(), 1 + 10_000 * k)));
    let spans = icescope::analysis::jobs::job_spans(&h);
    assert_eq!(spans[0].checkpoint_holes().len(), holes as usize);
    assert_eq!(spans[0].missing_count(), holes as u64 * 9_999);
    let all = findings(&h, &TableRef { catalog: "lab".into(), table: "icescope.late_data".into() });
    let gaps = of(&all, "checkpoint_gaps");
    assert_eq!(gaps.len(), 1);
    assert!(gaps[0].title.contains(&format!("and {} more holes", icescope::report::format::thousands((holes as usize - CAP) as u64))), "{}", gaps[0].title);
    assert!(gaps[0].evidence.contains("(99,990,000 ids)"), "{}", gaps[0].evidence);
    readable(&all);
}

/// A watch over 600 jobs whose commits all interleave (179,700 pairs writing at once): its state
/// keeps the newest 256 pairs, a later look says nothing new, and a new job's pairs are said once.
#[test]
fn a_watch_remembers_a_bounded_number_of_jobs_writing_at_once() {
    use icescope::analysis::live::{LiveOptions, LiveState, MAX_OVERLAPPING};
    use icescope::report::live::look;
    let n = 600;
    // Round-robin commits: every job commits twice, all before any job's last.
    let commits = |jobs: usize| (0..2).flat_map(move |round| (0..jobs).map(move |k| (format!("{k:032x}"), 10 + round as i64)));
    let table = TableRef { catalog: "lab".into(), table: "icescope.late_data".into() };
    let h = history(commits(n));
    let now = h.snapshots.last().unwrap().snapshot.timestamp_ms;
    let (_, s1) = look(&h, &table, &LiveState::default(), now, LiveOptions::default());
    assert_eq!(s1.overlapping.len(), MAX_OVERLAPPING);
    let state_bytes = serde_json::to_vec(&s1).unwrap().len();
    assert!(state_bytes < 200_000, "{state_bytes} bytes of state");
    let (events, s2) = look(&h, &table, &s1, now, LiveOptions::default());
    let second =
        |e: &[icescope::analysis::live::Observed]| e.iter().filter(|o| matches!(o.event, icescope::analysis::live::Event::SecondWriter { .. })).count();
    assert_eq!(second(&events), 0, "nothing new to say");
    // One more job, interleaved with the last ones: said, with the pairs it makes among the newest.
    let mut more: Vec<(String, i64)> = commits(n).collect();
    let tail = more.split_off(more.len() - 3);
    more.push((format!("{n:032x}"), 10));
    more.extend(tail);
    let h2 = history(more.into_iter());
    let (events, _) = look(&h2, &table, &s2, now + 10_000, LiveOptions::default());
    assert!(second(&events) >= 1, "the new job's overlap is said");
}
