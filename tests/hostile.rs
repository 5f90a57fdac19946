//! The hostile corpus (tests/hostile/<family>/<case>/, made from the lab's fixtures by
//! tests/hostile/make.py): every case is opened by the CLI binary as a user would
//! (`icescope inspect <folder>` as JSON, Markdown and text), under a memory limit and a deadline,
//! and held to the exact outcome its expect.json states. On every output: each printed statement
//! stays one statement, Markdown keeps table values as text, and the text output shows control
//! characters visibly. Cases marked `known_bug` (the fix belongs in decode/ or model/) are held
//! the other way by `known_bugs_still_fail`: each must still fail, so a fix is noticed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::Value;

/// A case that takes longer is hanging; one that needs more is not bounded.
const DEADLINE: Duration = Duration::from_secs(30);
const MEMORY_KIB: u64 = 2 << 20;

struct Case {
    dir: PathBuf,
    expect: Value,
}

fn cases() -> Vec<Case> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let mut out = Vec::new();
    for family in std::fs::read_dir(&root).expect("tests/hostile").flatten() {
        if !family.path().join(".family").is_file() {
            continue;
        }
        for case in std::fs::read_dir(family.path()).unwrap().flatten() {
            let expect_path = case.path().join("expect.json");
            if expect_path.is_file() {
                let expect: Value = serde_json::from_slice(&std::fs::read(&expect_path).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", expect_path.display()));
                out.push(Case { dir: case.path(), expect });
            }
        }
    }
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    out
}

impl Case {
    fn name(&self) -> String {
        format!("{}/{}", self.expect["family"].as_str().unwrap_or("?"), self.expect["case"].as_str().unwrap_or("?"))
    }

    fn known_bug(&self) -> Option<&str> {
        self.expect.get("known_bug").and_then(Value::as_str)
    }
}

