//! Embeds one bundled example table for the wasm-in-Chromium tests (tests/wasm_browser.rs), whose
//! runner serves no files. The expected numbers come from the writer's own facts.json.

use std::fmt::Write as _;
use std::path::Path;

const EXAMPLE: &str = "public/examples/pyiceberg-daily-appends";

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE);
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    walk(&root.join("metadata"), &mut files);
    files.sort();
    let mut out = String::from("pub const EXAMPLE_FILES: &[(&str, &[u8])] = &[\n");
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap_or(f).to_string_lossy().replace('\\', "/");
        let _ = writeln!(out, "    ({rel:?}, include_bytes!({:?})),", f.display().to_string());
    }
    out.push_str("];\n");
    let _ = writeln!(out, "pub const EXAMPLE_FACTS: &str = include_str!({:?});", root.join("facts.json").display().to_string());
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap_or_default()).join("example_files.rs");
    if let Err(e) = std::fs::write(&dest, out) {
        println!("cargo:warning=cannot write {}: {e}", dest.display());
    }
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}
