#[test]
fn parse_time() {
    let dir = std::path::Path::new("tests/bench/work/w1a/metadata");
    let hint = std::fs::read_to_string(dir.join("version-hint.text")).unwrap();
    let p = dir.join(format!("v{}.metadata.json", hint.trim()));
    let bytes = std::fs::read(&p).unwrap();
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let m = icescope::decode::TableMetadata::from_bytes("x", &bytes).unwrap();
        let a = t.elapsed();
        let t = std::time::Instant::now();
        let h = icescope::model::history::TableHistory::new("x".into(), m);
        println!("parse {:?} history {:?} {}", a, t.elapsed(), h.snapshots.len());
    }
}
