//! The orphan census of a table whose store holds millions of objects, listed with ListObjectsV2
//! over a real loopback socket and opened in a child process under an address-space cap (as
//! tests/hostile.rs caps the CLI).
//!
//! The store is generated and says what it mimics: SeaweedFS's ListObjectsV2 pages (the shape of
//! tests/fixtures/s3-list/page-0.xml, captured from `weed mini`: Name, Prefix, MaxKeys,
//! IsTruncated, Contents with Key, ETag, Size, StorageClass and LastModified, NextContinuationToken,
//! KeyCount; 1,000 keys a page, S3's maximum) over the lab's `append-stream` table (written by
//! Flink to `s3://warehouse/icescope/append_stream/`), with `n` uncommitted data files beside its
//! own, named as Flink's writers name theirs (`<subtask>-<attempt>-<operator uuid>-<count>.parquet`
//! under the partition folder).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use icescope::analysis::orphans::orphans;
use icescope::load::load_with_stats;
use icescope::model::ReadMode;
use icescope::source::local::LocalFolder;
use icescope::source::remote::RemoteFiles;
use icescope::source::transport::Ureq;
use icescope::source::{newest_metadata, FileSet};

const PREFIX: &str = "icescope/append_stream/";
const PAGE: usize = 1000;

fn stray(i: usize) -> String {
    format!("{PREFIX}data/ts_day=2026-11-30/00000-0-{:08x}-3e46-4f3c-9a2b-6fe1e8a4c0d1-{:05}.parquet", i / 100_000, i % 100_000)
}

/// Serves the fixture's objects and a listing of them plus `n` strays, on a thread of this process.
fn store(n: usize) -> (String, String) {
    let f = LocalFolder::open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/append-stream")).unwrap();
    let own: Vec<String> = f.index().paths().filter(|p| p.starts_with("data/") || p.starts_with("metadata/")).map(str::to_string).collect();
    let files: Arc<HashMap<String, Vec<u8>>> = Arc::new(own.iter().map(|p| (format!("{PREFIX}{p}"), f.read_path(p).unwrap())).collect());
    let mut keys: Vec<(String, u64)> = own.iter().map(|p| (format!("{PREFIX}{p}"), files[&format!("{PREFIX}{p}")].len() as u64)).collect();
    keys.sort();
    let metadata = format!("s3://warehouse/{PREFIX}{}", newest_metadata(&f).unwrap());
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let total = keys.len() + n;
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap() == 0 || h == "\r\n" {
                    break;
                }
            }
            let path = line.split(' ').nth(1).unwrap_or("/");
            let body = if let Some(query) = path.strip_prefix("/warehouse/?") {
                let page: usize = query.split('&').find_map(|kv| kv.strip_prefix("continuation-token=")).map(|t| t.parse().unwrap()).unwrap_or(0);
                let (from, to) = (page * PAGE, ((page + 1) * PAGE).min(total));
                let mut xml = format!(
                    r#"<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>warehouse</Name><Prefix>{PREFIX}</Prefix><MaxKeys>{PAGE}</MaxKeys><IsTruncated>{}</IsTruncated>"#,
                    to < total
                );
                for i in from..to {
                    let (key, size) = if i < keys.len() { keys[i].clone() } else { (stray(i - keys.len()), 4_096 + (i as u64 % 1_000)) };
                    let t = 1_796_003_543 + i as i64 % 86_400;
                    let (h, m, s) = (t % 86_400 / 3600, t % 3600 / 60, t % 60);
                    xml += &format!(
                        "<Contents><Key>{key}</Key><ETag>&#34;3b67938408271156e27cb91125067d7e&#34;</ETag><Size>{size}</Size><StorageClass>STANDARD</StorageClass><LastModified>2026-11-30T{h:02}:{m:02}:{s:02}Z</LastModified></Contents>"
                    );
                }
                if to < total {
                    xml += &format!("<NextContinuationToken>{}</NextContinuationToken>", page + 1);
                }
                xml += &format!("<KeyCount>{}</KeyCount></ListBucketResult>", to - from);
                Some(xml.into_bytes())
            } else {
                path.strip_prefix("/warehouse/").and_then(|k| files.get(k)).cloned()
            };
            let (status, body) = match body {
                Some(b) => ("200 OK", b),
                None => ("404 Not Found", b"<Error><Code>NoSuchKey</Code></Error>".to_vec()),
            };
            let _ = write!(stream, "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", body.len());
            let _ = stream.write_all(&body);
        }
    });
    (origin, metadata)
}

