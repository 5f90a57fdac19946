//! The native CLI over the same layers as the browser app, for automation, tests and tickets.
//! Built for the host only: the browser has the app (icescope-web) instead.

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    native::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;

    use icescope::analysis::findings::TableRef;
    use icescope::analysis::inspect::inspect;
    use icescope::model::load_table;
    use icescope::source::local::LocalFolder;
    use icescope::source::newest_metadata;

    const USAGE: &str = "usage: icescope inspect <table-folder | metadata.json> [--format json|text|markdown] [--catalog NAME] [--table-name NS.TABLE]";

    pub fn main() -> ExitCode {
        let args: Vec<String> = std::env::args().skip(1).collect();
        match run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("icescope: {message}");
                ExitCode::from(2)
            }
        }
    }

    fn run(args: &[String]) -> Result<(), String> {
        let (command, rest) = args.split_first().ok_or(USAGE)?;
        if command != "inspect" {
            return Err(format!("unknown command `{command}`\n{USAGE}"));
        }
        let mut target = None;
        let mut format = "json".to_string();
        let mut catalog: Option<String> = None;
        let mut table_name: Option<String> = None;
        let mut it = rest.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--format" => format = it.next().ok_or("--format needs a value")?.clone(),
                "--catalog" => catalog = Some(it.next().ok_or("--catalog needs a value")?.clone()),
                "--table-name" => table_name = Some(it.next().ok_or("--table-name needs a value")?.clone()),
                "-h" | "--help" => {
                    println!("{USAGE}");
                    return Ok(());
                }
                other if target.is_none() && !other.starts_with("--") => target = Some(PathBuf::from(other)),
                other => return Err(format!("unexpected argument `{other}`\n{USAGE}")),
            }
        }
        let target = target.ok_or(USAGE)?;
        let (folder, metadata) = open(&target)?;
        let history = load_table(&folder, &metadata).map_err(|e| e.to_string())?;
        let mut table = TableRef::guess(&history, catalog.as_deref());
        if let Some(t) = table_name {
            table.table = t;
        }
        let report = inspect(&history, &table);
        let out = match format.as_str() {
            "json" => serde_json::to_string_pretty(&report).map_err(|e| e.to_string())? + "\n",
            "text" => icescope::analysis::inspect::text(&report),
            "markdown" => icescope::analysis::markdown::markdown(&report),
            other => return Err(format!("unknown format `{other}` (json, text, markdown)")),
        };
        // A closed pipe (`| head`) is the reader's choice, not an error worth a panic.
        let _ = std::io::stdout().lock().write_all(out.as_bytes());
        Ok(())
    }

    /// A metadata file is read within its table folder (the parent of `metadata/`), so that the
    /// manifest lists and manifests it names can be found by path suffix.
    fn open(target: &Path) -> Result<(LocalFolder, String), String> {
        if target.is_dir() {
            let folder = LocalFolder::open(target).map_err(|e| e.to_string())?;
            let metadata = newest_metadata(&folder)
                .ok_or_else(|| format!("{}: no *.metadata.json file in this folder", target.display()))?;
            return Ok((folder, metadata));
        }
        if !target.is_file() {
            return Err(format!("{}: no such file or folder", target.display()));
        }
        let dir = target.parent().unwrap_or(Path::new("."));
        let root = if dir.file_name().is_some_and(|n| n == "metadata") { dir.parent().unwrap_or(dir) } else { dir };
        let folder = LocalFolder::open(root).map_err(|e| e.to_string())?;
        let rel = target.strip_prefix(root).map_err(|e| e.to_string())?.to_string_lossy().replace('\\', "/");
        Ok((folder, rel))
    }
}
