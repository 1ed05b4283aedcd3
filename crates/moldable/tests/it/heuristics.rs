//! The heuristics (§III) on hand-built instances, then properties on random scenarios.

use moldable::experiments::{Purpose, ScenarioParams, generate, stream};
use moldable::heuristics::pb;
use moldable::heuristics::rf::{self, Greedy, greedy_pass, min_processors, robustness_floor};
use moldable::slowdown::SlowdownCategory;
use moldable::{Assignment, Heuristic, Instance, MoldableError, upper_bound};
use pmf::Pmf;
use proptest::prelude::*;

use crate::common::{EPS, app, types, worked_example};

#[test]
fn pi_is_the_fewest_processors_above_the_floor() {
    let inst = worked_example();
    // Rows (common::worked_example): app 0: [0, 0, 1, 1] and [0, 1]; app 1: [0, .5, .5, .5], [0, 0].
    assert_eq!(
        min_processors(&inst, 0.25),
        vec![vec![Some(3), Some(2)], vec![Some(2), None]]
    );
    // The floor is strict: P > 0.5 is never met by app 1.
    assert_eq!(
        min_processors(&inst, 0.5),
        vec![vec![Some(3), Some(2)], vec![None, None]]
    );
}

#[test]
fn robustness_floor_reaches_the_bound_of_the_worked_example() {
    // Only app 0 on type 1 (2 processors) and app 1 on type 0 (2 processors) gives 0.5 = B.
    let inst = worked_example();
    for g in [Greedy::MinMin, Greedy::MinMax, Greedy::Duplex] {
        let alloc = robustness_floor(&inst, g, rf::RESIDUAL).unwrap();
        assert_eq!(
            alloc,
            vec![
                Assignment { ptype: 1, procs: 2 },
                Assignment { ptype: 0, procs: 2 }
            ],
            "{g:?}"
        );
        assert!((inst.robustness(&alloc).unwrap() - upper_bound(&inst)).abs() < EPS);
    }
}

/// Every probability 1 (a huge goal): only the processor counts matter.
fn all_feasible(counts: &[u32], n_apps: usize) -> Instance {
    let apps = (0..n_apps)
        .map(|_| app(4.0, 0.0, vec![Pmf::point(10); counts.len()]))
        .collect();
    Instance::with_goal(apps, types(counts), 1e6).unwrap()
}

#[test]
fn min_max_places_the_large_application_first_where_min_min_fails() {
    // Types of 3 and 1 processors. App 0 needs 1 processor anywhere, app 1 needs 3 of type 0.
    let inst = all_feasible(&[3, 1], 2);
    let pi = vec![vec![Some(1), Some(1)], vec![Some(3), None]];
    // Min-min: app 0 first (1 processor, type 0 by the lower index), then app 1 finds only
    // 2 processors of type 0 left: invalid.
    assert_eq!(greedy_pass(&inst, &pi, false), None);
    // Min-max: app 1 first takes type 0, app 0 then takes type 1.
    assert_eq!(
        greedy_pass(&inst, &pi, true),
        Some(vec![
            Assignment { ptype: 1, procs: 1 },
            Assignment { ptype: 0, procs: 3 }
        ])
    );
}

#[test]
fn fig3_falls_back_to_one_processor_each_when_no_floor_is_met() {
    // App 1 can never finish by the goal: every floor fails; each app gets one processor.
    let apps = vec![
        app(4.0, 0.0, vec![Pmf::point(10)]),
        app(4.0, 0.0, vec![Pmf::point(10_000)]),
    ];
    let inst = Instance::with_goal(apps, types(&[4]), 20.0).unwrap();
    let alloc = robustness_floor(&inst, Greedy::Duplex, rf::RESIDUAL).unwrap();
    assert_eq!(alloc, vec![Assignment { ptype: 0, procs: 1 }; 2]);
    assert!(matches!(
        robustness_floor(&inst, Greedy::MinMin, 0.0),
        Err(MoldableError::InvalidParameter { .. })
    ));
    // More applications than processors: no allocation at all.
    let crowded = all_feasible(&[1], 2);
    let apps = (0..2)
        .map(|_| app(1.0, 0.0, vec![Pmf::point(10_000)]))
        .collect();
    let hopeless = Instance::with_goal(apps, types(&[1]), 1.0).unwrap();
    assert!(matches!(
        robustness_floor(&hopeless, Greedy::MinMin, rf::RESIDUAL),
        Err(MoldableError::Infeasible { .. })
    ));
    assert!(robustness_floor(&crowded, Greedy::MinMin, rf::RESIDUAL).is_err());
}

