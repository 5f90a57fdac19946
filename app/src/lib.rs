//! icescope: how a streaming writer grows an Iceberg table, checkpoint by checkpoint.
//! Layers, left to right; none imports one to its right (tests/layers.rs reads the imports):
//! source → decode → model → load → analysis → report → session → view (and the CLI).
//! `load` drives source → decode → model; the session, the app and the CLI call it.

pub mod analysis;
pub mod decode;
pub mod load;
pub mod model;
pub mod report;
pub mod session;
pub mod source;
pub mod view;
