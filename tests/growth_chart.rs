//! The growth chart drawn natively to SVG from a real table: every snapshot is a point, the stamp
//! names table and snapshot, and metadata text cannot inject markup.

use std::path::Path;

use icescope::analysis::{GrowthSeries, XAxis};
use icescope::load::load_table;
use icescope::model::ReadMode;
use icescope::source::local::LocalFolder;
use icescope::source::newest_metadata;
use icescope::view::chart::growth::draw_growth;
use icescope::view::chart::Stamp;
use plotters::prelude::*;

fn history(name: &str) -> icescope::model::TableHistory {
    let folder = LocalFolder::open(&Path::new(env!("CARGO_MANIFEST_DIR")).join("public/examples").join(name)).unwrap();
    let metadata = newest_metadata(&folder).unwrap();
    load_table(&folder, &metadata, ReadMode::All).unwrap()
}

fn render(series: &GrowthSeries, stamp: &Stamp) -> (usize, String) {
    let mut svg = String::new();
    let n = {
        let root = SVGBackend::with_string(&mut svg, (1280, 560)).into_drawing_area();
        draw_growth(&root, series, stamp).unwrap()
    };
    (n, svg)
}

#[test]
fn one_point_per_snapshot_with_the_stamp() {
    let h = history("pyiceberg-daily-appends");
    let series = GrowthSeries::of(&h);
    assert_eq!(series.axis, XAxis::CommitOrder, "PyIceberg writes no flink.* keys");
    let stamp = Stamp { table: "lab.events".into(), snapshot: h.metadata.current_snapshot_id.unwrap().to_string(), metadata_file: h.metadata_file.clone(), generated_at: "2026-11-30T00:00:00.000Z".into() };
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
    let stamp = Stamp { table: "<script>alert(1)</script>".into(), snapshot: "1".into(), metadata_file: "metadata/v3.metadata.json".into(), generated_at: "t".into() };
    let (_, svg) = render(&GrowthSeries::of(&h), &stamp);
    assert!(!svg.contains("<script>"), "the table name reached the SVG as markup");
}
