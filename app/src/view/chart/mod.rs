//! Charts drawn with plotters over any backend: a canvas in the browser, SVG in native tests.

pub mod growth;
pub mod palette;

/// What identifies a chart once it is pasted into a ticket: which table, which snapshot, when.
#[derive(Debug, Clone, PartialEq)]
pub struct Stamp {
    pub table: String,
    pub snapshot: String,
    pub generated_at: String,
}

impl Stamp {
    pub fn line(&self) -> String {
        format!("{} · current snapshot {} · drawn {} · icescope", self.table, self.snapshot, self.generated_at)
    }
}
