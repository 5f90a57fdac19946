//! Deletion vectors against their Puffin files' footers, on the v3 table Spark wrote
//! (tests/fixtures/v3-deletion-vectors): counts from facts.json, and every lie a footer can tell
//! made from the fixture's own Puffin files (a footer rewritten, compressed, cut, or flagged).

use std::path::Path;

use futures::executor::block_on;
use icescope::analysis::findings::TableRef;
use icescope::analysis::footers::FooterReport;
use icescope::load::data_scan::read_puffin_footers;
use icescope::load::decoder::Inline;
use icescope::load::load_table;
use icescope::model::ReadMode;
use icescope::report::findings::footer_report;
use icescope::report::footers::{markdown, text};
use icescope::source::local::LocalFolder;
use icescope::source::{newest_metadata, FileSet, MemoryFiles};
use serde_json::Value;

const FIXTURE: &str = "tests/fixtures/v3-deletion-vectors";

fn root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE)
}

fn facts() -> Value {
    serde_json::from_slice(&std::fs::read(root().join("facts.json")).unwrap()).unwrap()
}

/// The fixture's files in memory, with `edit` applied to the Puffin file holding the vector of
/// largest cardinality (three vectors, so one of them is picked out of several).
fn table_with(edit: &dyn Fn(&[u8]) -> Vec<u8>) -> (FooterReport, String) {
    let folder = LocalFolder::open(&root()).unwrap();
    let mut files = MemoryFiles::new();
    let victim = "00000-79-e7fb9ce9-b158-4dcc-809e-400d96b55c16-00001-deletes.puffin";
    for p in folder.index().paths() {
        let bytes = folder.read_path(p).unwrap();
        let bytes = if p.ends_with(victim) { edit(&bytes) } else { bytes };
        files.insert(p.to_string(), bytes);
    }
    let h = load_table(&files, &newest_metadata(&folder).unwrap(), ReadMode::All).unwrap();
    let index = h.current_index().unwrap();
    let (puffins, fetched) = block_on(read_puffin_footers(&files, &Inline, &h, index, &mut |_, _| {}, &|| false));
    // The tail, then the footer; one read only where the tail already refuses the file.
    assert!(fetched.requests <= 2 * puffins.len() as u64 && fetched.requests >= 2 * puffins.len() as u64 - 1, "{fetched:?}");
    let report = footer_report(&h, index, &[], &puffins, &TableRef { catalog: "lab".into(), table: "icescope.v3_deletion_vectors".into() });
    (report, victim.to_string())
}

/// A Puffin file's footer payload as JSON, read by hand from the spec's layout.
fn payload(bytes: &[u8]) -> Value {
    let n = bytes.len();
    let size = u32::from_le_bytes(bytes[n - 12..n - 8].try_into().unwrap()) as usize;
    serde_json::from_slice(&bytes[n - 12 - size..n - 12]).unwrap()
}

