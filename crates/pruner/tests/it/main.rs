//! Hand-computed cases for each mechanism of the pruner.

use pmf::{DropModel, ExecPmf, Pmf};
use pruner::{
    ConfigError, DropRule, Engagement, FairnessMode, Never, ProbabilisticPruner, PrunerConfig,
    PrunerTable, QueuedTask, RATE_WEIGHT, ReliefScope, Sufferage, Toggle, drop_threshold,
    dynamic_offset, walk_queue,
};

mod hostile;

fn uniform(lo: i64, n: usize) -> ExecPmf {
    ExecPmf::from(Pmf::from_weights(lo, vec![1.0; n]).unwrap())
}

#[test]
fn ewma_arithmetic_of_eq_8() {
    // lambda 0.5: d = 0.5 mu + 0.5 d_prev.
    let mut e = Engagement::new(Toggle::Level(100.0), 0.5, None).unwrap();
    e.observe(4);
    assert!((e.level() - 2.0).abs() < 1e-12);
    e.observe(0);
    assert!((e.level() - 1.0).abs() < 1e-12);
    e.observe(3);
    assert!((e.level() - 2.0).abs() < 1e-12);
    // lambda 1: the thesis' plain toggle, no history.
    let mut e = Engagement::new(Toggle::Level(1.0), 1.0, None).unwrap();
    assert!(e.observe(1));
    assert!(!e.observe(0));
    assert!(e.observe(5));
}

#[test]
fn schmitt_trigger_hysteresis() {
    // Toggle 2, off level 0.8 * 2 = 1.6, lambda 0.5.
    let mut e = Engagement::new(Toggle::Level(2.0), 0.5, Some(0.8)).unwrap();
    assert!(!e.observe(2)); // d = 1.0
    assert!(e.observe(4)); // d = 2.5 >= 2: on
    assert!(e.observe(1)); // d = 1.75 > 1.6: stays on (a plain toggle would be off)
    assert!(!e.observe(1)); // d = 1.375 <= 1.6: off
    assert!(!e.observe(2)); // d = 1.6875 < 2: stays off
    let mut plain = Engagement::new(Toggle::Level(2.0), 0.5, None).unwrap();
    plain.observe(2);
    assert!(plain.observe(4));
    assert!(!plain.observe(1)); // 1.75 < 2: off at once
}

#[test]
fn toggle_zero_is_always_engaged_and_never_is_never() {
    let mut e = Engagement::new(Toggle::Level(0.0), 0.9, Some(0.8)).unwrap();
    assert!(e.observe(0));
    assert!(e.observe(0));
    let mut e = Engagement::new(Toggle::Never(Never::Never), 1.0, None).unwrap();
    assert!(!e.observe(100));
}

#[test]
fn dropping_the_head_raises_the_tail() {
    // Executing task (started 0) finishes at 40..=49; it is due at 30: hopeless.
    // Pending task: 10..=19 ticks, due at 45.
    // Kept behind the head: completion 50..=68 >= 45, success 0.
    // With the head dropped (its PCT gathered at 30 under model c, but the pruner removes
    // it now, at 5), the pending task starts at 5: 15..=24 < 45, success 1.
    let head = uniform(40, 10);
    let tail = uniform(10, 10);
    let queue = [
        QueuedTask {
            task_type: 0,
            pet: &head,
            deadline: 30,
            start: Some(0),
        },
        QueuedTask {
            task_type: 0,
            pet: &tail,
            deadline: 45,
            start: None,
        },
    ];
    let rule = DropRule {
        threshold: 0.5,
        dynamic_weight: 0.0,
        sufferage: &[],
    };
    assert_eq!(
        walk_queue(5, &queue, DropModel::All, rule).unwrap(),
        vec![true, false]
    );
    // Without recomputing after the drop the tail would have looked hopeless too: behind the
    // head, it completes at 40..=68 (model c) with little chance before 45.
    let alone = [queue[1]];
    assert_eq!(
        walk_queue(5, &alone, DropModel::All, rule).unwrap(),
        vec![false]
    );
    // A threshold of 0 still drops a task with no chance at all; 1 drops everything.
    let rule0 = DropRule {
        threshold: 0.0,
        ..rule
    };
    assert_eq!(
        walk_queue(5, &queue, DropModel::All, rule0).unwrap(),
        vec![true, false]
    );
    let rule1 = DropRule {
        threshold: 1.0,
        ..rule
    };
    assert_eq!(
        walk_queue(5, &queue, DropModel::All, rule1).unwrap(),
        vec![true, true]
    );
}

