//! The docs' pictures are drawn from the lab's fixtures by the CLI, never pasted: this test draws
//! each again and fails when the committed file differs, so a picture cannot go stale when the
//! fixture, the analysis or the drawing changes. To draw them anew:
//!
//!     ICESCOPE_WRITE_DOCS=1 cargo test --test docs_pictures
//!
//! `SOURCE_DATE_EPOCH` fixes the "drawn at" stamp (the fixture's own `generated_at`).

use std::path::Path;
use std::process::Command;

/// (fixture, chart, picture under docs/pictures/)
const PICTURES: &[(&str, &str, &str)] = &[
    ("savepoint-twice", "jobs", "savepoint-twice-jobs.svg"),
    ("savepoint-twice", "growth", "savepoint-twice-growth.svg"),
    ("merge-append-long", "growth", "merge-append-long-growth.svg"),
];

fn generated_at_s(fixture: &Path) -> i64 {
    let facts: serde_json::Value = serde_json::from_slice(&std::fs::read(fixture.join("facts.json")).unwrap()).unwrap();
    let at = facts["generated_at"].as_str().expect("facts.json names when the lab wrote it");
    chrono::DateTime::parse_from_rfc3339(at).unwrap_or_else(|e| panic!("{at}: {e}")).timestamp()
}

#[test]
fn the_docs_pictures_are_drawn_from_the_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let write = std::env::var_os("ICESCOPE_WRITE_DOCS").is_some();
    let tmp = std::env::temp_dir().join(format!("icescope-docs-pictures-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut stale = Vec::new();
    for (fixture, chart, name) in PICTURES {
        let table = root.join("tests/fixtures").join(fixture);
        let drawn = tmp.join(name);
        let out = Command::new(env!("CARGO_BIN_EXE_icescope"))
            .args(["chart", table.to_str().unwrap(), "--chart", chart, "--out", drawn.to_str().unwrap()])
            .env("SOURCE_DATE_EPOCH", generated_at_s(&table).to_string())
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let now = std::fs::read(&drawn).unwrap();
        let committed = root.join("docs/pictures").join(name);
        if write {
            std::fs::write(&committed, &now).unwrap();
        } else if std::fs::read(&committed).ok().as_deref() != Some(now.as_slice()) {
            stale.push(committed.display().to_string());
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(stale.is_empty(), "stale pictures (draw them anew: ICESCOPE_WRITE_DOCS=1 cargo test --test docs_pictures): {stale:?}");
}
