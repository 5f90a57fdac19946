//! The shared corpus of other engines' tables (`../shared/corpus/public`, or `ICESCOPE_CORPUS`),
//! read in place. Absent, a test that needs it fails under CI (tests/run.sh sets CI=true: a
//! test that passed on nothing would read as a pass) and, run alone, says so on the terminal.

use std::io::Write;
use std::path::{Path, PathBuf};

pub fn corpus() -> Option<PathBuf> {
    let root = std::env::var_os("ICESCOPE_CORPUS").map(PathBuf::from).unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/public"));
    if root.is_dir() {
        return Some(root);
    }
    let message = format!("the shared corpus is absent at {} (set ICESCOPE_CORPUS): its tables were NOT tested", root.display());
    assert!(std::env::var_os("CI").is_none(), "missing under CI: {message}");
    // Straight to the terminal: the test harness captures eprintln! of a passing test.
    let _ = writeln!(std::io::stderr(), "SKIPPED: {message}");
    None
}