#[test]
fn the_executing_task_is_never_dropped_unless_every_task_may_be() {
    // The queue of `dropping_the_head_raises_the_tail`: a hopeless executing task (40..=49
    // ticks from 0, due at 30) and a pending one (10..=19 ticks, due at 45).
    let head = uniform(40, 10);
    let tail = uniform(10, 10);
    let queue = [
        QueuedTask {
            task_type: 0,
            pet: &head,
            deadline: 30,
            start: Some(0),
        },
        QueuedTask {
            task_type: 0,
            pet: &tail,
            deadline: 45,
            start: None,
        },
    ];
    let rule = DropRule {
        threshold: 0.5,
        dynamic_weight: 0.0,
        sufferage: &[],
    };
    // JPDC-2016 scenario (a): the head runs to 40..=49 whatever its chance; the pending task
    // then completes at 50..=68, after its deadline, and is the one dropped.
    for model in [DropModel::Pending, DropModel::None] {
        assert_eq!(
            walk_queue(5, &queue, model, rule).unwrap(),
            vec![false, true],
            "{model:?}"
        );
    }
    assert_eq!(
        walk_queue(5, &queue, DropModel::All, rule).unwrap(),
        vec![true, false]
    );
    // The same through the standalone pruner.
    let pruner = ProbabilisticPruner::new(PrunerConfig::default(), 1).unwrap();
    assert_eq!(
        pruner
            .drops_for_queue(5, &queue, DropModel::Pending)
            .unwrap(),
        vec![false, true]
    );
}

#[test]
fn skewness_sign_moves_the_threshold() {
    // eq. (7): phi = -s p / (kappa + 1).
    assert!((dynamic_offset(1.0, 0, 0.2) + 0.2).abs() < 1e-12);
    assert!((dynamic_offset(-1.0, 0, 0.2) - 0.2).abs() < 1e-12);
    assert!((dynamic_offset(0.5, 4, 0.2) + 0.02).abs() < 1e-12);
    // A right-skewed PCT lowers the threshold (kept more readily), a left-skewed one raises it.
    let right = ExecPmf::from(Pmf::new(10, vec![0.6, 0.2, 0.1, 0.05, 0.05]).unwrap());
    let left = ExecPmf::from(Pmf::new(10, vec![0.05, 0.05, 0.1, 0.2, 0.6]).unwrap());
    assert!(right.bounded_skewness() > 0.0 && left.bounded_skewness() < 0.0);
    // Same success probability 0.5 at deadline 11... build two executing tasks whose chance is
    // 0.6 (right) and 0.05 + 0.05 = 0.1 (left) at deadline 11, threshold 0.55, weight 0.2:
    // right: 0.6 > 0.55 - 0.2 -> kept; left: 0.1 <= 0.55 + 0.2 -> dropped.
    let qr = [QueuedTask {
        task_type: 0,
        pet: &right,
        deadline: 11,
        start: Some(0),
    }];
    let ql = [QueuedTask {
        task_type: 0,
        pet: &left,
        deadline: 12,
        start: Some(0),
    }];
    let rule = DropRule {
        threshold: 0.55,
        dynamic_weight: 0.2,
        sufferage: &[],
    };
    assert_eq!(
        walk_queue(0, &qr, DropModel::All, rule).unwrap(),
        vec![false]
    );
    assert_eq!(
        walk_queue(0, &ql, DropModel::All, rule).unwrap(),
        vec![true]
    );
    // Without the dynamic offset 0.6 would still pass 0.55; with the threshold at 0.65 the
    // right-skewed task survives only thanks to its skew.
    let strict = DropRule {
        threshold: 0.65,
        dynamic_weight: 0.0,
        sufferage: &[],
    };
    assert_eq!(
        walk_queue(0, &qr, DropModel::All, strict).unwrap(),
        vec![true]
    );
    let strict_dyn = DropRule {
        dynamic_weight: 0.2,
        ..strict
    };
    assert_eq!(
        walk_queue(0, &qr, DropModel::All, strict_dyn).unwrap(),
        vec![false]
    );
    assert!((drop_threshold(0.5, 0.1, 0.05) - 0.45).abs() < 1e-12);
    assert_eq!(drop_threshold(0.1, 0.5, 0.0), 0.0);
    assert_eq!(drop_threshold(0.9, 0.0, 0.5), 1.0);
}

