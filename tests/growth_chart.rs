//! The growth chart drawn natively to SVG from a real table: every snapshot is a point, the stamp
//! names table and snapshot, and metadata text cannot inject markup.

use std::path::Path;

use icescope::analysis::{GrowthSeries, XAxis};
use icescope::load::load_table;
use icescope::model::ReadMode;
use icescope::report::draw::backend::Measured;
use icescope::report::draw::growth::draw_growth;
use icescope::report::draw::look::TICKET;
use icescope::report::draw::{Dress, Stamp};
use icescope::source::local::LocalFolder;
use icescope::source::newest_metadata;
use plotters::prelude::*;

fn history(name: &str) -> icescope::model::TableHistory {
    let folder = LocalFolder::open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("public/examples").join(name)).unwrap();
    let metadata = newest_metadata(&folder).unwrap();
    load_table(&folder, &metadata, ReadMode::All).unwrap()
}

fn render(series: &GrowthSeries, stamp: &Stamp) -> (usize, String) {
    let mut svg = String::new();
    let n = {
        let root = Measured::svg(SVGBackend::with_string(&mut svg, (1280, 560))).into_drawing_area();
        draw_growth(&root, series, &[], false, &Dress { stamp, look: TICKET, title: None }).unwrap()
    };
    (n, svg)
}

#[test]
fn one_point_per_snapshot_with_the_stamp() {
    let h = history("pyiceberg-daily-appends");
    let series = GrowthSeries::of(&h);
    assert_eq!(series.axis, XAxis::CommitOrder, "PyIceberg writes no flink.* keys");
    let stamp = Stamp {
        table: "lab.events".into(),
        snapshot: h.metadata.current_snapshot_id.unwrap().to_string(),
        metadata_file: h.metadata_file.clone(),
        generated_at: "2026-11-30T00:00:00.000Z".into(),
    };
    let (n, svg) = render(&series, &stamp);
    assert_eq!(n, h.snapshots.len());
    assert!(svg.contains(&stamp.snapshot) && svg.contains("lab.events"));
    let file = h.metadata_file.rsplit('/').next().unwrap();
    assert!(svg.contains(file) && svg.contains(concat!("icescope ", env!("CARGO_PKG_VERSION"))), "the stamp names the metadata file and the version");
    // Data-file markers: one circle per snapshot per drawn series (manifests, data files at least).
    assert!(svg.matches("<circle").count() >= 2 * n, "{} circles for {n} snapshots", svg.matches("<circle").count());
}

#[test]
fn table_names_are_text_not_markup() {
    let h = history("pyiceberg-daily-appends");
    let stamp =
        Stamp { table: "<script>alert(1)</script>".into(), snapshot: "1".into(), metadata_file: "metadata/v3.metadata.json".into(), generated_at: "t".into() };
    let (_, svg) = render(&GrowthSeries::of(&h), &stamp);
    assert!(!svg.contains("<script>"), "the table name reached the SVG as markup");
    // And it is there, as the text it is: escaped once, inside a <text> element.
    assert!(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the table name is not shown");
}

/// Where each snapshot sits on the x axis and how it is labelled, worked out here from the raw
/// metadata.json the lab's Flink and Spark jobs wrote: a checkpoint commit at its checkpoint id, a
/// job's end-of-input commit (Long.MAX_VALUE) one past that job's last real checkpoint, and a
/// commit without a checkpoint (a Spark rewrite) a quarter step after the checkpoint before it.
#[test]
fn x_positions_follow_the_checkpoints_the_writers_recorded() {
    for name in ["maintenance-live", "savepoint-twice", "upsert-stream"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
        let folder = LocalFolder::open(&dir).unwrap();
        let metadata = newest_metadata(&folder).unwrap();
        let h = load_table(&folder, &metadata, ReadMode::MetadataFirst).unwrap();
        let raw: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join(&metadata)).unwrap()).unwrap();
        let summary =
            |id: i128| raw["snapshots"].as_array().unwrap().iter().find(|s| s["snapshot-id"].as_i64().map(i128::from) == Some(id)).unwrap()["summary"].clone();
        let series = GrowthSeries::of(&h);
        assert_eq!(series.axis, XAxis::CheckpointId, "{name}");
        let points: Vec<(Option<i64>, Option<String>, String)> = series
            .points
            .iter()
            .map(|p| {
                let s = summary(p.snapshot_id.0);
                (
                    s["flink.max-committed-checkpoint-id"].as_str().map(|c| c.parse().unwrap()),
                    s["flink.job-id"].as_str().map(String::from),
                    s["operation"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        let last_real = |job: &Option<String>| points.iter().filter(|(c, j, _)| j == job && *c != Some(i64::MAX)).filter_map(|(c, _, _)| *c).max().unwrap_or(0);
        let (mut at, mut after, mut expected) = (0.0_f64, 0, Vec::new());
        for (c, job, op) in &points {
            expected.push(match c {
                Some(i64::MAX) => {
                    (at, after) = (last_real(job) as f64 + 1.0, 0);
                    (at, "end of input".to_string())
                }
                Some(c) => {
                    (at, after) = (*c as f64, 0);
                    (at, format!("cp {c}"))
                }
                None => {
                    after += 1;
                    (at + 0.25 * f64::from(after.min(3)), format!("{op} after cp {at}"))
                }
            });
        }
        let got: Vec<(f64, String)> = series.x_positions().into_iter().map(|x| (x.x, x.label)).collect();
        assert_eq!(got, expected, "{name}");
        assert_eq!(series.x_values(), expected.iter().map(|e| e.0).collect::<Vec<_>>(), "{name}: the x values the exports carry");
        let kinds = |f: fn(&Option<i64>) -> bool| points.iter().filter(|p| f(&p.0)).count();
        match name {
            "maintenance-live" => assert!(kinds(|c| c.is_none()) > 0, "a commit without a checkpoint"),
            "savepoint-twice" => assert!(kinds(|c| *c == Some(i64::MAX)) > 0, "an end-of-input commit"),
            _ => {}
        }
    }
}
