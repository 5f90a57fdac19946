//! One quantity, one value on every surface. For each lab fixture (tables real engines wrote),
//! every number the CLI and the app show in more than one place — the chart series and their
//! CSV/Parquet exports, the findings, the Markdown for the ticket, the terminal text, the JSON —
//! is produced as the product produces it and compared. Where the lab recorded the number from
//! Spark, it is compared with that too.

use std::path::{Path, PathBuf};

use icescope::analysis::export::{tables_of, Table, Values, What};
use icescope::analysis::findings::TableRef;
use icescope::analysis::inspect::{Inspect, LoadInfo};
use icescope::load::load_with_stats;
use icescope::model::{ReadMode, TableHistory};
use icescope::report::findings::inspect;
use icescope::report::inspect::markdown::{markdown, markdown_in};
use icescope::source::local::LocalFolder;
use icescope::source::newest_metadata;
use serde_json::Value;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.join("facts.json").is_file()).collect();
    v.sort();
    assert!(v.len() >= 15, "the lab's fixtures are missing");
    v
}

fn facts(root: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(root.join("facts.json")).unwrap()).unwrap()
}

struct Surfaces {
    name: String,
    history: TableHistory,
    report: Inspect,
    tables: Vec<Table>,
    markdown: String,
}

fn open(root: &Path) -> Surfaces {
    let folder = LocalFolder::open(root).unwrap();
    let metadata = newest_metadata(&folder).expect("metadata");
    let loader = load_with_stats(&folder, &metadata, ReadMode::All, false).expect("loads");
    let history = loader.history;
    let mut report = inspect(&history, &TableRef::guess(&history, None));
    report.load = Some(LoadInfo::of(&history, loader.stats.files, loader.stats.bytes));
    let tables = tables_of(&report, &history, None, What::All);
    let markdown = markdown(&report);
    Surfaces { name: root.file_name().unwrap().to_string_lossy().into(), history, report, tables, markdown }
}

fn table<'a>(s: &'a Surfaces, name: &str) -> &'a Table {
    s.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("{}: no {name} table", s.name))
}

fn int(t: &Table, column: &str, row: usize) -> Option<u64> {
    match &t.column(column).unwrap_or_else(|| panic!("no column {column} in {}", t.name)).values {
        Values::Int(v) => v[row].map(|x| u64::try_from(x).unwrap()),
        other => panic!("{column}: not integers: {other:?}"),
    }
}

fn text(t: &Table, column: &str, row: usize) -> Option<String> {
    match &t.column(column).unwrap_or_else(|| panic!("no column {column} in {}", t.name)).values {
        Values::Text(v) => v[row].clone(),
        other => panic!("{column}: not text: {other:?}"),
    }
}

/// `… a full scan opens 1,234 files …` in a finding's evidence.
fn opens(evidence: &str) -> u64 {
    let rest = evidence.split("a full scan opens ").nth(1).unwrap_or_else(|| panic!("no count in `{evidence}`"));
    rest.split(' ').next().unwrap().replace(',', "").parse().unwrap()
}

#[test]
fn files_a_scan_opens_is_one_number_in_the_chart_series_the_export_and_the_finding() {
    let mut with_finding = 0;
    for root in fixtures() {
        let s = open(&root);
        let cur = s.history.current_index().expect("current snapshot");
        let deletes = table(&s, "deletes");
        let series = int(deletes, "files_a_scan_opens", cur).unwrap_or_else(|| panic!("{}: no scan count at the current snapshot", s.name));
        // The chart draws the same function of the same totals.
        let drawn = icescope::analysis::GrowthSeries::of(&s.history).points[cur].totals().scan_files().unwrap();
        assert_eq!(series, drawn.files, "{}", s.name);
        match &deletes.column("files_a_scan_opens_exact").expect("exactness column").values {
            Values::Bool(v) => assert_eq!(v[cur], Some(drawn.exact), "{}", s.name),
            other => panic!("not booleans: {other:?}"),
        }
        if let Some(f) = s.report.findings.iter().find(|f| f.kind == "delete_debt") {
            assert_eq!(opens(&f.evidence), series, "{}: the finding and the chart disagree", s.name);
            assert!(s.markdown.contains(&format!("a full scan opens {} files", icescope::report::text::thousands(series))), "{}", s.name);
            with_finding += 1;
        }
        // Counted from every manifest (ReadMode::All): exact, Puffin files counted once.
        assert!(drawn.exact, "{}: counted from manifests yet not exact", s.name);
        let f = facts(&root);
        if let Some(dv) = f.get("deletion_vectors") {
            let want = dv["live_data_files"].as_u64().unwrap() + dv["puffin_files"].as_u64().unwrap() + dv["other_live_delete_files"].as_u64().unwrap();
            assert_eq!(series, want, "{}: Spark's files (data + Puffin + other deletes)", s.name);
        }
    }
    assert!(with_finding >= 2, "the fixtures must exercise the delete-debt finding");
}

