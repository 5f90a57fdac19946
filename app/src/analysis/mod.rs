//! analysis: series and findings computed from a TableHistory — pure functions, no I/O.
//! May import model, decode and source types; never view.

pub mod diff;
pub mod duplicates;
pub mod export;
pub mod findings;
pub mod footers;
pub mod growth;
pub mod inspect;
pub mod job_overlaps;
pub mod jobs;
pub mod live;
pub mod merge;
pub mod merge_simulation;
pub mod orphans;
pub mod partitions;
pub mod projection;
pub mod properties;
pub mod savepoint;
pub mod shape;
pub mod spark_export;
pub mod sql;
pub mod statement;
pub mod vector_footers;
pub mod walk;

pub use growth::{GrowthPoint, GrowthSeries, XAxis, XPosition};
