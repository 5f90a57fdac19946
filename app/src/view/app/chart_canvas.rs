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
    // At twice the pixels: the chart drawn as SVG and rasterised at 2×, so that it stays sharp when
    // a ticket shows it large or on a high-density screen. The canvas itself is the fallback.
    let save = move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        let name = format!("{}.png", stem());
        let svg = state.opened.with_untracked(|o| o.as_ref().and_then(|o| svg_of(tab, o).ok().map(|svg| (svg, height(tab, o)))));
        leptos::task::spawn_local(async move {
            let png = match svg {
                Some((svg, h)) => png_at_2x(&svg, WIDTH, h).await,
                None => Err("nothing drawn yet".to_string()),
            };
            let url = png.or_else(|_| el.to_data_url_with_type("image/png").map_err(|e| super::fetch::js_message(&e)));
            match url {
                Ok(url) => download(&url, &name),
                Err(e) => state.error(format!("PNG export failed: {e}")),
            }
        });
    };
    // The same drawing, as vectors: sharp at any size a ticket shows it.
    let save_svg = move |_| {
        let svg = state.opened.with_untracked(|o| o.as_ref().map(|o| svg_of(tab, o)));
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

fn svg_of(tab: Tab, o: &Opened) -> Result<String, String> {
    let mut svg = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height(tab, o))).into_drawing_area();
        draw(tab, &root, o, &stamp(o))
    };
    drawn.map(|_| svg)
}

/// The SVG drawn onto a canvas of twice its size, as a PNG data URL.
async fn png_at_2x(svg: &str, width: u32, height: u32) -> Result<String, String> {
    let url = blob_url(svg, "image/svg+xml")?;
    let img = web_sys::HtmlImageElement::new().map_err(|e| super::fetch::js_message(&e))?;
    let loaded = js_sys::Promise::new(&mut |resolve, reject| {
        img.set_onload(Some(&resolve));
        img.set_onerror(Some(&reject));
    });
    img.set_src(&url);
    let waited = wasm_bindgen_futures::JsFuture::from(loaded).await;
    let _ = web_sys::Url::revoke_object_url(&url);
    waited.map_err(|_| "the SVG could not be rasterised".to_string())?;
    let doc = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let canvas: web_sys::HtmlCanvasElement = doc.create_element("canvas").map_err(|e| super::fetch::js_message(&e))?.unchecked_into();
    canvas.set_width(width * 2);
    canvas.set_height(height * 2);
    let ctx = canvas.get_context("2d").ok().flatten().ok_or("no 2d context")?.unchecked_into::<web_sys::CanvasRenderingContext2d>();
    ctx.draw_image_with_html_image_element_and_dw_and_dh(&img, 0.0, 0.0, f64::from(width * 2), f64::from(height * 2))
        .map_err(|e| super::fetch::js_message(&e))?;
    canvas.to_data_url_with_type("image/png").map_err(|e| super::fetch::js_message(&e))
}
