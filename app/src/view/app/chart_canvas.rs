//! A plotters chart on a canvas as wide as its box, at the device's pixel ratio, in the page's
//! theme and type size, redrawn when the report, the box's width, the theme or projector mode
//! change; and the ticket picture of it (Save PNG, Save SVG, Copy image): 800 px wide, light,
//! stamped with table, snapshot, metadata file, time and icescope version.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::model::time::rfc3339_ms;
use crate::report::draw::backend::Measured;
use crate::report::draw::look::{Look, TICKET, TICKET_WIDTH};
use crate::report::draw::picture::{self, ChartKind};
use crate::report::draw::Stamp;

use super::charts::inputs;
use super::theme::Comfort;
use super::{marks, Answer, AppState};

fn stamp(o: &Answer) -> Stamp {
    Stamp {
        table: o.name.clone(),
        snapshot: o.report.table.current_snapshot_id.map(|s| s.to_string()).unwrap_or_else(|| "none".into()),
        metadata_file: o.report.table.metadata_file.clone(),
        generated_at: rfc3339_ms(js_sys::Date::now() as i64),
    }
}

/// The box's content width in CSS pixels, kept current by a ResizeObserver.
fn observe_width(node: NodeRef<leptos::html::Div>, width: RwSignal<u32>) {
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        let el: web_sys::Element = el.unchecked_into();
        let measure = move |el: &web_sys::Element| {
            let w = (f64::from(el.client_width()) - 2.0 * padding(el)).floor().max(0.0) as u32;
            if w > 0 && w != width.get_untracked() {
                width.set(w);
            }
        };
        measure(&el);
        let target = el.clone();
        let cb = wasm_bindgen::closure::Closure::<dyn Fn()>::new(move || measure(&target));
        let Ok(observer) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) else { return };
        observer.observe(&el);
        let kept = StoredValue::new_local((observer, cb));
        on_cleanup(move || kept.with_value(|(o, _)| o.disconnect()));
    });
}

/// The box's horizontal padding, which the canvas does not get.
fn padding(el: &web_sys::Element) -> f64 {
    web_sys::window()
        .and_then(|w| w.get_computed_style(el).ok().flatten())
        .and_then(|s| s.get_property_value("padding-left").ok())
        .and_then(|v| v.trim_end_matches("px").parse::<f64>().ok())
        .unwrap_or(0.0)
}

#[component]
pub fn ChartCanvas(testid: &'static str, tab: ChartKind) -> impl IntoView {
    let state = expect_context::<AppState>();
    let comfort = expect_context::<Comfort>();
    let canvas = NodeRef::<Canvas>::new();
    let chart_box = NodeRef::<leptos::html::Div>::new();
    let width = RwSignal::new(0u32);
    observe_width(chart_box, width);
    let points = RwSignal::new(0usize);
    let complete = RwSignal::new(false);
    let look = Memo::new(move |_| Look::page(comfort.dark(), comfort.projector()));
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        let (w, look) = (width.get(), look.get());
        if w == 0 {
            return;
        }
        state.opened.with(|o| {
            let Some(o) = o else { return };
            let s = stamp(o);
            let h = picture::height(tab, &inputs(o), &s, w, look);
            // Drawn at the device's pixels under a scaling transform: sharp, not a scaled bitmap.
            let dpr = web_sys::window().map(|w| w.device_pixel_ratio()).unwrap_or(1.0).clamp(1.0, 4.0);
            el.set_width((f64::from(w) * dpr).round() as u32);
            el.set_height((f64::from(h) * dpr).round() as u32);
            let _ = el.set_attribute("style", &format!("width:{w}px;height:{h}px"));
            let _ = el.set_attribute("data-dpr", &dpr.to_string());
            let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
            if let Some(ctx) = el.get_context("2d").ok().flatten().and_then(|c| c.dyn_into::<web_sys::CanvasRenderingContext2d>().ok()) {
                let _ = ctx.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
            }
            match picture::draw(tab, &Measured::canvas(backend, (w, h)).into_drawing_area(), &inputs(o), &s, look) {
                Ok(n) => {
                    // What was last drawn (width, theme, text scale): a test waits for the drawing
                    // it expects after a resize or a toggle, not for a time.
                    let _ = el.set_attribute("data-drawn", &format!("{w} {} {}", if look.dark { "dark" } else { "light" }, look.text));
                    points.set(n);
                    complete.set(o.complete);
                    if !marks::has(marks::FIRST_CHART) {
                        marks::mark(marks::FIRST_CHART);
                    }
                    if o.charts_final && !marks::has(marks::CHARTS_BEFORE_FILES) {
                        marks::mark(marks::CHARTS_BEFORE_FILES);
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
            o.as_ref().map(|o| format!("icescope-{}-{}-{}", o.name.replace(['/', ' ', '\\'], "_"), stamp(o).snapshot, tab.name())).unwrap_or_default()
        })
    };
    // The ticket picture: light, 800 px wide, every text 12 px or more at that width.
    let ticket = move || {
        state.opened.with_untracked(|o| {
            let o = o.as_ref()?;
            let s = stamp(o);
            let h = picture::height(tab, &inputs(o), &s, TICKET_WIDTH, TICKET);
            Some(picture::svg(tab, &inputs(o), &s, TICKET, TICKET_WIDTH).map(|svg| (svg, h)))
        })
    };
    let save = move |_| {
        let name = format!("{}.png", stem());
        let Some(drawn) = ticket() else { return };
        super::tasks::spawn(async move {
            let png = match drawn {
                Ok((svg, h)) => png_at_2x(&svg, TICKET_WIDTH, h).await,
                Err(e) => Err(e),
            };
            match png {
                Ok(url) => download(&url, &name),
                Err(e) => state.error(format!("PNG export failed: {e}")),
            }
        });
    };
    let save_svg = move |_| match ticket() {
        Some(Ok((svg, _))) => match blob_url(&svg, "image/svg+xml") {
            Ok(url) => {
                download(&url, &format!("{}.svg", stem()));
                let _ = web_sys::Url::revoke_object_url(&url);
            }
            Err(e) => state.error(format!("SVG export failed: {e}")),
        },
        Some(Err(e)) => state.error(format!("SVG export failed: {e}")),
        None => {}
    };
    let copied = RwSignal::new(false);
    let copy = move |_| {
        let Some(drawn) = ticket() else { return };
        super::tasks::spawn(async move {
            let done = match drawn {
                Ok((svg, h)) => match png_at_2x(&svg, TICKET_WIDTH, h).await {
                    Ok(url) => super::clipboard_image::copy_png(&url).await,
                    Err(e) => Err(e),
                },
                Err(e) => Err(e),
            };
            match done {
                Ok(()) => copied.set(true),
                Err(e) => state.error(format!("copying the picture failed ({e}): use Save PNG instead")),
            }
        });
    };
    view! {
        <div class="chart-box" node_ref=chart_box>
            <canvas node_ref=canvas id=testid role="img" aria-label=format!("{} chart", tab.name()) data-testid=testid data-points=move || points.get().to_string()
                data-complete=move || complete.get().to_string() data-theme=move || if look.get().dark { "dark" } else { "light" }
                data-text-scale=move || look.get().text.to_string()></canvas>
            <div class="chart-actions">
                <span class="hint" data-testid="copied" hidden=move || !copied.get()>"copied"</span>
                <button data-testid="copy-image" title="the 800 px picture, for pasting into a ticket" on:click=copy>"Copy image"</button>
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

/// The SVG drawn onto a canvas of twice its size, as a PNG data URL: sharp when a ticket shows it
/// large or on a high-density screen.
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
