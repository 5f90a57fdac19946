//! The ticket picture of every chart of every lab fixture and bundled example, read back from its
//! SVG: every text 12 px or more at 800 px, no line running backwards, no two texts on top of one
//! another; on savepoint-twice both jobs over the replayed checkpoints drawn apart and said; and
//! `icescope chart` writing the very drawing the app saves, with the run's own numbers.

use std::path::{Path, PathBuf};
use std::process::Command;

use icescope::analysis::findings::TableRef;
use icescope::load::load_table;
use icescope::model::{ReadMode, TableHistory};
use icescope::report::draw::look::{text_width, Look, TICKET, TICKET_WIDTH};
use icescope::report::draw::palette;
use icescope::report::draw::picture::{self, Analysed, ChartKind};
use icescope::report::draw::Stamp;
use icescope::source::local::LocalFolder;
use icescope::source::newest_metadata;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn tables() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for dir in ["tests/fixtures", "public/examples"] {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else { continue };
        for e in entries.flatten() {
            if e.path().join("metadata").is_dir() {
                out.push((e.file_name().to_string_lossy().into_owned(), e.path()));
            }
        }
    }
    out.sort();
    assert!(out.len() >= 10, "fixtures and examples: {out:?}");
    out
}

fn history(dir: &Path) -> TableHistory {
    let folder = LocalFolder::open(dir).unwrap();
    let metadata = newest_metadata(&folder).unwrap();
    load_table(&folder, &metadata, ReadMode::All).unwrap()
}

fn analysed(h: &TableHistory) -> Analysed {
    Analysed::of(h, icescope::report::findings::inspect(h, &TableRef::guess(h, None)))
}

fn stamp(name: &str, h: &TableHistory) -> Stamp {
    Stamp {
        table: name.into(),
        snapshot: h.metadata.current_snapshot_id.map(|s| s.to_string()).unwrap_or_else(|| "none".into()),
        metadata_file: h.metadata_file.clone(),
        generated_at: "2026-12-04T00:00:00.000Z".into(),
    }
}

/// The value of `name="…"` in one tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN)
}

/// Every element of a kind: (its opening tag, its text up to the closing tag).
fn elements<'a>(svg: &'a str, kind: &str) -> Vec<(&'a str, &'a str)> {
    let open = format!("<{kind} ");
    svg.match_indices(&open)
        .filter_map(|(i, _)| {
            let rest = &svg[i..];
            let end = rest.find('>')?;
            let body = rest[end + 1..].split(&format!("</{kind}>")).next().unwrap_or("");
            Some((&rest[..=end], body.trim()))
        })
        .collect()
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&")
}

#[derive(Debug)]
struct TextBox {
    text: String,
    x0: f64,
    x1: f64,
    y0: f64,
    y1: f64,
}

/// The box a horizontal text takes, by the chart's own measure (rotated texts are left out).
fn text_boxes(svg: &str) -> Vec<TextBox> {
    elements(svg, "text")
        .into_iter()
        .filter(|(tag, _)| attr(tag, "transform").is_none())
        .map(|(tag, body)| {
            let text = unescape(body);
            let (x, y, size) = (num(tag, "x"), num(tag, "y"), num(tag, "font-size"));
            let w = text_width(&text, size);
            let x0 = match attr(tag, "text-anchor") {
                Some("end") => x - w,
                Some("middle") => x - w / 2.0,
                _ => x,
            };
            let y0 = match attr(tag, "dy") {
                Some("0.76em") => y,
                Some("0.5ex") => y - size / 2.0,
                Some("-0.5ex") => y - size,
                _ => y - size * 0.8,
            };
            TextBox { text, x0, x1: x0 + w, y0, y1: y0 + size }
        })
        .collect()
}

