//! The same decode → model → analysis → chart path, compiled to wasm32 and run in headless
//! Chromium: the codecs (deflate, snappy, zstd) work in wasm and the chart paints a real canvas.
#![cfg(target_arch = "wasm32")]

use icescope::analysis::GrowthSeries;
use icescope::load::Loader;
use icescope::model::{ReadMode, TableHistory};
use icescope::report::draw::backend::Measured;
use icescope::report::draw::growth::draw_growth;
use icescope::report::draw::look::TICKET;
use icescope::report::draw::{Dress, Stamp};
use icescope::source::{newest_metadata, MemoryFiles};
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

// The project's own bundled example, embedded at compile time: the test runner serves no files.
include!(concat!(env!("OUT_DIR"), "/example_files.rs"));

fn example() -> MemoryFiles {
    let mut files = MemoryFiles::new();
    for (path, bytes) in EXAMPLE_FILES {
        files.insert(path.to_string(), bytes.to_vec());
    }
    files
}

/// What PyIceberg itself reported while writing the example (tests/lab/make_examples.py).
fn facts() -> serde_json::Value {
    serde_json::from_str(EXAMPLE_FACTS).unwrap()
}

/// The app's own loader, driven by the browser's event loop as the app drives it.
async fn load(files: &MemoryFiles, metadata: &str) -> TableHistory {
    let mut loader = Loader::open(files, metadata, false).await.expect("table loads");
    loader.history.plan(ReadMode::All);
    loader.run_by(files, &icescope::load::decoder::Inline, 6).await;
    loader.history
}

#[wasm_bindgen_test]
async fn example_table_loads_in_wasm_with_every_snapshot_counted() {
    let files = example();
    let metadata = newest_metadata(&files).expect("metadata file");
    let history = load(&files, &metadata).await;
    assert!(history.gaps().is_empty(), "{:?}", history.gaps());
    let facts = facts();
    let committed: usize = facts["commits"].as_array().unwrap().iter().map(|c| c["snapshot_ids"].as_array().unwrap().len()).sum();
    assert_eq!(history.snapshots.len(), committed);
    let last = history.counts(history.snapshots.len() - 1).expect("counts of the last snapshot");
    assert_eq!(last.records, facts["total_rows_scanned"].as_u64().unwrap());
}

#[wasm_bindgen_test]
async fn growth_chart_paints_a_canvas() {
    let files = example();
    let history = load(&files, &newest_metadata(&files).unwrap()).await;
    let doc = web_sys::window().unwrap().document().unwrap();
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").unwrap().unchecked_into();
    canvas.set_width(1280);
    canvas.set_height(560);
    doc.body().unwrap().append_child(&canvas).unwrap();
    let backend = CanvasBackend::with_canvas_object(canvas.clone()).unwrap();
    let stamp = Stamp { table: "example".into(), snapshot: "1".into(), metadata_file: "metadata/v3.metadata.json".into(), generated_at: "now".into() };
    let dress = Dress { stamp: &stamp, look: TICKET, title: None };
    let n = draw_growth(&Measured::canvas(backend, (1280, 560)).into_drawing_area(), &GrowthSeries::of(&history), &[], false, &dress).unwrap();
    assert_eq!(n, history.snapshots.len());
    let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    let pixels = ctx.get_image_data(0.0, 0.0, 1280.0, 560.0).unwrap().data();
    let ink = pixels.chunks(4).filter(|p| p[0] < 200 || p[1] < 200 || p[2] < 200).count();
    // Lines, markers, axes and text: well over 1% of the canvas is not white.
    assert!(ink > 1280 * 560 / 100, "only {ink} inked pixels");
    // And it is the picture the ticket's SVG is: the same chart drawn by plotters' SVG backend and
    // rasterised by this browser, compared pixel by pixel. Each inked pixel of either has ink within
    // a pixel of it in the other (lines are anti-aliased a little differently by the two paths).
    let mut svg = String::new();
    {
        let area = Measured::svg(plotters::prelude::SVGBackend::with_string(&mut svg, (1280, 560))).into_drawing_area();
        assert_eq!(draw_growth(&area, &GrowthSeries::of(&history), &[], false, &dress).unwrap(), n);
    }
    let other = svg_pixels(&svg, 1280, 560).await;
    let (a, b) = (inked(&pixels.to_vec(), 1280, 560), inked(&other, 1280, 560));
    let near =
        |m: &[bool], x: usize, y: usize| (y.saturating_sub(1)..=(y + 1).min(559)).any(|j| (x.saturating_sub(1)..=(x + 1).min(1279)).any(|i| m[j * 1280 + i]));
    let matched = |from: &[bool], to: &[bool]| {
        let (mut all, mut hit) = (0usize, 0usize);
        for y in 0..560 {
            for x in 0..1280 {
                if from[y * 1280 + x] {
                    all += 1;
                    hit += near(to, x, y) as usize;
                }
            }
        }
        (hit, all)
    };
    for (what, (hit, all)) in [("canvas in SVG", matched(&a, &b)), ("SVG in canvas", matched(&b, &a))] {
        assert!(all > 1280 * 560 / 100 && hit * 100 >= all * 95, "{what}: {hit} of {all} inked pixels have ink near them in the other");
    }
}

fn inked(rgba: &[u8], w: usize, h: usize) -> Vec<bool> {
    rgba.chunks(4).take(w * h).map(|p| p[3] > 0 && (p[0] < 200 || p[1] < 200 || p[2] < 200)).collect()
}

/// `svg` rasterised by the browser onto a white canvas of its size: its RGBA pixels.
async fn svg_pixels(svg: &str, w: u32, h: u32) -> Vec<u8> {
    let doc = web_sys::window().unwrap().document().unwrap();
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(svg));
    let kind = web_sys::BlobPropertyBag::new();
    kind.set_type("image/svg+xml");
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &kind).unwrap();
    let url = web_sys::Url::create_object_url_with_blob(&blob).unwrap();
    let img = web_sys::HtmlImageElement::new().unwrap();
    img.set_src(&url);
    wasm_bindgen_futures::JsFuture::from(img.decode()).await.unwrap();
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").unwrap().unchecked_into();
    canvas.set_width(w);
    canvas.set_height(h);
    let ctx: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").unwrap().unwrap().unchecked_into();
    ctx.set_fill_style_str("white");
    ctx.fill_rect(0.0, 0.0, f64::from(w), f64::from(h));
    ctx.draw_image_with_html_image_element(&img, 0.0, 0.0).unwrap();
    let _ = web_sys::Url::revoke_object_url(&url);
    ctx.get_image_data(0.0, 0.0, f64::from(w), f64::from(h)).unwrap().data().to_vec()
}

#[wasm_bindgen_test]
fn after_a_panic_a_banner_says_the_app_stopped_and_shows_the_message_as_text() {
    // What the panic hook writes (a real panic would end this test runner too): text, never markup.
    icescope::view::app::stopped_banner("decode <b>x.parquet</b>: index out of bounds");
    let doc = web_sys::window().unwrap().document().unwrap();
    let banner = doc.query_selector("[data-testid=stopped-banner]").unwrap().expect("banner");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    let text = banner.text_content().unwrap();
    assert!(text.starts_with("icescope stopped: an internal error ended the app"), "{text}");
    assert!(text.ends_with("decode <b>x.parquet</b>: index out of bounds"), "{text}");
    assert_eq!(banner.child_element_count(), 0, "the message is not parsed as HTML");
}
