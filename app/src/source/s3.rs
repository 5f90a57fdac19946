//! S3-compatible object reads: `s3://bucket/key` → a signed (or anonymous, or presigned) HTTP GET.
//! Properties use PyIceberg's / Iceberg's names (`s3.endpoint`, `s3.access-key-id`, …) so that what a
//! catalog vends and what a person types mean the same.

use std::collections::BTreeMap;
#[cfg(not(target_arch = "wasm32"))]
use std::time::SystemTime;
use std::time::{Duration, UNIX_EPOCH};

use aws_credential_types::Credentials;
use aws_sigv4::http_request::{sign, PayloadChecksumKind, SignableBody, SignableRequest, SigningSettings};
use aws_sigv4::sign::v4;

use super::http::Request;

pub type Props = BTreeMap<String, String>;

/// `s3://bucket/a/b` (also s3a, s3n, gs-style schemes are not S3 and are refused) → (bucket, key).
pub fn parse_s3(url: &str) -> Option<(&str, &str)> {
    let rest = ["s3://", "s3a://", "s3n://"].iter().find_map(|p| url.strip_prefix(p))?;
    let (bucket, key) = rest.split_once('/')?;
    (!bucket.is_empty()).then_some((bucket, key))
}

#[derive(Debug, Clone, PartialEq)]
pub struct S3Config {
    pub endpoint: Option<String>,
    pub region: Option<String>,
    pub path_style: bool,
    pub access_key_id: Option<String>,
    pub secret_access_key: Option<String>,
    pub session_token: Option<String>,
    /// `s3.remote-signing-enabled`: the catalog signs each request (POST …/sign).
    pub remote_signing: bool,
    pub signer_uri: Option<String>,
    pub signer_endpoint: Option<String>,
}

impl S3Config {
    pub fn from_props(p: &Props) -> S3Config {
        let get = |k: &str| p.get(k).filter(|v| !v.is_empty()).cloned();
        let yes = |k: &str| get(k).is_some_and(|v| v.eq_ignore_ascii_case("true"));
        S3Config {
            endpoint: get("s3.endpoint").map(|e| e.trim_end_matches('/').to_string()),
            region: get("s3.region").or_else(|| get("client.region")).or_else(|| get("rest.signing-region")),
            path_style: yes("s3.path-style-access"),
            access_key_id: get("s3.access-key-id"),
            secret_access_key: get("s3.secret-access-key"),
            session_token: get("s3.session-token"),
            remote_signing: yes("s3.remote-signing-enabled"),
            signer_uri: get("s3.signer.uri"),
            signer_endpoint: get("s3.signer.endpoint"),
        }
    }

    /// The plain HTTPS URL of an object, before signing.
    pub fn object_url(&self, bucket: &str, key: &str) -> Result<String, String> {
        let key = key.split('/').map(super::http::encode).collect::<Vec<_>>().join("/");
        match (&self.endpoint, &self.region) {
            // An IP address or localhost cannot carry the bucket as a subdomain: path style, as the
            // AWS SDKs do.
            (Some(e), _) if self.path_style || !has_dns_name(e) => Ok(format!("{e}/{bucket}/{key}")),
            (Some(e), _) => {
                let (scheme, host) = e.split_once("://").unwrap_or(("https", e));
                Ok(format!("{scheme}://{bucket}.{host}/{key}"))
            }
            // Requests go only to hosts the user or the catalog named: AWS too must be named.
            (None, region) => Err(format!(
                "the catalog vended no S3 endpoint for bucket `{bucket}` and none was given: set the S3 endpoint \
                 (for AWS https://s3.{}.amazonaws.com)",
                region.as_deref().unwrap_or("<region>")
            )),
        }
    }

    /// A GET for `s3://bucket/key`, signed with SigV4 when keys are known, anonymous otherwise.
    pub fn get(&self, reference: &str, now_ms: u64) -> Result<Request, String> {
        self.get_with(reference, &[], now_ms)
    }

    /// A GET with extra headers (`Range`), added before signing so that the signature covers them.
    pub fn get_with(&self, reference: &str, headers: &[(String, String)], now_ms: u64) -> Result<Request, String> {
        let (bucket, key) = parse_s3(reference).ok_or_else(|| format!("{reference}: not an s3:// URL"))?;
        let mut req = Request::get(self.object_url(bucket, key)?);
        req.headers.extend(headers.iter().cloned());
        match (&self.access_key_id, &self.secret_access_key) {
            (Some(ak), Some(sk)) => {
                crate::source::secrets::hold(sk);
                self.session_token.as_deref().into_iter().for_each(crate::source::secrets::hold);
                sign_request(req, ak, sk, self.session_token.as_deref(), self.region.as_deref().unwrap_or("us-east-1"), "s3", now_ms)
            }
            _ => Ok(req),
        }
    }
}

fn has_dns_name(endpoint: &str) -> bool {
    let host = super::http::origin(endpoint).split("://").nth(1).unwrap_or("");
    let host = host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host);
    !(host == "localhost" || host.starts_with('[') || host.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())))
}