#[test]
fn snapshot_and_live_counts_agree_in_the_json_the_markdown_and_every_table() {
    for root in fixtures() {
        let s = open(&root);
        let n = s.report.snapshots.len();
        let spark = facts(&root)["final_table"]["snapshots"].as_array().map(Vec::len);
        if let Some(spark) = spark {
            assert_eq!(n, spark, "{}: snapshots as Spark lists them", s.name);
        }
        assert!(s.markdown.contains(&format!("- snapshots: {n}")), "{}", s.name);
        let (snapshots, growth) = (table(&s, "snapshots"), table(&s, "growth"));
        assert_eq!((snapshots.rows, growth.rows), (n, n), "{}", s.name);
        let json = serde_json::to_value(&s.report).unwrap();
        for (i, row) in s.report.snapshots.iter().enumerate() {
            let t = row.totals();
            for (column, value) in [("data_files", t.data_files), ("records", t.records), ("manifests", t.manifests), ("deletion_vectors", t.deletion_vectors)]
            {
                assert_eq!(int(snapshots, column, i), value, "{} snapshot {i} {column}: snapshots table", s.name);
                assert_eq!(int(growth, column, i), value, "{} snapshot {i} {column}: growth series", s.name);
                assert_eq!(json["snapshots"][i][column].as_u64(), value, "{} snapshot {i} {column}: JSON", s.name);
            }
        }
        // The Markdown's "live at" line names the newest snapshot with counts, with its numbers.
        let (row, last) = s.report.snapshots.iter().rev().map(|r| (r, r.totals())).find(|(_, t)| t.data_files.is_some()).unwrap();
        let th = |v: Option<u64>| icescope::report::text::thousands(v.unwrap());
        let live = format!("; live at `{}`", row.snapshot_id);
        let line = s.markdown.lines().find(|l| l.contains(&live)).unwrap_or_else(|| panic!("{}: no live line", s.name));
        assert!(line.contains(&format!("{} manifests, {} data files", th(last.manifests), th(last.data_files))), "{}: {line}", s.name);
        assert!(line.contains(&format!("{} records", th(last.records))), "{}: {line}", s.name);
    }
}

#[test]
fn findings_and_their_statements_are_the_same_in_the_export_the_markdown_and_the_terminal() {
    for root in fixtures() {
        let s = open(&root);
        // The catalog typed after the analysis: every statement, CALL and ALTER alike, names it.
        let typed = "prod";
        let tables = tables_of(&s.report, &s.history, Some(typed), What::Findings);
        let exported = &tables[0];
        assert_eq!(exported.rows, s.report.findings.len(), "{}", s.name);
        let md = markdown_in(&s.report, typed);
        let terminal = icescope::report::inspect::text::text(&s.report);
        assert!(terminal.contains(&format!("findings ({}):", s.report.findings.len())), "{}", s.name);
        for (i, f) in s.report.findings.iter().enumerate() {
            assert_eq!(text(exported, "kind", i).as_deref(), Some(f.kind.as_str()), "{}", s.name);
            assert_eq!(text(exported, "title", i).as_deref(), Some(f.title.as_str()), "{}", s.name);
            assert!(md.contains(&icescope::report::text::text(&f.title)), "{}: `{}` not in the Markdown", s.name, f.title);
            assert!(terminal.contains(&format!("[{}] {}", f.severity.label(), icescope::report::text::visible(&f.title))), "{}", s.name);
            let sql = f.statement.as_ref().map(|st| st.sql_in(typed));
            assert_eq!(text(exported, "statement", i), sql, "{}", s.name);
            if let Some(sql) = sql {
                assert!(sql.starts_with("CALL prod.") || sql.starts_with("ALTER TABLE prod."), "{}: {sql}", s.name);
                assert!(md.contains(&sql), "{}: `{sql}` not in the Markdown", s.name);
            }
        }
        assert!(!md.contains("<catalog>"), "{}: a statement or the title kept the placeholder", s.name);
        assert!(md.contains(&format!("## icescope: `prod.{}`", s.report.table.table_ref.table)), "{}", s.name);
    }
}

