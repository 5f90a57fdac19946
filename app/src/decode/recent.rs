//! A few values remembered for sharing: consecutive records of a writer repeat the same partition
//! tuple, field names and summary keys, and one `Arc` of each serves them all. The list is short and
//! bounded, so a hostile file with ever-new values costs a bounded search, not a growing table.

/// The remembered value `matches` picks (now the most recent), or `make()`'s, remembered in place of
/// the least recent once `max` are held.
pub(crate) fn shared<T: Clone>(recent: &mut Vec<T>, max: usize, matches: impl Fn(&T) -> bool, make: impl FnOnce() -> T) -> T {
    if let Some(at) = recent.iter().position(matches) {
        let v = recent.remove(at);
        recent.push(v.clone());
        return v;
    }
    let v = make();
    if recent.len() >= max.max(1) {
        recent.remove(0);
    }
    recent.push(v.clone());
    v
}

#[cfg(test)]
mod tests {
    use super::shared;

    #[test]
    fn keeps_the_most_recent_and_evicts_the_least() {
        let mut recent = Vec::new();
        for v in [1, 2, 3] {
            assert_eq!(shared(&mut recent, 3, |x| *x == v, || v), v);
        }
        assert_eq!(shared(&mut recent, 3, |x| *x == 1, || 99), 1, "found, not made");
        assert_eq!(recent, vec![2, 3, 1]);
        assert_eq!(shared(&mut recent, 3, |x| *x == 4, || 4), 4);
        assert_eq!(recent, vec![3, 1, 4], "2 was the least recent");
    }
}