/// SigV4 with the AWS SDK's own signer (aws-sigv4): headers are added to the request.
pub fn sign_request(
    mut req: Request,
    access_key: &str,
    secret_key: &str,
    session_token: Option<&str>,
    region: &str,
    service: &str,
    now_ms: u64,
) -> Result<Request, String> {
    let identity = Credentials::new(access_key, secret_key, session_token.map(str::to_string), None, "icescope").into();
    let mut settings = SigningSettings::default();
    if service == "s3" {
        settings.payload_checksum_kind = PayloadChecksumKind::XAmzSha256;
    }
    // SystemTime::now() does not exist in the browser: the caller passes the clock.
    let time = UNIX_EPOCH + Duration::from_millis(now_ms);
    let params = v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(service)
        .time(time)
        .settings(settings)
        .build()
        .map_err(|e| format!("SigV4 parameters: {e}"))?
        .into();
    let body = req.body.clone().unwrap_or_default();
    let signable = SignableRequest::new(req.method, req.url.clone(), req.headers.iter().map(|(k, v)| (k.as_str(), v.as_str())), SignableBody::Bytes(&body))
        .map_err(|e| format!("{}: cannot be signed: {e}", req.url))?;
    let (instructions, _) = sign(signable, &params).map_err(|e| format!("{}: SigV4 signing failed: {e}", req.url))?.into_parts();
    let (headers, params) = instructions.into_parts();
    for h in headers {
        req.headers.push((h.name().to_string(), h.value().to_string()));
    }
    if !params.is_empty() {
        let sep = if req.url.contains('?') { '&' } else { '?' };
        let q: Vec<String> = params.iter().map(|(k, v)| format!("{k}={}", super::http::encode(v))).collect();
        req.url = format!("{}{sep}{}", req.url, q.join("&"));
    }
    Ok(req)
}

/// Iceberg's remote signing: the catalog signs a request it describes (`POST …/v1/aws/s3/sign`).
pub fn remote_sign_request(signer_url: &str, region: &str, req: &Request) -> Request {
    let headers: serde_json::Map<String, serde_json::Value> = req.headers.iter().map(|(k, v)| (k.clone(), serde_json::json!([v]))).collect();
    Request::post_json(signer_url, &serde_json::json!({"method": req.method, "region": region, "uri": req.url, "headers": headers}))
}

/// Applies a remote-signing response (`{"uri", "headers": {name: [values]}}`) to the request.
pub fn apply_remote_signature(mut req: Request, body: &[u8]) -> Result<Request, String> {
    let v: serde_json::Value = serde_json::from_slice(body).map_err(|e| format!("remote signing response is not JSON: {e}"))?;
    if let Some(uri) = v["uri"].as_str() {
        req.url = uri.to_string();
    }
    let headers = v["headers"].as_object().ok_or("remote signing response has no `headers`")?;
    for (k, vals) in headers {
        for val in vals.as_array().into_iter().flatten().filter_map(|x| x.as_str()) {
            req.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(k));
            req.headers.push((k.clone(), val.to_string()));
        }
    }
    Ok(req)
}

/// Milliseconds since the epoch on the host (the CLI); the browser passes `Date.now()`.
#[cfg(not(target_arch = "wasm32"))]
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ranged_get_is_signed_with_its_range() {
        let mut p = Props::new();
        for (k, v) in [("s3.endpoint", "http://127.0.0.1:8333"), ("s3.access-key-id", "AK"), ("s3.secret-access-key", "SK"), ("s3.region", "us-east-1")] {
            p.insert(k.into(), v.into());
        }
        let req = S3Config::from_props(&p).get_with("s3://b/k/x.parquet", &[("Range".into(), "bytes=-8".into())], 1_700_000_000_000).unwrap();
        assert!(req.headers.iter().any(|(k, v)| k == "Range" && v == "bytes=-8"));
        let auth = req.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("authorization")).map(|(_, v)| v.clone()).unwrap();
        assert!(auth.contains("SignedHeaders=") && auth.contains("range"), "{auth}");
    }

    #[test]
    fn object_urls_follow_the_addressing_style() {
        let mut c =
            S3Config::from_props(&Props::from([("s3.endpoint".into(), "http://127.0.0.1:8333/".into()), ("s3.path-style-access".into(), "true".into())]));
        assert_eq!(c.object_url("wh", "ns/t/metadata/v1.metadata.json").unwrap(), "http://127.0.0.1:8333/wh/ns/t/metadata/v1.metadata.json");
        c.path_style = false;
        assert_eq!(c.object_url("wh", "a b").unwrap(), "http://127.0.0.1:8333/wh/a%20b", "an IP cannot take a bucket subdomain");
        c.endpoint = Some("https://minio.example.com".into());
        assert_eq!(c.object_url("wh", "k").unwrap(), "https://wh.minio.example.com/k");
        c.endpoint = Some("https://s3.eu-west-1.amazonaws.com".into());
        assert_eq!(c.object_url("wh", "k").unwrap(), "https://wh.s3.eu-west-1.amazonaws.com/k");
        c.endpoint = None;
        c.region = Some("eu-west-1".into());
        assert!(c.object_url("wh", "k").unwrap_err().contains("https://s3.eu-west-1.amazonaws.com"), "no host the user did not name");
    }

    #[test]
    fn signed_get_carries_sigv4_headers_and_no_secret() {
        let c = S3Config::from_props(&Props::from([
            ("s3.endpoint".into(), "http://127.0.0.1:8333".into()),
            ("s3.path-style-access".into(), "true".into()),
            ("s3.access-key-id".into(), "AKIDEXAMPLE".into()),
            ("s3.secret-access-key".into(), "wJalrXUtnFEMI".into()),
            ("s3.region".into(), "us-east-1".into()),
        ]));
        let r = c.get("s3://wh/k.avro", 1_700_000_000_000).unwrap();
        let auth = r.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("authorization")).unwrap();
        assert!(auth.1.starts_with("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20231114/us-east-1/s3/aws4_request"), "{}", auth.1);
        assert!(r.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("x-amz-content-sha256")));
        assert!(!format!("{r:?}").contains("wJalrXUtnFEMI"));
    }
}
