//! The time-scaling and product transforms (Hansen et al. eq. (1)): hand-computed examples,
//! then properties checked against the exact distribution (a list of real impulses).
//!
//! The stated bound (module docs of `pmf::transform`): mass conserved, mean exact, variance
//! inflated by at most 1/4 tick², and `P(Y <= t) <= P(Y' <= t) <= P(Y < t + 1)` at every tick.

use pmf::transform::{product, scale_time};
use pmf::{Pmf, PmfError};
use proptest::prelude::*;

use crate::check::{check_pmf, pmf};

/// Floating-point slack of the comparisons (the bound itself is exact).
const FP: f64 = 1e-9;

/// The exact distribution of a transformed variable: real positions and their masses.
fn exact(points: impl IntoIterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut v: Vec<(f64, f64)> = points.into_iter().collect();
    v.sort_by(|x, y| x.0.total_cmp(&y.0));
    v
}

/// Checks the error bound of the module docs: the discrete `d` against the exact `e` (sorted).
fn check_bound(d: &Pmf, e: &[(f64, f64)]) -> Result<(), String> {
    let mean_e: f64 = e.iter().map(|(y, m)| y * m).sum();
    let var_e: f64 = e.iter().map(|(y, m)| (y - mean_e).powi(2) * m).sum();
    let scale = 1.0 + mean_e.abs();
    if (d.mean() - mean_e).abs() > FP * scale {
        return Err(format!("mean {} vs exact {}", d.mean(), mean_e));
    }
    if d.variance() > var_e + 0.25 + FP * scale * scale || d.variance() < var_e - FP * scale * scale
    {
        return Err(format!(
            "variance {} outside [{}, {} + 1/4]",
            d.variance(),
            var_e,
            var_e
        ));
    }
    // `e` is sorted: walk the ticks with two running sums.
    let (mut i_le, mut at_most, mut i_lt, mut below_next) = (0, 0.0, 0, 0.0);
    let mut f = 0.0;
    for t in d.min() - 2..=d.max() + 2 {
        let tf = t as f64;
        while i_le < e.len() && e[i_le].0 <= tf {
            at_most += e[i_le].1;
            i_le += 1;
        }
        while i_lt < e.len() && e[i_lt].0 < tf + 1.0 {
            below_next += e[i_lt].1;
            i_lt += 1;
        }
        f += d.mass_at(t);
        if f < at_most - FP || f > below_next + FP {
            return Err(format!(
                "CDF at {t} is {f}, outside [P(Y <= t), P(Y < t+1)] = [{at_most}, {below_next}]"
            ));
        }
    }
    Ok(())
}

#[test]
fn scaling_by_a_speedup_of_two_halves_every_time() {
    // 10 -> 5, 11 -> 5.5 (half on 5, half on 6), 12 -> 6.
    let t = pmf(&[(10, 0.2), (11, 0.4), (12, 0.4)]);
    let p = scale_time(&t, 0.5).unwrap();
    check_pmf(&p);
    // tick 5: 0.2 + 0.4/2 = 0.4; tick 6: 0.4/2 + 0.4 = 0.6.
    assert_eq!(p.min(), 5);
    assert!((p.mass_at(5) - 0.4).abs() < 1e-12 && (p.mass_at(6) - 0.6).abs() < 1e-12);
    // Mean 11.2 / 2 = 5.6 = 5 * 0.4 + 6 * 0.6.
    assert!((p.mean() - 5.6).abs() < 1e-12);
}

#[test]
fn scaling_by_one_is_the_identity_and_stretching_keeps_the_grid() {
    let t = pmf(&[(3, 0.5), (7, 0.5)]);
    assert_eq!(scale_time(&t, 1.0).unwrap(), t);
    let s = scale_time(&t, 3.0).unwrap();
    assert_eq!(s.iter().collect::<Vec<_>>(), vec![(9, 0.5), (21, 0.5)]);
}

#[test]
fn a_third_splits_mass_by_the_fractional_part() {
    // 10 / 3 = 3.333..: 2/3 on 3 and 1/3 on 4; mean exactly 10/3.
    let p = scale_time(&Pmf::point(10), 1.0 / 3.0).unwrap();
    assert!((p.mass_at(3) - 2.0 / 3.0).abs() < 1e-12);
    assert!((p.mass_at(4) - 1.0 / 3.0).abs() < 1e-12);
    assert!((p.mean() - 10.0 / 3.0).abs() < 1e-12);
}

#[test]
fn product_of_time_and_slowdown_by_hand() {
    // Time {4: 0.5, 6: 0.5}, slowdown {1.0: 0.6, 1.25: 0.4} held at 4 ticks per unit (4, 5).
    // Products: 4*1=4 (0.3), 4*1.25=5 (0.2), 6*1=6 (0.3), 6*1.25=7.5 (0.2: 0.1 on 7, 0.1 on 8).
    let t = pmf(&[(4, 0.5), (6, 0.5)]);
    let s = pmf(&[(4, 0.6), (5, 0.4)]);
    let x = product(&t, &s, 0.25).unwrap();
    check_pmf(&x);
    let want = [(4, 0.3), (5, 0.2), (6, 0.3), (7, 0.1), (8, 0.1)];
    for (tick, m) in want {
        assert!(
            (x.mass_at(tick) - m).abs() < 1e-12,
            "tick {tick}: {}",
            x.mass_at(tick)
        );
    }
    // E[T] E[S] = 5 * 1.1 = 5.5.
    assert!((x.mean() - 5.5).abs() < 1e-12);
}