struct Output {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// `icescope inspect <dir> --format <format>`, killed at the deadline, with its address space capped.
fn run(dir: &Path, format: &str, extra: &[String]) -> Result<Output, String> {
    run_within(dir, format, extra, MEMORY_KIB, DEADLINE)
}

fn run_within(dir: &Path, format: &str, extra: &[String], memory_kib: u64, deadline: Duration) -> Result<Output, String> {
    let child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {memory_kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_icescope"))
        .arg("inspect")
        .arg(dir)
        .args(["--format", format])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(deadline) {
        Ok(Ok(o)) => Ok(Output {
            code: o.status.code(),
            stdout: String::from_utf8(o.stdout).map_err(|e| format!("--format {format}: stdout is not UTF-8: {e}"))?,
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            Err(format!("--format {format}: still running after {deadline:?} (a hang)"))
        }
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().filter_map(|s| s.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

macro_rules! ensure {
    ($cond:expr, $($msg:tt)+) => {
        if !$cond {
            return Err(format!($($msg)+));
        }
    };
}

fn check(case: &Case) -> Result<(), String> {
    let e = &case.expect;
    let args = strings(&e["args"]);
    // A case may hold the reader to less: a small file must not need much memory.
    let memory = e["limits"]["memory_mib"].as_u64().map(|m| m << 10).unwrap_or(MEMORY_KIB);
    let deadline = e["limits"]["seconds"].as_u64().map(Duration::from_secs).unwrap_or(DEADLINE);
    let run = |dir: &Path, format: &str, args: &[String]| run_within(dir, format, args, memory, deadline);
    let json = run(&case.dir, "json", &args)?;
    if e["outcome"] == "error" {
        return check_error(&e["error"], &json);
    }
    ensure!(json.code == Some(0), "exit {:?}, expected success: {}", json.code, json.stderr.trim());
    let report: Value = serde_json::from_str(&json.stdout).map_err(|err| format!("the JSON report does not parse: {err}"))?;

    let snapshots = report["snapshots"].as_array().map(Vec::len).unwrap_or(usize::MAX);
    ensure!(Some(snapshots as u64) == e["snapshots"].as_u64(), "{snapshots} snapshots, expected {}", e["snapshots"]);
    if let Some(m) = e.get("metadata_file").and_then(Value::as_str) {
        ensure!(report["table"]["metadata_file"] == m, "read {}, expected {m}", report["table"]["metadata_file"]);
    }
    check_current(&e["current"], &report)?;
    check_gaps(&e["gaps"], &report["gaps"])?;
    check_disagreements(&e["disagreements"], &report["disagreements"])?;
    if let Some(jobs) = e["jobs"].as_array() {
        for (i, want) in jobs.iter().enumerate() {
            for (k, v) in want.as_object().into_iter().flatten() {
                ensure!(report["jobs"][i][k] == *v, "jobs[{i}].{k} is {}, expected {v}", report["jobs"][i][k]);
            }
        }
    }
    check_findings(e, &report)?;

    for f in report["findings"].as_array().into_iter().flatten() {
        if let Some(s) = f["statement"].as_str() {
            one_statement(s).map_err(|why| format!("{} prints `{s}`: {why}", f["kind"]))?;
        }
    }
    if !e["formats"].is_null() && !strings(&e["formats"]).iter().any(|f| f == "markdown") {
        return Ok(());
    }
    let markdown = run(&case.dir, "markdown", &args)?;
    let text = run(&case.dir, "text", &args)?;
    ensure!(markdown.code == Some(0) && text.code == Some(0), "markdown exit {:?}, text exit {:?}", markdown.code, text.code);
    markdown_is_text(&markdown.stdout).map_err(|why| format!("markdown: {why}"))?;
    let md_count = markdown
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("- snapshots: "))
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next()?.parse::<usize>().ok());
    ensure!(md_count == Some(snapshots), "markdown says {md_count:?} snapshots, JSON {snapshots}");
    let gaps = report["gaps"].as_array().map(Vec::len).unwrap_or(0);
    // Each contradicted summary total a line (at most 50).
    let contradicted = report["disagreements"].as_array().map(|d| d.len().min(50)).unwrap_or(0);
    // Each finding takes three lines (title, shows, do) and a fourth for its statement.
    let findings = report["findings"].as_array().map(|f| f.iter().map(|f| 3 + usize::from(f["statement"].is_string())).sum::<usize>() + 2).unwrap_or(2);
    text_is_visible(&text.stdout, snapshots, gaps + contradicted + findings).map_err(|why| format!("text: {why}"))?;
    for s in strings(&e["text_contains"]) {
        ensure!(text.stdout.contains(&s), "text output lacks {s:?}");
    }
    Ok(())
}

fn check_error(want: &Value, out: &Output) -> Result<(), String> {
    ensure!(out.code == Some(3), "exit {:?}, expected 3 (the table could not be read); stderr: {}", out.code, out.stderr.trim());
    let err = out.stderr.trim_end();
    ensure!(!err.chars().any(|c| c != '\n' && invisible(c)), "stderr carries an invisible character: {err:?}");
    if let Some(cli) = want["cli"].as_str() {
        ensure!(err.starts_with("icescope: ") && err.contains(cli), "stderr {err:?} lacks {cli:?}");
        return Ok(());
    }
    let file = want["file"].as_str().unwrap_or_default();
    let field = want["field"].as_str().unwrap_or_default();
    // A message naming its field as its subject (`field `x` is missing`) goes on without a colon.
    let head = if field.is_empty() { format!("icescope: {file}: ") } else { format!("icescope: {file}: field `{field}`") };
    ensure!(err.starts_with(&head), "stderr {err:?} does not start with {head:?}");
    ensure!(field.is_empty() != err.starts_with(&format!("icescope: {file}: field `")), "stderr {err:?} names a field, none expected");
    for w in strings(&want["contains"]) {
        ensure!(err.contains(&w), "stderr {err:?} lacks {w:?}");
    }
    Ok(())
}

fn check_current(want: &Value, report: &Value) -> Result<(), String> {
    if want.is_null() {
        return Ok(());
    }
    let at = want["position"].as_u64().unwrap_or(0) as usize;
    let row = &report["snapshots"][at];
    for k in ["snapshot_id", "data_files", "records", "counts_from"] {
        ensure!(row[k] == want[k], "snapshots[{at}].{k} is {}, expected {}", row[k], want[k]);
    }
    Ok(())
}

fn check_gaps(want: &Value, got: &Value) -> Result<(), String> {
    let key = |g: &Value| {
        let mut ids: Vec<String> = g["snapshot_ids"].as_array().into_iter().flatten().map(Value::to_string).collect();
        ids.sort();
        (g["file"].as_str().unwrap_or_default().to_string(), ids)
    };
    let mut w: Vec<_> = want.as_array().into_iter().flatten().map(key).collect();
    let mut g: Vec<_> = got.as_array().into_iter().flatten().map(key).collect();
    w.sort();
    g.sort();
    ensure!(w == g, "gaps {g:?}, expected {w:?}; messages: {}", got);
    for wg in want.as_array().into_iter().flatten() {
        let gg = got.as_array().into_iter().flatten().find(|x| x["file"] == wg["file"]).unwrap();
        let message = gg["message"].as_str().unwrap_or_default();
        for word in strings(&wg["contains"]) {
            ensure!(message.contains(&word), "the gap for {} says {message:?}, lacking {word:?}", wg["file"]);
        }
    }
    Ok(())
}

fn check_disagreements(want: &Value, got: &Value) -> Result<(), String> {
    let key = |d: &Value| ["snapshot_id", "field", "summary", "counted", "counted_from"].map(|k| d[k].to_string()).join(" ");
    let mut w: Vec<_> = want.as_array().into_iter().flatten().map(key).collect();
    let mut g: Vec<_> = got.as_array().into_iter().flatten().map(key).collect();
    w.sort();
    g.sort();
    ensure!(w == g, "disagreements {g:?}, expected {w:?}");
    Ok(())
}

fn check_findings(e: &Value, report: &Value) -> Result<(), String> {
    let findings = report["findings"].as_array().cloned().unwrap_or_default();
    let of_kind = |k: &str| findings.iter().filter(|f| f["kind"] == k).collect::<Vec<_>>();
    let f = &e["findings"];
    for k in strings(&f["include"]) {
        ensure!(!of_kind(&k).is_empty(), "no {k} finding");
    }
    for k in strings(&f["exclude"]) {
        ensure!(of_kind(&k).is_empty(), "an unexpected {k} finding: {}", of_kind(&k)[0]["title"]);
    }
    for (k, n) in f["count"].as_object().into_iter().flatten() {
        ensure!(Some(of_kind(k).len() as u64) == n.as_u64(), "{} {k} findings, expected {n}", of_kind(k).len());
    }
    for (k, words) in f["text"].as_object().into_iter().flatten() {
        let all: String = of_kind(k).iter().map(|f| format!("{} {} ", f["title"], f["evidence"])).collect();
        for w in strings(words) {
            ensure!(all.contains(&w), "the {k} findings do not say {w:?}: {all}");
        }
    }
    if let Some(n) = e["statements"].as_u64() {
        let printed = findings.iter().filter(|f| f["statement"].is_string()).count();
        ensure!(printed as u64 == n, "{printed} statements printed, expected {n}");
    }
    if let Some(why) = e["actions_contain"].as_str() {
        let without: Vec<&Value> = findings.iter().filter(|f| f["statement"].is_null()).collect();
        ensure!(!without.is_empty(), "no finding to say why it has no statement");
        for f in without {
            ensure!(f["action"].as_str().unwrap_or_default().contains(why), "{} has no statement and does not say why ({why:?}): {}", f["kind"], f["action"]);
        }
    }
    Ok(())
}

/// What a person pasting a statement cannot see: controls, line and paragraph separators, marks
/// and overrides that change the direction text is shown in, the byte-order mark.
fn invisible(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Spark SQL's lexer, as far as ending a statement goes: `'…'` and `"…"` with backslash escapes,
/// `` `…` `` with doubled backticks. Outside them no `;`, no comment. Returns the double-quoted
/// literals (a `where` is SQL itself, parsed again by Spark).
fn lex(s: &str) -> Result<Vec<String>, String> {
    #[derive(PartialEq)]
    enum St {
        Out,
        Single,
        Double,
        Tick,
    }
    let mut st = St::Out;
    let mut dq = Vec::new();
    let mut lit = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        match st {
            St::Out => match c {
                ';' => return Err("a `;` outside any literal ends the statement".into()),
                '-' if it.peek() == Some(&'-') => return Err("a `--` comment outside any literal".into()),
                '/' if it.peek() == Some(&'*') => return Err("a `/*` comment outside any literal".into()),
                '\'' => st = St::Single,
                '"' => {
                    st = St::Double;
                    lit.clear();
                }
                '`' => st = St::Tick,
                _ => {}
            },
            St::Single => match c {
                '\\' => {
                    it.next();
                }
                '\'' => st = St::Out,
                _ => {}
            },
            St::Double => match c {
                '\\' => lit.extend(it.next()),
                '"' => {
                    st = St::Out;
                    dq.push(std::mem::take(&mut lit));
                }
                c => lit.push(c),
            },
            St::Tick => {
                if c == '`' {
                    if it.peek() == Some(&'`') {
                        it.next();
                    } else {
                        st = St::Out;
                    }
                }
            }
        }
    }
    if st != St::Out {
        return Err("a literal or identifier is never closed".into());
    }
    Ok(dq)
}

fn one_statement(s: &str) -> Result<(), String> {
    ensure!(s.starts_with("CALL ") && s.ends_with(");"), "not a single CALL");
    ensure!(!s.chars().any(invisible), "an invisible character");
    for inner in lex(&s[..s.len() - 1])? {
        lex(&inner).map_err(|why| format!("inside \"{inner}\": {why}"))?;
    }
    let mut rest = s;
    while let Some(i) = rest.find("TIMESTAMP '") {
        let t = &rest[i + 11..];
        let ok = t.len() > 19
            && t.as_bytes()[19] == b'\''
            && t[..19].char_indices().all(|(k, c)| match k {
                4 | 7 => c == '-',
                10 => c == ' ',
                13 | 16 => c == ':',
                _ => c.is_ascii_digit(),
            });
        ensure!(ok, "a TIMESTAMP literal Spark cannot read: {}", &rest[i..(i + 32).min(rest.len())]);
        rest = &rest[i + 11..];
    }
    Ok(())
}

/// Text outside fences and code spans, escapes dropped: what Markdown would interpret.
fn interpreted(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() && chars[i + 1].is_ascii_punctuation() {
            out.push(' ');
            i += 2;
        } else if c == '`' {
            let run = chars[i..].iter().take_while(|&&x| x == '`').count();
            let close = (i + run..chars.len()).find(|&j| chars[j..].iter().take_while(|&&x| x == '`').count() == run && (j == 0 || chars[j - 1] != '`'));
            match close {
                Some(j) => {
                    out.push(' ');
                    i = j + run;
                }
                None => {
                    out.push('`');
                    i += run;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Cells of a table row as GFM splits them: at every `|` not escaped, code spans included.
fn cells(line: &str) -> usize {
    let mut n = 0;
    let mut escaped = false;
    for c in line.chars() {
        if c == '|' && !escaped {
            n += 1;
        }
        escaped = c == '\\' && !escaped;
    }
    n
}

fn markdown_is_text(md: &str) -> Result<(), String> {
    let mut fence: Option<String> = None;
    let mut table: Option<usize> = None;
    for (n, line) in md.lines().enumerate() {
        let at = n + 1;
        ensure!(!line.chars().any(invisible), "line {at} holds an invisible character: {line:?}");
        if let Some(f) = &fence {
            if line == f {
                fence = None;
            }
            continue;
        }
        if line.starts_with("```") {
            let f: String = line.chars().take_while(|&c| c == '`').collect();
            ensure!(line[f.len()..] == *"sql", "line {at}: a fence that is not our SQL: {line:?}");
            fence = Some(f);
            continue;
        }
        if line.starts_with('|') {
            let k = cells(line);
            match table {
                None => table = Some(k),
                Some(t) => ensure!(k == t, "line {at}: a table row of {k} cell borders, the header has {t}: {line:?}"),
            }
        } else {
            table = None;
        }
        let seen = interpreted(line);
        ensure!(!seen.contains('<'), "line {at}: raw HTML: {line:?}");
        ensure!(!seen.contains("]("), "line {at}: a link: {line:?}");
        for auto in ["://", "www.", "@"] {
            ensure!(!seen.contains(auto), "line {at}: {auto:?} would become a link: {line:?}");
        }
    }
    ensure!(fence.is_none(), "a code fence is never closed");
    Ok(())
}

fn text_is_visible(text: &str, snapshots: usize, gaps: usize) -> Result<(), String> {
    ensure!(text.ends_with('\n'), "text output does not end a line");
    for (n, line) in text.lines().enumerate() {
        ensure!(!line.chars().any(invisible), "line {}: an invisible character: {line:?}", n + 1);
    }
    // The `read:` line (the load's phases) when the load was timed.
    let read = text.lines().filter(|l| l.starts_with("read: metadata ")).count();
    ensure!(read <= 1, "{read} read: lines");
    let lines = text.lines().count();
    ensure!(lines == 2 + read + snapshots + gaps, "{lines} lines for {snapshots} snapshots and {gaps} gaps: a value broke a line");
    Ok(())
}

fn run_all(cases: &[&Case]) -> Vec<(String, Result<(), String>)> {
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2).clamp(2, 8);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(case) = cases.get(i) else { break };
                let r = check(case);
                results.lock().unwrap().push((case.name(), r));
            });
        }
    });
    let mut r = results.into_inner().unwrap();
    r.sort_by(|a, b| a.0.cmp(&b.0));
    r
}

#[test]
fn every_hostile_case_has_its_exact_outcome() {
    let all = cases();
    assert!(all.len() >= 100, "{} cases in tests/hostile: run tests/hostile/make.py", all.len());
    let (bugs, run): (Vec<&Case>, Vec<&Case>) = all.iter().partition(|c| c.known_bug().is_some());
    for c in &bugs {
        eprintln!("ignored {}: known bug: {}", c.name(), c.known_bug().unwrap());
    }
    let failures: Vec<String> = run_all(&run).into_iter().filter_map(|(name, r)| r.err().map(|e| format!("{name}: {e}"))).collect();
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), run.len(), failures.join("\n"));
}

