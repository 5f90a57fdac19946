//! The CLI's exit codes (docs/cli.md, "Exit codes"), each provoked by a real input: 0 done, 1 a
//! finding at `inspect --fail-on`'s severity or above, 2 usage, 3 the table or an input could not
//! be read, 4 the output could not be written. A script tells them apart without reading stderr.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path).to_string_lossy().into_owned()
}

fn fixture(name: &str) -> String {
    repo(&format!("tests/fixtures/{name}"))
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_icescope")).args(args).output().expect("the CLI runs")
}

/// The exit code, with stderr shown when it is not the one expected.
fn code(args: &[&str], want: i32) -> Output {
    let out = run(args);
    assert_eq!(out.status.code(), Some(want), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A folder of its own under the system's temporary folder, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("icescope-exit-codes-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn a_command_line_that_asks_for_what_cannot_be_exits_2() {
    let t = fixture("savepoint-twice");
    // clap's own: an unknown flag, a value outside the choices, two options that exclude each other.
    code(&["inspect", &t, "--no-such-flag"], 2);
    code(&["export", &t, "--out", "x", "--what", "everything"], 2);
    let both = code(&["inspect", &t, "--fail-on", "critical", "--reads"], 2);
    assert!(stderr(&both).contains("'--fail-on <SEVERITY>' cannot be used with '--reads'"), "{}", stderr(&both));
    // The CLI's: no table named, an option that needs another, what the table does not have.
    let none = code(&["inspect"], 2);
    assert!(stderr(&none).starts_with("icescope: which table?"), "{}", stderr(&none));
    code(&["inspect", "--catalog", "http://127.0.0.1:9/catalog"], 2);
    code(&["catalog"], 2);
    let unknown = code(&["diff", &t, "--from", "12345"], 2);
    assert!(stderr(&unknown).contains("no snapshot matches `12345`"), "{}", stderr(&unknown));
    code(&["diff", &t, "--from", "checkpoint:7"], 2);
    // One snapshot on both sides: nothing to compare, said before either side's files are read.
    // The current snapshot's id as Flink's commit wrote it into the newest metadata file (as text:
    // it is past what a JSON number holds exactly in many readers).
    let newest = std::fs::read_dir(Path::new(&t).join("metadata"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| Some((n.strip_prefix('v')?.strip_suffix(".metadata.json")?.parse::<u32>().ok()?, n)))
        .max()
        .unwrap()
        .1;
    let text = std::fs::read_to_string(Path::new(&t).join("metadata").join(newest)).unwrap();
    let at = text.find("\"current-snapshot-id\"").unwrap();
    let current: String = text[at..].chars().skip_while(|c| !c.is_ascii_digit()).take_while(char::is_ascii_digit).collect();
    let same = code(&["diff", &t, "--from", "current", "--to", &current], 2);
    assert_eq!(stderr(&same), format!("icescope: both sides are snapshot {current}: nothing to compare\n"));
    code(&["diff", &t, "--job", "no-such-job"], 2);
    code(&["walk", &t, "--to", "nope"], 2);
    code(&["footers", &t, "--snapshot", "1"], 2);
    code(&["duplicates", &t, "--key", "no_such_column"], 2);
    code(&["inspect", &t, "--metadata", "v99.metadata.json"], 2);
    code(&["spark-export", "--table", "only_a_name", "--to", "/tmp/x"], 2);
}

#[test]
fn a_table_that_cannot_be_read_exits_3() {
    let missing = code(&["inspect", &repo("tests/fixtures/no-such-table")], 3);
    assert!(stderr(&missing).ends_with("no-such-table: no such file or folder\n"), "{}", stderr(&missing));
    let empty = code(&["inspect", &repo("tests/hostile/files/no-metadata-json")], 3);
    assert!(stderr(&empty).contains("no *.metadata.json file in this folder"), "{}", stderr(&empty));
    // A damaged metadata.json, named by file and how it is damaged (where it stops, when cut);
    // every command that opens a table says 3.
    let cut = repo("tests/hostile/files/metadata-truncated");
    let size = std::fs::metadata(format!("{cut}/metadata/v2.metadata.json")).unwrap().len();
    for cmd in ["inspect", "diff", "walk", "export", "orphans", "footers", "duplicates"] {
        let out = code(&[cmd, &cut, "--out", "unused"][..if cmd == "export" { 4 } else { 2 }], 3);
        assert_eq!(
            stderr(&out),
            format!("icescope: metadata/v2.metadata.json: truncated at byte {size} (the file is {size} bytes); it stops inside `snapshots[0].manifest-list`\n"),
            "{cmd}"
        );
    }
    // The metadata reads, the manifests it names do not.
    code(&["footers", &repo("tests/hostile/files/every-manifest-missing")], 3);
    // Nothing listens on port 9 (discard): the catalog cannot be reached.
    code(&["catalog", "--catalog", "http://127.0.0.1:9/catalog"], 3);
}

#[test]
fn fail_on_exits_1_after_the_report_when_a_finding_is_that_severe() {
    // savepoint-twice has a critical finding (a checkpoint committed twice); late-data a warning
    // and no critical one; flink-maintenance only the orphan files the lab found on its store
    // (every manifest is read on a table this small, so the folder is censused), a warning.
    let twice = fixture("savepoint-twice");
    let out = code(&["inspect", &twice, "--fail-on", "critical"], 1);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the whole report is printed first");
    let critical = report["findings"].as_array().unwrap().iter().filter(|f| f["severity"] == "critical").count();
    assert_eq!(critical, 1);
    assert_eq!(stderr(&out), "icescope: 1 finding is critical (--fail-on critical)\n");
    let text = code(&["inspect", &twice, "--fail-on", "critical", "--format", "text"], 1);
    assert!(String::from_utf8_lossy(&text.stdout).contains("[CRITICAL] "));
    // Without --fail-on findings never fail the run.
    code(&["inspect", &twice], 0);

    let late = fixture("late-data");
    code(&["inspect", &late, "--fail-on", "critical"], 0);
    let warned = code(&["inspect", &late, "--fail-on", "warning", "--format", "markdown"], 1);
    assert_eq!(stderr(&warned), "icescope: 1 finding is warning or above (--fail-on warning)\n");
    code(&["inspect", &fixture("flink-maintenance"), "--fail-on", "critical"], 0);
    code(&["inspect", &fixture("flink-maintenance"), "--fail-on", "warning"], 1);
    let example = repo("public/examples/pyiceberg-daily-appends");
    code(&["inspect", &example, "--fail-on", "warning"], 0);
    code(&["inspect", &example, "--fail-on", "info"], 1);
}

#[test]
fn output_that_cannot_be_written_exits_4() {
    let scratch = Scratch::new("output");
    let file = scratch.0.join("a-file");
    std::fs::write(&file, b"not a folder").unwrap();
    // A folder under a file cannot be made, whoever runs the test (root included).
    let under = file.join("exports");
    let out = code(&["export", &fixture("late-data"), "--out", under.to_str().unwrap()], 4);
    assert!(stderr(&out).starts_with(&format!("icescope: {}: ", under.display())), "{}", stderr(&out));
    // The same export into a folder that can be made writes its files and exits 0.
    let fine = scratch.0.join("exports");
    code(&["export", &fixture("late-data"), "--out", fine.to_str().unwrap()], 0);
    assert!(fine.join("snapshots.csv").is_file());
    // A full disk under stdout is an error too; a closed pipe (`| head`) is not.
    if let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") {
        let out = Command::new(env!("CARGO_BIN_EXE_icescope"))
            .args(["inspect", &fixture("late-data"), "--format", "text"])
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
        assert!(stderr(&out).starts_with("icescope: stdout: "), "{}", stderr(&out));
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_icescope"))
        .args(["inspect", &fixture("savepoint-twice"), "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn help_and_version_exit_0_on_stdout() {
    for args in [&["--help"][..], &["--version"], &["inspect", "--help"]] {
        let out = code(args, 0);
        assert!(!out.stdout.is_empty() && out.stderr.is_empty(), "{args:?}");
    }
    let help = String::from_utf8(run(&["--help"]).stdout).unwrap();
    assert!(help.contains("Exit codes: 0 done, 1 a finding"), "{help}");
}

/// A catalog or metadata URL with a user name or password is refused before any request (exit 2),
/// and the refusal does not repeat them: for every command that takes one, `serve` included.
#[test]
fn a_password_in_a_url_is_refused_and_never_printed() {
    let url = "https://alice:hunter2@127.0.0.1:9/api";
    for args in [
        vec!["inspect", "--catalog", url, "--table", "db.t"],
        vec!["watch", "--catalog", url, "--table", "db.t", "--once", "--state", "/nonexistent/icescope-state.json"],
        // No built app either: the URL is refused first, on a machine with or without `dist/`.
        vec!["serve", "--catalog", url, "--dist", "/nonexistent/icescope-dist"],
        vec!["inspect", "https://alice:hunter2@127.0.0.1:9/t/metadata/v1.metadata.json"],
    ] {
        let out = code(&args, 2);
        let all = format!("{}{}", stderr(&out), String::from_utf8_lossy(&out.stdout));
        assert!(!all.contains("hunter2") && !all.contains("alice"), "{args:?}: {all}");
        assert!(all.contains("never in a URL"), "{args:?}: {all}");
    }
}

/// A catalog that quotes every request back in its error (a stand-in server written here, since
/// the point is a server that misbehaves): the bearer token and the OAuth2 client secret it
/// echoes never reach stderr or stdout; what the catalog said otherwise is still shown.
#[test]
fn a_catalog_that_echoes_the_request_never_gets_a_secret_printed() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten().take(8) {
            let mut stream = stream;
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
            let mut buf = vec![0u8; 16384];
            let mut got = Vec::new();
            // Headers, then the body its Content-Length says.
            while let Ok(n) = stream.read(&mut buf) {
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&got).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let len = text
                        .lines()
                        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap_or(0)))
                        .unwrap_or(0);
                    if got.len() >= end + 4 + len {
                        break;
                    }
                }
            }
            let echoed = String::from_utf8_lossy(&got).replace(['"', '\\'], "'").replace("\r\n", " | ");
            let body = format!(r#"{{"error":{{"message":"invalid credentials in: {echoed}","type":"NotAuthorizedException","code":401}}}}"#);
            let _ = write!(
                stream,
                "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let uri = format!("http://127.0.0.1:{port}");
    for (args, secret, removed) in [
        (vec!["inspect", "--catalog", &uri, "--table", "db.t", "--token", "tok-9f8e7d6c5b4a"], "tok-9f8e7d6c5b4a", "Bearer ••••••"),
        (vec!["inspect", "--catalog", &uri, "--table", "db.t", "--credential", "client:s3cr3t/with+slash"], "s3cr3t", "client_secret=••••••"),
    ] {
        let out = run(&args);
        let all = format!("{}{}", stderr(&out), String::from_utf8_lossy(&out.stdout));
        assert_ne!(out.status.code(), Some(0), "{all}");
        // The echo reached the message, with the secret taken out of it.
        assert!(all.contains(removed), "{args:?}: {all}");
        assert!(all.contains("NotAuthorizedException"), "what the catalog said is shown: {all}");
        assert!(!all.contains(secret), "{args:?}: {all}");
    }
}

/// `watch --for` is the user's deadline, not each request's: against a catalog that takes every
/// connection and never answers (a stand-in server written here: the point is its silence), the
/// watch ends when the time given runs out, exit 3, naming that time — not after the transport's
/// 120 s per request.
#[test]
fn watch_for_ends_on_time_against_a_catalog_that_never_answers() {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            held.push(stream); // kept open, never answered
        }
    });
    let url = format!("http://127.0.0.1:{port}/api");
    let mut child = Command::new(env!("CARGO_BIN_EXE_icescope"))
        .args(["watch", "--catalog", &url, "--table", "db.t", "--for", "2s"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Ended by its own deadline long before the transport's: the exit is waited for on a thread,
    // and 60 s (the test's bound, not a measurement) only ends a hang.
    let mut stderr_pipe = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait().unwrap());
    });
    let status = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("watch --for 2s still running after 60 s");
    waiter.join().unwrap();
    let mut err = String::new();
    stderr_pipe.read_to_string(&mut err).unwrap();
    assert_eq!(status.code(), Some(3), "{err}");
    assert!(err.contains("no whole answer within the time --for 2s gave"), "{err}");
}
