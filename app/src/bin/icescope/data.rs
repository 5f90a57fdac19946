//! The commands that read inside data files: `footers` and `duplicates`. Ranged reads only: the
//! tail and footer of each file, then only the key columns' chunks. The session reads them, as it
//! does for the app.

use futures::executor::block_on;
use icescope::analysis::duplicates::DEFAULT_KEY_BUDGET;
use icescope::analysis::findings::FindingKind;
use icescope::report::duplicates::text as duplicates_text;
use icescope::report::findings::findings;
use icescope::report::footers::{markdown, text};
use icescope::session::drive::read_all;
use icescope::session::Ask;

use super::args::{self, ReportFormat};
use super::failure::{print, print_json, Failure};
use super::open::{open, Open};

/// The snapshot asked for (`--snapshot ID`, else the current one), with its manifests read. A
/// snapshot the table does not have is a usage error, as in `diff`.
fn snapshot(asked: Option<&str>, s: &mut Open) -> Result<usize, Failure> {
    let h = &s.loader.history;
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
    if !s.loader.history.has_files(index) {
        s.request(Ask::Select(index));
        block_on(read_all(s));
    }
    Ok(index)
}

pub fn footers(c: &args::FootersArgs) -> Result<(), Failure> {
    let mut s = open(&c.table.table)?;
    let index = snapshot(c.snapshot.as_deref(), &mut s)?;
    block_on(s.read_footers_at(index, &mut |_, _| {}, &|| false)).map_err(Failure::Unreadable)?;
    s.name_table(c.table.table_ref(&s.loader.history));
    let mut report = s.footers().ok_or_else(|| Failure::Unreadable("no footers were read".into()))?;
    let table = s.table_ref();
    report.findings.extend(findings(&s.loader.history, &table).into_iter().filter(|f| f.kind == FindingKind::SchemaUnderRunningWriter));
    match c.format {
        ReportFormat::Json => print_json(&report),
        ReportFormat::Text => print(&text(&report)),
        ReportFormat::Markdown => print(&markdown(&report)),
    }
}

pub fn duplicates(c: &args::DuplicatesArgs) -> Result<(), Failure> {
    let mut s = open(&c.table.table)?;
    let index = snapshot(c.snapshot.as_deref(), &mut s)?;
    let named: Vec<String> = c.key.as_deref().map(|k| k.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect()).unwrap_or_default();
    // Which columns are the key is the user's to say: `--key` answers each of these errors.
    icescope::analysis::duplicates::resolve_keys(&s.loader.history, (!named.is_empty()).then_some(&named[..])).map_err(Failure::Usage)?;
    let budget = c.key_budget.unwrap_or(DEFAULT_KEY_BUDGET);
    let report = block_on(s.count_duplicates_at(index, &named, budget, &mut |_| {}, &|| false)).map_err(Failure::Unreadable)?;
    match c.format {
        ReportFormat::Json => print_json(&report),
        ReportFormat::Text => print(&duplicates_text(&report, false)),
        ReportFormat::Markdown => print(&duplicates_text(&report, true)),
    }
}
