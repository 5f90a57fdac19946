//! view: what a person sees — plotters charts (any backend) and, in the browser, Leptos components.
//! Reads analysis results and the model; nothing imports view.

#[cfg(target_arch = "wasm32")]
pub mod app;
pub mod chart;
