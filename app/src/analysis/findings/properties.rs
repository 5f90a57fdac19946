//! Properties the table sets that no Iceberg version reads: the writer runs on the default the
//! person meant to change (a merge threshold, a retention age), and nothing says so.

use super::{capped_list, Context, Finding, FindingKind, Severity};
use crate::analysis::properties::unread;

pub(super) fn not_read(cx: &Context<'_>) -> Vec<Finding> {
    let props = &cx.history.metadata.properties;
    let unread: Vec<_> = props.iter().filter_map(|(k, v)| unread(k).map(|u| (u, v))).collect();
    let Some(((first, value), rest)) = unread.split_first() else { return Vec::new() };
    let each = unread.iter().map(|(u, v)| match u.meant {
        Some(m) => format!(
            "{} = {} (Iceberg reads {m}{})",
            u.key,
            v,
            props.get(m).map(|set| format!(", which the table sets to {set}")).unwrap_or_else(|| ", which the table leaves at its default".into())
        ),
        None => format!("{} = {}", u.key, v),
    });
    // The statement moves the first key's value to the key Iceberg reads, when there is one.
    let statement = first.meant.and_then(|m| {
        let (k, v) = (crate::analysis::sql::string(m)?, crate::analysis::sql::string(value)?);
        cx.table.alter(&format!("SET TBLPROPERTIES ({k} = {v})"))
    });
    vec![Finding {
        kind: FindingKind::PropertyNotRead,
        severity: Severity::Warning,
        title: format!("{} table propert{} that no Iceberg version reads", unread.len(), if unread.len() == 1 { "y" } else { "ies" }),
        snapshot_ids: Vec::new(),
        job_ids: Vec::new(),
        evidence: format!(
            "the table sets {}. These keys are in Iceberg's own namespaces or one edit from its keys, but Iceberg's \
             TableProperties defines none of them: every writer ignores them and runs on the default.",
            capped_list(each, unread.len(), "properties")
        ),
        action: match (first.meant, rest.is_empty()) {
            (Some(m), true) => format!("Set {m} instead, then unset {}.", first.key),
            _ => "Set the keys Iceberg reads instead (each is named above), then unset these.".into(),
        },
        statement,
    }]
}