#[test]
fn sufferage_is_clamped_to_unit_interval() {
    let mut s = Sufferage::new(2, 0.4).unwrap();
    s.record(0, true);
    assert_eq!(s.value(0), 0.0);
    s.record(0, false);
    s.record(0, false);
    assert!((s.value(0) - 0.8).abs() < 1e-12);
    s.record(0, false);
    assert_eq!(s.value(0), 1.0);
    s.record(0, true);
    assert!((s.value(0) - 0.6).abs() < 1e-12);
    assert_eq!(s.value(1), 0.0);
    s.record(7, false); // unknown type: ignored
}

#[test]
fn fairness_relaxes_defer_and_drop_thresholds() {
    let cfg = PrunerConfig {
        fairness: 0.05,
        ..PrunerConfig::default()
    };
    let mut p = ProbabilisticPruner::new(cfg, 3).unwrap();
    assert_eq!(p.defer_threshold(1), Some(0.9));
    p.record_end(1, false);
    p.record_end(1, false);
    assert!((p.defer_threshold(1).unwrap() - 0.8).abs() < 1e-12);
    assert!((p.drop_threshold(1) - 0.4).abs() < 1e-12);
    assert_eq!(p.defer_threshold(0), Some(0.9));
    let off = ProbabilisticPruner::new(
        PrunerConfig {
            defer_threshold: None,
            ..PrunerConfig::default()
        },
        3,
    )
    .unwrap();
    assert_eq!(off.defer_threshold(0), None);
}

#[test]
fn configs_parse_from_toml_and_reject_out_of_range() {
    let c: PrunerConfig = toml::from_str("drop_threshold = 0.25\ndefer_threshold = 0.75\ntoggle = \"never\"\nlambda = 1.0\nschmitt = false\n").unwrap();
    assert_eq!(c.toggle, Toggle::Never(Never::Never));
    assert_eq!(c.defer_threshold, Some(0.75));
    c.validate().unwrap();
    let c: PrunerConfig = toml::from_str("toggle = 0\n").unwrap();
    assert_eq!(c.toggle, Toggle::Level(0.0));
    assert!(toml::from_str::<PrunerConfig>("tresh = 1\n").is_err());
    for bad in [
        "drop_threshold = 1.5",
        "defer_threshold = -0.1",
        "lambda = 2",
        "toggle = -1",
        "fairness = 1.1",
    ] {
        let c: PrunerConfig = toml::from_str(bad).unwrap();
        assert!(c.validate().is_err(), "{bad} accepted");
    }
}