/// The same file with another footer: blobs kept, the payload replaced, size and flags rewritten.
/// A shorter footer is preceded by zeros, which no blob names, so that the file keeps the size its
/// manifest entries state (a writer that wrote such a footer would have recorded that size).
fn with_footer(bytes: &[u8], new_payload: &[u8], flags: u8) -> Vec<u8> {
    let n = bytes.len();
    let size = u32::from_le_bytes(bytes[n - 12..n - 8].try_into().unwrap()) as usize;
    let mut out = bytes[..n - 12 - size - 4].to_vec();
    out.resize(out.len() + size.saturating_sub(new_payload.len()), 0);
    out.extend_from_slice(b"PFA1");
    out.extend_from_slice(new_payload);
    out.extend_from_slice(&(new_payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&[flags, 0, 0, 0]);
    out.extend_from_slice(b"PFA1");
    out
}

/// The footer edited as JSON, at the size it had: a longer edit gives back room from the file's
/// `created-by`, which nothing checks.
fn edited(bytes: &[u8], f: &dyn Fn(&mut Value)) -> Vec<u8> {
    let n = bytes.len();
    let size = u32::from_le_bytes(bytes[n - 12..n - 8].try_into().unwrap()) as usize;
    let mut p = payload(bytes);
    f(&mut p);
    let over = serde_json::to_vec(&p).unwrap().len().saturating_sub(size);
    if over > 0 {
        let by = p["properties"]["created-by"].as_str().unwrap().to_string();
        p["properties"]["created-by"] = Value::from(&by[..by.len() - over]);
    }
    let out = with_footer(bytes, &serde_json::to_vec(&p).unwrap(), 0);
    assert_eq!(out.len(), n, "the edit fits the footer's size");
    out
}

#[test]
fn every_live_vector_matches_its_footer_as_spark_counted_them() {
    let (r, _) = table_with(&|b| b.to_vec());
    let f = &facts()["deletion_vectors"];
    let v = &r.deletion_vectors;
    assert_eq!(v.vectors as u64, f["live_deletion_vectors"].as_u64().unwrap());
    assert_eq!(v.puffin_files as u64, f["puffin_files"].as_u64().unwrap());
    assert_eq!((v.puffin_footers_read, v.mismatches, v.unchecked), (v.puffin_files, 0, 0));
    let from_footers: i64 = v.vectors_checked.iter().map(|r| r.footer_cardinality.unwrap()).sum();
    assert_eq!(from_footers as u64, f["dv_cardinality_sum"].as_u64().unwrap());
    // Each Puffin file is read once, its tail and footer only.
    let sizes: u64 = ["00000-30", "00000-64", "00000-79"]
        .iter()
        .map(|p| {
            let path = std::fs::read_dir(root().join("data")).unwrap().map(|e| e.unwrap().path()).find(|x| x.to_string_lossy().contains(p)).unwrap();
            let b = std::fs::read(path).unwrap();
            12 + 4 + u64::from(u32::from_le_bytes(b[b.len() - 12..b.len() - 8].try_into().unwrap()))
        })
        .sum();
    assert_eq!(v.bytes_fetched, sizes);
    assert!(r.findings.is_empty(), "{:?}", r.findings);
}

#[test]
fn an_lz4_framed_footer_reads_as_the_stored_one() {
    let (plain, _) = table_with(&|b| b.to_vec());
    let (framed, _) = table_with(&|b| {
        let n = b.len();
        let size = u32::from_le_bytes(b[n - 12..n - 8].try_into().unwrap()) as usize;
        let mut out = Vec::new();
        let mut enc = lz4_flex::frame::FrameEncoder::new(&mut out);
        std::io::Write::write_all(&mut enc, &b[n - 12 - size..n - 12]).unwrap();
        enc.finish().unwrap();
        with_footer(b, &out, 1)
    });
    assert_eq!(framed.deletion_vectors.vectors_checked, plain.deletion_vectors.vectors_checked);
    assert_eq!(framed.deletion_vectors.mismatches, 0);
}

fn one_mismatch(r: &FooterReport, words: &str) {
    let v = &r.deletion_vectors;
    let live = facts()["deletion_vectors"]["live_deletion_vectors"].as_u64().unwrap() as usize;
    assert_eq!((v.vectors, v.mismatches, v.unchecked), (live, 1, 0), "{:?}", v.vectors_checked);
    let bad = v.vectors_checked.iter().find(|r| r.matches == Some(false)).unwrap();
    assert!(bad.problem.as_deref().unwrap().contains(words), "{:?}", bad.problem);
    let finding = r.findings.iter().find(|f| f.kind == "vector_footer_mismatch").expect("a finding");
    assert!(finding.evidence.contains(words), "{}", finding.evidence);
    assert_eq!(
        finding.statement.as_ref().map(|s| s.sql()).as_deref(),
        Some("CALL lab.system.rewrite_data_files(table => 'icescope.v3_deletion_vectors', options => map('delete-file-threshold', '1'));")
    );
    assert!(markdown(r).contains(&icescope::report::text::text(words)), "{}", markdown(r));
    assert!(text(r).contains("MISMATCH"));
}

#[test]
fn a_footer_that_disagrees_with_the_manifest_is_one_mismatch_naming_what() {
    let card = |b: &[u8]| payload(b)["blobs"][1]["properties"]["cardinality"].as_str().unwrap().parse::<i64>().unwrap();
    let (r, _) = table_with(&|b| edited(b, &|p| p["blobs"][1]["properties"]["cardinality"] = Value::from((card(b) - 1).to_string())));
    let original = card(&std::fs::read(root().join("data/00000-79-e7fb9ce9-b158-4dcc-809e-400d96b55c16-00001-deletes.puffin")).unwrap());
    one_mismatch(&r, &format!("the footer's cardinality is {}, the manifest's record_count {original}", original - 1));
    assert!(r.findings[0].evidence.contains("over them: -1"), "{}", r.findings[0].evidence);

    let (r, _) = table_with(&|b| edited(b, &|p| p["blobs"][0]["properties"]["referenced-data-file"] = Value::from("s3://elsewhere/x.parquet")));
    one_mismatch(&r, "the footer says it applies to s3://elsewhere/x.parquet");
    let (r, _) = table_with(&|b| edited(b, &|p| p["blobs"][2]["offset"] = Value::from(5)));
    one_mismatch(&r, "the footer lists no blob at offset 3896 of 1944 bytes");
    let (r, _) = table_with(&|b| edited(b, &|p| p["blobs"][2]["type"] = Value::from("apache-datasketches-theta-v1")));
    one_mismatch(&r, "the blob is a `apache-datasketches-theta-v1`, not a `deletion-vector-v1`");
    let (r, _) = table_with(&|b| edited(b, &|p| p["blobs"][0]["compression-codec"] = Value::from("zstd")));
    one_mismatch(&r, "the blob is compressed");
    let (r, _) = table_with(&|b| edited(b, &|p| p["blobs"][0]["properties"] = serde_json::json!({})));
    one_mismatch(&r, "the footer names no `referenced-data-file`; the footer gives no `cardinality`");
}

#[test]
fn a_puffin_file_rewritten_to_another_size_disagrees_for_each_of_its_vectors() {
    // The same footer, pretty-printed: every blob where it was, the file longer than committed.
    let (r, victim) = table_with(&|b| with_footer(b, &serde_json::to_vec_pretty(&payload(b)).unwrap(), 0));
    let v = &r.deletion_vectors;
    let bad: Vec<_> = v.vectors_checked.iter().filter(|r| r.matches == Some(false)).collect();
    let in_victim = facts()["deletion_vectors"]["vectors_per_puffin_file"][format!("data/{victim}")].as_u64().unwrap() as usize;
    assert_eq!((v.mismatches, v.unchecked, bad.len()), (in_victim, 0, in_victim));
    let committed = std::fs::metadata(root().join("data").join(&victim)).unwrap().len();
    for row in bad {
        assert!(row.puffin_path.ends_with(&victim));
        let p = row.problem.as_deref().unwrap();
        assert!(p.starts_with("the Puffin file is ") && p.ends_with(&format!("bytes, the manifest's file_size_in_bytes {committed}")), "{p}");
        assert_eq!(row.footer_cardinality, Some(row.manifest_cardinality));
    }
}

fn unreadable(r: &FooterReport, words: &str) {
    let v = &r.deletion_vectors;
    let f = facts();
    let files = f["deletion_vectors"]["puffin_files"].as_u64().unwrap() as usize;
    let in_victim =
        f["deletion_vectors"]["vectors_per_puffin_file"].as_object().unwrap().iter().find(|(k, _)| k.contains("00000-79")).unwrap().1.as_u64().unwrap()
            as usize;
    assert_eq!((v.puffin_files, v.puffin_footers_read, v.mismatches, v.unchecked), (files, files - 1, 0, in_victim), "{:?}", v.vectors_checked);
    let r0 = v.vectors_checked.iter().find(|r| r.matches.is_none()).unwrap();
    let p = r0.problem.as_deref().unwrap();
    assert!(p.starts_with(&r0.puffin_path) && p.contains(words), "{p}");
    let f = r.findings.iter().find(|f| f.kind == "puffin_footer_unreadable").expect("a warning");
    assert_eq!(f.title, format!("1 of {files} Puffin file(s) have no readable footer ({in_victim} live deletion vector(s) unchecked)"));
}

#[test]
fn a_broken_footer_leaves_its_vectors_unchecked_and_says_which_field() {
    unreadable(&table_with(&|b| with_footer(b, &payload(b).to_string().into_bytes(), 4)).0, "field `flags`");
    unreadable(&table_with(&|b| with_footer(b, b"{\"blobs\": 7}", 0)).0, "field `blobs`");
    unreadable(&table_with(&|b| with_footer(b, &payload(b).to_string().into_bytes(), 1)).0, "field `footer_payload`: the LZ4 frame does not decode");
    // 100,000 nested arrays: refused at the third level by the footer's types, no stack spent.
    unreadable(&table_with(&|b| with_footer(b, "[".repeat(100_000).as_bytes(), 0)).0, "field `[0][0][0]`: invalid type: sequence");
    unreadable(&table_with(&|b| edited(b, &|p| p["blobs"][0]["length"] = Value::from(1u64 << 40))).0, "field `blobs[0].offset`");
    unreadable(
        &table_with(&|b| {
            let mut out = b.to_vec();
            let n = out.len();
            out[n - 12..n - 8].copy_from_slice(&(n as u32).to_le_bytes());
            out
        })
        .0,
        "field `footer_payload_size`",
    );
    unreadable(
        &table_with(&|b| {
            let mut out = b.to_vec();
            let n = out.len();
            let shorter = u32::from_le_bytes(out[n - 12..n - 8].try_into().unwrap()) - 1;
            out[n - 12..n - 8].copy_from_slice(&shorter.to_le_bytes());
            out
        })
        .0,
        "not `PFA1`: its payload size is wrong",
    );
    unreadable(&table_with(&|b| b[..b.len() - 3].to_vec()).0, "field `magic`");
    unreadable(&table_with(&|b| b[..10].to_vec()).0, "field `tail`");
}
