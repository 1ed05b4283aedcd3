//! Adding constraints never raises the bound; the cheap bounds sit above the LP.

use bound::{BoundOptions, WindowFamily, capacity_bound, trivial_bound, upper_bound};
use proptest::prelude::*;

use crate::support::{LP_EPS, families, tiny_instance};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn each_family_is_at_most_the_looser_one(inst in tiny_instance(12, 3)) {
        let mut prev: Option<(&str, f64)> = None;
        for (name, opts) in families() {
            let b = upper_bound(&inst, &opts).unwrap();
            if let Some((pname, p)) = prev {
                prop_assert!(b.lp <= p + LP_EPS, "{} ({}) > {} ({}) on {:?}", name, b.lp, pname, p, inst);
            }
            prev = Some((name, b.lp));
        }
    }

    #[test]
    fn cheap_bounds_are_at_least_the_lp(inst in tiny_instance(12, 3)) {
        let none = upper_bound(&inst, &BoundOptions::default().with_windows(WindowFamily::None)).unwrap();
        prop_assert!((none.lp - trivial_bound(&inst) as f64).abs() < LP_EPS, "{:?}", none);
        let cap = upper_bound(&inst, &BoundOptions::default()).unwrap();
        prop_assert!(cap.on_time <= capacity_bound(&inst), "{:?}", cap);
        prop_assert!(cap.capacity_only <= cap.trivial);
        prop_assert!((cap.capacity_lp - cap.lp).abs() < LP_EPS);
        let tight = upper_bound(&inst, &BoundOptions::tight()).unwrap();
        prop_assert!((tight.capacity_lp - cap.lp).abs() < LP_EPS, "{:?} vs {:?}", tight, cap);
        prop_assert!(tight.robustness <= 100.0 + LP_EPS);
    }
}

#[test]
fn fewer_rounds_give_a_looser_but_valid_bound() {
    let inst = bound::Instance::new(
        vec![0, 0, 20, 20, 40, 40],
        vec![4, 4, 24, 24, 44, 44],
        ndarray::array![[3], [3], [3], [3], [3], [3]],
        0..6,
    )
    .unwrap();
    let full = upper_bound(&inst, &BoundOptions::tight()).unwrap();
    let none = upper_bound(
        &inst,
        &BoundOptions {
            max_rounds: 0,
            ..BoundOptions::tight()
        },
    )
    .unwrap();
    assert!(full.converged);
    assert_eq!(full.on_time, 3);
    assert!(!none.converged);
    assert!(none.lp >= full.lp);
    assert_eq!(bound::exact_small(&inst).unwrap(), 3);
}