#[test]
fn processor_balance_needs_integer_blocks() {
    // tau = 6, N_a = 2: M = 3, but n_0 = 4 is not a multiple of 3.
    let inst = worked_example();
    assert!(matches!(
        pb::groups(&inst),
        Err(MoldableError::NotBalanced { .. })
    ));
    // tau = 6, N_a = 3: M = 2, groups [0, 0, 1].
    let inst = all_feasible(&[4, 2], 3);
    assert_eq!(pb::groups(&inst).unwrap(), (vec![0, 0, 1], 2));
}

#[test]
fn pb_smart_gives_each_group_its_most_likely_application() {
    // Two types of 2 processors, M = 2. App 0 finishes only on type 0, app 1 on either:
    // whichever group is drawn first, PB-S ends with app 0 on type 0, app 1 on type 1.
    let apps = vec![
        app(2.0, 0.0, vec![Pmf::point(10), Pmf::point(1000)]),
        app(2.0, 0.0, vec![Pmf::point(12), Pmf::point(12)]),
    ];
    let inst = Instance::with_goal(apps, types(&[2, 2]), 7.0).unwrap();
    // P(0, (0, 2)) = 1 (10/2 = 5), P(1, (0, 2)) = 1 (6 <= 7): on a type-0 draw first, the tie
    // goes to app 0; on a type-1 draw first, app 1 (P = 1) beats app 0 (P = 0).
    for seed in 0..16 {
        let alloc = pb::smart(&inst, &mut stream(seed, 0, 0, Purpose::PbSmart)).unwrap();
        assert_eq!(alloc[0].ptype, 0, "seed {seed}");
        assert_eq!(alloc[1].ptype, 1, "seed {seed}");
        assert_eq!(inst.robustness(&alloc).unwrap(), 1.0);
    }
}

fn small_params() -> impl Strategy<Value = ScenarioParams> {
    (
        prop_oneof![Just(4usize), Just(8)],
        1usize..=4,
        prop_oneof![
            Just(SlowdownCategory::Low),
            Just(SlowdownCategory::Mixed),
            Just(SlowdownCategory::High)
        ],
    )
        .prop_map(|(n_apps, n_types, slowdown)| {
            let mut p = ScenarioParams::paper(n_apps, n_types, 8 * n_apps as u32, slowdown);
            p.cov.mean_task = 200.0;
            p
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn every_heuristic_returns_a_valid_allocation_below_the_bound(params in small_params(), seed in 0u64..1000) {
        let inst = generate(&params, &mut stream(seed, 0, 0, Purpose::Scenario)).unwrap();
        let b = upper_bound(&inst);
        for h in Heuristic::ALL {
            let alloc = h.allocate(&inst, &mut stream(seed, 0, 0, Purpose::PbRandom)).unwrap();
            let psi = inst.robustness(&alloc);
            prop_assert!(psi.is_ok(), "{}: {:?}", h.name(), psi);
            let psi = psi.unwrap();
            prop_assert!(psi <= b + EPS, "{}: Psi {} above the bound {}", h.name(), psi, b);
            if matches!(h, Heuristic::PbR | Heuristic::PbS) {
                prop_assert!(alloc.iter().all(|a| u64::from(a.procs) * inst.n_apps() as u64 == inst.total_processors()));
            }
        }
    }

}