fn all_pictures() -> Vec<(String, ChartKind, String)> {
    let mut out = Vec::new();
    for (name, dir) in tables() {
        let h = history(&dir);
        let a = analysed(&h);
        for kind in ChartKind::ALL {
            let svg = picture::svg(kind, &a.inputs(), &stamp(&name, &h), TICKET, TICKET_WIDTH).unwrap();
            out.push((name.clone(), kind, svg));
        }
    }
    out
}

#[test]
fn at_800_px_every_text_is_12_px_or_more_no_line_runs_backwards_and_no_texts_overlap() {
    let out = root().join("tests/out/charts");
    std::fs::create_dir_all(&out).unwrap();
    let (mut texts, mut lines, mut overlaps) = (0, 0, Vec::new());
    for (name, kind, svg) in all_pictures() {
        std::fs::write(out.join(format!("{name}-{}.svg", kind.name())), &svg).unwrap();
        assert!(svg.starts_with(&format!("<svg width=\"{TICKET_WIDTH}\"")), "{name} {kind:?}: {}", &svg[..80]);
        for (tag, body) in elements(&svg, "text") {
            let size = num(tag, "font-size");
            assert!(size >= 12.0, "{name} {kind:?}: {size} px text {body:?}");
            texts += 1;
        }
        for (tag, _) in elements(&svg, "polyline") {
            let xs: Vec<f64> = attr(tag, "points").unwrap_or("").split_whitespace().filter_map(|p| p.split(',').next()?.parse().ok()).collect();
            assert!(xs.windows(2).all(|w| w[1] >= w[0]), "{name} {kind:?}: a line runs backwards: {xs:?}");
            lines += 1;
        }
        let boxes = text_boxes(&svg);
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                // A pixel of give: boxes that touch are not on top of one another.
                if a.x0 < b.x1 - 1.0 && b.x0 < a.x1 - 1.0 && a.y0 < b.y1 - 1.0 && b.y0 < a.y1 - 1.0 {
                    overlaps.push(format!("{name} {kind:?}: {:?} and {:?}", a, b));
                }
            }
        }
    }
    assert!(texts > 1000 && lines > 50, "{texts} texts, {lines} lines");
    assert!(overlaps.is_empty(), "{} overlapping texts:\n{}", overlaps.len(), overlaps.join("\n"));
}

fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

/// The lane bar of job `k`: its outline rectangle (x0, x1, y0, y1).
fn lane_bar(svg: &str, k: usize) -> Vec<(f64, f64, f64, f64)> {
    let stroke = hex(TICKET.job(k));
    elements(svg, "rect")
        .into_iter()
        .filter(|(tag, _)| attr(tag, "stroke") == Some(stroke.as_str()))
        .map(|(tag, _)| {
            let (x, y, w, h) = (num(tag, "x"), num(tag, "y"), num(tag, "width"), num(tag, "height"));
            (x, x + w, y, y + h)
        })
        .collect()
}

#[test]
fn savepoint_twice_shows_both_jobs_over_the_replayed_checkpoints_apart_and_says_so() {
    let dir = root().join("tests/fixtures/savepoint-twice");
    let h = history(&dir);
    let a = analysed(&h);
    // Jobs B (the first resume) and C (the second), as the lab's facts name them, and the checkpoints
    // both committed: from savepoint A's + 1 on.
    let facts: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("facts.json")).unwrap()).unwrap();
    let short = |i: usize| facts["jobs"][i]["job_id"].as_str().unwrap()[..8].to_string();
    let (lo, hi) = replayed_checkpoints(&facts);
    let said = format!("job {}… replays checkpoints {lo}–{hi} of job {}…", short(2), short(1));
    for kind in [ChartKind::Growth, ChartKind::Deletes] {
        let svg = picture::svg(kind, &a.inputs(), &stamp("savepoint-twice", &h), TICKET, TICKET_WIDTH).unwrap();
        let (b, c) = (lane_bar(&svg, 1), lane_bar(&svg, 2));
        assert_eq!((b.len(), c.len()), (1, 1), "{kind:?}: one bar per job");
        let (b, c) = (b[0], c[0]);
        assert!(b.1 <= c.0 || c.1 <= b.0 || b.3 <= c.2 || c.3 <= b.2, "{kind:?}: job B's bar {b:?} and job C's {c:?} cover each other");
        // Both bars carry the replayed checkpoint ids, each inside its own bar.
        let texts = text_boxes(&svg);
        for id in lo..=hi {
            let inside = |bar: (f64, f64, f64, f64)| {
                texts.iter().any(|t| t.text == id.to_string() && t.x0 >= bar.0 - 1.0 && t.x1 <= bar.1 + 1.0 && t.y0 >= bar.2 - 4.0 && t.y1 <= bar.3 + 4.0)
            };
            assert!(inside(b) && inside(c), "{kind:?}: checkpoint {id} not on both bars");
        }
        // The replayed stretch is outlined in red and the lane says what it replays.
        let red = hex(TICKET.series(palette::POSITION_DELETES));
        assert!(elements(&svg, "rect").iter().any(|(t, _)| attr(t, "stroke") == Some(red.as_str())), "{kind:?}: no red outline");
        assert!(svg.contains(&said), "{kind:?}: the replay is not said: {said}");
    }
}