fn fair(mode: FairnessMode, factor: f64, cap: f64, relief: ReliefScope) -> PrunerConfig {
    PrunerConfig {
        fairness: factor,
        fairness_mode: mode,
        fairness_cap: cap,
        fairness_relief: relief,
        ..PrunerConfig::default()
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn literal_fairness_saturates_when_every_type_mostly_misses() {
    // Every type on time one task in three: sufferage +0.05, +0.05, -0.05 per three tasks, so
    // it climbs to 1 and both thresholds of every type reach 0 (the paper's PAMF under
    // overload: pruning switched off).
    let mut p =
        ProbabilisticPruner::new(fair(FairnessMode::Literal, 0.05, 1.0, ReliefScope::Both), 3)
            .unwrap();
    for k in 0..200 {
        p.record_end(k % 3, (k / 3) % 3 == 0);
    }
    for t in 0..3 {
        assert!(p.sufferage().value(t) > 0.9, "{}", p.sufferage().value(t));
        assert!(p.defer_threshold(t).unwrap() < 0.1);
        assert!(p.drop_threshold(t) < 0.1);
    }
}

#[test]
fn relative_fairness_moves_relief_by_the_rate_against_the_mean() {
    let mut p = ProbabilisticPruner::new(
        fair(FairnessMode::Relative, 0.1, 1.0, ReliefScope::Defer),
        2,
    )
    .unwrap();
    // Type 0 misses: its rate 1 - 0.1 = 0.9, the mean (0.9 + 1) / 2 = 0.95; relief
    // 0.1 (0.95 - 0.9) = 0.005 off the defer threshold only.
    p.record_end(0, false);
    let q0 = 1.0 - RATE_WEIGHT;
    assert!(close(p.fairness().rates()[0], q0));
    let r0 = 0.1 * ((q0 + 1.0) / 2.0 - q0);
    assert!(close(p.fairness().defer_relief()[0], r0));
    assert!(close(p.defer_threshold(0).unwrap(), 0.9 - r0));
    assert_eq!(p.drop_threshold(0), 0.5);
    // Type 1 on time: rate 1, mean 0.95; relief 0.1 (0.95 - 1) = -0.005: its defer threshold
    // rises.
    p.record_end(1, true);
    let r1 = 0.1 * ((q0 + 1.0) / 2.0 - 1.0);
    assert!(close(p.fairness().defer_relief()[1], r1));
    assert!(close(p.defer_threshold(1).unwrap(), 0.9 - r1));
    // The literal sufferage is not used.
    assert_eq!(p.sufferage().values(), &[0.0, 0.0]);
}

#[test]
fn relative_fairness_does_not_saturate_when_every_type_misses_alike() {
    // Every type on time one task in three, in turn: the rates fall alike, and the relief
    // stays near 0 (the literal mode's reaches 1). Not exactly 0: type 0's rate falls first
    // in each round, type 2's last.
    let mut p = ProbabilisticPruner::new(
        fair(FairnessMode::Relative, 0.05, 1.0, ReliefScope::Both),
        3,
    )
    .unwrap();
    for k in 0..600 {
        p.record_end(k % 3, (k / 3) % 3 == 0);
    }
    for t in 0..3 {
        let r = p.fairness().defer_relief()[t];
        assert!(r.abs() < 0.03, "type {t}: relief {r}");
        assert!(p.defer_threshold(t).unwrap() > 0.87);
    }
}

#[test]
fn relative_fairness_relieves_the_lagging_type_and_tightens_the_others_within_bounds() {
    // Type 0 always misses, types 1 and 2 always meet their deadline.
    let run = |mode, cap, relief| {
        let mut p = ProbabilisticPruner::new(fair(mode, 0.05, cap, relief), 3).unwrap();
        for k in 0..900 {
            p.record_end(k % 3, k % 3 != 0);
        }
        p
    };
    let p = run(FairnessMode::Relative, 1.0, ReliefScope::Defer);
    // Type 0 reaches the cap (defer threshold 0); the others stop at -(1 - 0.9), where their
    // defer threshold is 1 (no wind-up below it); dropping keeps its base threshold.
    assert!(close(p.fairness().defer_relief()[0], 1.0));
    assert_eq!(p.defer_threshold(0), Some(0.0));
    for t in [1, 2] {
        assert!(close(p.fairness().defer_relief()[t], -0.1));
        assert!(close(p.defer_threshold(t).unwrap(), 1.0));
        assert_eq!(p.drop_threshold(t), 0.5);
    }
    // Relief on both thresholds: the floor is the drop threshold's, -(1 - 0.5).
    let p = run(FairnessMode::Relative, 1.0, ReliefScope::Both);
    assert!(close(p.fairness().drop_relief()[1], -0.5));
    assert!(close(p.drop_threshold(1), 1.0));
    assert_eq!(p.drop_threshold(0), 0.0);
    // A cap bounds both ways.
    let p = run(FairnessMode::Relative, 0.3, ReliefScope::Both);
    assert!(close(p.fairness().defer_relief()[0], 0.3));
    assert!(close(p.fairness().defer_relief()[1], -0.3));
    assert!(close(p.drop_threshold(0), 0.2));
    assert!(close(p.drop_threshold(1), 0.8));
    // Lagging: only type 0 gets anything.
    let p = run(FairnessMode::Lagging, 1.0, ReliefScope::Defer);
    assert!(close(p.fairness().defer_relief()[0], 1.0));
    assert_eq!(p.fairness().defer_relief()[1], 0.0);
    assert_eq!(p.defer_threshold(1), Some(0.9));
}

#[test]
fn a_cap_and_defer_only_relief_bound_the_literal_sufferage() {
    let mut p =
        ProbabilisticPruner::new(fair(FairnessMode::Literal, 0.1, 0.3, ReliefScope::Defer), 2)
            .unwrap();
    for _ in 0..5 {
        p.record_end(0, false);
    }
    // The sufferage is the paper's, 0.5; the relief stops at 0.3, and only deferring has it.
    assert!(close(p.sufferage().value(0), 0.5));
    assert!(close(p.fairness().defer_relief()[0], 0.3));
    assert!(close(p.defer_threshold(0).unwrap(), 0.6));
    assert_eq!(p.drop_threshold(0), 0.5);
    assert_eq!(p.fairness().drop_relief(), &[0.0, 0.0]);
}

#[test]
fn fairness_keys_parse_and_mean_nothing_without_fairness() {
    let t: PrunerTable = toml::from_str(
        "preset = \"paper\"\nfairness = 0.02\nfairness_mode = \"relative\"\nfairness_cap = 0.4\nfairness_relief = \"defer\"\n",
    )
    .unwrap();
    let c = t.resolve().unwrap();
    assert_eq!(
        (c.fairness_mode, c.fairness_cap, c.fairness_relief),
        (FairnessMode::Relative, 0.4, ReliefScope::Defer)
    );
    // The explicit table of a configuration resolves to it, with or without fairness.
    assert_eq!(PrunerTable::explicit(&c).resolve().unwrap(), c);
    let plain = PrunerConfig::default();
    let e = PrunerTable::explicit(&plain);
    assert_eq!(e.fairness_mode, None);
    assert_eq!(e.resolve().unwrap(), plain);
    // The paper's configuration serialises as before the keys existed.
    let text = toml::to_string(&plain).unwrap();
    assert!(!text.contains("fairness_"), "{text}");
    for (table, field) in [
        (
            "preset = \"paper\"\nfairness_mode = \"relative\"\n",
            "fairness_mode",
        ),
        (
            "preset = \"paper\"\nfairness = 0\nfairness_cap = 0.5\n",
            "fairness_cap",
        ),
        (
            "preset = \"paper\"\nfairness_relief = \"defer\"\n",
            "fairness_relief",
        ),
        (
            "preset = \"paper\"\nfairness = 0.05\nfairness_relief = \"defer\"\ndefer_threshold = \"off\"\n",
            "fairness_relief",
        ),
    ] {
        let t: PrunerTable = toml::from_str(table).unwrap();
        match t.resolve() {
            Err(ConfigError::NoEffect { field: f, .. }) => assert_eq!(f, field, "{table}"),
            other => panic!("{table}: {other:?}"),
        }
    }
    assert!(toml::from_str::<PrunerTable>("fairness_mode = \"fair\"\n").is_err());
    let t: PrunerTable =
        toml::from_str("preset = \"paper\"\nfairness = 0.05\nfairness_cap = 1.5\n").unwrap();
    assert!(matches!(
        t.resolve(),
        Err(ConfigError::OutOfRange {
            field: "fairness_cap",
            ..
        })
    ));
}
