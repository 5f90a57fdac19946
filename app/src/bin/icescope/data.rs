//! The commands that read inside data files: `footers` and `duplicates`. Ranged reads only: the
//! tail and footer of each file, then only the key columns' chunks.

use futures::executor::block_on;
use icescope::analysis::duplicates::{resolve_keys, KeyCounter, DEFAULT_KEY_BUDGET};
use icescope::analysis::footers::footer_report;
use icescope::load::data_scan::{read_footers, read_puffin_footers, scan_keys};
use icescope::load::decoder::Inline;
use icescope::load::Loader;
use icescope::report::duplicates::text as duplicates_text;
use icescope::report::findings::findings;
use icescope::report::footers::{markdown, text};

use super::args::{self, ReportFormat};
use super::failure::{print, print_json, Failure};
use super::open::{open, Files};

/// The snapshot asked for (`--snapshot ID`, else the current one), with its manifests read. A
/// snapshot the table does not have is a usage error, as in `diff`.
fn snapshot(asked: Option<&str>, files: &Files, loader: &mut Loader) -> Result<usize, Failure> {
    let h = &loader.history;
    let index = match asked {
        Some(id) => {
            let want: i128 = id.parse().map_err(|_| Failure::Usage(format!("--snapshot {id}: not a snapshot id")))?;
            h.snapshots
                .iter()
                .position(|s| s.snapshot.snapshot_id.0 == want)
                .ok_or_else(|| Failure::Usage(format!("--snapshot {id}: no such snapshot in {}", h.metadata_file)))?
        }
        None => h.current_index().ok_or_else(|| Failure::usage("the table has no snapshots"))?,
    };
    if !loader.history.has_files(index) {
        loader.history.select(index);
        block_on(loader.run(files, &icescope::load::decoder::Inline, 64));
    }
    if !loader.history.has_files(index) {
        let gaps: Vec<String> = loader.history.gaps().iter().map(|g| g.message.clone()).collect();
        let id = loader.history.snapshots[index].snapshot.snapshot_id;
        return Err(Failure::Unreadable(format!("the manifests of snapshot {id} could not all be read: {}", gaps.join("; "))));
    }
    Ok(index)
}

pub fn footers(c: &args::Footers) -> Result<(), Failure> {
    let (files, mut loader, _) = open(&c.table.table)?;
    let index = snapshot(c.snapshot.as_deref(), &files, &mut loader)?;
    let (footers, _) = block_on(read_footers(&files, &Inline, &loader.history, index, &mut |_, _| {}, &|| false));
    let (puffins, _) = block_on(read_puffin_footers(&files, &Inline, &loader.history, index, &mut |_, _| {}, &|| false));
    // What the files carry replaces what their metrics name, for the schema findings.
    loader.history.record_footers(&footers);
    let table = c.table.table_ref(&loader.history);
    let mut report = footer_report(&loader.history, index, &footers, &puffins, &table);
    report
        .findings
        .extend(findings(&loader.history, &table).into_iter().filter(|f| f.kind == icescope::analysis::findings::FindingKind::SchemaUnderRunningWriter));
    match c.format {
        ReportFormat::Json => print_json(&report),
        ReportFormat::Text => print(&text(&report)),
        ReportFormat::Markdown => print(&markdown(&report)),
    }
}

pub fn duplicates(c: &args::Duplicates) -> Result<(), Failure> {
    let (files, mut loader, _) = open(&c.table.table)?;
    let index = snapshot(c.snapshot.as_deref(), &files, &mut loader)?;
    let named: Option<Vec<String>> = c.key.as_deref().map(|k| k.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect());
    // Which columns are the key is the user's to say: `--key` answers each of these errors.
    let keys = resolve_keys(&loader.history, named.as_deref()).map_err(Failure::Usage)?;
    let history = &loader.history;
    let mut counter = KeyCounter::new(history, c.key_budget.unwrap_or(DEFAULT_KEY_BUDGET));
    let scan = block_on(scan_keys(&files, &Inline, history, index, &keys, &mut counter, &mut |_| {}, &|| false)).map_err(Failure::Unreadable)?;
    let report = counter.finish(history.snapshots[index].snapshot.snapshot_id, keys.into_iter().map(|(_, n)| n).collect(), scan);
    match c.format {
        ReportFormat::Json => print_json(&report),
        ReportFormat::Text => print(&duplicates_text(&report, false)),
        ReportFormat::Markdown => print(&duplicates_text(&report, true)),
    }
}
