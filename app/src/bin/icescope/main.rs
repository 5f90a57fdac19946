//! The native CLI over the same layers as the browser app, for automation, tests and tickets.
//! Built for the host only: the browser has the app (icescope-web) instead.

#[cfg(not(target_arch = "wasm32"))]
mod args;
#[cfg(not(target_arch = "wasm32"))]
mod chart;
#[cfg(not(target_arch = "wasm32"))]
mod data;
#[cfg(not(target_arch = "wasm32"))]
mod failure;
#[cfg(not(target_arch = "wasm32"))]
mod open;
#[cfg(not(target_arch = "wasm32"))]
mod options;
#[cfg(not(target_arch = "wasm32"))]
mod savepoint;
#[cfg(not(target_arch = "wasm32"))]
mod serve;
#[cfg(not(target_arch = "wasm32"))]
mod watch;

#[cfg(not(target_arch = "wasm32"))]
use args::{Command, ReportFormat};
#[cfg(not(target_arch = "wasm32"))]
use failure::{print, print_json, Failure};

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    // glibc raises its mmap threshold to the largest block freed so far: once a day's 16 MB
    // metadata.json buffer is freed, the model's big vectors come from the heap and leave holes
    // there, 3 MB of a 57 MB peak. A fixed threshold keeps them mapped and returned when freed.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a documented allocator setting, made before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
    match parse().and_then(|command| command.map_or(Ok(()), run)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(failure) => {
            // Messages quote file names, JSON and server replies: a terminal shows their control
            // characters as `\u{…}` rather than obeying them.
            let shown: Vec<String> = failure.message().split('\n').map(icescope::report::text::visible).collect();
            eprintln!("icescope: {}", shown.join("\n"));
            std::process::ExitCode::from(failure.code())
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}

/// The command to run, or None once help or the version is printed.
#[cfg(not(target_arch = "wasm32"))]
fn parse() -> Result<Option<Command>, Failure> {
    use clap::error::ErrorKind;
    use clap::Parser;
    // From `args_os`: an argument that is not UTF-8 is clap's usage error, not a panic. Named
    // `icescope` in usage lines whatever the file is called.
    let argv = std::iter::once("icescope".into()).chain(std::env::args_os().skip(1));
    match args::Cli::try_parse_from(argv) {
        Ok(cli) => Ok(Some(cli.command)),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            print(&format!("{}\n", e.render().to_string().trim_end())).map(|_| None)
        }
        Err(e) => Err(Failure::Usage(e.render().to_string().trim_start_matches("error: ").trim_end().to_string())),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn run(command: Command) -> Result<(), Failure> {
    match command {
        Command::Inspect(c) => inspect(&c),
        Command::Catalog(c) => open::catalog_listing(&c),
        Command::Diff(c) => diff(&c),
        Command::Walk(c) => walk(&c),
        Command::Export(c) => export(&c),
        Command::SparkExport(c) => spark_export(&c),
        Command::Orphans(c) => orphans(&c),
        Command::Footers(c) => data::footers(&c),
        Command::Duplicates(c) => data::duplicates(&c),
        Command::Chart(c) => chart::chart(&c),
        Command::Savepoint(c) => savepoint::savepoint(&c),
        Command::Serve(c) => serve::serve(&c),
        Command::Watch(c) => watch::watch(&c),
    }
}

/// `icescope inspect`: with every snapshot read, a folder's orphan files are a finding too.
#[cfg(not(target_arch = "wasm32"))]
fn inspect(c: &args::InspectArgs) -> Result<(), Failure> {
    let t = &c.table.table;
    let mut s = open::open_reading(t, t.all_snapshots, c.reads)?;
    if c.reads {
        let paths: Vec<String> = s.loader.stats.paths.take().unwrap_or_default().iter().map(|p| icescope::report::text::visible(p)).collect();
        return print(&(paths.join("\n") + "\n"));
    }
    s.name_table(c.table.table_ref(&s.loader.history));
    let mut report = s.report(0);
    if let Some(load) = report.load.as_mut() {
        load.requests = Some(icescope::source::transport::REQUESTS.load(std::sync::atomic::Ordering::Relaxed)).filter(|n| *n > 0);
    }
    let printed = match c.format {
        ReportFormat::Json => print_json(&report),
        ReportFormat::Text => print(&icescope::report::inspect::text::text(&report)),
        ReportFormat::Markdown => print(&icescope::report::inspect::markdown::markdown(&report)),
    };
    let at = c.fail_on.map(args::FailOn::severity);
    let count = at.map_or(0, |at| report.findings.iter().filter(|f| f.severity >= at).count());
    // The process ends next: freeing a day of history object by object took a tenth of
    // the run on a 17,280-snapshot table.
    std::mem::forget(report);
    std::mem::forget(s);
    printed?;
    match at {
        Some(at) if count > 0 => Err(Failure::Findings { count, at }),
        _ => Ok(()),
    }
}

/// `icescope walk`: one snapshot's levels, metadata.json down to its manifests' entries.
#[cfg(not(target_arch = "wasm32"))]
fn walk(c: &args::WalkArgs) -> Result<(), Failure> {
    use icescope::analysis::diff::resolve;
    let s = open::history_selecting(&c.table, &|h| Ok(vec![resolve(h, &c.to)?]))?;
    let h = &s.loader.history;
    let i = resolve(h, &c.to).map_err(Failure::Usage)?;
    let first = h.list_of(i).and_then(|l| l.first()).map(|m| m.manifest_path.clone());
    let manifest = c.manifest.clone().or(first);
    print_json(&icescope::analysis::walk::walk(h, i, manifest.as_deref(), usize::MAX))
}

/// `icescope diff`: both snapshots' files are read in detail, whatever the table's size. Two
/// references naming one snapshot are refused before anything else is read (exit 2).
#[cfg(not(target_arch = "wasm32"))]
fn diff(c: &args::DiffArgs) -> Result<(), Failure> {
    use icescope::analysis::diff::{compare, sides, Point};
    use icescope::report::diff::{markdown, refusal};
    // `--job X` is `job:X` alone: the job's whole range (`analysis::diff::sides`).
    let (from, to) = match &c.job {
        Some(j) => (format!("job:{}", j.trim().strip_prefix("job:").unwrap_or(j.trim())), String::new()),
        None => (c.from.clone(), c.to.clone()),
    };
    let wanted = |h: &icescope::model::TableHistory| {
        let (a, b) = sides(h, &from, &to).map_err(|r| refusal(&r))?;
        Ok([a, b].into_iter().filter_map(|p| if let Point::At(i) = p { Some(i) } else { None }).collect())
    };
    let s = open::history_selecting(&c.table.table, &wanted)?;
    let h = &s.loader.history;
    let d = compare(h, &from, &to).map_err(|r| Failure::Usage(refusal(&r)))?;
    let table = c.table.table_ref(h).table;
    match c.format {
        ReportFormat::Json => print_json(&d),
        ReportFormat::Markdown => print(&markdown(&d, &table)),
        ReportFormat::Text => print(&icescope::report::diff::text::text(&d, &table)),
    }
}

/// `icescope spark-export`: the script only; nothing is read.
#[cfg(not(target_arch = "wasm32"))]
fn spark_export(c: &args::SparkExportArgs) -> Result<(), Failure> {
    use icescope::analysis::spark_export::{script, split_identifier};
    let parts = split_identifier(&c.table).map_err(Failure::Usage)?;
    print(&script(&parts.iter().map(String::as_str).collect::<Vec<_>>(), &c.to).map_err(Failure::Usage)?)
}

/// `icescope export`: the chosen tables as CSV or Parquet files in `--out`. With
/// `--all-snapshots` on a folder, the orphan-file finding is among the findings.
#[cfg(not(target_arch = "wasm32"))]
fn export(c: &args::ExportArgs) -> Result<(), Failure> {
    use icescope::analysis::export::{file, tables_of};
    let t = &c.table.table;
    let mut s = open::open_reading(t, t.all_snapshots, false)?;
    s.name_table(c.table.table_ref(&s.loader.history));
    let report = s.report(0);
    let history = &s.loader.history;
    let out = &c.out;
    std::fs::create_dir_all(out).map_err(|e| Failure::Output(format!("{out}: {e}")))?;
    let mut written = String::new();
    for t in tables_of(&report, history, None, c.what.what()) {
        let (name, bytes) = file(&t, c.format.format()).map_err(Failure::Output)?;
        let path = std::path::Path::new(out).join(&name);
        std::fs::write(&path, &bytes).map_err(|e| Failure::Output(format!("{}: {e}", path.display())))?;
        written += &format!("{}\t{} rows\t{} bytes\n", path.display(), t.rows, bytes.len());
    }
    print(&written)
}

/// `icescope orphans`: every snapshot's manifests read, then the files under the table folder
/// that none references, as JSON (the census and the finding), text or Markdown.
#[cfg(not(target_arch = "wasm32"))]
fn orphans(c: &args::OrphansArgs) -> Result<(), Failure> {
    use icescope::analysis::orphans::{census, not_the_newest};
    let (s, listing) = open::orphans_listing(&c.table.table)?;
    let (history, pick) = (&s.loader.history, s.pick.clone());
    let (files, root) = listing.ok_or_else(|| {
        Failure::usage("orphans needs a table folder or an s3:// table (its files are listed to find the orphans); a table on a web server cannot be listed")
    })?;
    // An older version named with --metadata is the user's choice; a history missing files is not.
    let kind = if not_the_newest(&history.metadata_file, pick.as_ref()).is_some() { Failure::Usage } else { Failure::Unreadable };
    let census = census(history, &files, &root, pick.as_ref()).map_err(kind)?;
    let f = icescope::report::findings::orphan_finding(&census, &c.table.table_ref(history));
    if c.format == ReportFormat::Json {
        #[derive(serde::Serialize)]
        struct Out<'a, 'b> {
            finding: &'b Option<icescope::analysis::findings::Finding>,
            orphans: &'b icescope::analysis::orphans::OrphanReport<'a>,
        }
        return print_json(&Out { orphans: &census, finding: &f });
    }
    // Written a line at a time: millions of orphans held again as one string cost more than the
    // census itself.
    use icescope::report::orphans::{row, summary_line};
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    let mut lines = || -> std::io::Result<()> {
        writeln!(w, "{}", summary_line(&census))?;
        for o in census.data.iter().chain(&census.metadata) {
            writeln!(w, "{}", row(o))?;
        }
        if let Some(s) = f.as_ref().and_then(|f| f.statement.as_ref()) {
            writeln!(w, "{}", icescope::report::text::visible(&s.sql()))?;
        }
        w.flush()
    };
    failure::written(lines())
}
