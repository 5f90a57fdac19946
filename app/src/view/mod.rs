//! view: what a person sees — plotters charts (any backend) and, in the browser, Leptos components.
//! Reads analysis results and the model; nothing imports view but the CLI's `chart` command, which
//! draws the same pictures (tests/layers.rs names that one edge).

#[cfg(target_arch = "wasm32")]
pub mod app;
pub mod chart;
