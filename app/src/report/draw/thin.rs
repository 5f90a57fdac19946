//! Lines of more points than the picture has pixel columns, thinned to what those columns show:
//! for each column its first, lowest, highest and last point, in order (M4). A day's 17,280
//! snapshots drawn into a ticket's ~1,400 half-pixel columns look the same from at most 5,600
//! points (a rising line keeps about two a column).

/// `run` thinned to at most four points per column of `columns` spread over `x`; as it is where it
/// has no more than that.
pub fn to_columns(run: &[(f64, f64)], x: (f64, f64), columns: usize) -> Vec<(f64, f64)> {
    let span = x.1 - x.0;
    if columns == 0 || run.len() <= 4 * columns || span.is_nan() || span <= 0.0 {
        return run.to_vec();
    }
    let column = |px: f64| ((((px - x.0) / span) * columns as f64).floor().max(0.0) as usize).min(columns - 1);
    let mut out = Vec::with_capacity(4 * columns);
    let mut i = 0;
    while i < run.len() {
        let (first, c) = (i, column(run[i].0));
        let (mut low, mut high) = (i, i);
        while i < run.len() && column(run[i].0) == c {
            if run[i].1 < run[low].1 {
                low = i;
            }
            if run[i].1 > run[high].1 {
                high = i;
            }
            i += 1;
        }
        let mut keep = [first, low, high, i - 1];
        keep.sort_unstable();
        for (k, &at) in keep.iter().enumerate() {
            if k == 0 || keep[k - 1] != at {
                out.push(run[at]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::to_columns;

    /// Per column: (first, lowest, highest, last) y.
    fn columns_of(run: &[(f64, f64)], columns: usize) -> Vec<(f64, f64, f64, f64)> {
        let mut out: Vec<Option<(f64, f64, f64, f64)>> = vec![None; columns];
        for &(x, y) in run {
            let c = ((x / 1000.0 * columns as f64).floor() as usize).min(columns - 1);
            out[c] = Some(match out[c] {
                None => (y, y, y, y),
                Some((f, lo, hi, _)) => (f, lo.min(y), hi.max(y), y),
            });
        }
        out.into_iter().flatten().collect()
    }

    #[test]
    fn every_column_keeps_its_first_lowest_highest_and_last_point_in_order() {
        // A saw with spikes: 17,280 points over x 0..1000, drawn into 700 columns.
        let run: Vec<(f64, f64)> =
            (0..17_280).map(|i| (i as f64 * 1000.0 / 17_279.0, ((i * 7919) % 1013) as f64 + if i % 997 == 0 { 5000.0 } else { 0.0 })).collect();
        let thin = to_columns(&run, (0.0, 1000.0), 700);
        assert!(thin.len() <= 4 * 700 && thin.len() < run.len() / 6, "{} points", thin.len());
        assert_eq!(columns_of(&thin, 700), columns_of(&run, 700));
        assert!(thin.windows(2).all(|w| w[1].0 >= w[0].0), "x stays in order");
        assert!(thin.iter().all(|p| run.contains(p)), "only points of the line");
    }

    #[test]
    fn a_line_with_few_points_or_no_width_is_left_as_it_is() {
        let run: Vec<(f64, f64)> = (0..100).map(|i| (i as f64, (i % 7) as f64)).collect();
        assert_eq!(to_columns(&run, (0.0, 99.0), 700), run);
        assert_eq!(to_columns(&run, (0.0, 99.0), 0), run);
        assert_eq!(to_columns(&run, (5.0, 5.0), 10), run);
    }
}
