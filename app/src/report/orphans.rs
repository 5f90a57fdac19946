//! The orphan census for a terminal: its summary counted as the finding counts it, then a line
//! per orphan.

use super::text::{thousands, visible};
use crate::analysis::orphans::{Orphan, OrphanCounts, OrphanReport};

/// `78 files listed, 73 referenced, 5 orphan files: 3 data or delete, 0 metadata, 2 other`.
pub fn summary_line(r: &OrphanReport) -> String {
    let c = r.counts();
    format!("{} files listed, {} referenced, {}: {}", thousands(r.listed as u64), thousands(r.referenced as u64), orphan_files(c.total()), kinds(&c))
}

/// `5 orphan files`.
pub fn orphan_files(n: usize) -> String {
    format!("{} orphan file{}", thousands(n as u64), if n == 1 { "" } else { "s" })
}

/// `3 data or delete, 0 metadata, 2 other`: the other (no table file) only where there are some.
pub fn kinds(c: &OrphanCounts) -> String {
    let other = if c.other == 0 { String::new() } else { format!(", {} other", thousands(c.other as u64)) };
    format!("{} data or delete, {} metadata{other}", thousands(c.data as u64), thousands(c.metadata as u64))
}

/// `data  3533 2026-12-07T04:17:40.815Z data/…/x.parquet (spared: newer than older_than)`: its
/// kind as the JSON names it, its size and time (`?` where the source has none), its path made
/// visible.
pub fn row(o: &Orphan) -> String {
    let size = o.size.map(|s| s.to_string()).unwrap_or_else(|| "?".into());
    let when = o.modified_ms.map(crate::model::time::rfc3339_ms).unwrap_or_else(|| "?".into());
    let kind = serde_json::to_value(o.kind).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
    let spared = if o.spared { " (spared: newer than older_than)" } else { "" };
    format!("{kind:<15} {size:>12} {when} {}{spared}", visible(o.path))
}
