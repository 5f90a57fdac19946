//! A REST catalog's LoadTable response body, read as the CLI and the browser read it, then the
//! storage properties chosen for a manifest path from the vended credentials it carries. The same
//! bytes as every other answer a catalog gives: config, an OAuth2 token, and pages of namespaces and
//! tables fed to the lister, which must stop within its bounds whatever the pages say.
#![no_main]

use icescope::source::http::{Request, Response};
use icescope::source::rest_catalog::{props_for, CatalogAuth, CatalogOptions, Lister, MAX_LIST_REQUESTS};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = CatalogOptions { uri: "http://127.0.0.1:8181".into(), warehouse: Some("warehouse".into()), auth: CatalogAuth::None };
    let config = Response { status: 200, body: br#"{"defaults":{},"overrides":{"prefix":"warehouse"}}"#.to_vec(), content_range: None };
    let req = Request::get("http://127.0.0.1:8181/v1/config");
    let Ok(session) = options.session(None, &req, &config) else { return };
    let Ok(req) = session.load_table_request(&["icescope".into()], "events", 0) else { return };
    for status in [200, 404] {
        if let Ok(t) = session.read_load_table(&req, &Response { status, body: data.to_vec(), content_range: None }) {
            let reference = t.metadata_location.clone().unwrap_or_else(|| "s3://warehouse/icescope/events/metadata/v1.metadata.json".into());
            let _ = props_for(&reference, &Default::default(), &t.config, &t.storage_credentials);
            let _ = session.signer_url(&t.config);
        }
    }
    let answer = Response { status: 200, body: data.to_vec(), content_range: None };
    let _ = session.read_credentials(&req, &answer);
    let oauth = CatalogOptions {
        auth: CatalogAuth::OAuth2 { client_id: "c".into(), client_secret: "s".into(), server_uri: None, scope: None },
        ..options.clone()
    };
    if let Some(token_req) = oauth.token_request() {
        let _ = oauth.read_token(&token_req, &answer);
    }
    let _ = options.session(None, &Request::get("http://127.0.0.1:8181/v1/config"), &answer);
    // Every listing request answered with these bytes.
    let mut lister = Lister::default();
    let mut sent = 0;
    while let Ok(Some(req)) = lister.next(&session, 0) {
        sent += 1;
        assert!(sent <= MAX_LIST_REQUESTS, "the lister asked past its bound");
        if lister.feed(&session, &req, &answer).is_err() {
            break;
        }
    }
    let _ = lister.finish();
});
