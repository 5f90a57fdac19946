//! The native CLI over the same layers as the browser app, for automation, tests and tickets.
//! Built for the host only: the browser has the app (icescope-web) instead.

#[cfg(not(target_arch = "wasm32"))]
mod args;
#[cfg(not(target_arch = "wasm32"))]
mod data;
#[cfg(not(target_arch = "wasm32"))]
mod open;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use std::io::Write;
    // glibc raises its mmap threshold to the largest block freed so far: once a day's 16 MB
    // metadata.json buffer is freed, the model's big vectors come from the heap and leave holes
    // there, 3 MB of a 57 MB peak. A fixed threshold keeps them mapped and returned when freed.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a documented allocator setting, made before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 * 1024);
    }
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match run(&argv) {
        Ok(out) => {
            // A closed pipe (`| head`) is the reader's choice, not an error worth a panic.
            let _ = std::io::stdout().lock().write_all(out.as_bytes());
            std::process::ExitCode::SUCCESS
        }
        Err(message) => {
            // Messages quote file names, JSON and server replies: a terminal shows their control
            // characters as `\u{…}` rather than obeying them.
            let shown: Vec<String> = message.split('\n').map(icescope::report::text::visible).collect();
            eprintln!("icescope: {}", shown.join("\n"));
            std::process::ExitCode::from(2)
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}

/// `icescope walk`: one snapshot's levels, metadata.json down to its manifests' entries.
#[cfg(not(target_arch = "wasm32"))]
fn walk(a: &args::Args) -> Result<String, String> {
    use icescope::analysis::diff::resolve;
    let at = a.to.clone().unwrap_or_else(|| "current".into());
    let (loader, _) = open::history_selecting(a, &|h| Ok(vec![resolve(h, &at)?]))?;
    let h = &loader.history;
    let i = resolve(h, &at)?;
    let first = h.list_of(i).and_then(|l| l.first()).map(|m| m.manifest_path.clone());
    let manifest = a.manifest.clone().or(first);
    let w = icescope::analysis::walk::walk(h, i, manifest.as_deref(), usize::MAX);
    serde_json::to_string_pretty(&w).map(|s| s + "\n").map_err(|e| e.to_string())
}

/// `icescope diff`: both snapshots' files are read in detail, whatever the table's size.
#[cfg(not(target_arch = "wasm32"))]
fn diff(a: &args::Args) -> Result<String, String> {
    use icescope::analysis::diff::{diff, resolve};
    use icescope::report::diff::markdown;
    let (from, to) = (a.from.clone().unwrap_or_else(|| "parent".into()), a.to.clone().unwrap_or_else(|| "current".into()));
    let pair = |h: &icescope::model::TableHistory| Ok::<_, String>((resolve(h, &from)?, resolve(h, &to)?));
    let (loader, _) = open::history_selecting(a, &|h| pair(h).map(|(x, y)| vec![x, y]))?;
    let h = &loader.history;
    let (x, y) = pair(h)?;
    let d = diff(h, x, y);
    let table = a.table_name.clone().or_else(|| a.table.clone()).unwrap_or_else(|| icescope::analysis::findings::TableRef::guess(h, None).table);
    match a.format.as_str() {
        "json" => serde_json::to_string_pretty(&d).map(|s| s + "\n").map_err(|e| e.to_string()),
        "markdown" => Ok(markdown(&d, &table)),
        "text" => Ok(icescope::report::diff_text::text(&d, &table)),
        other => Err(format!("unknown format `{other}` (json, text, markdown)")),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn run(argv: &[String]) -> Result<String, String> {
    use icescope::analysis::findings::TableRef;
    use icescope::analysis::inspect::inspect;

    let a = match args::Args::parse(argv)? {
        args::Invocation::Help(text) => return Ok(text),
        args::Invocation::Run(a) => *a,
    };
    match a.command.as_str() {
        "catalog" => open::catalog_listing(&a),
        "diff" => diff(&a),
        "walk" => walk(&a),
        "footers" => data::footers(&a),
        "duplicates" => data::duplicates(&a),
        "inspect" => {
            // With every snapshot read, a folder's orphan files are a finding too.
            let (loader, pick, listing) = open::history_with_listing(&a, a.all_snapshots, false)?;
            if a.reads {
                let paths: Vec<String> = loader.stats.paths.unwrap_or_default().iter().map(|p| icescope::report::text::visible(p)).collect();
                return Ok(paths.join("\n") + "\n");
            }
            let history = &loader.history;
            let mut table = TableRef::guess(history, a.spark_catalog.as_deref());
            if let Some(t) = a.table_name.clone().or_else(|| a.table.clone()) {
                table.table = t;
            }
            let mut report = inspect(history, &table);
            report.findings.extend(orphan_finding(history, listing.as_ref(), pick.as_ref(), &table));
            report.findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
            let mut load = icescope::analysis::inspect::LoadInfo::of(history, loader.stats.files, loader.stats.bytes);
            load.metadata_pick = pick;
            report.load = Some(load);
            let out = match a.format.as_str() {
                // Written as it is serialized: a day of snapshots is 20 MB of JSON, and holding it
                // whole was the run's peak memory.
                "json" => {
                    use std::io::Write;
                    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
                    // A closed pipe (`| head`) is the reader's choice, not an error.
                    let _ = serde_json::to_writer_pretty(&mut w, &report).map(|_| w.write_all(b"\n")).map(|_| w.flush());
                    Ok(String::new())
                }
                "text" => Ok(icescope::report::inspect_text::text(&report)),
                "markdown" => Ok(icescope::report::markdown::markdown(&report)),
                other => Err(format!("unknown format `{other}` (json, text, markdown)")),
            };
            // The process ends next: freeing a day of history object by object took a tenth of
            // the run on a 17,280-snapshot table.
            std::mem::forget(report);
            std::mem::forget(loader);
            out
        }
        "export" => export(&a),
        "orphans" => orphans(&a),
        "spark-export" => {
            use icescope::analysis::spark_export::{script, split_identifier};
            let table = a.table.as_deref().ok_or("spark-export needs --table CATALOG.NAMESPACE.NAME (as Spark names it)")?;
            let parts = split_identifier(table)?;
            let out = a.to.as_deref().or(a.out.as_deref()).ok_or("spark-export needs --to FOLDER (where Spark writes the Parquet files)")?;
            script(&parts.iter().map(String::as_str).collect::<Vec<_>>(), out)
        }
        other => Err(format!("unknown command `{other}`")),
    }
}

/// The report as `inspect` builds it, with the name statements use.
#[cfg(not(target_arch = "wasm32"))]
fn report(a: &args::Args, history: &icescope::model::TableHistory) -> (icescope::analysis::inspect::Inspect, icescope::analysis::findings::TableRef) {
    let mut table = icescope::analysis::findings::TableRef::guess(history, a.spark_catalog.as_deref());
    if let Some(t) = a.table_name.clone().or_else(|| a.table.clone()) {
        table.table = t;
    }
    (icescope::analysis::inspect::inspect(history, &table), table)
}

/// `icescope export`: the chosen tables as CSV or Parquet files in `--out`. With
/// `--all-snapshots` on a folder, the orphan-file finding is among the findings.
#[cfg(not(target_arch = "wasm32"))]
fn export(a: &args::Args) -> Result<String, String> {
    use icescope::analysis::export::{file, tables_of, Format, What};
    let what = What::parse(&a.what).ok_or_else(|| format!("--what `{}`: snapshots, series, findings or all", a.what))?;
    let format = Format::parse(&a.format).ok_or_else(|| format!("--format `{}`: csv or parquet", a.format))?;
    let out = a.out.as_deref().ok_or("export needs --out DIR")?;
    let (loader, pick, listing) = open::history_with_listing(a, a.all_snapshots, false)?;
    let history = &loader.history;
    let (report, table) = report(a, history);
    let mut findings = report.findings.clone();
    findings.extend(orphan_finding(history, listing.as_ref(), pick.as_ref(), &table));
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    std::fs::create_dir_all(out).map_err(|e| format!("{out}: {e}"))?;
    let mut written = String::new();
    for t in tables_of(&report, history, &findings, None, what) {
        let (name, bytes) = file(&t, format)?;
        let path = std::path::Path::new(out).join(&name);
        std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        written += &format!("{}\t{} rows\t{} bytes\n", path.display(), t.rows, bytes.len());
    }
    Ok(written)
}

/// `icescope orphans`: every snapshot's manifests read, then the files under the table folder
/// that none references, as JSON (the census and the finding), text or Markdown.
#[cfg(not(target_arch = "wasm32"))]
fn orphans(a: &args::Args) -> Result<String, String> {
    use icescope::analysis::orphans::{census, finding};
    let (loader, pick, listing) = open::history_with_listing(a, true, true)?;
    let history = &loader.history;
    let (files, root) =
        listing.ok_or("orphans needs a table folder or an s3:// table (its files are listed to find the orphans); a table on a web server cannot be listed")?;
    let census = census(history, &files, &root, pick.as_ref())?;
    let (_, table) = report(a, history);
    let f = finding(&census, &table);
    // Written as it is serialized, a line at a time: millions of orphans held again as a JSON
    // tree (`json!`) or as one string cost more than the census itself.
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::io::stdout().lock());
    match a.format.as_str() {
        "json" => {
            #[derive(serde::Serialize)]
            struct Out<'a, 'b> {
                finding: &'b Option<icescope::analysis::findings::Finding>,
                orphans: &'b icescope::analysis::orphans::OrphanReport<'a>,
            }
            // A closed pipe (`| head`) is the reader's choice, not an error.
            let _ = serde_json::to_writer_pretty(&mut w, &Out { orphans: &census, finding: &f }).map(|_| w.write_all(b"\n")).map(|_| w.flush());
            Ok(String::new())
        }
        "text" | "markdown" => {
            let visible = icescope::report::text::visible;
            let _ = writeln!(
                w,
                "{} files listed, {} referenced, {} data orphans, {} metadata orphans",
                census.listed,
                census.referenced,
                census.data.len(),
                census.metadata.len()
            );
            for o in census.data.iter().chain(&census.metadata) {
                let size = o.size.map(|s| s.to_string()).unwrap_or_else(|| "?".into());
                let when = o.modified_ms.map(icescope::model::time::rfc3339_ms).unwrap_or_else(|| "?".into());
                let _ = writeln!(
                    w,
                    "{:<15} {:>12} {} {}{}",
                    serde_json::to_value(o.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
                    size,
                    when,
                    visible(o.path),
                    if o.spared { " (spared: newer than older_than)" } else { "" }
                );
            }
            if let Some(s) = f.as_ref().and_then(|f| f.statement.as_ref()) {
                let _ = writeln!(w, "{}", visible(&s.sql()));
            }
            let _ = w.flush();
            Ok(String::new())
        }
        other => Err(format!("unknown format `{other}` (json, text, markdown)")),
    }
}

/// The orphan-file finding, where the files were listed and every manifest read.
#[cfg(not(target_arch = "wasm32"))]
fn orphan_finding(
    history: &icescope::model::TableHistory,
    listing: Option<&open::Listing>,
    pick: Option<&icescope::source::metadata_pick::MetadataPick>,
    table: &icescope::analysis::findings::TableRef,
) -> Option<icescope::analysis::findings::Finding> {
    let (files, root) = listing?;
    icescope::analysis::orphans::finding(&icescope::analysis::orphans::census(history, files, root, pick).ok()?, table)
}
