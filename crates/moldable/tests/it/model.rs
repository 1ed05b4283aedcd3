//! The model: distributions (§IV-B), slowdown (§IV-C), eq. (1), eq. (2), eq. (4), eq. (5).

use moldable::distributions::{
    CovParams, DENSITY_MIN_SD, GammaSpec, TAIL_EPS, cov_method, gamma_pmf, gamma_pmf_density,
};
use moldable::experiments::{Purpose, figure4_params, generate, stream};
use moldable::slowdown::{Availability, SlowdownCategory, type_availabilities};
use moldable::{Assignment, Instance, MoldableError, normalised_gap, upper_bound};
use pmf::Pmf;
use proptest::prelude::*;

use crate::common::{EPS, app, pmf, types, worked_example};

#[test]
fn eq4_makespan_goal_of_the_worked_example() {
    // (80/3 + 40/3 + 80/2 + 120/2) / 4 = 35 (see common::worked_example).
    let inst = worked_example();
    assert!((inst.goal() - 35.0).abs() < EPS, "Delta = {}", inst.goal());
    assert!((inst.average_processors() - 3.0).abs() < EPS);
    assert!((inst.mean_execution_time(1, 0, 3.0) - 40.0).abs() < EPS);
}

#[test]
fn probability_table_of_the_worked_example() {
    // P(i, (j, k)) = P(Z_ij <= 35 S_i(k)).
    let inst = worked_example();
    // App 0, type 0: 80 <= 35 k from k = 3.
    assert_eq!(inst.prob_row(0, 0), &[0.0, 0.0, 1.0, 1.0]);
    // App 0, type 1: 40 <= 35 k from k = 2.
    assert_eq!(inst.prob_row(0, 1), &[0.0, 1.0]);
    // App 1, type 0: {60, 100} vs 35, 70, 70, 70.
    assert_eq!(inst.prob_row(1, 0), &[0.0, 0.5, 0.5, 0.5]);
    // App 1, type 1: 120 vs 35, 70.
    assert_eq!(inst.prob_row(1, 1), &[0.0, 0.0]);
    assert_eq!(inst.prob(1, 0, 0), 0.0);
    assert_eq!(inst.prob(1, 0, 99), 0.5, "k beyond n_j reads as n_j");
    assert_eq!(inst.prob(7, 0, 1), 0.0, "unknown application");
}

#[test]
fn eq2_robustness_is_the_worst_application() {
    let inst = worked_example();
    let alloc = [
        Assignment { ptype: 1, procs: 2 },
        Assignment { ptype: 0, procs: 2 },
    ];
    // min(P(0, (1, 2)) = 1, P(1, (0, 2)) = 0.5) = 0.5.
    assert!((inst.robustness(&alloc).unwrap() - 0.5).abs() < EPS);
    let alloc = [
        Assignment { ptype: 0, procs: 3 },
        Assignment { ptype: 1, procs: 2 },
    ];
    assert_eq!(inst.robustness(&alloc).unwrap(), 0.0);
}

#[test]
fn invalid_allocations_are_typed_errors() {
    let inst = worked_example();
    let too_many = [
        Assignment { ptype: 0, procs: 3 },
        Assignment { ptype: 0, procs: 2 },
    ];
    let bad = [
        vec![Assignment { ptype: 0, procs: 1 }],
        too_many.to_vec(),
        vec![Assignment { ptype: 2, procs: 1 }; 2],
        vec![Assignment { ptype: 0, procs: 0 }; 2],
    ];
    for a in bad {
        assert!(matches!(
            inst.robustness(&a),
            Err(MoldableError::InvalidAllocation(_))
        ));
    }
}

#[test]
fn eq5_upper_bound_of_the_worked_example() {
    // B = min(max(P(0,(0,4)) = 1, P(0,(1,2)) = 1), max(P(1,(0,4)) = 0.5, P(1,(1,2)) = 0)).
    let inst = worked_example();
    assert!((upper_bound(&inst) - 0.5).abs() < EPS);
    assert!((normalised_gap(0.5, 0.4) - 0.2).abs() < EPS);
    assert_eq!(normalised_gap(0.0, 0.0), 0.0);
}

#[test]
fn eq1_slowdown_multiplies_and_speedup_divides() {
    // T = 60, slowdown 1.5 (tick 150), S(k) = k: X = 1.5 * 60 / k = 90 / k.
    let apps = vec![app(8.0, 0.0, vec![Pmf::point(60)])];
    let ty = vec![moldable::ProcessorType {
        count: 8,
        slowdown: Pmf::point(150),
    }];
    let inst = Instance::with_goal(apps, ty, 30.0).unwrap();
    let x = inst.final_execution_time(0, 0, 3).unwrap();
    assert_eq!(x, Pmf::point(30));
    // 90 / 4 = 22.5: split between 22 and 23.
    let x = inst.final_execution_time(0, 0, 4).unwrap();
    assert!((x.mean() - 22.5).abs() < EPS);
    // P(X <= 30) from k = 3 (90 / 3 = 30).
    assert_eq!(inst.prob_row(0, 0)[..4], [0.0, 0.0, 1.0, 1.0]);
}

