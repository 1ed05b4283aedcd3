//! Downey's speedup model (§II-B2), against hand-computed values.

use moldable::{Downey, MoldableError};
use proptest::prelude::*;

use crate::common::EPS;

#[test]
fn zero_variance_is_linear_up_to_the_average_parallelism() {
    let d = Downey::new(4.0, 0.0).unwrap();
    for (k, s) in [(1, 1.0), (2, 2.0), (4, 4.0), (5, 4.0), (100, 4.0)] {
        assert!((d.speedup(k) - s).abs() < EPS, "S({k}) = {}", d.speedup(k));
    }
}

#[test]
fn low_variance_by_hand() {
    // A = 4, sigma = 0.5.
    let d = Downey::new(4.0, 0.5).unwrap();
    // n <= A: S(2) = 4*2 / (4 + 0.5*1/2) = 8 / 4.25.
    assert!((d.speedup(2) - 8.0 / 4.25).abs() < EPS);
    // A <= n <= 2A-1: S(6) = 4*6 / (0.5*3.5 + 6*0.75) = 24 / 6.25 = 3.84.
    assert!((d.speedup(6) - 3.84).abs() < EPS);
    // n = 2A - 1 = 7 reaches A: 28 / (1.75 + 5.25) = 4.
    assert!((d.speedup(7) - 4.0).abs() < EPS);
    assert!((d.speedup(50) - 4.0).abs() < EPS);
}

#[test]
fn high_variance_by_hand() {
    // A = 4, sigma = 2: S(n) = 12 n / (2 (n + 3) + 4) up to n = A + A sigma - sigma = 10.
    let d = Downey::new(4.0, 2.0).unwrap();
    assert!((d.speedup(2) - 24.0 / 14.0).abs() < EPS);
    assert!((d.speedup(10) - 4.0).abs() < EPS);
    assert!((d.speedup(11) - 4.0).abs() < EPS);
}

#[test]
fn invalid_parameters_are_typed_errors() {
    for (a, s) in [
        (0.5, 0.0),
        (f64::NAN, 1.0),
        (4.0, -0.1),
        (4.0, f64::INFINITY),
    ] {
        assert!(matches!(
            Downey::new(a, s),
            Err(MoldableError::InvalidParameter { .. })
        ));
    }
}

proptest! {
    #[test]
    fn speedup_is_one_at_one_non_decreasing_and_bounded(a in 1.0f64..200.0, sigma in 0.0f64..4.0) {
        let d = Downey::new(a, sigma).unwrap();
        prop_assert!((d.speedup(1) - 1.0).abs() < EPS, "S(1) = {}", d.speedup(1));
        let mut last = 1.0;
        for k in 1..=512u32 {
            let s = d.speedup(k);
            prop_assert!(s >= last - EPS, "S decreases at {}: {} < {}", k, s, last);
            prop_assert!(s <= a + EPS && s <= f64::from(k) + EPS, "S({}) = {} above min(A, k)", k, s);
            last = s;
        }
    }

    #[test]
    fn the_two_branches_meet_at_sigma_one(a in 1.0f64..100.0, n in 1.0f64..300.0) {
        let lo = Downey::new(a, 1.0 - 1e-12).unwrap().speedup_f64(n);
        let hi = Downey::new(a, 1.0 + 1e-12).unwrap().speedup_f64(n);
        prop_assert!((lo - hi).abs() < 1e-6, "{} vs {}", lo, hi);
    }

    #[test]
    fn speedup_is_continuous_at_the_breakpoints(a in 1.0f64..100.0, sigma in 0.0f64..3.0) {
        let d = Downey::new(a, sigma).unwrap();
        let points = [a, 2.0 * a - 1.0, a + a * sigma - sigma];
        for p in points.into_iter().filter(|&p| p > 1.0) {
            let (l, r) = (d.speedup_f64(p - 1e-9), d.speedup_f64(p + 1e-9));
            prop_assert!((l - r).abs() < 1e-6, "jump at {}: {} vs {}", p, l, r);
        }
    }
}
