//! An S3-compatible store's answers: a ListObjectsV2 page (the orphan census pages through them)
//! and an error document, read as the CLI and the browser read them.
#![no_main]

use icescope::source::http::HttpError;
use icescope::source::s3_list::parse_list;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(page) = parse_list(data) {
        assert!(page.next_token.as_deref() != Some(""), "an empty token is no token");
    }
    let _ = HttpError::status("http://127.0.0.1:8333/warehouse", 403, data).to_string();
    if let Ok(location) = std::str::from_utf8(data) {
        // A redirect's target is shown without its query (a presigned URL's signature) and cut short.
        let target = HttpError::redirect("http://127.0.0.1:8333/warehouse/t/metadata/v1.metadata.json", Some(302), Some(location)).message;
        assert!(!target.contains(['?', '#']), "a query or fragment was kept: {target:?}");
        assert!(target.chars().count() <= 301 && !target.contains(char::is_control), "{target:?}");
    }
});
