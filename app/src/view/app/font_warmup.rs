//! Every text style the table view and the charts use, laid out once, hidden, while the gallery is
//! shown. Measured on a picked folder of 69,000 files (17,280 manifests): the browser process was
//! still registering the picked files when the table view first appeared, and each new font size
//! the layout met waited on it for a font lookup — 4.4 s for one, after the first chart. Looked up
//! here, before the pick, they are cached.

use leptos::html::Canvas;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The sizes the plotters charts draw text at (`("sans-serif", n)` in `report/draw`).
const CHART_FONT_PX: [u32; 6] = [11, 12, 13, 14, 16, 20];
const SAMPLE: &str = "Aa 0123 … → ≈ × — · ≤ ≥ ← ✓";

#[component]
pub fn FontWarmup() -> impl IntoView {
    let canvas = NodeRef::<Canvas>::new();
    Effect::new(move |_| {
        let Some(el) = canvas.get() else { return };
        let el: web_sys::HtmlCanvasElement = el.unchecked_into();
        let Ok(Some(ctx)) = el.get_context("2d") else { return };
        let Ok(ctx) = ctx.dyn_into::<web_sys::CanvasRenderingContext2d>() else { return };
        for px in CHART_FONT_PX {
            ctx.set_font(&format!("normal {px}px sans-serif"));
            let _ = ctx.fill_text(SAMPLE, 0.0, px as f64);
        }
    });
    // The same elements and classes as the table view, so the same style rules apply.
    view! {
        <div class="font-warmup" aria-hidden="true">
            <section class="table-view">
                <div class="table-head"><button class="link">{SAMPLE}</button><h2>{SAMPLE}</h2>
                    <dl class="facts"><div><dt>{SAMPLE}</dt><dd class="mono">{SAMPLE}<span class="hint why">{SAMPLE}</span></dd></div></dl>
                    <p class="hint">{SAMPLE}<strong>{SAMPLE}</strong><code>{SAMPLE}</code></p>
                    <select><option>{SAMPLE}</option></select>
                </div>
                <details class="gaps" open><summary>{SAMPLE}</summary><ul><li class="mono">{SAMPLE}</li></ul></details>
                <details class="vended" open><summary>{SAMPLE}</summary></details>
                <ul class="alerts"><li class="critical"><span class="badge">{SAMPLE}</span>{SAMPLE}</li><li class="more">{SAMPLE}</li></ul>
                <nav class="tabs"><button class="tab active">{SAMPLE}</button><button class="tab">{SAMPLE}</button></nav>
                <p class="projection">{SAMPLE}<strong>{SAMPLE}</strong></p>
                <section class="findings"><div class="findings-head"><h3>{SAMPLE}</h3><label>{SAMPLE}<input type="text" value=SAMPLE/></label></div>
                    <div class="finding warning"><h4><span class="badge">{SAMPLE}</span>{SAMPLE}</h4><p>{SAMPLE}</p>
                        <pre class="statement">{SAMPLE}</pre><p class="ids mono">{SAMPLE}</p></div>
                    <details class="markdown" open><summary>{SAMPLE}</summary><textarea>{SAMPLE}</textarea></details>
                </section>
                <table class="snapshots"><thead><tr><th>{SAMPLE}</th></tr></thead>
                    <tbody><tr><td class="mono">{SAMPLE}</td><td class="num">{SAMPLE}</td><td class="from"><span>{SAMPLE}</span></td>
                        <td class="summary"><details open><summary>{SAMPLE}</summary><code>{SAMPLE}</code></details></td></tr></tbody></table>
                <p class="error">{SAMPLE}</p>
            </section>
            <canvas node_ref=canvas width="200" height="24"></canvas>
        </div>
    }
}
