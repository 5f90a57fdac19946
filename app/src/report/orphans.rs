//! The orphan census for a terminal: its summary counted as the finding counts it, then a line
//! per orphan.

use super::text::{thousands, visible};
use crate::analysis::orphans::{kinds, orphan_files, Orphan, OrphanReport};

/// `78 files listed, 73 referenced, 5 orphan files: 3 data or delete, 0 metadata, 2 other`.
pub fn summary_line(r: &OrphanReport) -> String {
    let c = r.counts();
    format!("{} files listed, {} referenced, {}: {}", thousands(r.listed as u64), thousands(r.referenced as u64), orphan_files(c.total()), kinds(&c))
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
