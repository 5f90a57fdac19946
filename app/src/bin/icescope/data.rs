//! The commands that read inside data files: `footers` and `duplicates`. Ranged reads only: the
//! tail and footer of each file, then only the key columns' chunks.

use futures::executor::block_on;
use icescope::analysis::duplicates::{resolve_keys, KeyCounter, DEFAULT_KEY_BUDGET};
use icescope::analysis::findings::{findings, TableRef};
use icescope::analysis::footers::footer_report;
use icescope::load::data_scan::{read_footers, read_puffin_footers, scan_keys};
use icescope::load::Loader;
use icescope::report::duplicates::text as duplicates_text;
use icescope::report::footers::{markdown, text};

use super::args::Args;
use super::open::{open, Files};

/// The snapshot asked for (`--snapshot ID`, else the current one), with its manifests read.
fn snapshot(a: &Args, files: &Files, loader: &mut Loader) -> Result<usize, String> {
    let h = &loader.history;
    let index = match &a.snapshot {
        Some(id) => {
            let want: i128 = id.parse().map_err(|_| format!("--snapshot {id}: not a snapshot id"))?;
            h.snapshots
                .iter()
                .position(|s| s.snapshot.snapshot_id.0 == want)
                .ok_or_else(|| format!("--snapshot {id}: no such snapshot in {}", h.metadata_file))?
        }
        None => h.current_index().ok_or("the table has no snapshots")?,
    };
    if !loader.history.has_files(index) {
        loader.history.select(index);
        block_on(loader.run(files, 64));
    }
    if !loader.history.has_files(index) {
        let gaps: Vec<String> = loader.history.gaps().iter().map(|g| g.message.clone()).collect();
        return Err(format!("the manifests of snapshot {} could not all be read: {}", loader.history.snapshots[index].snapshot.snapshot_id, gaps.join("; ")));
    }
    Ok(index)
}

fn table_ref(a: &Args, loader: &Loader) -> TableRef {
    let mut table = TableRef::guess(&loader.history, a.spark_catalog.as_deref());
    if let Some(t) = a.table_name.clone().or_else(|| a.table.clone()) {
        table.table = t;
    }
    table
}

pub fn footers(a: &Args) -> Result<String, String> {
    let (files, mut loader, _) = open(a)?;
    let index = snapshot(a, &files, &mut loader)?;
    let (footers, _) = block_on(read_footers(&files, &loader.history, index, &mut |_, _| {}, &|| false));
    let (puffins, _) = block_on(read_puffin_footers(&files, &loader.history, index, &mut |_, _| {}, &|| false));
    // What the files carry replaces what their metrics name, for the schema findings.
    loader.history.record_footers(&footers);
    let table = table_ref(a, &loader);
    let mut report = footer_report(&loader.history, index, &footers, &puffins, &table);
    report.findings.extend(findings(&loader.history, &table).into_iter().filter(|f| f.kind == "schema_under_running_writer"));
    match a.format.as_str() {
        "json" => serde_json::to_string_pretty(&report).map(|s| s + "\n").map_err(|e| e.to_string()),
        "text" => Ok(text(&report)),
        "markdown" => Ok(markdown(&report)),
        other => Err(format!("unknown format `{other}` (json, text, markdown)")),
    }
}

pub fn duplicates(a: &Args) -> Result<String, String> {
    let (files, mut loader, _) = open(a)?;
    let index = snapshot(a, &files, &mut loader)?;
    let keys = resolve_keys(&loader.history, a.key.as_deref())?;
    let history = &loader.history;
    let mut counter = KeyCounter::new(history, a.key_budget.unwrap_or(DEFAULT_KEY_BUDGET));
    let scan = block_on(scan_keys(&files, history, index, &keys, &mut counter, &mut |_| {}, &|| false))?;
    let report = counter.finish(history.snapshots[index].snapshot.snapshot_id, keys.into_iter().map(|(_, n)| n).collect(), scan);
    match a.format.as_str() {
        "json" => serde_json::to_string_pretty(&report).map(|s| s + "\n").map_err(|e| e.to_string()),
        "text" => Ok(duplicates_text(&report, false)),
        "markdown" => Ok(duplicates_text(&report, true)),
        other => Err(format!("unknown format `{other}` (json, text, markdown)")),
    }
}
