//! A plotters chart on a canvas, redrawn whenever the report updates, with its PNG and SVG exports
//! stamped with table, snapshot, metadata file, time and icescope version.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::{IntoDrawingArea, SVGBackend};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::model::time::rfc3339_ms;
use crate::view::chart::Stamp;

use super::charts::{draw, height, Tab};
use super::{marks, AppState, Opened};

pub const WIDTH: u32 = 1280;
pub const HEIGHT: u32 = 520;

fn stamp(o: &Opened) -> Stamp {
    Stamp {
        table: o.name.clone(),
        snapshot: o.report.table.current_snapshot_id.map(|s| s.to_string()).unwrap_or_else(|| "none".into()),
        metadata_file: o.report.table.metadata_file.clone(),
        generated_at: rfc3339_ms(js_sys::Date::now() as i64),
    }
}

#[component]
pub fn ChartCanvas(testid: &'static str, suffix: &'static str, tab: Tab) -> impl IntoView {
    let state = expect_context::<AppState>();
    let canvas = NodeRef::<Canvas>::new();
    let points = RwSignal::new(0usize);
    let complete = RwSignal::new(false);
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        state.opened.with(|o| {
            let Some(o) = o else { return };
            el.set_height(height(tab, o));
            let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
            match draw(tab, &backend.into_drawing_area(), o, &stamp(o)) {
                Ok(n) => {
                    points.set(n);
                    complete.set(o.complete);
                    if !marks::has(marks::FIRST_CHART) {
                        marks::mark(marks::FIRST_CHART);
                    }

                    if o.complete && !marks::has(marks::ALL_CHARTS) {
                        marks::mark(marks::ALL_CHARTS);
                    }
                }
                Err(e) => state.error(e),
            }
            // Drawn or failed: either way the rest of the page may come now.
            if !state.charted.get_untracked() {
                state.charted.set(true);
            }
        });
    });
    let stem = move || {
        state.opened.with_untracked(|o| {
            o.as_ref().map(|o| format!("icescope-{}-{}-{suffix}", o.name.replace(['/', ' ', '\\'], "_"), stamp(o).snapshot)).unwrap_or_default()
        })
    };
    let save = move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        match el.to_data_url_with_type("image/png") {
            Ok(url) => download(&url, &format!("{}.png", stem())),
            Err(e) => state.error(format!("PNG export failed: {}", super::fetch::js_message(&e))),
        }
    };
    // The same drawing, as vectors: sharp at any size a ticket shows it.
    let save_svg = move |_| {
        let svg = state.opened.with_untracked(|o| {
            let o = o.as_ref()?;
            let mut svg = String::new();
            let drawn = {
                let root = SVGBackend::with_string(&mut svg, (WIDTH, height(tab, o))).into_drawing_area();
                draw(tab, &root, o, &stamp(o))
            };
            Some(drawn.map(|_| svg))
        });
        match svg {
            Some(Ok(svg)) => match blob_url(&svg, "image/svg+xml") {
                Ok(url) => {
                    download(&url, &format!("{}.svg", stem()));
                    let _ = web_sys::Url::revoke_object_url(&url);
                }
                Err(e) => state.error(format!("SVG export failed: {e}")),
            },
            Some(Err(e)) => state.error(format!("SVG export failed: {e}")),
            None => {}
        }
    };
    view! {
        <div class="chart-box">
            <canvas node_ref=canvas id=testid role="img" aria-label=format!("{suffix} chart") width=WIDTH height=HEIGHT data-testid=testid data-points=move || points.get().to_string()
                data-complete=move || complete.get().to_string()></canvas>
            <div class="chart-actions">
                <button data-testid="save-png" on:click=save>"Save PNG"</button>
                <button data-testid="save-svg" on:click=save_svg>"Save SVG"</button>
            </div>
        </div>
    }
}

pub fn download(url: &str, name: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(a) = doc.create_element("a") else { return };
    let a: web_sys::HtmlAnchorElement = a.unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
}

/// An object URL for text, to download it.
pub fn blob_url(text: &str, mime: &str) -> Result<String, String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).map_err(|e| super::fetch::js_message(&e))?;
    web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| super::fetch::js_message(&e))
}
