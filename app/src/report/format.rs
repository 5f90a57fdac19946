//! How numbers and lists read in every report: one formatter each, used by every surface.

/// 12345 → "12,345": evidence is read by people.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `items` (the first `analysis::findings::CAP` of `total`) joined with `, `, then how many were
/// left out (`… and 7 more jobs`): the one place a list in words is capped.
pub fn capped_list(items: impl Iterator<Item = String>, total: usize, what: &str) -> String {
    let shown: Vec<String> = items.take(crate::analysis::findings::CAP).collect();
    let more = total.saturating_sub(shown.len());
    if more == 0 {
        shown.join(", ")
    } else {
        format!("{} and {} more {what}", shown.join(", "), thousands(more as u64))
    }
}

/// `s` when `n` is not one: `file{}`.
pub fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `3d02fc1a…`: a Flink job id as findings name it, its first eight characters.
pub fn short_job(job: &str) -> String {
    format!("{}…", job.chars().take(8).collect::<String>())
}

/// `90 s`, `45 min`, `2.5 h`: how long, to the unit a finding needs (a lateness, a gap between
/// commits); the live ticker's clock-like `duration` is `report::live::duration`.
pub fn duration_coarse(ms: i64) -> String {
    let s = ms / 1000;
    match s {
        s if s < 120 => format!("{s} s"),
        s if s < 7200 => format!("{} min", s / 60),
        s => format!("{:.1} h", s as f64 / 3600.0),
    }
}

/// `8 MB`, `512 KB`, `1000 bytes`: a size setting as it was most likely typed, in the largest
/// unit it is a whole number of.
pub fn bytes_setting(n: i64) -> String {
    match n {
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KB", n >> 10),
        n => format!("{n} bytes"),
    }
}
