//! Series that lie on one another: each is found with the earlier one it equals at half its
//! points or more, and the chain is drawn thick to thin, each line visible inside the one before,
//! and the legend says so (`report::chart::coinciding`).

/// A drawn series (by its index among the candidates) and the earlier drawn one it lies on at
/// `shared` of `of` points.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    pub k: usize,
    pub same: Option<(usize, usize, usize)>,
    pub width: u32,
    /// The first series of its chain of coinciding ones (itself where it lies on none).
    pub root: usize,
}

/// `values[k]`: series k's value at each point; `keep(k)`: whether it is drawn at all.
pub fn drawn(values: &[Vec<Option<u64>>], keep: impl Fn(usize) -> bool) -> Vec<Drawn> {
    let mut out: Vec<Drawn> = Vec::new();
    for (k, v) in values.iter().enumerate() {
        if !keep(k) {
            continue;
        }
        let known = v.iter().filter(|c| c.is_some()).count();
        let shared = |j: usize| values.get(j).map_or(0, |w| v.iter().zip(w).filter(|(a, b)| a.is_some() && a == b).count());
        let same = out.iter().map(|d| (d.k, shared(d.k))).filter(|&(_, n)| known > 0 && 2 * n >= known).max_by_key(|&(_, n)| n).map(|(j, n)| (j, n, known));
        out.push(Drawn { k, same, width: 2, root: k });
    }
    // Thick to thin down each chain of coinciding series: (root, depth) of each.
    let mut chain: Vec<(usize, u32)> = Vec::with_capacity(out.len());
    for d in &out {
        let up = d.same.and_then(|(j, _, _)| out.iter().position(|x| x.k == j)).and_then(|p| chain.get(p).copied());
        chain.push(up.map_or((d.k, 0), |(root, depth)| (root, depth + 1)));
    }
    for (i, d) in out.iter_mut().enumerate() {
        let (root, depth) = chain.get(i).copied().unwrap_or((d.k, 0));
        let deepest = chain.iter().filter(|c| c.0 == root).map(|c| c.1).max().unwrap_or(0);
        d.width = 2 + 3 * (deepest - depth);
        d.root = root;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_lines_on_one_another_are_drawn_thick_to_thin_and_a_fourth_apart_stays_thin() {
        let v = vec![vec![Some(1), Some(2), Some(3)], vec![Some(1), Some(2), Some(9)], vec![Some(1), Some(2), Some(0)], vec![Some(5), Some(6), Some(7)]];
        let d = drawn(&v, |_| true);
        let got: Vec<(usize, Option<(usize, usize, usize)>, u32)> = d.iter().map(|d| (d.k, d.same, d.width)).collect();
        assert_eq!(got, vec![(0, None, 8), (1, Some((0, 2, 3)), 5), (2, Some((1, 2, 3)), 2), (3, None, 2)]);
        assert_eq!(d.iter().map(|d| d.root).collect::<Vec<_>>(), vec![0, 0, 0, 3]);
    }
}
