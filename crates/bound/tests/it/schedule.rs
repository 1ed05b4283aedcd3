//! The library's schedule checker names each broken rule.

use bound::{Instance, Placement, ScheduleError, check_schedule};
use ndarray::array;

use crate::support::feasible_count;

fn inst() -> Instance {
    // Task 0: a 0, D 10, p (4, 6); task 1: a 2, D 8, p (3, 3); task 2: a 0, D 5, p (0, 0).
    Instance::new(
        vec![0, 2, 0],
        vec![10, 8, 5],
        array![[4, 6], [3, 3], [0, 0]],
        0..2,
    )
    .unwrap()
}

fn at(task: usize, machine: usize, start: i64) -> Placement {
    Placement {
        machine,
        start,
        task,
    }
}

#[test]
fn a_feasible_schedule_counts_its_counted_tasks() {
    let s = [at(0, 0, 0), at(1, 0, 4), at(2, 0, 4)];
    assert_eq!(check_schedule(&inst(), &s), Ok(2));
    assert_eq!(feasible_count(&inst(), &s), Some(2));
    // Task 2 is not counted.
    assert_eq!(check_schedule(&inst(), &[at(2, 1, 0)]), Ok(0));
}

#[test]
fn each_rule_is_named() {
    let cases: Vec<(Vec<Placement>, ScheduleError)> = vec![
        (
            vec![at(7, 0, 0)],
            ScheduleError::NoSuchTask {
                task: 7,
                n_tasks: 3,
            },
        ),
        (
            vec![at(0, 2, 0)],
            ScheduleError::NoSuchMachine {
                task: 0,
                machine: 2,
                n_machines: 2,
            },
        ),
        (
            vec![at(0, 0, 0), at(0, 1, 0)],
            ScheduleError::Repeated { task: 0 },
        ),
        (
            vec![at(1, 0, 1)],
            ScheduleError::BeforeArrival {
                task: 1,
                start: 1,
                arrival: 2,
            },
        ),
        (
            // 5 + 3 = 8: completing at the deadline tick is late.
            vec![at(1, 0, 5)],
            ScheduleError::Late {
                task: 1,
                completion: 8,
                deadline: 8,
            },
        ),
        (
            vec![at(0, 0, 0), at(1, 0, 3)],
            ScheduleError::Overlap {
                machine: 0,
                first: 0,
                second: 1,
            },
        ),
        (
            // A zero-length task inside another's run.
            vec![at(0, 0, 0), at(2, 0, 2)],
            ScheduleError::Overlap {
                machine: 0,
                first: 0,
                second: 2,
            },
        ),
    ];
    for (s, want) in cases {
        assert_eq!(check_schedule(&inst(), &s), Err(want.clone()), "{s:?}");
        assert_eq!(feasible_count(&inst(), &s), None, "{s:?}");
        assert!(!want.to_string().is_empty());
    }
}
