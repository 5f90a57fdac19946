//! The native CLI over the same layers as the browser app, for automation, tests and tickets.
//! Built for the host only: the browser has the app (icescope-web) instead.

#[cfg(not(target_arch = "wasm32"))]
mod args;
#[cfg(not(target_arch = "wasm32"))]
mod open;

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    use std::io::Write;
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
            let shown: Vec<String> = message.split('\n').map(icescope::analysis::markdown::visible).collect();
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
    use icescope::analysis::diff::{diff, markdown, resolve};
    let (from, to) = (a.from.clone().unwrap_or_else(|| "parent".into()), a.to.clone().unwrap_or_else(|| "current".into()));
    let pair = |h: &icescope::model::TableHistory| Ok::<_, String>((resolve(h, &from)?, resolve(h, &to)?));
    let (loader, _) = open::history_selecting(a, &|h| pair(h).map(|(x, y)| vec![x, y]))?;
    let h = &loader.history;
    let (x, y) = pair(h)?;
    let d = diff(h, x, y);
    let table = a.table_name.clone().or_else(|| a.table.clone()).unwrap_or_else(|| icescope::analysis::findings::TableRef::guess(h, None).table);
    match a.format.as_str() {
        "json" => serde_json::to_string_pretty(&d).map(|s| s + "\n").map_err(|e| e.to_string()),
        "markdown" | "text" => Ok(markdown(&d, &table)),
        other => Err(format!("unknown format `{other}` (json, markdown)")),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn run(argv: &[String]) -> Result<String, String> {
    use icescope::analysis::findings::TableRef;
    use icescope::analysis::inspect::inspect;

    let a = args::Args::parse(argv)?;
    if a.help {
        return Ok(args::USAGE.to_string());
    }
    match a.command.as_str() {
        "catalog" => open::catalog_listing(&a),
        "diff" => diff(&a),
        "walk" => walk(&a),
        "inspect" => {
            let (loader, pick) = open::history(&a)?;
            if a.reads {
                let paths: Vec<String> = loader.stats.paths.unwrap_or_default().iter().map(|p| icescope::analysis::markdown::visible(p)).collect();
                return Ok(paths.join("\n") + "\n");
            }
            let history = &loader.history;
            let mut table = TableRef::guess(history, a.spark_catalog.as_deref());
            if let Some(t) = a.table_name.clone().or_else(|| a.table.clone()) {
                table.table = t;
            }
            let mut report = inspect(history, &table);
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
                "text" => Ok(icescope::analysis::inspect::text(&report)),
                "markdown" => Ok(icescope::analysis::markdown::markdown(&report)),
                other => Err(format!("unknown format `{other}` (json, text, markdown)")),
            };
            // The process ends next: freeing a day of history object by object took a tenth of
            // the run on a 17,280-snapshot table.
            std::mem::forget(report);
            std::mem::forget(loader);
            out
        }
        other => Err(format!("unknown command `{other}`\n{}", args::USAGE)),
    }
}
