//! Invalid input gives typed errors, never a panic.

use bound::{BoundError, BoundOptions, Instance, WindowFamily, exact_small, upper_bound};
use ndarray::{Array2, array};

#[test]
fn lengths_that_disagree_are_a_shape_error() {
    let e = Instance::new(vec![0, 1], vec![5], array![[1], [1]], 0..1).unwrap_err();
    assert!(matches!(e, BoundError::Shape(_)), "{e}");
}

#[test]
fn a_counted_range_past_the_tasks_is_refused() {
    let e = Instance::new(vec![0], vec![5], array![[1]], 0..2).unwrap_err();
    assert!(matches!(e, BoundError::Counted { end: 2, .. }), "{e}");
}

#[test]
fn a_negative_time_is_refused_also_when_fields_are_edited() {
    let mut inst = Instance::new(vec![0], vec![5], array![[1]], 0..1).unwrap();
    inst.exec[[0, 0]] = -3;
    let e = upper_bound(&inst, &BoundOptions::default()).unwrap_err();
    assert!(
        matches!(e, BoundError::NegativeExec { time: -3, .. }),
        "{e}"
    );
}

#[test]
fn bad_options_are_refused() {
    let inst = Instance::new(vec![0], vec![5], array![[1]], 0..1).unwrap();
    for opts in [
        BoundOptions {
            tolerance: f64::NAN,
            ..BoundOptions::default()
        },
        BoundOptions {
            cuts_per_machine: 0,
            ..BoundOptions::default()
        },
        BoundOptions::default().with_windows(WindowFamily::Intervals { max_len: Some(0) }),
    ] {
        let e = upper_bound(&inst, &opts).unwrap_err();
        assert!(matches!(e, BoundError::Options(_)), "{e}");
    }
}

#[test]
fn the_exact_search_refuses_large_instances() {
    let n = bound::MAX_EXACT_TASKS + 1;
    let inst = Instance::new(vec![0; n], vec![100; n], Array2::ones((n, 1)), 0..n).unwrap();
    let e = exact_small(&inst).unwrap_err();
    assert!(matches!(e, BoundError::TooLarge { .. }), "{e}");
}

#[test]
fn empty_and_machineless_instances_bound_to_zero() {
    let empty = Instance::new(vec![], vec![], Array2::zeros((0, 2)), 0..0).unwrap();
    let b = upper_bound(&empty, &BoundOptions::tight()).unwrap();
    assert_eq!((b.on_time, b.robustness), (0, 0.0));
    let none = Instance::new(vec![0], vec![9], Array2::zeros((1, 0)), 0..1).unwrap();
    assert_eq!(
        upper_bound(&none, &BoundOptions::tight()).unwrap().on_time,
        0
    );
    assert_eq!(exact_small(&none).unwrap(), 0);
}
