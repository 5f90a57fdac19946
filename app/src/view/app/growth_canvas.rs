//! The growth chart on a canvas, and its PNG export stamped with table, snapshot and time.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::model::time::rfc3339_ms;
use crate::view::chart::growth::draw_growth;
use crate::view::chart::Stamp;

use super::Opened;
use super::AppState;

pub const WIDTH: u32 = 1280;
pub const HEIGHT: u32 = 520;

#[component]
pub fn GrowthCanvas(opened: Opened) -> impl IntoView {
    let state = expect_context::<AppState>();
    let canvas = NodeRef::<Canvas>::new();
    let points = RwSignal::new(0usize);
    let stamp = Stamp {
        table: opened.name.clone(),
        snapshot: opened.report.table.current_snapshot_id.map(|s| s.to_string()).unwrap_or_else(|| "none".into()),
        generated_at: rfc3339_ms(js_sys::Date::now() as i64),
    };
    let series = opened.series.clone();
    let file_stem = format!("icescope-{}-{}", opened.name.replace(['/', ' '], "_"), stamp.snapshot);
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        let Some(backend) = CanvasBackend::with_canvas_object(el) else { return };
        match draw_growth(&backend.into_drawing_area(), &series, &stamp) {
            Ok(n) => points.set(n),
            Err(e) => state.error(e),
        }
    });
    let save = move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        match el.to_data_url_with_type("image/png") {
            Ok(url) => download(&url, &format!("{file_stem}.png")),
            Err(e) => state.error(format!("PNG export failed: {e:?}")),
        }
    };
    view! {
        <div class="chart-box">
            <canvas node_ref=canvas width=WIDTH height=HEIGHT data-testid="growth-chart" data-points=move || points.get().to_string()></canvas>
            <div class="chart-actions">
                <button data-testid="save-png" on:click=save>"Save PNG"</button>
            </div>
        </div>
    }
}

fn download(url: &str, name: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let Ok(a) = doc.create_element("a") else { return };
    let a: web_sys::HtmlAnchorElement = a.unchecked_into();
    a.set_href(url);
    a.set_download(name);
    a.click();
}