/// savepoint-twice: the first and last checkpoint ids (end of input aside) that both resumed jobs, B
/// and C, committed, from the lab's facts (`commits[]`, B and C being `jobs[1]` and `jobs[2]`).
fn replayed_checkpoints(facts: &serde_json::Value) -> (i64, i64) {
    let of = |j: usize| -> Vec<i64> {
        let id = facts["jobs"][j]["job_id"].as_str().unwrap();
        facts["commits"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["flink_job_id"] == id)
            .map(|c| c["max_committed_checkpoint_id"].as_i64().unwrap())
            .filter(|&c| c != i64::MAX)
            .collect()
    };
    let (b, c) = (of(1), of(2));
    let both: Vec<i64> = c.into_iter().filter(|x| b.contains(x)).collect();
    (*both.iter().min().unwrap(), *both.iter().max().unwrap())
}

fn run_cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_icescope")).args(args).output().expect("the CLI runs")
}

/// The stamp's time, which differs between two drawings made at different moments.
fn timeless(svg: &str) -> String {
    // "drawn " and an RFC 3339 time to the millisecond, 24 characters.
    match svg.find("drawn 20") {
        Some(i) if svg.len() >= i + 30 => format!("{}{}", &svg[..i], &svg[i + 30..]),
        _ => svg.to_string(),
    }
}

