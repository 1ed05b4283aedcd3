//! Eq. (1), eq. (2) and Theorem 2 against hand-computed and published values.

use cutting::distributions::Distribution;
use cutting::yield_::{BimodalExp, continuous, discrete};
use proptest::prelude::*;

use crate::prec::{EXACT, PRINTED, QUADRATURE};

#[test]
fn eq1_on_the_toy_example_of_figure_2() {
    // Empirical distribution of figure 1: 5 and 16 with probability 1/2 each.
    let emp = [(5.0, 0.5), (16.0, 0.5)];
    // Y(5) = 0.5 / (0.5 * 5 + 0.5 * 5) = 0.1; Y(16) = 1 / 10.5.
    assert!((discrete(&emp, 5.0).unwrap() - 0.1).abs() < EXACT);
    assert!((discrete(&emp, 16.0).unwrap() - 1.0 / 10.5).abs() < EXACT);
    // Between two points the yield decreases: Y(10) = 0.5 / (2.5 + 5).
    assert!((discrete(&emp, 10.0).unwrap() - 0.5 / 7.5).abs() < EXACT);
    assert_eq!(discrete(&emp, 4.9).unwrap(), 0.0);
    assert!((discrete(&emp, f64::INFINITY).unwrap() - 1.0 / 10.5).abs() < EXACT);
    // Kaplan-Meier (section 5.2 rewrite): 1/3 at 5, 2/3 at 16.
    // Y(5) = (1/3) / (5/3 + 2/3 * 5) = 1/15; Y(16) = 1 / (5/3 + 32/3) = 3/37.
    let km = [(5.0, 1.0 / 3.0), (16.0, 2.0 / 3.0)];
    assert!((discrete(&km, 5.0).unwrap() - 1.0 / 15.0).abs() < EXACT);
    assert!((discrete(&km, 16.0).unwrap() - 3.0 / 37.0).abs() < EXACT);
}

#[test]
fn eq1_with_a_remainder_interrupts_it_at_the_threshold() {
    // 1/3 completes at 2, 2/3 survives beyond 10 (censored): Y(2) = (1/3) / (2/3 + 2/3 * 2).
    let pts = [(2.0, 1.0 / 3.0)];
    assert!((discrete(&pts, 2.0).unwrap() - (1.0 / 3.0) / 2.0).abs() < EXACT);
    // Never interrupting would wait forever for the remainder.
    assert_eq!(discrete(&pts, f64::INFINITY).unwrap(), 0.0);
}

#[test]
fn eq1_rejects_invalid_input() {
    assert!(discrete(&[(1.0, 0.5)], -1.0).is_err());
    assert!(discrete(&[(1.0, 0.5)], f64::NAN).is_err());
    assert!(discrete(&[(f64::NAN, 0.5)], 1.0).is_err());
    assert!(discrete(&[(1.0, -0.5)], 1.0).is_err());
    assert!(discrete(&[(1.0, 0.7), (2.0, 0.7)], 1.0).is_err());
}

#[test]
fn eq2_for_an_exponential_matches_its_closed_form() {
    // X = delta + Exp(1): F = 1 - e^{-l}, int S = delta + 1 - e^{-l}, l = tau - delta.
    let d = Distribution::Exp { lambda: 1.0 };
    for tau in [0.06, 0.3, 1.0, 4.0] {
        let l: f64 = tau - 0.05;
        let want = (1.0 - (-l).exp()) / (0.05 + 1.0 - (-l).exp());
        let got = continuous(&d, 0.05, tau).unwrap();
        assert!(
            (got - want).abs() < QUADRATURE,
            "tau {tau}: {got} vs {want}"
        );
    }
    assert!((continuous(&d, 0.05, f64::INFINITY).unwrap() - 1.0 / 1.05).abs() < EXACT);
    assert_eq!(continuous(&d, 0.05, 0.04).unwrap(), 0.0);
    assert!(continuous(&d, -0.1, 1.0).is_err());
    assert!(continuous(&Distribution::Exp { lambda: -1.0 }, 0.0, 1.0).is_err());
}

#[test]
fn eq2_by_quadrature_matches_the_bimodal_closed_form() {
    let d = Distribution::DoubleExp {
        lambda1: 10.0,
        lambda2: 1.0 / 1.9,
    };
    let b = BimodalExp {
        p: 0.5,
        lambda: 1.0 / 1.9,
        mu: 10.0,
        delta: 0.05,
    };
    for tau in [0.08, 0.18, 0.5, 3.0] {
        let (q, c) = (continuous(&d, 0.05, tau).unwrap(), b.yield_at(tau).unwrap());
        assert!((q - c).abs() < QUADRATURE, "tau {tau}: {q} vs {c}");
    }
}

