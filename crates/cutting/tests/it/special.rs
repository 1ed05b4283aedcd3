//! Special functions against published values (Abramowitz and Stegun tables).

use cutting::special::{erfc, gamma, gamma_p, gamma_q, ln_gamma, normal_sf};

use crate::prec::SPECIAL;

#[test]
fn gamma_function_matches_known_values() {
    assert!((gamma(5.0) - 24.0).abs() < 24.0 * SPECIAL);
    assert!((gamma(0.5) - std::f64::consts::PI.sqrt()).abs() < SPECIAL);
    // Gamma(1/3) = 2.678938534707747...
    assert!((gamma(1.0 / 3.0) - 2.678_938_534_707_747_6).abs() < 1e-12);
    assert!((ln_gamma(100.0) - 359.134_205_369_575_4).abs() < 1e-10);
    assert!(ln_gamma(0.0).is_nan() && ln_gamma(-1.0).is_nan() && ln_gamma(f64::NAN).is_nan());
}

#[test]
fn incomplete_gamma_matches_closed_forms() {
    // a = 1: P(1, x) = 1 - e^{-x}; a = 2: P(2, x) = 1 - (1 + x) e^{-x}.
    for x in [0.001, 0.3, 1.0, 2.5, 7.0, 30.0] {
        assert!(
            (gamma_p(1.0, x) - (1.0 - (-x).exp())).abs() < SPECIAL,
            "P(1, {x})"
        );
        assert!(
            (gamma_q(2.0, x) - (1.0 + x) * (-x).exp()).abs() < SPECIAL,
            "Q(2, {x})"
        );
        assert!((gamma_p(0.7, x) + gamma_q(0.7, x) - 1.0).abs() < SPECIAL);
    }
    assert_eq!(gamma_p(2.0, 0.0), 0.0);
    assert_eq!(gamma_q(2.0, f64::INFINITY), 0.0);
    assert!(gamma_p(-1.0, 1.0).is_nan() && gamma_q(1.0, -1.0).is_nan());
}

#[test]
fn erfc_and_normal_tail_match_tables() {
    // erfc(1) = 0.157299207050285..., erfc(-1) = 1.842700792949715...
    assert!((erfc(1.0) - 0.157_299_207_050_285_13).abs() < SPECIAL);
    assert!((erfc(-1.0) - 1.842_700_792_949_715).abs() < SPECIAL);
    assert_eq!(erfc(0.0), 1.0);
    // 1 - Phi(1.96) = 0.024997895148220...; 1 - Phi(5) = 2.866515718791939e-7 (no cancellation).
    assert!((normal_sf(1.96) - 0.024_997_895_148_220_4).abs() < SPECIAL);
    assert!((normal_sf(5.0) / 2.866_515_718_791_939e-7 - 1.0).abs() < 1e-12);
    assert!((normal_sf(-1.96) - (1.0 - 0.024_997_895_148_220_4)).abs() < SPECIAL);
}
