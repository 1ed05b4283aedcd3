//! Identical columns of a matrix of PMFs: the copies of a machine in a PET (task types x
//! machines), which the search reads once (`workload::Pet::canonical`) and an online
//! estimator learns as one (`learn::Options::pool_copies`).

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::Pmf;

/// Per column of the `rows x cols` matrix whose cell `(r, c)` is `cell(r, c)`, the first
/// column equal to it in every row, bit for bit: `first[c] <= c`, and `first[c] == c` for
/// the first of each group. Columns are bucketed by a hash of their PMFs and compared
/// exactly within a bucket, so the cost is one pass over the matrix plus the comparisons
/// of equal-hash columns.
pub fn first_copies<'a>(
    rows: usize,
    cols: usize,
    cell: impl Fn(usize, usize) -> &'a Pmf,
) -> Vec<usize> {
    let mut seen: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut first = Vec::with_capacity(cols);
    for c in 0..cols {
        let mut h = DefaultHasher::new();
        for r in 0..rows {
            let p = cell(r, c);
            p.offset().hash(&mut h);
            p.masses().len().hash(&mut h);
            for x in p.masses() {
                x.to_bits().hash(&mut h);
            }
        }
        let bucket = seen.entry(h.finish()).or_default();
        let same = |f: usize| (0..rows).all(|r| cell(r, f) == cell(r, c));
        match bucket.iter().copied().find(|&f| same(f)) {
            Some(f) => first.push(f),
            None => {
                bucket.push(c);
                first.push(c);
            }
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_columns_point_at_the_first_of_them() {
        let a = Pmf::point(3);
        let b = Pmf::new(1, vec![0.5, 0.5]).unwrap();
        // Two rows, five columns: 0, 2 and 4 equal; 1 and 3 differ in row 1 only.
        let m = [[&a, &a, &a, &a, &a], [&b, &a, &b, &Pmf::point(4), &b]];
        assert_eq!(first_copies(2, 5, |r, c| m[r][c]), vec![0, 1, 0, 3, 0]);
        assert_eq!(
            first_copies(0, 3, |_, _| &a),
            vec![0, 0, 0],
            "no rows: all equal"
        );
        assert!(first_copies(2, 0, |r, c| m[r][c]).is_empty());
    }
}
