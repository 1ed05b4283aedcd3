//! Inputs at and beyond the ends of the tick range and out-of-range parameters: a typed error
//! or a valid answer, never a panic (`cargo test` builds with overflow checks on).

use pmf::{DropModel, ExecPmf, MAX_TICK, Pmf, PmfError};
use proptest::prelude::*;
use pruner::{
    ConfigError, DropRule, Engagement, MAX_TASK_TYPES, Never, ProbabilisticPruner, PrunerConfig,
    QueuedTask, Sufferage, Toggle, drop_threshold, dynamic_offset, walk_queue, walk_queue_cached,
};

fn queue(pet: &ExecPmf, start: i64) -> Vec<QueuedTask<'_>> {
    vec![
        QueuedTask {
            task_type: 0,
            pet,
            deadline: 50,
            start: Some(start),
        },
        QueuedTask {
            task_type: 1,
            pet,
            deadline: 60,
            start: None,
        },
        QueuedTask {
            task_type: 0,
            pet,
            deadline: 130,
            start: None,
        },
    ]
}

const RULE: DropRule<'static> = DropRule {
    threshold: 0.5,
    dynamic_weight: 0.0,
    sufferage: &[],
};

#[test]
fn walk_queue_at_the_end_of_time() {
    let pet = ExecPmf::from(Pmf::new(40, vec![0.25; 4]).expect("valid"));
    for model in [DropModel::None, DropModel::Pending, DropModel::All] {
        for now in [i64::MAX, i64::MIN, MAX_TICK] {
            for start in [0, i64::MIN, i64::MAX] {
                let drops = walk_queue(now, &queue(&pet, start), model, RULE).expect("narrow");
                assert_eq!(drops.len(), 3);
            }
        }
    }
}

#[test]
fn a_cache_shorter_than_the_queue_is_read_where_it_covers() {
    let pet = ExecPmf::from(Pmf::new(40, vec![0.25; 4]).expect("valid"));
    let q = queue(&pet, 0);
    let fresh = walk_queue(10, &q, DropModel::All, RULE).expect("narrow");
    assert_eq!(fresh, vec![false, true, false]);
    let empty = walk_queue_cached(10, &q, DropModel::All, RULE, Some(&[]), 0.0);
    assert_eq!(empty.expect("narrow"), fresh);
}

#[test]
fn a_walk_too_wide_to_hold_is_an_error() {
    // The executing task ends at 1 or 10; the next one, dropped at 5 half the time, runs
    // 2^40 ticks otherwise: its PCT would be a dense gap of 2^40 bins.
    let ends = ExecPmf::from(
        Pmf::new(1, [0.5].into_iter().chain([0.0; 8]).chain([0.5]).collect()).expect("valid"),
    );
    let far = ExecPmf::from(Pmf::point(1 << 40));
    let q = [
        QueuedTask {
            task_type: 0,
            pet: &ends,
            deadline: 100,
            start: Some(0),
        },
        QueuedTask {
            task_type: 0,
            pet: &far,
            deadline: 5,
            start: None,
        },
    ];
    assert!(matches!(
        walk_queue(0, &q, DropModel::Pending, RULE),
        Err(PmfError::TooWide { .. })
    ));
}

#[test]
fn sufferage_rejects_a_huge_table_and_nan() {
    assert_eq!(
        Sufferage::new(usize::MAX, 0.1),
        Err(ConfigError::TooManyTaskTypes {
            types: usize::MAX,
            limit: MAX_TASK_TYPES
        })
    );
    assert!(Sufferage::new(MAX_TASK_TYPES, 0.1).is_ok());
    for factor in [f64::NAN, -0.1, 1.5, f64::INFINITY] {
        let e = Sufferage::new(2, factor).expect_err("out of range");
        assert!(
            matches!(
                e,
                ConfigError::OutOfRange {
                    field: "fairness",
                    ..
                }
            ),
            "{e}"
        );
    }
    let e = ProbabilisticPruner::new(PrunerConfig::default(), usize::MAX).expect_err("huge");
    assert!(e.to_string().contains("task_types"), "{e}");
}

