//! The bracket: every schedule it returns is feasible, `L <= optimum <= U`, and `L` is the
//! optimum on most tiny instances.

use bound::{
    BoundOptions, BracketOptions, Instance, LagrangianOptions, LowerOptions, bracket,
    check_schedule, exact_small, lagrangian_bound, lower_bound, upper_bound,
};
use ndarray::{Array2, array};
use pmf::Tick;
use proptest::prelude::*;

use crate::support::{feasible_count, tiny_instance};

/// A random instance of up to `max_tasks` tasks on up to `max_machines` machines, busy
/// enough that not every task fits.
fn medium_instance(max_tasks: usize, max_machines: usize) -> impl Strategy<Value = Instance> {
    (4..=max_tasks, 1..=max_machines).prop_flat_map(|(n, m)| {
        (
            proptest::collection::vec((0..6i64, 2..60i64), n),
            proptest::collection::vec(0..25i64, n * m),
            0..=n / 4,
            0..=n / 4,
            Just(m),
        )
            .prop_map(|(gaps, exec, s0, s1, m)| {
                let n = gaps.len();
                let mut t = 0;
                let mut arrival = Vec::with_capacity(n);
                let mut deadline = Vec::with_capacity(n);
                for &(gap, slack) in &gaps {
                    t += gap;
                    arrival.push(t);
                    deadline.push(t + slack);
                }
                let exec = Array2::from_shape_vec((n, m), exec).expect("n x m");
                Instance::new(arrival, deadline, exec, s0..n - s1).expect("valid")
            })
    })
}

