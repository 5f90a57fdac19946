//! Properties the table sets that no Iceberg version reads.

use super::Words;
use crate::analysis::findings::PropertyNotRead;
use crate::report::format::capped_list;

pub(super) fn not_read(f: &PropertyNotRead) -> Words {
    let all = &f.properties;
    let each = all.first.iter().map(|p| match p.meant {
        Some(m) => format!(
            "{} = {} (Iceberg reads {m}{})",
            p.key,
            p.value,
            p.meant_value.as_ref().map(|set| format!(", which the table sets to {set}")).unwrap_or_else(|| ", which the table leaves at its default".into())
        ),
        None => format!("{} = {}", p.key, p.value),
    });
    let first = all.first.first();
    Words {
        title: format!("{} table propert{} that no Iceberg version reads", all.total, if all.total == 1 { "y" } else { "ies" }),
        evidence: format!(
            "the table sets {}. These keys are in Iceberg's own namespaces or one edit from its keys, but Iceberg's \
             TableProperties defines none of them: every writer ignores them and runs on the default.",
            capped_list(each, all.total, "properties")
        ),
        action: match (first.and_then(|p| Some((p.meant?, &p.key))), all.total == 1) {
            (Some((m, key)), true) => format!("Set {m} instead, then unset {key}."),
            _ => "Set the keys Iceberg reads instead (each is named above), then unset these.".into(),
        },
    }
}