#[test]
fn invalid_instances_are_typed_errors() {
    let one = || vec![app(2.0, 0.0, vec![Pmf::point(10)])];
    assert!(matches!(
        Instance::new(vec![], types(&[1])),
        Err(MoldableError::Inconsistent(_))
    ));
    assert!(matches!(
        Instance::new(one(), types(&[1, 2])),
        Err(MoldableError::Inconsistent(_))
    ));
    assert!(matches!(
        Instance::new(one(), types(&[0])),
        Err(MoldableError::Inconsistent(_))
    ));
    assert!(matches!(
        Instance::with_goal(one(), types(&[1]), -1.0),
        Err(MoldableError::InvalidParameter { .. })
    ));
}

#[test]
fn literal_eq1_agrees_with_the_tabulated_probabilities_within_the_bound() {
    // |X'' - Z / S(k)| < s_max + 2 ticks (two one-tick transforms, the slowdown multiplying
    // the first): P(Z <= (Delta - c) S) <= P_literal <= P(Z <= (Delta + c) S).
    let mut params = figure4_params();
    params.n_apps = 4;
    params.total_procs = 32;
    let inst = generate(&params, &mut stream(7, 0, 0, Purpose::Scenario)).unwrap();
    let delta = inst.goal();
    for i in 0..inst.n_apps() {
        for j in 0..inst.n_types() {
            let s_max = inst.types()[j].slowdown.max() as f64 / 100.0;
            let c = s_max + 2.0;
            for k in [1, 2, 5, 8, inst.types()[j].count] {
                let s = inst.apps()[i].downey.speedup(k);
                let literal = inst.final_execution_time(i, j, k).unwrap().cdf(delta);
                let lo = inst.slowed_serial_cdf(i, j, (delta - c) * s);
                let hi = inst.slowed_serial_cdf(i, j, (delta + c) * s);
                assert!(
                    lo - EPS <= literal && literal <= hi + EPS,
                    "({i}, {j}, {k}): literal {literal} outside [{lo}, {hi}]"
                );
                let table = inst.prob(i, j, k);
                assert!(lo - EPS <= table && table <= hi + EPS);
            }
        }
    }
}

#[test]
fn gamma_pmf_has_the_requested_mean_and_spread() {
    for (mean, cov) in [(1000.0, 0.1), (1000.0, 0.3), (50.0, 0.2), (30.0, 1.5)] {
        let p = gamma_pmf(GammaSpec { mean, cov }).unwrap();
        p.check_invariants().unwrap();
        // Nearest-tick rounding: mean within half a tick (plus the folded tails).
        assert!(
            (p.mean() - mean).abs() < 0.5 + 1e-3 * mean,
            "{mean}/{cov}: {}",
            p.mean()
        );
        let sd = mean * cov;
        // Variance within the rounding's 1/12 tick² (plus the tails) of the gamma's.
        assert!(
            (p.variance() - sd * sd).abs() < 0.1 + 2e-3 * sd * sd,
            "{mean}/{cov}: var {} vs {}",
            p.variance(),
            sd * sd
        );
    }
}

#[test]
fn density_and_cdf_discretisations_agree() {
    // sd = 100 ticks: the midpoint rule's relative error per bin is f'' / (24 f), about
    // 1 / (24 sd²) near the mode and below 1e-3 out to 6 sd.
    let spec = GammaSpec {
        mean: 1000.0,
        cov: 0.1,
    };
    assert!(spec.mean * spec.cov >= DENSITY_MIN_SD);
    let fast = gamma_pmf_density(spec).unwrap();
    for t in fast.min()..=fast.max() {
        let exact = spec.cdf(t as f64 + 0.5) - spec.cdf(t as f64 - 0.5);
        assert!(
            (fast.mass_at(t) - exact).abs() < 1e-3 * exact + 2.0 * TAIL_EPS,
            "tick {t}: {} vs {exact}",
            fast.mass_at(t)
        );
    }
    assert!(fast.cdf_tick(fast.min()) < 1e-5 && fast.cdf_tick(fast.max() - 1) > 1.0 - 1e-5);
}

#[test]
fn gamma_cdf_by_hand() {
    // COV 1 is the exponential: P(X <= mean) = 1 - 1/e.
    let spec = GammaSpec {
        mean: 10.0,
        cov: 1.0,
    };
    assert!((spec.cdf(10.0) - (1.0 - (-1.0f64).exp())).abs() < 1e-12);
    assert!((spec.shape() - 1.0).abs() < EPS && (spec.scale() - 10.0).abs() < EPS);
    assert!(matches!(
        gamma_pmf(GammaSpec {
            mean: -1.0,
            cov: 0.1
        }),
        Err(MoldableError::InvalidParameter { .. })
    ));
}

