//! Properties the table sets that no Iceberg version reads: the writer runs on the default the
//! person meant to change (a merge threshold, a retention age), and nothing says so.

use serde::Serialize;

use super::{Bounded, Context, Facts, Finding, FindingKind, Severity};
use crate::analysis::properties::unread;

/// The table's properties no Iceberg version reads, in the table's order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PropertyNotRead {
    pub properties: Bounded<UnreadProperty>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnreadProperty {
    pub key: String,
    pub value: String,
    /// The key Iceberg reads that this one is an edit from, if any.
    pub meant: Option<&'static str>,
    /// What the table sets `meant` to; None when it leaves it at its default.
    pub meant_value: Option<String>,
}

pub(super) fn not_read(cx: &Context<'_>) -> Vec<Finding> {
    let props = &cx.history.metadata.properties;
    let unread: Vec<_> = props.iter().filter_map(|(k, v)| unread(k).map(|u| (u, v))).collect();
    let Some(((first, value), _)) = unread.split_first() else { return Vec::new() };
    // The statement moves the first key's value to the key Iceberg reads, when there is one.
    let statement = first.meant.and_then(|m| {
        let (k, v) = (crate::analysis::sql::string(m)?, crate::analysis::sql::string(value)?);
        cx.table.alter(&format!("SET TBLPROPERTIES ({k} = {v})"))
    });
    let properties = Bounded::of(unread.iter().map(|(u, v)| UnreadProperty {
        key: u.key.clone(),
        value: v.to_string(),
        meant: u.meant,
        meant_value: u.meant.and_then(|m| props.get(m)).map(|set| set.to_string()),
    }));
    vec![Finding::new(
        FindingKind::PropertyNotRead,
        Severity::Warning,
        Facts::PropertyNotRead(PropertyNotRead { properties }),
        Vec::new(),
        Vec::new(),
        statement,
    )]
}
