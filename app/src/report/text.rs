//! Text from a table (names, paths, job ids, messages, server replies) as each surface shows it:
//! Markdown text that cannot become HTML, a link or table syntax; a terminal line that cannot
//! carry control characters; SQL inside a fence it cannot close. Numbers as people read them.

pub use super::format::{bytes, thousands};

/// Text from a table (names, paths, job ids, messages) as Markdown text: no HTML, no links, no
/// emphasis or table syntax, and no invisible characters. GitHub also links bare `https://…`,
/// `www.…` and e-mail addresses: an escaped `:`, `.` or `@` breaks each pattern and renders as itself.
pub fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        let after_www = out.len() >= 3 && out.as_bytes()[out.len() - 3..].eq_ignore_ascii_case(b"www");
        if (c == ':' && chars.as_str().starts_with("//")) || c == '@' || (c == '.' && after_www) {
            out.push('\\');
            out.push(c);
            continue;
        }
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '|' | '*' | '_' | '[' | ']' | '~' | '`' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if invisible(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// For a terminal: invisible characters (ESC, CR, LF, NUL, bidi overrides) shown as `\u{…}`.
pub fn visible(s: &str) -> String {
    s.chars().map(|c| if invisible(c) { format!("\\u{{{:04x}}}", c as u32) } else { c.to_string() }).collect()
}

fn invisible(c: char) -> bool {
    crate::analysis::sql::unprintable(c)
}

/// A code span that the value cannot close: fenced with more backticks than it holds in a row,
/// invisible characters shown as `\u{…}`.
pub fn code(s: &str) -> String {
    let visible = visible(s);
    let longest = visible.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if visible.starts_with('`') || visible.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{visible}{pad}{fence}")
}

/// A fenced SQL block that the statement cannot close: statements are one line of quoted SQL
/// (analysis::sql), and a fence longer than any run of backticks in it cannot end inside it.
pub fn sql_block(s: &str) -> String {
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0).max(2);
    let fence = "`".repeat(longest + 1);
    format!("{fence}sql\n{s}\n{fence}\n")
}

/// A count that may be unknown: `?` where no file or summary gave it.
pub fn count(v: Option<u64>) -> String {
    v.map(thousands).unwrap_or_else(|| "?".into())
}

/// Megabytes for a progress line: whole ones past ten.
pub fn mb(bytes: u64) -> String {
    if bytes >= 10 << 20 {
        format!("{:.0} MB", bytes as f64 / 1_048_576.0)
    } else {
        format!("{:.1} MB", bytes as f64 / 1_048_576.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_from_a_table_stay_text() {
        assert_eq!(text("a|b\n<script>x</script> [l](javascript:x)"), "a\\|b\\u{000a}&lt;script&gt;x&lt;/script&gt; \\[l\\](javascript:x)");
        assert_eq!(code("s3://b/t`x"), "``s3://b/t`x``");
        assert_eq!(code("``a"), "``` ``a ```");
        assert_eq!(code("rtl\u{202e}"), "`rtl\\u{202e}`");
        assert!(!text("x\r\n| forged | row |").contains('\n'));
        assert_eq!(text("see https://x.example, www.y.example or z@w.example"), "see https\\://x.example, www\\.y.example or z\\@w.example");
    }
}
