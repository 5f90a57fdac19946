//! Spark SQL text built from values a table chose (its location, column names, our own timestamps):
//! identifiers in backticks, strings as literals with Spark's backslash escapes, so that no value
//! can end the statement or add another. A value that cannot be made safe (control or bidi
//! characters, which a person pasting the statement would not see) gets no statement at all.
//! Written here because no crate quotes by Spark's rules: sqlparser's printer doubles a quote and
//! leaves a backslash as it is, and Spark reads `\'` as an escaped quote, so a value ending in a
//! backslash would run on past its closing quote.

/// Characters that must never reach a statement: controls (NUL, CR, LF, ESC…), line and paragraph
/// separators, the bidirectional overrides that make text read differently than it runs, and the
/// zero-width ones a reader cannot see at all.
pub(crate) fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// Why a value cannot go into a statement, or None when it can.
pub fn refusal(value: &str) -> Option<String> {
    value.chars().find(|&c| unprintable(c)).map(|c| format!("it contains the invisible character U+{:04X}", c as u32))
}

/// An identifier part: as is when it is a plain name, else in backticks with backticks doubled.
pub fn ident(part: &str) -> Option<String> {
    if refusal(part).is_some() || part.is_empty() {
        return None;
    }
    let plain = part.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    Some(if plain { part.to_string() } else { format!("`{}`", part.replace('`', "``")) })
}

/// A multi-part identifier (`db.events`, parts already split).
pub fn multipart(parts: &[&str]) -> Option<String> {
    parts.iter().map(|p| ident(p)).collect::<Option<Vec<_>>>().map(|v| v.join("."))
}

/// A string literal in single quotes: Spark's lexer reads `\` as an escape inside it.
pub fn string(value: &str) -> Option<String> {
    if refusal(value).is_some() {
        return None;
    }
    Some(format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'")))
}

/// A string literal in double quotes (Spark accepts both), for SQL text that itself holds single quotes.
pub fn string_dq(value: &str) -> Option<String> {
    if refusal(value).is_some() {
        return None;
    }
    Some(format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\"")))
}

/// `TIMESTAMP '2026-08-03 14:05:09'` for milliseconds since the epoch, or None outside years 1–9999
/// (Spark's range; a writer's clock can say anything).
pub fn timestamp(ms: i64) -> Option<String> {
    use chrono::Datelike;
    let t = chrono::DateTime::from_timestamp_millis(ms)?;
    (1..=9999).contains(&t.year()).then(|| format!("TIMESTAMP '{}'", t.format("%Y-%m-%d %H:%M:%S")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_end_a_statement() {
        assert_eq!(ident("events").as_deref(), Some("events"));
        assert_eq!(ident("ev ents").as_deref(), Some("`ev ents`"));
        assert_eq!(ident("a`); DROP TABLE x; --").as_deref(), Some("`a``); DROP TABLE x; --`"));
        assert_eq!(string("db.t'); CALL x.system.expire_snapshots('y'); --").as_deref(), Some("'db.t\\'); CALL x.system.expire_snapshots(\\'y\\'); --'"));
        assert_eq!(string("a\\'b").as_deref(), Some("'a\\\\\\'b'"));
        assert_eq!(string_dq("ts\" >= 0 OR \"1").as_deref(), Some("\"ts\\\" >= 0 OR \\\"1\""));
        assert_eq!(string("line\nbreak"), None);
        assert_eq!(ident("rtl\u{202E}txt"), None);
        assert!(refusal("nul\0").is_some());
    }

    #[test]
    fn timestamps_outside_spark_range_are_refused() {
        assert_eq!(timestamp(0).as_deref(), Some("TIMESTAMP '1970-01-01 00:00:00'"));
        assert_eq!(timestamp(253_402_300_800_000), None); // 10000-01-01
        assert_eq!(timestamp(i64::MIN), None);
        assert_eq!(timestamp(-62_135_596_800_001), None); // before 0001-01-01
    }
}