/// Run with the rest (none is marked today): a known bug that a change fixed is noticed at once,
/// and its marker must go.
#[test]
fn known_bugs_still_fail() {
    let all = cases();
    let bugs: Vec<&Case> = all.iter().filter(|c| c.known_bug().is_some()).collect();
    let mut fixed = Vec::new();
    for (name, r) in run_all(&bugs) {
        match r {
            Ok(()) => fixed.push(name),
            Err(e) => eprintln!("{name}: still fails: {e}"),
        }
    }
    assert!(fixed.is_empty(), "fixed, remove `known_bug` from their expect.json: {fixed:?}");
}

#[test]
fn the_checks_catch_what_they_are_for() {
    assert!(one_statement("CALL x.system.y(table => 'a\\'b');").is_ok());
    assert!(one_statement("CALL x.system.y(table => 'a'); CALL z();").is_err());
    assert!(one_statement("CALL x.system.y(table => 'a', where => \"ts >= 1; --\");").is_err());
    assert!(one_statement("CALL x.system.y(older_than => TIMESTAMP '10000-01-0 T00:00:5');").is_err());
    assert!(one_statement("CALL `a``b`.system.y(table => 'c');").is_ok());
    assert!(markdown_is_text("| a | b |\n|---|---|\n| `x|y` | z |\n").is_err());
    assert!(markdown_is_text("| a | b |\n|---|---|\n| `x\\|y` | z |\n").is_ok());
    assert!(markdown_is_text("**x** <script>\n").is_err());
    assert!(markdown_is_text("`<script>` \\<b\\>\n").is_ok());
    assert!(markdown_is_text("see https://evil.example\n").is_err());
    assert!(text_is_visible("a\u{1b}[31m\nb\nc\n", 1, 0).is_err());
}