#[test]
fn engagement_rejects_nan_state() {
    let field = |r: Result<Engagement, ConfigError>| match r {
        Err(ConfigError::OutOfRange { field, .. }) => field,
        other => panic!("expected OutOfRange, got {other:?}"),
    };
    assert_eq!(
        field(Engagement::new(Toggle::Level(f64::NAN), 0.9, None)),
        "toggle"
    );
    assert_eq!(
        field(Engagement::new(Toggle::Level(-1.0), 0.9, None)),
        "toggle"
    );
    assert_eq!(
        field(Engagement::new(Toggle::Level(1.0), f64::NAN, None)),
        "lambda"
    );
    assert_eq!(
        field(Engagement::new(Toggle::Level(1.0), 0.9, Some(f64::NAN))),
        "schmitt_off"
    );
    assert!(Engagement::new(Toggle::Never(Never::Never), 1.0, Some(0.8)).is_ok());
}

fn tick() -> impl Strategy<Value = i64> {
    prop_oneof![
        3 => any::<i64>(),
        1 => prop::sample::select(vec![i64::MIN, i64::MAX, MAX_TICK, -MAX_TICK, 0, -1]),
        3 => -100i64..300,
    ]
}

fn real() -> impl Strategy<Value = f64> {
    prop_oneof![
        2 => any::<f64>(),
        1 => prop::sample::select(vec![f64::NAN, f64::INFINITY, -1.0, 0.0, 1.0, 2.0]),
        3 => 0.0f64..1.0,
    ]
}

/// A PET anywhere in the tick range (moved there by a shift).
fn pet() -> impl Strategy<Value = Pmf> {
    (prop::collection::vec(0.01f64..1.0, 1..8), tick())
        .prop_map(|(w, dt)| Pmf::from_weights(0, w).expect("valid").shift(dt))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_walk_answers_or_refuses(
        pets in prop::collection::vec(pet(), 1..5),
        now in tick(),
        start in prop::option::of(tick()),
        deadlines in prop::collection::vec(tick(), 5),
        types in prop::collection::vec(any::<usize>(), 5),
        threshold in real(),
        weight in real(),
        sufferage in prop::collection::vec(real(), 0..3),
        epsilon in real(),
        model in prop::sample::select(vec![DropModel::None, DropModel::Pending, DropModel::All]),
    ) {
        let pets: Vec<ExecPmf> = pets.into_iter().map(ExecPmf::from).collect();
        let q: Vec<QueuedTask<'_>> = pets
            .iter()
            .enumerate()
            .map(|(i, pet)| QueuedTask {
                task_type: types[i] % 4,
                pet,
                deadline: deadlines[i],
                start: if i == 0 { start } else { None },
            })
            .collect();
        let rule = DropRule { threshold, dynamic_weight: weight, sufferage: &sufferage };
        for r in [
            walk_queue(now, &q, model, rule),
            walk_queue_cached(now, &q, model, rule, Some(&[]), epsilon),
        ] {
            match r {
                Ok(drops) => prop_assert_eq!(drops.len(), q.len()),
                Err(e) => prop_assert!(matches!(e, PmfError::TooWide { .. }), "{}", e),
            }
        }
    }

    #[test]
    fn the_pruner_state_stays_in_range(
        types in prop_oneof![0usize..10, any::<usize>()],
        toggle in real(),
        lambda in real(),
        schmitt_off in real(),
        fairness in real(),
        misses in prop::collection::vec(any::<usize>(), 0..10),
        ends in prop::collection::vec((any::<usize>(), any::<bool>()), 0..10),
        x in real(),
        n in any::<usize>(),
    ) {
        let config = PrunerConfig {
            toggle: Toggle::Level(toggle),
            lambda,
            schmitt_off,
            fairness,
            ..PrunerConfig::default()
        };
        let _ = Sufferage::new(types, fairness);
        let _ = Engagement::new(Toggle::Level(toggle), lambda, Some(schmitt_off));
        let Ok(mut p) = ProbabilisticPruner::new(config, types) else {
            return Ok(());
        };
        for m in misses {
            p.observe_misses(m);
            prop_assert!(p.engagement().level().is_finite());
        }
        for (t, ok) in ends {
            p.record_end(t, ok);
            let v = p.sufferage().value(t);
            prop_assert!((0.0..=1.0).contains(&v));
            prop_assert!((0.0..=1.0).contains(&p.drop_threshold(t)));
            if let Some(d) = p.defer_threshold(t) {
                prop_assert!((0.0..=1.0).contains(&d));
            }
        }
        let _ = (dynamic_offset(x, n, x), drop_threshold(x, x, x));
    }
}
