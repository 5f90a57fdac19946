//! icescope's ListObjectsV2 parser on real SeaweedFS pages (tests/fixtures/s3-list, captured by
//! tests/py/catalog/test_cli_orphans_s3.py) against botocore's parse of the same bytes.

use std::path::Path;

use icescope::source::s3_list::parse_list;
use serde_json::Value;

#[test]
fn every_captured_page_parses_as_botocore_parsed_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/s3-list");
    let expected: Value = serde_json::from_slice(&std::fs::read(dir.join("botocore.json")).unwrap()).unwrap();
    let pages = expected["pages"].as_array().unwrap();
    assert!(pages.len() > 3);
    let mut keys = 0;
    for (i, want) in pages.iter().enumerate() {
        let got = parse_list(&std::fs::read(dir.join(format!("page-{i}.xml"))).unwrap()).unwrap();
        assert_eq!(got.truncated, want["is_truncated"].as_bool().unwrap(), "page {i}");
        assert_eq!(got.next_token.as_deref(), want["next_token"].as_str(), "page {i}");
        let objects = want["objects"].as_array().unwrap();
        assert_eq!(got.objects.len(), objects.len(), "page {i}");
        for (g, w) in got.objects.iter().zip(objects) {
            assert_eq!(g.key, w["key"].as_str().unwrap());
            assert_eq!(g.size, w["size"].as_u64());
            assert_eq!(g.modified_ms, w["modified_ms"].as_i64());
            keys += 1;
        }
    }
    assert!(keys > 6);
}

#[test]
fn an_error_document_is_not_an_empty_listing() {
    // A synthetic error document (S3's shape), not a captured one.
    let err = parse_list(b"<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code><Message>no</Message></Error>").unwrap_err();
    assert!(err.contains("AccessDenied"), "{err}");
}
