//! Section 7.1's simulation: hand-checkable runs, determinism, common random numbers.

use cutting::distributions::{Distribution, PAPER_DELTA, table2_as_run};
use cutting::simulation::{Experiment, Setting};
use cutting::strategies::paper_strategies;
use cutting::{CuttingError, Strategy};

fn uniform_exp(b: f64, d: f64) -> Experiment {
    Experiment::new(
        Setting::new(b, d, PAPER_DELTA).unwrap(),
        Distribution::Uniform { a: 0.0, b: 2.0 },
        0,
    )
    .unwrap()
}

#[test]
fn setting_enrols_ceil_b_over_d_vms() {
    let s = Setting::new(1000.0, 100.0, 0.05).unwrap();
    assert_eq!((s.vms(), s.horizon()), (10, 100.0));
    let s = Setting::new(55.0, 5.0, 0.05).unwrap();
    assert_eq!((s.vms(), s.horizon()), (11, 5.0));
    let s = Setting::new(52.0, 5.0, 0.0).unwrap();
    assert_eq!(s.vms(), 11);
    assert!((s.horizon() - 52.0 / 11.0).abs() < 1e-15);
    for (b, d, delta) in [
        (0.0, 1.0, 0.0),
        (1.0, -1.0, 0.0),
        (1.0, 1.0, -0.1),
        (f64::NAN, 1.0, 0.0),
    ] {
        assert!(matches!(
            Setting::new(b, d, delta),
            Err(CuttingError::InvalidSetting(_))
        ));
    }
    assert!(Setting::new(1e12, 1.0, 0.0).is_err(), "too many VMs");
}

#[test]
fn a_constant_execution_time_is_counted_by_hand() {
    // Uniform on [0, 1e-9] + delta 0.5: every task takes 0.5 (to 1e-9). One VM, d = b = 2.2:
    // tasks end at 0.5, 1.0, 1.5, 2.0; the fifth would end at 2.5 > 2.2.
    let exp = Experiment::new(
        Setting::new(2.2, 2.2, 0.5).unwrap(),
        Distribution::Uniform { a: 0.0, b: 1e-9 },
        0,
    )
    .unwrap();
    // (An estimating strategy would set its threshold to the one completion time it saw and
    // cut the next task if it is 1e-9 longer: thresholds are observed completion times.)
    for s in [Strategy::NeverInterrupt, Strategy::Oracle] {
        let o = exp.run(s, 1, 0).unwrap();
        assert_eq!(o.completed, 4, "{s:?}");
        assert_eq!(o.interrupted, 0, "{s:?}");
    }
}

#[test]
fn never_interrupt_equals_an_oracle_that_never_interrupts() {
    let exp = uniform_exp(50.0, 5.0);
    assert!(exp.oracle().threshold.is_infinite());
    for i in 0..20 {
        let a = exp.run(Strategy::NeverInterrupt, 3, i).unwrap();
        let b = exp.run(Strategy::Oracle, 3, i).unwrap();
        assert_eq!(a, b, "instance {i}");
    }
}

#[test]
fn oracle_interrupts_with_a_short_threshold() {
    let d = table2_as_run()[13]; // weibull: threshold 0.09
    let exp = Experiment::new(Setting::new(50.0, 5.0, PAPER_DELTA).unwrap(), d.dist, 13).unwrap();
    let o = exp.run(Strategy::Oracle, 1, 0).unwrap();
    assert!((o.final_threshold - 0.09).abs() < 0.002);
    assert!(o.interrupted > o.completed, "{o:?}");
    assert_eq!(o.first_threshold_at, 0.0);
    let n = exp.run(Strategy::NeverInterrupt, 1, 0).unwrap();
    assert!(o.completed > 2 * n.completed, "{o:?} vs {n:?}");
}

#[test]
fn one_shot_strategies_decide_once_after_p_b() {
    let exp = uniform_exp(1000.0, 100.0);
    let o = exp.run(Strategy::Survival { p: 0.1 }, 1, 0).unwrap();
    assert_eq!(o.decisions, 1);
    assert_eq!(o.first_threshold_at, 10.0);
    let o = exp.run(Strategy::PerEmpirical { p: 0.1 }, 1, 0).unwrap();
    assert_eq!(o.decisions, 9, "at 10, 20, ..., 90");
}

#[test]
fn without_a_completion_the_decision_is_postponed() {
    // Execution times 3.0 (+ up to 1e-9) on one VM: with p = 10% of d = 10, nothing has
    // completed at 1, 2 or 3 (the first completion comes just after 3), so the threshold is
    // set at 4, the fourth try.
    let exp = Experiment::new(
        Setting::new(10.0, 10.0, 3.0).unwrap(),
        Distribution::Uniform { a: 0.0, b: 1e-9 },
        0,
    )
    .unwrap();
    let o = exp.run(Strategy::Empirical { p: 0.1 }, 1, 0).unwrap();
    assert_eq!(o.first_threshold_at, 4.0);
    assert_eq!(o.decisions, 4);
    assert!(o.completed >= 1);
}

#[test]
fn an_instance_depends_on_its_index_only() {
    let d = table2_as_run()[9];
    let exp = Experiment::new(Setting::new(50.0, 5.0, PAPER_DELTA).unwrap(), d.dist, 9).unwrap();
    let strategies = paper_strategies();
    let all = exp.run_many(&strategies, 5, 40).unwrap();
    // Any instance, run alone and in any order, is the same as in the whole run.
    for i in [39, 17, 0] {
        assert_eq!(all[i], exp.run_instance(&strategies, 5, i as u64).unwrap());
    }
    assert_eq!(all[17][2], exp.run(strategies[2], 5, 17).unwrap());
}

#[test]
fn invalid_strategies_are_rejected() {
    let exp = uniform_exp(50.0, 5.0);
    for s in [
        Strategy::Survival { p: 0.0 },
        Strategy::PerSurvival { p: 1.5 },
        Strategy::AutoPerSurvival {
            p_max: 0.4,
            epsilon: 0.0,
        },
    ] {
        assert!(
            matches!(exp.run(s, 1, 0), Err(CuttingError::InvalidStrategy(_))),
            "{s:?}"
        );
    }
}
