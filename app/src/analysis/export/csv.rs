//! CSV (RFC 4180): every text cell quoted, quotes doubled, so commas, quotes and line breaks in a
//! value stay inside it. Text a spreadsheet would run as a formula — starting with `=`, `+`, `-`,
//! `@`, tab or carriage return — gets a leading `'`, as OWASP's "CSV Injection" page recommends:
//! table values (job ids, operations, paths, summaries) are whatever a writer put there, and
//! `=HYPERLINK(…)` in a job id must not become a live formula in the reader's spreadsheet. The
//! price: such a value reads back with the `'` in front. Numbers are ours and never guarded
//! (a negative count is a number, not a formula). Written here rather than with the `csv` crate,
//! whose quoting is chosen per writer, not per cell: text must always be quoted and a missing value
//! never, or an empty string and no value would read back the same.

use super::table::{Table, Values};
use crate::model::time::rfc3339_ms;

/// The CSV text of a table, header first, `\n` line ends.
pub fn csv(table: &Table) -> String {
    let mut out = String::new();
    let header: Vec<String> = table.columns.iter().map(|c| quote(c.name)).collect();
    out += &header.join(",");
    out.push('\n');
    for row in 0..table.rows {
        let cells: Vec<String> = table.columns.iter().map(|c| cell(&c.values, row)).collect();
        out += &cells.join(",");
        out.push('\n');
    }
    out
}

fn cell(values: &Values, row: usize) -> String {
    match values {
        Values::Int(v) => v.get(row).copied().flatten().map(|x| x.to_string()).unwrap_or_default(),
        Values::Float(v) => v.get(row).copied().flatten().filter(|x| x.is_finite()).map(|x| x.to_string()).unwrap_or_default(),
        Values::Bool(v) => v.get(row).copied().flatten().map(|x| x.to_string()).unwrap_or_default(),
        Values::TimestampMs(v) => v.get(row).copied().flatten().map(rfc3339_ms).unwrap_or_default(),
        Values::Text(v) => v.get(row).and_then(|x| x.as_deref()).map(|s| quote(&guard_formula(s))).unwrap_or_default(),
        // JSON arrays: unambiguous whatever the ids hold. Text inside is still guarded as a whole cell.
        Values::IntList(v) => {
            v.get(row).map(|ids| quote(&format!("[{}]", ids.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(",")))).unwrap_or_default()
        }
        Values::TextList(v) => v.get(row).map(|s| quote(&guard_formula(&serde_json::to_string(s).unwrap_or_else(|_| "[]".into())))).unwrap_or_default(),
    }
}

/// `'` before a value a spreadsheet would evaluate (OWASP CSV injection guidance).
pub fn guard_formula(s: &str) -> std::borrow::Cow<'_, str> {
    match s.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') => format!("'{s}").into(),
        _ => s.into(),
    }
}

/// Always quoted: an empty string stays apart from a missing value (an empty cell).
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_stays_in_its_cell_and_never_runs() {
        let t = Table::new("t", 4)
            .col("v", Values::Text(vec![Some("=cmd|' /C calc'!A0".into()), Some("a \"q\",\nb".into()), Some("-1".into()), None]))
            .col("n", Values::Int(vec![Some(-1), Some(2), None, Some(i128::from(u64::MAX))]));
        assert_eq!(csv(&t), "\"v\",\"n\"\n\"'=cmd|' /C calc'!A0\",-1\n\"a \"\"q\"\",\nb\",2\n\"'-1\",\n,18446744073709551615\n");
    }
}