#[test]
fn section_4_2_example_never_interrupting_yields_1_96() {
    let b = BimodalExp {
        p: 0.5,
        lambda: 1.0,
        mu: 50.0,
        delta: 0.001,
    };
    // 1 / (0.001 + 0.5 + 0.01) = 1.9569...
    let never = b.yield_at(f64::INFINITY).unwrap();
    assert!((never - 1.0 / 0.511).abs() < EXACT);
    assert!((never - 1.96).abs() < PRINTED);
}

#[test]
fn section_4_2_example_cutting_at_0_01_yields_about_20_35() {
    let b = BimodalExp {
        p: 0.5,
        lambda: 1.0,
        mu: 50.0,
        delta: 0.001,
    };
    // The paper's 20.35 is eq. (2) at l = tau - delta = 0.01 (the variable of Theorem 2):
    // F = 1 - 0.5 e^{-0.01} - 0.5 e^{-0.5} = 0.201710, int S = 0.001 + 0.004975 + 0.003935.
    let at_l = b.yield_at(0.011).unwrap();
    assert!((at_l - 20.355).abs() < 0.01, "{at_l}");
    // Read as tau = 0.01 (l = 0.009) it is 20.395: 0.2% from the printed value.
    let at_tau = b.yield_at(0.01).unwrap();
    assert!((at_tau - 20.395).abs() < 0.01, "{at_tau}");
    assert!(
        at_l / b.yield_at(f64::INFINITY).unwrap() > 10.0,
        "more than 10 times larger"
    );
}

#[test]
fn theorem2_finite_case_is_the_maximum_of_the_closed_form() {
    let b = BimodalExp {
        p: 0.5,
        lambda: 1.0,
        mu: 50.0,
        delta: 0.001,
    };
    let t = b.theorem2().unwrap();
    assert!(t.threshold.is_finite() && t.threshold > b.delta);
    assert!(b.theorem2_equation(t.threshold - b.delta).abs() < 1e-9);
    // No threshold on a fine grid does better.
    for k in 1..20_000 {
        let tau = b.delta + f64::from(k) * 1e-5;
        assert!(b.yield_at(tau).unwrap() <= t.yield_ + 1e-9, "tau {tau}");
    }
    assert!(t.yield_ > 20.35);
}

#[test]
fn theorem2_infinite_and_degenerate_cases() {
    // delta lambda p - p (1 - p) (mu - lambda) / mu >= 0: never interrupt.
    let b = BimodalExp {
        p: 0.5,
        lambda: 1.0 / 1.005,
        mu: 1.0 / 0.995,
        delta: 0.05,
    };
    let t = b.theorem2().unwrap();
    assert!(t.threshold.is_infinite());
    assert!((t.yield_ - 1.0 / 1.05).abs() < 1e-9);
    // A single mode with delta > 0: the condition reads delta lambda p >= 0.
    let single = BimodalExp {
        p: 1.0,
        lambda: 1.0,
        mu: 1.0,
        delta: 0.05,
    };
    assert!(single.theorem2().unwrap().threshold.is_infinite());
    // delta = 0, two modes: cut as early as possible, yield p lambda + (1 - p) mu.
    let zero = BimodalExp {
        p: 0.5,
        lambda: 1.0,
        mu: 50.0,
        delta: 0.0,
    };
    let t = zero.theorem2().unwrap();
    assert_eq!(t.threshold, 0.0);
    assert!((t.yield_ - 25.5).abs() < EXACT);
    assert!((zero.yield_at(1e-9).unwrap() - 25.5).abs() < 1e-3);
    // delta = 0, one mode: every threshold yields lambda.
    let one = BimodalExp {
        p: 0.3,
        lambda: 2.0,
        mu: 2.0,
        delta: 0.0,
    };
    assert_eq!(one.theorem2().unwrap().yield_, 2.0);
    assert!((one.yield_at(0.7).unwrap() - 2.0).abs() < EXACT);
    // Invalid parameters are errors.
    assert!(BimodalExp { p: 1.5, ..one }.theorem2().is_err());
    assert!(BimodalExp { lambda: 3.0, ..one }.theorem2().is_err());
    assert!(one.yield_at(-1.0).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Theorem 2 agrees with a brute-force maximisation of eq. (2) in closed form.
    #[test]
    fn theorem2_agrees_with_brute_force(p in 0.05f64..0.95, lambda in 0.1f64..2.0,
                                        ratio in 1.5f64..100.0, delta in 0.0005f64..0.2) {
        let b = BimodalExp { p, lambda, mu: lambda * ratio, delta };
        let t = b.theorem2().unwrap();
        let mut best = b.yield_at(f64::INFINITY).unwrap();
        let scale = 1.0 / lambda;
        for k in 1..4000 {
            let tau = delta + scale * (f64::from(k) / 4000.0).powi(3) * 40.0;
            best = best.max(b.yield_at(tau).unwrap());
        }
        prop_assert!(t.yield_ >= best * (1.0 - 1e-6), "theorem {:?} < brute force {}", t, best);
        prop_assert!(t.yield_ <= best * (1.0 + 1e-3) + 1e-12, "theorem {:?} >> brute force {}", t, best);
    }
}
