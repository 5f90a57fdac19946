//! report: every sentence, table and statement a reader sees, rendered once from analysis'
//! typed results, for the CLI's text and Markdown, the app's panels and chart captions, and the
//! exports. Imports analysis, model, decode and source types (and `load`'s read statistics);
//! never view or the CLI. A number shown on two surfaces is rendered by one function here.

pub mod chart;
pub mod diff;
pub mod diff_text;
pub mod duplicates;
pub mod finding;
pub mod footers;
pub mod inspect_text;
pub mod live;
pub mod load;
pub mod markdown;
pub mod orphans;
pub mod projection;
pub mod savepoint;
pub mod text;
