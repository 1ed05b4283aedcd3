//! A shared invariant checker (after statrs' `check_sum_pmf_is_cdf`).

use pmf::Pmf;

/// Every mass in [0, 1], total 1, running sum equals the CDF, including a few ticks past
/// both ends of the support to catch off-by-one errors.
pub(crate) fn check_pmf(p: &Pmf) {
    p.check_invariants()
        .unwrap_or_else(|e| panic!("invariant broken: {e} in {p:?}"));
    let mut acc = 0.0;
    for t in p.min() - 3..=p.max() + 3 {
        let m = p.mass_at(t);
        assert!((0.0..=1.0 + 1e-12).contains(&m), "mass {m} at {t}");
        acc += m;
        let cdf = p.cdf_tick(t);
        assert!(
            (cdf - acc.min(1.0)).abs() < 1e-9,
            "cdf({t}) = {cdf}, running sum {acc}"
        );
        assert!(
            (p.prob_before(t + 1) - cdf).abs() < 1e-12,
            "P(X < t+1) != P(X <= t) at {t}"
        );
    }
    assert_eq!(p.cdf_tick(p.min() - 1), 0.0);
    assert_eq!(p.cdf_tick(p.max()), 1.0);
}

/// Asserts that two PMFs are equal bin by bin within `eps`.
pub(crate) fn assert_pmf_eq(a: &Pmf, b: &Pmf, eps: f64) {
    let lo = a.min().min(b.min());
    let hi = a.max().max(b.max());
    for t in lo..=hi {
        let (x, y) = (a.mass_at(t), b.mass_at(t));
        assert!(
            (x - y).abs() <= eps,
            "at tick {t}: {x} vs {y}\n a = {a:?}\n b = {b:?}"
        );
    }
}

/// Builds a PMF from explicit (tick, mass) pairs that sum to 1.
pub(crate) fn pmf(pairs: &[(i64, f64)]) -> Pmf {
    Pmf::from_pairs(pairs.iter().copied())
        .expect("valid test PMF")
        .pmf
}
