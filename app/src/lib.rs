//! icescope: how a streaming writer grows an Iceberg table, checkpoint by checkpoint.
//! Layers, left to right; none imports one to its right: source → decode → model → analysis →
//! report → session → view (and the CLI).
//! `load` drives source → decode → model for the CLI and the browser; only they import it.

pub mod analysis;
pub mod decode;
pub mod load;
pub mod model;
pub mod report;
pub mod session;
pub mod source;
pub mod view;