fn check_bracket(inst: &Instance, opts: &BracketOptions) -> Result<bound::Bracket, TestCaseError> {
    let b = bracket(inst, opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
    // The library's checker and the tests' own agree that the schedule is feasible.
    let lib = check_schedule(inst, &b.lower.schedule);
    prop_assert_eq!(lib, Ok(b.lower_on_time), "{:?}", b.lower.schedule);
    prop_assert_eq!(
        feasible_count(inst, &b.lower.schedule),
        Some(b.lower_on_time)
    );
    prop_assert!(b.lower_on_time <= b.upper_on_time, "{:?}", b);
    prop_assert!(b.upper_on_time <= b.lp.on_time);
    prop_assert!(b.lower.constructed <= b.lower_on_time);
    prop_assert!(b.width() >= 0.0);
    Ok(b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// On tiny instances: `L <= exact <= U`, with the Lagrangian run to many evaluations.
    #[test]
    fn the_optimum_is_inside(inst in tiny_instance(9, 3)) {
        let exact = exact_small(&inst).unwrap();
        let opts = BracketOptions::default()
            .with_lagrangian(LagrangianOptions::default().with_evaluations(30));
        let b = check_bracket(&inst, &opts)?;
        prop_assert!(b.lower_on_time <= exact, "{:?} > exact {}", b, exact);
        prop_assert!(b.upper_on_time >= exact, "{:?} < exact {}", b, exact);
        if let Some(l) = &b.lagrangian {
            prop_assert!(l.value + 1e-6 >= exact as f64, "{:?}", l);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    /// On busier instances (up to 40 tasks, 4 machines): `L <= U` and feasible schedules,
    /// also with the interval LP on the upper side and without the ruin-and-recreate sweeps.
    #[test]
    fn lower_never_crosses_upper(inst in medium_instance(40, 4)) {
        check_bracket(&inst, &BracketOptions::default())?;
        let lighter = BracketOptions::default()
            .with_upper(BoundOptions::tight())
            .with_lower(LowerOptions::default().with_patience(0));
        check_bracket(&inst, &lighter)?;
    }
}

/// SplitMix64: a deterministic stream for the census below.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A tiny oversubscribed instance: `n` tasks arriving within 20 ticks on `m` machines.
fn census_instance(state: &mut u64, n: usize, m: usize) -> Instance {
    let mut arrival: Vec<Tick> = (0..n).map(|_| (next(state) % 20) as Tick).collect();
    arrival.sort_unstable();
    let deadline = arrival
        .iter()
        .map(|a| a + 5 + (next(state) % 25) as Tick)
        .collect();
    let exec = Array2::from_shape_fn((n, m), |_| 1 + (next(state) % 12) as Tick);
    Instance::new(arrival, deadline, exec, 0..n).unwrap()
}

/// On 1,000 tiny oversubscribed instances (6-10 tasks, 1-3 machines) the search finds the
/// optimum almost always, and is never more than one task short. `docs/bound.md` quotes the
/// counts this prints.
#[test]
fn the_search_is_optimal_on_most_tiny_instances() {
    let mut state = 2019;
    let (mut optimal, mut one_short, mut upper_tight) = (0, 0, 0);
    let cases = 1000;
    for c in 0..cases {
        let n = 6 + c % 5;
        let m = 1 + (c / 5) % 3;
        let inst = census_instance(&mut state, n, m);
        let exact = exact_small(&inst).unwrap();
        let b = bracket(&inst, &BracketOptions::default()).unwrap();
        assert!(
            b.lower_on_time <= exact && exact <= b.upper_on_time,
            "{b:?} vs {exact}"
        );
        match exact - b.lower_on_time {
            0 => optimal += 1,
            1 => one_short += 1,
            d => panic!("{d} tasks short of the optimum {exact} on {inst:?}"),
        }
        upper_tight += usize::from(b.upper_on_time == exact);
    }
    println!(
        "lower = optimum on {optimal} of {cases}, one short on {one_short}; upper = optimum on {upper_tight}"
    );
    assert!(
        optimal >= cases * 95 / 100,
        "optimal on {optimal} of {cases}"
    );
}

#[test]
fn a_hand_made_bracket() {
    // One machine, three tasks of 4 ticks due at 9: two fit (0-4, 4-8), the LP says 2.
    let inst = Instance::new(vec![0, 0, 0], vec![9, 9, 9], array![[4], [4], [4]], 0..3).unwrap();
    let b = bracket(&inst, &BracketOptions::default()).unwrap();
    assert_eq!((b.lower_on_time, b.upper_on_time), (2, 2));
    assert_eq!(b.counted, 3);
    assert!((b.lower_robustness - 200.0 / 3.0).abs() < 1e-12);
    assert_eq!(b.width(), 0.0);
    // The bracket is closed by the LP: the Lagrangian is not needed.
    assert_eq!(b.lagrangian, None);
    let mut starts: Vec<Tick> = b.lower.schedule.iter().map(|p| p.start).collect();
    starts.sort_unstable();
    assert_eq!(starts, vec![0, 4]);
}

#[test]
fn the_lagrangian_sees_a_lull_the_lp_cannot() {
    // One machine; two tasks of 5 ticks that must both run in [0, 6] and a third with
    // [20, 26]: the capacity window [0, 25] holds 15 ticks of work, so the LP says 3; the
    // time-indexed bound sees that only one of the first two fits before tick 6.
    let inst = Instance::new(vec![0, 0, 20], vec![7, 7, 27], array![[5], [5], [5]], 0..3).unwrap();
    let lp = upper_bound(&inst, &BoundOptions::default()).unwrap();
    assert_eq!(lp.on_time, 3);
    let l = lagrangian_bound(&inst, &LagrangianOptions::default().with_evaluations(50), 2)
        .unwrap()
        .unwrap();
    assert_eq!(l.on_time, 2, "{l:?}");
    // The capacity row is slack (dual 0): every multiplier starts at 1, where the
    // Lagrangian equals the LP; the subgradient steps find the lull.
    assert_eq!(l.start, 3.0);
    let one = bracket(&inst, &BracketOptions::default()).unwrap();
    assert_eq!((one.lower_on_time, one.upper_on_time), (2, 3), "{one:?}");
    let more = BracketOptions::default()
        .with_lagrangian(LagrangianOptions::default().with_evaluations(50));
    let b = bracket(&inst, &more).unwrap();
    assert_eq!((b.lower_on_time, b.upper_on_time), (2, 2), "{b:?}");
}

#[test]
fn options_that_leave_the_lagrangian_out() {
    let inst = Instance::new(vec![0, 0, 20], vec![7, 7, 27], array![[5], [5], [5]], 0..3).unwrap();
    let off = BracketOptions::default().with_lagrangian(LagrangianOptions::off());
    let b = bracket(&inst, &off).unwrap();
    assert_eq!(b.lagrangian, None);
    assert_eq!(b.upper_on_time, 3);
    let mut tiny = LagrangianOptions::default();
    tiny.max_cells = 3;
    let b = bracket(&inst, &BracketOptions::default().with_lagrangian(tiny)).unwrap();
    assert_eq!(b.lagrangian, None);
    assert_eq!(lagrangian_bound(&inst, &tiny, 0).unwrap(), None);
}

#[test]
fn empty_and_machineless_instances() {
    let empty = Instance::new(vec![], vec![], Array2::zeros((0, 2)), 0..0).unwrap();
    let b = bracket(&empty, &BracketOptions::default()).unwrap();
    assert_eq!((b.lower_on_time, b.upper_on_time, b.width()), (0, 0, 0.0));
    let none = Instance::new(vec![0], vec![9], Array2::zeros((1, 0)), 0..1).unwrap();
    let b = bracket(&none, &BracketOptions::default()).unwrap();
    assert_eq!((b.lower_on_time, b.upper_on_time), (0, 0));
    let l = lower_bound(&none, &LowerOptions::default()).unwrap();
    assert!(l.schedule.is_empty());
}

#[test]
fn zero_length_tasks_are_on_time_in_the_schedule() {
    // A zero-length task may not start inside another's run: here it can start at 0.
    let inst = Instance::new(vec![0, 0], vec![10, 3], array![[9], [0]], 0..2).unwrap();
    let b = bracket(&inst, &BracketOptions::default()).unwrap();
    assert_eq!((b.lower_on_time, b.upper_on_time), (2, 2));
    assert_eq!(feasible_count(&inst, &b.lower.schedule), Some(2));
}

#[test]
fn uncounted_tasks_are_left_out() {
    let inst = Instance::new(vec![0, 0], vec![10, 10], array![[9], [9]], 1..2).unwrap();
    let b = bracket(&inst, &BracketOptions::default()).unwrap();
    assert_eq!((b.lower_on_time, b.upper_on_time), (1, 1));
    assert!(b.lower.schedule.iter().all(|p| p.task == 1));
}

/// `bracket_between` with times known within limits: its lower side is the search on the
/// slow times (a schedule that stays feasible on the fast ones), its upper side bounds the
/// fast times, and with one instance as both it is `bracket`.
mod between {
    use bound::{
        BoundError, BracketOptions, bracket, bracket_between, check_schedule, exact_small,
    };
    use proptest::prelude::*;

    use crate::support::tiny_instance;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn brackets_every_optimum_between_the_fast_and_the_slow_times(
            fast in tiny_instance(7, 2),
            extra in proptest::collection::vec(0..6i64, 14),
        ) {
            let mut slow = fast.clone();
            for (i, v) in slow.exec.iter_mut().enumerate() {
                *v += extra[i % extra.len()];
            }
            let opts = BracketOptions::default();
            let b = bracket_between(&fast, &slow, &opts).unwrap();
            prop_assert_eq!(check_schedule(&slow, &b.lower.schedule), Ok(b.lower_on_time));
            prop_assert_eq!(check_schedule(&fast, &b.lower.schedule).is_ok(), true);
            prop_assert!(b.lower_on_time <= exact_small(&slow).unwrap());
            prop_assert!(exact_small(&fast).unwrap() <= b.upper_on_time);
            let same = bracket_between(&fast, &fast, &opts).unwrap();
            prop_assert_eq!(same, bracket(&fast, &opts).unwrap());
        }
    }

    #[test]
    fn instances_that_differ_in_more_than_times_are_refused() {
        let fast = bound::Instance::new(vec![0, 0], vec![10, 10], ndarray::array![[3], [4]], 0..2)
            .unwrap();
        let mut later = fast.clone();
        later.deadline[1] = 11;
        let mut faster = fast.clone();
        faster.exec[[0, 0]] = 2;
        for slow in [later, faster] {
            assert!(matches!(
                bracket_between(&fast, &slow, &BracketOptions::default()),
                Err(BoundError::Shape(_))
            ));
        }
    }
}
