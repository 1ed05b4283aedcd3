//! The bound against the exact optimum of tiny instances.

use bound::{Instance, exact_small, trivial_bound, upper_bound};
use ndarray::array;
use proptest::prelude::*;

use crate::support::{LP_EPS, brute_force, families, tiny_instance};

#[test]
fn three_equal_tasks_on_one_machine_fit_two() {
    let inst = Instance::new(vec![0, 0, 0], vec![9, 9, 9], array![[4], [4], [4]], 0..3).unwrap();
    assert_eq!(exact_small(&inst).unwrap(), 2);
    assert_eq!(brute_force(&inst), 2);
    for (name, opts) in families().into_iter().skip(1) {
        let b = upper_bound(&inst, &opts).unwrap();
        assert_eq!(b.on_time, 2, "{name}: {b:?}");
    }
}

#[test]
fn completing_at_the_deadline_tick_is_late() {
    // 0 + 5 = 5 is not < 5: the task can never be on time.
    let inst = Instance::new(vec![0], vec![5], array![[5]], 0..1).unwrap();
    assert_eq!(trivial_bound(&inst), 0);
    assert_eq!(exact_small(&inst).unwrap(), 0);
    assert_eq!(
        upper_bound(&inst, &bound::BoundOptions::tight())
            .unwrap()
            .on_time,
        0
    );
}

#[test]
fn interval_windows_see_what_capacity_misses() {
    // Tasks 0 and 1 must both run inside [0, 3], where only one fits; tasks 2 and 3 have room.
    // The whole horizon holds all four, so only a short window sees the conflict.
    let inst = Instance::new(
        vec![0, 0, 20, 20],
        vec![4, 4, 40, 40],
        array![[3], [3], [3], [3]],
        0..4,
    )
    .unwrap();
    assert_eq!(exact_small(&inst).unwrap(), 3);
    let cap = upper_bound(&inst, &bound::BoundOptions::default()).unwrap();
    let tight = upper_bound(&inst, &bound::BoundOptions::tight()).unwrap();
    assert_eq!(cap.on_time, 4, "{cap:?}");
    assert_eq!(tight.on_time, 3, "{tight:?}");
    assert!(tight.converged);
}

#[test]
fn uncounted_tasks_neither_add_nor_block() {
    // Task 0 (not counted) would fill the machine; the counted task 1 still fits alone.
    let inst = Instance::new(vec![0, 0], vec![10, 10], array![[9], [9]], 1..2).unwrap();
    assert_eq!(exact_small(&inst).unwrap(), 1);
    assert_eq!(brute_force(&inst), 1);
    assert_eq!(
        upper_bound(&inst, &bound::BoundOptions::tight())
            .unwrap()
            .on_time,
        1
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The subset DP equals the enumeration of assignments and orders (which also schedules
    /// the uncounted tasks: leaving them out loses nothing).
    #[test]
    fn subset_dp_equals_brute_force(inst in tiny_instance(6, 3)) {
        let dp = exact_small(&inst).unwrap();
        let bf = brute_force(&inst);
        prop_assert_eq!(dp, bf, "instance {:?}", inst);
    }

    /// Every bound is at least the exact optimum.
    #[test]
    fn every_bound_is_at_least_the_optimum(inst in tiny_instance(9, 3)) {
        let exact = exact_small(&inst).unwrap();
        prop_assert!(trivial_bound(&inst) >= exact);
        prop_assert!(bound::capacity_bound(&inst) >= exact);
        for (name, opts) in families() {
            let b = upper_bound(&inst, &opts).unwrap();
            prop_assert!(b.lp + LP_EPS >= exact as f64,
                "{}: lp {} < exact {} on {:?}", name, b.lp, exact, inst);
            prop_assert!(b.on_time >= exact, "{}: {:?} on {:?}", name, b, inst);
            prop_assert!(b.converged, "{}: not converged on {:?}", name, inst);
        }
    }
}
