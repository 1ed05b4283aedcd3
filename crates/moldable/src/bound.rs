//! The upper bound on robustness (Hansen et al. §IV-E, eq. (5)).

use crate::robustness::Instance;

/// Eq. (5): `B = min_i max_j P(i, (j, n_j))`: each application alone on the whole of its best
/// processor type. No allocation can have `Psi(I) > B`, since `P(i, (j, k))` is
/// non-decreasing in `k` (Downey's speedup is) and `k <= n_j`.
pub fn upper_bound(inst: &Instance) -> f64 {
    let counts = inst.counts();
    (0..inst.n_apps())
        .map(|i| {
            counts
                .iter()
                .enumerate()
                .map(|(j, &n)| inst.prob(i, j, n))
                .fold(0.0, f64::max)
        })
        .fold(1.0, f64::min)
}

/// `B_norm = (B - Psi) / B` (§V); 0 when `B = 0`.
pub fn normalised_gap(bound: f64, psi: f64) -> f64 {
    if bound > 0.0 {
        (bound - psi) / bound
    } else {
        0.0
    }
}
