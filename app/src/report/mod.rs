//! report: every sentence, table and statement a reader sees, rendered once from analysis'
//! typed results, for the CLI's text and Markdown and the app's panels and chart captions (the
//! CSV and Parquet exports are analysis/export). Imports analysis, model and decode; never
//! session, view or the CLI. A number shown on two surfaces is rendered by one function here.

pub mod chart;
pub mod diff;
pub mod draw;
pub mod duplicates;
pub mod finding;
pub mod findings;
pub mod footers;
pub mod format;
pub mod inspect;
pub mod live;
pub mod load;
pub mod orphans;
pub mod projection;
pub mod savepoint;
pub mod text;
