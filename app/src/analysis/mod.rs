//! analysis: series and findings computed from a TableHistory — pure functions, no I/O.
//! May import model, decode and source types; never view.

pub mod growth;
pub mod inspect;

pub use growth::{GrowthPoint, GrowthSeries, XAxis, XPosition};