#[test]
fn cov_method_means_follow_the_task_mean() {
    let params = CovParams {
        mean_task: 1000.0,
        v_task: 0.3,
        v_mach: 0.5,
        exec_cov_min: 0.1,
        exec_cov_max: 0.3,
    };
    let mut rng = stream(3, 0, 0, Purpose::Scenario);
    let specs = cov_method(&mut rng, 2000, 4, &params).unwrap();
    let means: Vec<f64> = specs.iter().flatten().map(|s| s.mean).collect();
    let m = means.iter().sum::<f64>() / means.len() as f64;
    // E[e_ij] = mu_task; Var = mu² (V_task² + V_mach² + V_task² V_mach²); rows share q_i, so
    // the standard error is at most that of 2000 independent rows of 4: 1000 * 0.59 / sqrt(2000).
    let se = 1000.0 * (0.09f64 + 0.25 + 0.0225).sqrt() / 2000f64.sqrt();
    assert!((m - 1000.0).abs() < 5.0 * se, "mean {m}, se {se}");
    assert!(specs.iter().flatten().all(|s| (0.1..0.3).contains(&s.cov)));
    let bad = CovParams {
        v_task: 0.0,
        ..params
    };
    assert!(cov_method(&mut rng, 2, 2, &bad).is_err());
}

#[test]
fn beta_availability_inverts_to_a_slowdown() {
    // Beta(2, 1): density 2a, E[1/a] = 2 = (2 + 1 - 1) / (2 - 1); P(s <= 2) = 1 - (1/2)² = 3/4.
    let a = Availability::new(2.0, 1.0).unwrap();
    assert!((a.mean_slowdown() - 2.0).abs() < EPS);
    assert!((a.slowdown_cdf(2.0) - 0.75).abs() < 1e-12);
    assert_eq!(a.slowdown_cdf(1.0), 0.0);
    // beta = (g - 1)(alpha - 1).
    let h = Availability::with_mean_slowdown(20.0, 1.6).unwrap();
    assert!((h.beta() - 11.4).abs() < EPS && (h.mean_slowdown() - 1.6).abs() < EPS);
    let p = h.slowdown_pmf().unwrap();
    p.check_invariants().unwrap();
    assert!(p.min() >= 100, "a slowdown is at least 1");
    // Nearest-tick rounding: mean within half a tick (0.005) of 1.6, in ticks of 0.01.
    assert!(
        (p.mean() / 100.0 - 1.6).abs() < 0.006,
        "mean {}",
        p.mean() / 100.0
    );
    assert!(Availability::new(1.0, 1.0).is_err());
    assert!(Availability::with_mean_slowdown(20.0, 0.9).is_err());
}

#[test]
fn overall_slowdown_is_the_weighted_average_gamma() {
    for cat in [
        SlowdownCategory::Low,
        SlowdownCategory::Mixed,
        SlowdownCategory::High,
    ] {
        let counts = [8, 24, 64, 160];
        let av =
            type_availabilities(&mut stream(5, 0, 0, Purpose::Scenario), &counts, cat).unwrap();
        let total: f64 = counts.iter().map(|&c| f64::from(c)).sum();
        let g: f64 = counts
            .iter()
            .zip(&av)
            .map(|(&c, a)| f64::from(c) * a.mean_slowdown())
            .sum::<f64>()
            / total;
        assert!((g - cat.gamma()).abs() < 1e-12, "{cat:?}: {g}");
    }
    assert!(
        type_availabilities(
            &mut stream(5, 0, 0, Purpose::Scenario),
            &[],
            SlowdownCategory::Low
        )
        .is_err()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn probabilities_are_monotone_in_k_and_the_goal(t in prop::collection::vec((1i64..400, 0.01f64..1.0), 1..6),
                                                   a in 1.0f64..40.0, sigma in 0.0f64..2.0,
                                                   goal in 5.0f64..300.0) {
        let total: f64 = t.iter().map(|p| p.1).sum();
        let pairs: Vec<(i64, f64)> = t.iter().map(|&(x, m)| (x, m / total)).collect();
        let serial = pmf(&pairs);
        let mk = |g: f64| Instance::with_goal(vec![app(a, sigma, vec![serial.clone()])], types(&[32]), g).unwrap();
        let (lo, hi) = (mk(goal), mk(goal * 1.5));
        let mut last = 0.0;
        for k in 1..=32 {
            let p = lo.prob(0, 0, k);
            prop_assert!(p >= last - EPS, "P decreases in k at {}", k);
            prop_assert!(hi.prob(0, 0, k) >= p - EPS, "P decreases in Delta at {}", k);
            last = p;
        }
    }
}