/// Run by `census_under`, in a child process under the cap: `icescope orphans` on the store.
#[test]
#[ignore = "the child half of census_under"]
fn child_census() {
    let Ok(n) = std::env::var("ICESCOPE_STRAYS") else { return };
    let (endpoint, metadata) = store(n.parse().unwrap());
    let props = [("s3.endpoint", endpoint.as_str()), ("s3.path-style-access", "true")].map(|(k, v)| (k.to_string(), v.to_string())).into();
    let files = RemoteFiles::direct(Ureq::default(), props, &metadata);
    let loader = load_with_stats(&files, &metadata, ReadMode::All, false).unwrap();
    let root = format!("s3://warehouse/{PREFIX}");
    let listing = futures::executor::block_on(files.list_prefix(&root, PAGE)).unwrap();
    let r = orphans(&loader.history, &listing, &root).unwrap();
    println!("listed={} referenced={} data={} metadata={}", r.listed, r.referenced, r.data.len(), r.metadata.len());
}

/// The census with `n` strays in a child capped at `cap_mib`: (exited 0, its line, peak RSS KiB).
fn census_under(n: usize, cap_mib: u64) -> (bool, String, u64) {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "maxrss=%M", "sh", "-c", &format!("ulimit -v {} && exec \"$0\" \"$@\"", cap_mib << 10)])
        .arg(exe)
        .args(["--ignored", "--exact", "child_census", "--nocapture", "--test-threads=1"])
        .env("ICESCOPE_STRAYS", n.to_string())
        // The cap is on address space: glibc reserves up to 64 MiB of it per malloc arena, and how
        // many arenas the child's threads (this store's server, the census) get depends on timing —
        // CI once aborted at 723 MiB resident. One arena makes the cap measure what is used.
        .env("MALLOC_ARENA_MAX", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let rss = stderr.lines().find_map(|l| l.strip_prefix("maxrss=")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let line = stdout.find("listed=").map(|i| stdout[i..].lines().next().unwrap_or("").to_string()).unwrap_or_default();
    eprintln!("{n} strays under {cap_mib} MiB: {} peak RSS {} MiB; {line}", out.status, rss >> 10);
    if !out.status.success() {
        let tail: Vec<&str> = stderr.lines().rev().take(12).collect();
        eprintln!("the child's last words:\n{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
    }
    (out.status.success(), line, rss)
}

/// `cargo test --release --test orphans_large -- --ignored measure --nocapture`: bytes per listed
/// object, from the peak RSS with none and with a million strays.
#[test]
#[ignore = "a measurement"]
fn measure() {
    let (_, _, base) = census_under(0, 6 << 10);
    let (_, _, million) = census_under(1_000_000, 6 << 10);
    eprintln!("{} bytes per listed object", (million.saturating_sub(base) << 10) / 1_000_000);
}

#[test]
fn three_million_listed_objects_are_censused_within_a_gigabyte() {
    // Before: ~570 bytes an object (a `String` and a struct per listed object, a second index of
    // copies, a set of referenced paths, owned orphan paths): 3 million needed 1.7 GB and aborted
    // under this cap. Now ~270 (`measure`).
    let (ok, line, _) = census_under(3_000_000, 1024);
    assert!(ok, "the child aborted");
    // The fixture's objects and the data files its snapshots no longer name, as the lab's census of
    // the store recorded them (facts.json `store`, listed from SeaweedFS and read with Spark), and the strays.
    let facts: serde_json::Value =
        serde_json::from_slice(&std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/append-stream/facts.json")).unwrap()).unwrap();
    let objects = facts["store"]["census"]["objects"].as_u64().unwrap();
    let orphans = facts["store"]["orphans"].as_array().unwrap().len() as u64;
    assert_eq!(line, format!("listed={} referenced={} data={} metadata=0", 3_000_000 + objects, objects - orphans, 3_000_000 + orphans));
}