/// A table folder holding a FIFO, device or link where a manifest should be, a link loop and a link
/// out to /usr: none is read (a FIFO would block, /dev/zero never ends, links leave the folder),
/// so the report is the one for the table without them. Made here: git keeps no FIFO.
#[test]
fn links_and_special_files_in_a_table_folder_are_never_read() {
    use std::os::unix::fs::symlink;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/late-data/metadata");
    let scratch = std::env::temp_dir().join(format!("icescope-hostile-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    let copy = |name: &str| -> PathBuf {
        let dir = scratch.join(name);
        std::fs::create_dir_all(dir.join("metadata")).unwrap();
        for f in std::fs::read_dir(&fixture).unwrap().flatten() {
            let n = f.file_name().to_string_lossy().into_owned();
            // The one-snapshot table: v2 is the newest metadata file here.
            if !(n.starts_with("v3.") || n.starts_with("v4.")) {
                std::fs::copy(f.path(), dir.join("metadata").join(&n)).unwrap();
            }
        }
        dir
    };
    let manifest = "952969c3-57b8-45f9-b078-a9a693753616-m0.avro";
    // The same report but for when each read phase ended.
    let report = |dir: &Path| {
        let out = run(dir, "json", &[]).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        assert_eq!(out.code, Some(0), "{}: {}", dir.display(), out.stderr);
        let mut json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        for p in json["load"]["phases"].as_array_mut().into_iter().flatten() {
            p["done_s"] = serde_json::Value::Null;
        }
        json.to_string()
    };
    let intact = report(&copy("intact"));
    let gone = copy("gone");
    std::fs::remove_file(gone.join("metadata").join(manifest)).unwrap();
    let gone = report(&gone);
    assert!(gone.contains("not found") && gone != intact);

    let fifo = copy("fifo");
    std::fs::remove_file(fifo.join("metadata").join(manifest)).unwrap();
    assert!(Command::new("mkfifo").arg(fifo.join("metadata").join(manifest)).status().unwrap().success());
    assert_eq!(report(&fifo), gone, "a FIFO for the manifest");

    let outside = copy("outside");
    for (name, target) in [("dev-zero", PathBuf::from("/dev/zero")), ("link-out", outside.join("metadata").join(manifest))] {
        let dir = copy(name);
        std::fs::remove_file(dir.join("metadata").join(manifest)).unwrap();
        symlink(&target, dir.join("metadata").join(manifest)).unwrap();
        assert_eq!(report(&dir), gone, "a link to {}", target.display());
    }

    let strays = copy("strays");
    symlink(".", strays.join("loop")).unwrap();
    symlink("/usr", strays.join("usr")).unwrap();
    symlink("/dev/zero", strays.join("metadata").join("snap-0-zero.avro")).unwrap();
    assert!(Command::new("mkfifo").arg(strays.join("metadata").join("v9.metadata.json")).status().unwrap().success());
    assert_eq!(report(&strays), intact, "a link loop, a link to /usr, /dev/zero and a FIFO beside the table");

    // Sparse files of 4 GiB, which take no disk: the manifest is a gap naming its size and the
    // bound, the metadata file an error; neither is read into memory (the run is capped at 2 GiB).
    let sparse = copy("sparse-manifest");
    std::fs::OpenOptions::new().write(true).open(sparse.join("metadata").join(manifest)).unwrap().set_len(4 << 30).unwrap();
    let out = report(&sparse);
    let json: Value = serde_json::from_str(&out).unwrap();
    let gaps = json["gaps"].as_array().unwrap();
    assert_eq!(gaps.len(), 1, "{out}");
    assert!(gaps[0]["file"].as_str().unwrap().ends_with(manifest), "{out}");
    assert_eq!(
        gaps[0]["message"].as_str().unwrap(),
        format!("metadata/{manifest}: is 4294967296 bytes; icescope reads at most 512 MiB of one file whole"),
        "{out}"
    );
    let sparse = copy("sparse-metadata");
    std::fs::OpenOptions::new().write(true).open(sparse.join("metadata").join("v2.metadata.json")).unwrap().set_len(4 << 30).unwrap();
    // The newest metadata file is past the bound: the newest that reads is opened instead, and the
    // report names the one that did not, with why.
    let out = run(&sparse, "json", &[]).unwrap();
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    let unreadable = &json["load"]["metadata_pick"]["unreadable"][0];
    assert_eq!(unreadable[0], "metadata/v2.metadata.json", "{}", out.stdout);
    assert!(
        unreadable[1].as_str().unwrap().contains("v2.metadata.json: is 4294967296 bytes; icescope reads at most 512 MiB of one file whole"),
        "{unreadable}"
    );
    assert_eq!(json["table"]["metadata_file"], "metadata/v1.metadata.json");
    // Named, it is the answer: exit 3 (unreadable) with the bound in the message.
    let out = run(&sparse, "json", &["--metadata".to_string(), "v2.metadata.json".to_string()]).unwrap();
    assert_eq!(out.code, Some(3), "{}", out.stderr);
    assert!(out.stderr.contains("v2.metadata.json: is 4294967296 bytes; icescope reads at most 512 MiB of one file whole"), "{}", out.stderr);
    let _ = std::fs::remove_dir_all(&scratch);
}
