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
        "footers" => data::footers(&a),
        "duplicates" => data::duplicates(&a),
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
