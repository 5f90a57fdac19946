//! The table's shape over time, as the report states it (`analysis::shape`): schema versions with
//! what each changed, partition specs, sort orders, branches and tags, and the properties.

use leptos::prelude::*;

use super::AppState;

#[component]
pub fn ShapePanel() -> impl IntoView {
    let shape = expect_context::<AppState>().part(|o| o.report.shape.clone());
    // The <details> stays as the person left it; only its contents follow the report.
    let body = move || shape.get().map(|s| contents(&s));
    view! {
        <details class="walk" data-testid="shape">
            <summary>"The table's shape: schemas, partition specs, sort orders, branches and tags, properties"</summary>
            {body}
        </details>
    }
}

fn contents(s: &crate::analysis::shape::Shape) -> impl IntoView {
    let changes = |c: &Option<crate::analysis::diff::SchemaChange>| -> String {
        let Some(c) = c else { return String::new() };
        let same = |v: &str| v.to_string();
        crate::report::diff::schema_parts(c, &same, &same, "→").join("; ")
    };
    let schemas = s.schemas.iter().map(|v| view! {
        <tr data-testid="shape-schema" data-schema-id=v.schema_id.to_string()>
            <td class="num">{v.schema_id}{if v.current { " (current)" } else { "" }}</td>
            <td class="num">{v.fields}</td>
            <td class="mono">{v.first_used.as_ref().map(|(id, _, at)| format!("{at} · snapshot {id}")).unwrap_or_else(|| "no snapshot records it".into())}</td>
            <td class="mono" data-testid="shape-change">{changes(&v.change)}</td>
        </tr>
    }).collect_view();
    let listed = |rows: &[(i32, String, bool)], testid: &'static str| {
        rows.iter()
            .map(|(id, text, default)| {
                view! {
                    <li data-testid=testid><span class="mono">{format!("{id}{}: {text}", if *default { " (default)" } else { "" })}</span></li>
                }
            })
            .collect_view()
    };
    view! {
            <table class="snapshots"><thead><tr><th>"schema"</th><th>"fields"</th><th>"first used by"</th><th>"change from the schema before"</th></tr></thead>
                <tbody>{schemas}</tbody></table>
            <p><strong>"Partition specs"</strong></p><ul>{listed(&s.partition_specs, "shape-spec")}</ul>
            <p><strong>"Sort orders"</strong></p><ul>{listed(&s.sort_orders, "shape-sort")}</ul>
            <p><strong>"Branches and tags"</strong></p>
            <ul>{s.refs.iter().map(|r| view! { <li data-testid="shape-ref" class="mono">{format!("{} ({}) → snapshot {}{}{}", r.name, r.kind, r.snapshot_id,
                r.committed_at.as_ref().map(|t| format!(", committed {t}")).unwrap_or_default(),
                if r.retention.is_empty() { String::new() } else { format!("; {}", r.retention) })}</li> }).collect_view()}</ul>
            <p><strong>"Properties"</strong></p>
            <table class="kv walk-fields"><tbody>{s.properties.iter().map(|p| view! {
                <tr data-testid="shape-property"><td class="mono">{p.key.clone()}</td><td class="mono">{p.value.clone()}</td><td class="hint">{p.not_read.clone().unwrap_or_else(|| p.meaning.unwrap_or("").to_string())}</td></tr>
            }).collect_view()}</tbody></table>
    }
}
