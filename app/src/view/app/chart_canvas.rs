//! A plotters chart on a canvas, redrawn whenever the report updates, with its PNG export stamped
//! with table, snapshot and time.

use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::coord::Shift;
use plotters::prelude::{DrawingArea, IntoDrawingArea};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;

use crate::model::time::rfc3339_ms;
use crate::view::chart::{Drawn, Stamp};

use super::{marks, AppState, Opened};

pub const WIDTH: u32 = 1280;
pub const HEIGHT: u32 = 520;

pub type DrawFn = Rc<dyn Fn(&DrawingArea<CanvasBackend, Shift>, &Opened, &Stamp) -> Drawn>;

fn stamp(o: &Opened) -> Stamp {
    Stamp {
        table: o.name.clone(),
        snapshot: o.report.table.current_snapshot_id.map(|s| s.to_string()).unwrap_or_else(|| "none".into()),
        generated_at: rfc3339_ms(js_sys::Date::now() as i64),
    }
}

#[component]
pub fn ChartCanvas(testid: &'static str, suffix: &'static str, draw: DrawFn, height: fn(&Opened) -> u32) -> impl IntoView {
    let state = expect_context::<AppState>();
    let canvas = NodeRef::<Canvas>::new();
    let points = RwSignal::new(0usize);
    let complete = RwSignal::new(false);
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        state.opened.with(|o| {
            let Some(o) = o else { return };
            el.set_height(height(o));
            let Some(backend) = CanvasBackend::with_canvas_object(el.clone()) else { return };
            match draw(&backend.into_drawing_area(), o, &stamp(o)) {
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
    let save = move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        let stem = state.opened.with_untracked(|o| {
            o.as_ref().map(|o| format!("icescope-{}-{}-{suffix}", o.name.replace(['/', ' ', '\\'], "_"), stamp(o).snapshot)).unwrap_or_default()
        });
        match el.to_data_url_with_type("image/png") {
            Ok(url) => download(&url, &format!("{stem}.png")),
            Err(e) => state.error(format!("PNG export failed: {}", super::fetch::js_message(&e))),
        }
    };
    view! {
        <div class="chart-box">
            <canvas node_ref=canvas width=WIDTH height=HEIGHT data-testid=testid data-points=move || points.get().to_string()
                data-complete=move || complete.get().to_string()></canvas>
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
