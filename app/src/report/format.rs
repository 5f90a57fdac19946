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

/// `12.3 s`, `4 min 10 s`, `2 h 5 min`: a duration as a person says it (the live ticker's
/// clock; a finding's coarser one is `duration_coarse`).
pub fn duration(ms: i64) -> String {
    let ms = ms.max(0);
    if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        format!("{} min {} s", ms / 60_000, ms % 60_000 / 1000)
    } else {
        format!("{} h {} min", ms / 3_600_000, ms % 3_600_000 / 60_000)
    }
}

/// `90 s`, `45 min`, `2.5 h`: how long, to the unit a finding needs (a lateness, a gap between
/// commits).
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

/// `3.2 MB`, `120 KB`: bytes read or written, to a tenth of a megabyte.
pub fn bytes(b: u64) -> String {
    if b >= 1 << 20 {
        format!("{:.1} MB", b as f64 / 1_048_576.0)
    } else {
        format!("{} KB", b / 1024)
    }
}

/// `1.5 MB`, `3.2 KB`, `512 bytes`, negative too: a size that may be small or a difference, to a
/// tenth of its unit.
pub fn bytes_precise(b: f64) -> String {
    match b.abs() {
        a if a >= 1_048_576.0 => format!("{:.1} MB", b / 1_048_576.0),
        a if a >= 1024.0 => format!("{:.1} KB", b / 1024.0),
        _ => format!("{} bytes", b.round()),
    }
}