#[test]
fn jobs_agree_in_the_json_the_markdown_and_the_jobs_table() {
    let mut with_jobs = 0;
    for root in fixtures() {
        let s = open(&root);
        let jobs = table(&s, "jobs");
        assert_eq!(jobs.rows, s.report.jobs.len(), "{}", s.name);
        for (i, j) in s.report.jobs.iter().enumerate() {
            assert_eq!(text(jobs, "job_id", i).as_deref(), Some(j.job_id.as_str()), "{}", s.name);
            assert_eq!(int(jobs, "rows_added", i), j.rows_added, "{}", s.name);
            assert_eq!(int(jobs, "snapshots", i), Some(j.snapshots as u64), "{}", s.name);
            assert_eq!(text(jobs, "sink_evidence", i).as_deref(), Some(j.sink_evidence.as_str()), "{}", s.name);
            assert!(s.markdown.contains(&format!("| {} |", j.sink_evidence)), "{}: the sink as the table says it", s.name);
        }
        // The lab's Flink jobs that committed are the jobs icescope names, in commit order.
        let committed: Vec<String> =
            facts(&root)["jobs"].as_array().map(|a| a.iter().filter_map(|j| j["job_id"].as_str().map(str::to_string)).collect()).unwrap_or_default();
        for j in &s.report.jobs {
            if !committed.is_empty() {
                assert!(committed.contains(&j.job_id), "{}: job {} is not one the lab ran", s.name, j.job_id);
            }
        }
        with_jobs += usize::from(!s.report.jobs.is_empty());
    }
    assert!(with_jobs >= 10, "the fixtures are Flink runs");
}

#[test]
fn how_each_number_was_had_and_the_projection_read_the_same_everywhere() {
    for root in fixtures() {
        let s = open(&root);
        let load = s.report.load.as_ref().unwrap();
        assert_eq!(load.counted_from_manifests + load.counted_from_manifest_lists + load.from_summaries + load.unknown, s.report.snapshots.len(), "{}", s.name);
        let sentence = icescope::report::load::count_sources(load);
        assert!(s.markdown.contains(&icescope::report::text::text(&sentence)), "{}: {sentence}", s.name);
        let counts_from = table(&s, "growth");
        let from_manifests = (0..counts_from.rows).filter(|&i| text(counts_from, "counts_from", i).as_deref() == Some("manifests")).count();
        assert_eq!(from_manifests, load.counted_from_manifests, "{}", s.name);
        if let Some(p) = &s.report.projection {
            let sentence = icescope::report::projection::sentence(p);
            assert!(s.markdown.contains(&icescope::report::text::text(&sentence)), "{}", s.name);
            // The chart's labels are the sentence's phrases: now, and after a day with what it adds.
            for row in icescope::report::projection::rows(p) {
                assert!(sentence.contains(&row.after_text), "{}: {} `{}` not in {sentence}", s.name, row.label, row.after_text);
            }
            let day = icescope::report::text::thousands(p.commits_in_a_day);
            let after = icescope::report::text::thousands(p.day.snapshots.total_after_a_day.round() as u64);
            assert!(sentence.contains(&format!("snapshots {} now, after a day {after} (+{day})", s.report.snapshots.len())), "{}: {sentence}", s.name);
            // The JSON carries the same day: each series' total is now plus what the day adds.
            let json = serde_json::to_value(p).unwrap();
            for series in ["snapshots", "manifests", "data_files", "delete_files", "records"] {
                let d = &json["day"][series];
                let (now, added, total) = (d["now"].as_f64().unwrap(), d["added_in_a_day"].as_f64().unwrap(), d["total_after_a_day"].as_f64().unwrap());
                assert!((now + added - total).abs() < 1e-6, "{}: {series} {d}", s.name);
            }
            let current = s.report.snapshots.iter().find(|r| Some(r.snapshot_id) == s.report.table.current_snapshot_id);
            assert_eq!(json["day"]["manifests"]["now"].as_f64(), current.and_then(|r| r.totals().manifests).map(|m| m as f64), "{}", s.name);
        }
    }
}
