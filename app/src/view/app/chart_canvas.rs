//! A plotters chart on a canvas, with its PNG export stamped with table, snapshot and time.

use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::view::chart::Drawn;

use super::AppState;

pub const WIDTH: u32 = 1280;
pub const HEIGHT: u32 = 520;

pub type DrawFn = Rc<dyn Fn(&DrawingArea<CanvasBackend, Shift>) -> Drawn>;

#[component]
pub fn ChartCanvas(testid: &'static str, file_stem: String, draw: DrawFn, #[prop(default = HEIGHT)] height: u32) -> impl IntoView {
    let state = expect_context::<AppState>();
    let canvas = NodeRef::<Canvas>::new();
    let points = RwSignal::new(0usize);
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        let Some(backend) = CanvasBackend::with_canvas_object(el) else { return };
        match draw(&backend.into_drawing_area()) {
            Ok(n) => points.set(n),
            Err(e) => state.error(e),
        }
    });
    let save = move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        match el.to_data_url_with_type("image/png") {
            Ok(url) => download(&url, &format!("{file_stem}.png")),
            Err(e) => state.error(format!("PNG export failed: {}", super::fetch::js_message(&e))),
        }
    };
    view! {
        <div class="chart-box">
            <canvas node_ref=canvas width=WIDTH height=height data-testid=testid data-points=move || points.get().to_string()></canvas>
            <div class="chart-actions">
                <button data-testid="save-png" on:click=save>"Save PNG"</button>
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