#[test]
fn product_with_a_point_mass_is_scaling() {
    let t = pmf(&[(10, 0.25), (13, 0.5), (17, 0.25)]);
    let via_product = product(&t, &Pmf::point(3), 0.5).unwrap();
    let via_scale = scale_time(&t, 1.5).unwrap();
    assert_eq!(via_product, via_scale);
}

#[test]
fn a_product_with_time_zero_is_zero_whatever_the_scale() {
    // 0 x (-2^52) x 1.6e295: the other factor's ticks overflow to -inf once scaled, but the
    // product is 0 (found by the `api` fuzz target: a NaN deposit, a PMF of total 0).
    let zero = Pmf::point(0);
    let far = Pmf::point(pmf::MIN_TICK);
    for (a, b) in [(&zero, &far), (&far, &zero)] {
        let p = product(a, b, 1.571833427366132e295).expect("the product is 0");
        assert_eq!((p.min(), p.masses()), (0, &[1.0][..]));
    }
}

#[test]
fn invalid_factors_are_typed_errors() {
    let t = pmf(&[(1, 1.0)]);
    for f in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(scale_time(&t, f), Err(PmfError::InvalidScale(_))));
        assert!(matches!(product(&t, &t, f), Err(PmfError::InvalidScale(_))));
    }
    assert!(matches!(
        scale_time(&Pmf::point(1 << 40), 1e9),
        Err(PmfError::TimeOutOfRange(_))
    ));
    assert!(matches!(
        scale_time(&pmf(&[(0, 0.5), (1 << 20, 0.5)]), 1e3),
        Err(PmfError::TooWide { .. })
    ));
}

/// A valid PMF on `[offset, offset + len)` with interior zeros.
fn arb_pmf(max_len: usize, offsets: std::ops::Range<i64>) -> impl Strategy<Value = Pmf> {
    (
        offsets,
        prop::collection::vec(prop_oneof![3 => 0.001f64..1.0, 1 => Just(0.0)], 1..=max_len),
    )
        .prop_map(|(offset, mut w)| {
            w[0] = w[0].max(0.01);
            let n = w.len();
            w[n - 1] = w[n - 1].max(0.01);
            Pmf::from_weights(0, w)
                .expect("generator makes valid weights")
                .shift(offset)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn scaling_conserves_mass_and_divides_the_mean(p in arb_pmf(40, -50..500), s in 1.0f64..64.0) {
        let q = scale_time(&p, 1.0 / s).unwrap();
        check_pmf(&q);
        let e = exact(p.iter().map(|(t, m)| (t as f64 / s, m)));
        if let Err(msg) = check_bound(&q, &e) {
            prop_assert!(false, "speedup {}: {}", s, msg);
        }
        prop_assert!((q.mean() - p.mean() / s).abs() < FP * (1.0 + p.mean().abs()), "mean not divided by S");
    }

    #[test]
    fn stretching_keeps_the_bound(p in arb_pmf(30, -20..200), c in 0.05f64..7.0) {
        let q = scale_time(&p, c).unwrap();
        check_pmf(&q);
        let e = exact(p.iter().map(|(t, m)| (t as f64 * c, m)));
        if let Err(msg) = check_bound(&q, &e) {
            prop_assert!(false, "factor {}: {}", c, msg);
        }
    }

    #[test]
    fn product_conserves_mass_and_multiplies_the_means(a in arb_pmf(25, 0..300),
                                                       b in arb_pmf(25, 50..200),
                                                       r in prop_oneof![Just(1.0f64), Just(10.0), Just(100.0), 1.0f64..50.0]) {
        let x = product(&a, &b, 1.0 / r).unwrap();
        // `check_invariants`, not the O(span²) `check_pmf`: the span reaches 60 000 ticks.
        prop_assert!(x.check_invariants().is_ok(), "{:?}", x.check_invariants());
        let want = a.mean() * b.mean() / r;
        prop_assert!((x.mean() - want).abs() < FP * (1.0 + want), "mean {} vs E[X]E[Y]/r = {}", x.mean(), want);
        let e = exact(a.iter().flat_map(|(ta, ma)| {
            b.iter().map(move |(tb, mb)| (ta as f64 * tb as f64 / r, ma * mb))
        }));
        if let Err(msg) = check_bound(&x, &e) {
            prop_assert!(false, "grid {}: {}", r, msg);
        }
    }

    #[test]
    fn product_is_commutative_within_the_bound(a in arb_pmf(15, -30..60), b in arb_pmf(15, -30..60)) {
        let ab = product(&a, &b, 0.1).unwrap();
        let ba = product(&b, &a, 0.1).unwrap();
        // Same exact positions, same split: equal up to floating-point rounding.
        for t in ab.min().min(ba.min())..=ab.max().max(ba.max()) {
            prop_assert!((ab.cdf_tick(t) - ba.cdf_tick(t)).abs() < FP);
        }
    }
}