#[test]
fn the_cli_writes_the_apps_drawing_with_the_runs_own_numbers() {
    let dir = root().join("tests/fixtures/savepoint-twice");
    let out = std::env::temp_dir().join(format!("icescope-chart-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let h = history(&dir);
    let a = analysed(&h);
    for kind in ChartKind::ALL {
        let file = out.join(format!("{}.svg", kind.name()));
        let r = run_cli(&["chart", dir.to_str().unwrap(), "--chart", kind.name(), "--out", file.to_str().unwrap(), "--name", "savepoint-twice"]);
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let cli = std::fs::read_to_string(&file).unwrap();
        let app = picture::svg(kind, &a.inputs(), &stamp("savepoint-twice", &h), TICKET, TICKET_WIDTH).unwrap();
        assert_eq!(timeless(&cli), timeless(&app), "{kind:?}: the CLI's SVG is not the app's drawing");
    }
    // The numbers the lab's run recorded.
    let facts: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("facts.json")).unwrap()).unwrap();
    let svg = std::fs::read_to_string(out.join("growth.svg")).unwrap();
    let current = facts["after_second_resume"]["snapshot_id"].as_u64().unwrap().to_string();
    assert!(svg.contains(&format!("savepoint-twice · snapshot {current} · ")), "the stamp names the run's last snapshot");
    let snapshots = facts["final_table"]["snapshots"].as_array().unwrap();
    for job in facts["jobs"].as_array().unwrap() {
        let id = job["job_id"].as_str().unwrap();
        let mine: Vec<&serde_json::Value> = snapshots.iter().filter(|s| s["summary"]["flink.job-id"].as_str() == Some(id)).collect();
        let short: String = id.chars().take(8).collect();
        assert!(svg.contains(&format!("job {short}…")), "no lane for job {short}");
        assert!(svg.contains(&format!(" · {} snapshots", mine.len())), "job {short}: {} snapshots", mine.len());
    }
    let checkpoints = |j: usize| -> Vec<i64> {
        let id = facts["jobs"][j]["job_id"].as_str().unwrap();
        let mut v: Vec<i64> = snapshots
            .iter()
            .filter(|s| s["summary"]["flink.job-id"].as_str() == Some(id))
            .filter_map(|s| s["summary"]["flink.max-committed-checkpoint-id"].as_str()?.parse().ok())
            .filter(|&c| c != i64::MAX)
            .collect();
        v.sort();
        v
    };
    let (b, c) = (checkpoints(1), checkpoints(2));
    let common: Vec<i64> = c.iter().copied().filter(|x| b.contains(x)).collect();
    let (lo, hi) = (common[0], common[common.len() - 1]);
    assert_eq!((lo, hi), replayed_checkpoints(&facts), "the checkpoints both resumed jobs committed");
    assert_eq!(lo, facts["savepoint"]["checkpoint_id"].as_i64().unwrap() + 1, "the replay starts after savepoint A's checkpoint");
    assert!(svg.contains(&format!("replays checkpoints {lo}–{hi} of job {}…", &facts["jobs"][1]["job_id"].as_str().unwrap()[..8])));
    assert!(svg.contains(&format!("checkpoints {}–{}", b[0], b[b.len() - 1])), "job B's checkpoints");
    // The PNG: the same picture at twice its pixels.
    let png = out.join("growth.png");
    let r = run_cli(&["chart", dir.to_str().unwrap(), "--out", png.to_str().unwrap(), "--name", "savepoint-twice"]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let (w, hgt) = (u32::from_be_bytes(bytes[16..20].try_into().unwrap()), u32::from_be_bytes(bytes[20..24].try_into().unwrap()));
    let svg_h: u32 = svg.split("height=\"").nth(1).and_then(|s| s.split('"').next()).and_then(|s| s.parse().ok()).unwrap();
    assert_eq!((w, hgt), (2 * TICKET_WIDTH, 2 * svg_h));
    // What is not a picture is a usage error.
    let r = run_cli(&["chart", dir.to_str().unwrap(), "--out", out.join("x.gif").to_str().unwrap()]);
    assert_eq!(r.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn dark_pictures_have_a_dark_ground_and_projector_text_is_larger() {
    let dir = root().join("tests/fixtures/savepoint-twice");
    let h = history(&dir);
    let a = analysed(&h);
    let s = stamp("savepoint-twice", &h);
    let dark = picture::svg(ChartKind::Growth, &a.inputs(), &s, Look::page(true, false), 1000).unwrap();
    let ground = elements(&dark, "rect").first().map(|(t, _)| attr(t, "fill").unwrap_or("").to_string()).unwrap_or_default();
    assert_eq!(ground, hex(Look::page(true, false).background()), "the first thing drawn is the ground");
    let big = picture::svg(ChartKind::Growth, &a.inputs(), &s, Look::page(false, true), 1000).unwrap();
    let smallest = |svg: &str| elements(svg, "text").iter().map(|(t, _)| num(t, "font-size")).fold(f64::INFINITY, f64::min);
    assert!(smallest(&big) >= smallest(&dark) * 1.3, "projector text {} vs {}", smallest(&big), smallest(&dark));
}

#[test]
fn while_the_current_manifests_are_read_the_partitions_picture_says_so_instead_of_empty_axes() {
    let dir = root().join("tests/fixtures/late-data");
    let h = history(&dir);
    let mut a = analysed(&h);
    a.partitions.clear();
    a.report.files_wait = Some(icescope::model::FilesWait { manifests_read: 4_210, manifests: Some(17_280) });
    let svg = picture::svg(ChartKind::Partitions, &a.inputs(), &stamp("late-data", &h), TICKET, TICKET_WIDTH).unwrap();
    let texts: Vec<String> = text_boxes(&svg).into_iter().map(|t| t.text).collect();
    assert!(texts.iter().any(|t| t == "Counted once the current snapshot's 17,280 manifests are read: 4,210 so far."), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("waiting for the current snapshot's 17,280 manifests")), "{texts:?}");
    assert!(!texts.iter().any(|t| t == "live data files"), "no empty axes: {texts:?}");
    std::fs::create_dir_all(root().join("tests/out/charts")).unwrap();
    std::fs::write(root().join("tests/out/charts/late-data-partitions-waiting.svg"), &svg).unwrap();
}

/// A polyline's points, (x, y) in pixels.
fn points(tag: &str) -> Vec<(f64, f64)> {
    attr(tag, "points").unwrap_or("").split_whitespace().filter_map(|p| p.split_once(',').and_then(|(x, y)| Some((x.parse().ok()?, y.parse().ok()?)))).collect()
}

/// The growth chart's records line (right axis) is never hidden under a line of the left axis:
/// where, read back from the picture, it runs within 2 px of one at half its points or more, that
/// line is drawn wide with the records inside it and the legend says so; where the legend says
/// so, the two do run together.
#[test]
fn the_records_line_is_not_hidden_under_a_line_of_the_other_axis() {
    let series = [
        ("manifests", palette::MANIFESTS),
        ("data files", palette::DATA_FILES),
        ("position-delete files", palette::POSITION_DELETES),
        ("equality-delete files", palette::EQUALITY_DELETES),
        ("deletion vectors", palette::DELETION_VECTORS),
    ];
    let mut inside = 0;
    for (name, _, svg) in all_pictures().into_iter().filter(|(_, k, _)| *k == ChartKind::Growth) {
        // The plotted lines: more than a legend swatch's two points.
        let lines = |colour: plotters::style::RGBColor| -> Vec<(f64, Vec<(f64, f64)>)> {
            let c = hex(TICKET.series(colour));
            elements(&svg, "polyline")
                .into_iter()
                .filter(|(t, _)| attr(t, "stroke") == Some(c.as_str()))
                .map(|(t, _)| (num(t, "stroke-width"), points(t)))
                .filter(|(_, p)| p.len() > 2)
                .collect()
        };
        let records: Vec<(f64, f64)> = lines(palette::RECORDS).into_iter().flat_map(|(_, p)| p).collect();
        if records.is_empty() {
            continue;
        }
        for (label, colour) in series {
            let drawn = lines(colour);
            // The right axis' x may fall a pixel from the left's for the same snapshot.
            let near =
                |px: f64| records.iter().filter(|r| drawn.iter().flat_map(|(_, p)| p).any(|q| (q.0 - r.0).abs() <= 1.5 && (q.1 - r.1).abs() <= px)).count();
            let said = svg.contains(&format!("records (right axis; on the {label} line"));
            let widest = drawn.iter().map(|(w, _)| *w).fold(0.0, f64::max);
            // Under it, the records line would be hidden: the line is drawn wide around it, and
            // the legend names this line or one this line lies on (drawn inside it).
            if 2 * near(2.0) >= records.len() {
                assert!(
                    svg.contains("records (right axis; on the "),
                    "{name}: records run on the {label} line at {} of {} points, and the legend does not say so",
                    near(2.0),
                    records.len()
                );
                assert!(widest >= 5.0, "{name}: the {label} line is {widest} px wide, with the records line on it");
            }
            if said {
                assert!(2 * near(6.0) >= records.len(), "{name}: the legend says records lie on {label}, the picture has them apart");
                inside += 1;
            }
        }
    }
    assert!(inside >= 1, "no lab table has records proportional to its files: the test would show nothing");
}
