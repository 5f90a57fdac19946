//! view: what a person sees in the browser — Leptos components over the session's answers, the
//! charts drawn by `report::draw` on a canvas. Nothing imports view.

#[cfg(target_arch = "wasm32")]
pub mod app;
