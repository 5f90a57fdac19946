//! The layers' rule, read from the code: source → decode → model → load → analysis → report →
//! session → view and the CLI (docs/architecture.md). No file imports a layer to its right, and
//! the two front ends do not import each other (but for the one edge named below, with why). Each
//! file's `crate::…` and `icescope::…` paths are read, `use` groups included, comments left out.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ORDER: [&str; 9] = ["source", "decode", "model", "load", "analysis", "report", "session", "view", "bin"];

/// Sideways edges between the front ends that exist, each with why (none since the charts'
/// drawing moved to report/draw, below both).
const KNOWN: &[(&str, &str, &str)] = &[];

/// What the front ends reach only through the session: reading is the session's (its opener,
/// drive and follower), so a front end that reads for itself has left the one door.
const UNDER_SESSION: &[&str] = &["load"];

fn front_end(layer: &str) -> bool {
    layer == "view" || layer == "bin"
}

fn rank(layer: &str) -> Option<usize> {
    // view and the CLI are one rank: both front ends.
    ORDER.iter().position(|l| *l == layer).map(|i| i.min(7))
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level modules a source text names through `crate::` or `icescope::`.
fn layers_named(text: &str) -> BTreeSet<String> {
    let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut out = BTreeSet::new();
    for root in ["crate::", "icescope::"] {
        let mut rest = code.as_str();
        while let Some(i) = rest.find(root) {
            let before = rest[..i].chars().last();
            rest = &rest[i + root.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                // `use crate::{a::b, c, d::{e, f}}`: the first segment of each top-level item.
                let (mut depth, mut item) = (0, String::new());
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            out.insert(first_segment(&item));
                            item.clear();
                            continue;
                        }
                        _ => {}
                    }
                    item.push(c);
                }
                out.insert(first_segment(&item));
            } else {
                out.insert(first_segment(rest));
            }
        }
    }
    out
}

fn first_segment(s: &str) -> String {
    s.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// Every (file, layer it names) that breaks the rule.
fn breaks(src: &Path) -> Vec<(String, String)> {
    let mut all = Vec::new();
    files(src, &mut all);
    let mut out = Vec::new();
    for f in all {
        let rel = f.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
        let Some(own) = rel.split('/').next().filter(|_| rel.contains('/')) else { continue };
        let Some(own_rank) = rank(own) else { continue };
        for named in layers_named(&std::fs::read_to_string(&f).unwrap()) {
            let Some(r) = rank(&named) else { continue };
            let sideways = named != own && r == own_rank;
            let under = front_end(own) && UNDER_SESSION.contains(&named.as_str());
            if (r > own_rank || sideways || under) && !KNOWN.iter().any(|(file, to, _)| *file == rel && *to == named) {
                out.push((rel.clone(), named));
            }
        }
    }
    out
}

#[test]
fn no_layer_imports_one_to_its_right() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("app/src");
    let found = breaks(&src);
    assert!(found.is_empty(), "imports against the layers' order:\n{}", found.iter().map(|(f, l)| format!("{f} → {l}")).collect::<Vec<_>>().join("\n"));
    // The known sideways edge is still there (else it leaves the list).
    for (file, to, why) in KNOWN {
        let text = std::fs::read_to_string(src.join(file)).unwrap();
        assert!(layers_named(&text).contains(*to), "{file} no longer imports {to}: remove it from KNOWN ({why})");
    }
}

#[test]
fn a_planted_backward_import_is_found() {
    let dir = std::env::temp_dir().join(format!("icescope-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("model")).unwrap();
    std::fs::create_dir_all(dir.join("analysis")).unwrap();
    std::fs::write(dir.join("model/ok.rs"), "use crate::decode::TableMetadata; // crate::view in a comment\n").unwrap();
    std::fs::write(dir.join("model/bad.rs"), "use crate::{decode::Manifest, report::text::visible};\nfn f() { crate::analysis::x(); }\n").unwrap();
    std::fs::write(dir.join("analysis/ok.rs"), "use icescope_other::view; fn g() { mycrate::view::x(); }\n").unwrap();
    std::fs::create_dir_all(dir.join("bin/icescope")).unwrap();
    std::fs::write(dir.join("bin/icescope/ok.rs"), "use icescope::session::drive::read_all;\n").unwrap();
    std::fs::write(dir.join("bin/icescope/reads.rs"), "fn f() { icescope::load::load_table(); }\n").unwrap();
    let mut found = breaks(&dir);
    found.sort();
    let found: Vec<(&str, &str)> = found.iter().map(|(f, l)| (f.as_str(), l.as_str())).collect();
    assert_eq!(found, vec![("bin/icescope/reads.rs", "load"), ("model/bad.rs", "analysis"), ("model/bad.rs", "report")]);
    std::fs::remove_dir_all(&dir).unwrap();
}
