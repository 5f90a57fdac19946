//! Commit times as text, and the calendar arithmetic of time partitions: chrono's (the build has it
//! through arrow). A time read from a file can be anywhere in i64; past chrono's calendar it is
//! shown as its number, never wrapped into a wrong date.

use chrono::{DateTime, NaiveDate, SecondsFormat, TimeDelta};

/// A commit time kept as its milliseconds and written as `rfc3339_ms` text (JSON included): a
/// day of commits keeps 17,280 per report, and the text is three times the size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rfc3339Ms(pub i64);

impl std::fmt::Display for Rfc3339Ms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&rfc3339_ms(self.0))
    }
}

impl serde::Serialize for Rfc3339Ms {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `2026-08-03T14:05:09.123Z` for milliseconds since the Unix epoch, UTC. chrono's calendar ends
/// near year ±262,000, well inside i64 milliseconds: a writer's clock past it is shown as its number.
pub fn rfc3339_ms(ms: i64) -> String {
    match DateTime::from_timestamp_millis(ms) {
        Some(t) => t.to_rfc3339_opts(SecondsFormat::Millis, true),
        None => format!("{ms} ms after 1970-01-01 (past the calendar)"),
    }
}

/// `2026-08-03` for days since the epoch (the `day` partition transform's value).
pub fn date_of_days(days: i64) -> String {
    match TimeDelta::try_days(days).and_then(|d| epoch_date().checked_add_signed(d)) {
        Some(d) => d.format("%Y-%m-%d").to_string(),
        _ => format!("day {days} after 1970-01-01 (past the calendar)"),
    }
}

/// Days since the epoch of the first day of `month` (1–12) of `year`; None outside the calendar.
pub fn days_of_month_start(year: i64, month: u32) -> Option<i64> {
    let d = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, 1)?;
    Some(d.signed_duration_since(epoch_date()).num_days())
}

fn epoch_date() -> NaiveDate {
    DateTime::UNIX_EPOCH.date_naive()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants() {
        assert_eq!(rfc3339_ms(0), "1970-01-01T00:00:00.000Z");
        // 2024-02-29T12:34:56.789Z, a leap day, computed by `date -u -d @1709210096`.
        assert_eq!(rfc3339_ms(1_709_210_096_789), "2024-02-29T12:34:56.789Z");
        assert_eq!(date_of_days(-1), "1969-12-31");
        assert_eq!(date_of_days(20_790), "2026-12-03");
        assert_eq!(rfc3339_ms(-1), "1969-12-31T23:59:59.999Z");
    }

    #[test]
    fn times_past_the_calendar_are_numbers_not_wrong_dates() {
        // Year 10000 is still a date (ISO 8601's expanded years carry a sign).
        assert_eq!(rfc3339_ms(253_402_300_800_000), "+10000-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_ms(i64::MAX), "9223372036854775807 ms after 1970-01-01 (past the calendar)");
        assert_eq!(rfc3339_ms(i64::MIN), "-9223372036854775808 ms after 1970-01-01 (past the calendar)");
        assert_eq!(date_of_days(1 << 50), "day 1125899906842624 after 1970-01-01 (past the calendar)");
        assert_eq!(date_of_days(i64::MIN), "day -9223372036854775808 after 1970-01-01 (past the calendar)");
        assert_eq!(days_of_month_start(1970, 1), Some(0));
        assert_eq!(days_of_month_start(2000, 3), Some(11_017));
        assert_eq!(days_of_month_start(i64::MAX, 1), None);
    }
}
