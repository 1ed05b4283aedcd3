//! `auto` and `lookahead` decide as the plain reference loop on their queues (capped at the
//! depth, or planned to the queues' limits), and never commit a machine deeper than the
//! depth.

use heuristics::{Auto, Phase1Scope};
use model::{BatchHeuristic, View};
use proptest::prelude::*;

use crate::system::{System, large_batch_strategy, many_machines_strategy, system_strategy};

/// Tasks on each machine after the decision: those queued plus those assigned.
fn depths_after(view: &View<'_>, assign: &[(usize, usize)]) -> Vec<usize> {
    let mut d: Vec<usize> = view.machines().iter().map(model::Machine::len).collect();
    for &(_, m) in assign {
        d[m] += 1;
    }
    d
}

fn check(
    system: &System,
    free_only: bool,
    depth: Option<usize>,
    lookahead: bool,
) -> Result<(), TestCaseError> {
    let scope = if free_only {
        Phase1Scope::FreeMachines
    } else {
        Phase1Scope::AllMachines
    };
    let mut fast = if lookahead {
        Auto::lookahead(scope, depth)
    } else {
        Auto::new(scope, depth)
    };
    let reference = fast.clone();
    let (a, b) = (system.clone(), system.clone());
    let got = fast.map(&a.view());
    let want = reference.map_reference(&b.view());
    prop_assert_eq!(&got.assign, &want.assign, "assignments");
    let mut gd = got.deferred.clone();
    let mut wd = want.deferred;
    gd.sort_unstable();
    wd.sort_unstable();
    prop_assert_eq!(gd, wd, "deferred");
    prop_assert!(got.drop.is_empty() && got.discard.is_empty());
    let view = a.view();
    let cap = depth.unwrap_or(heuristics::auto::DEFAULT_DEPTH);
    for (m, (&after, machine)) in depths_after(&view, &got.assign)
        .iter()
        .zip(view.machines())
        .enumerate()
    {
        let assigned = got.assign.iter().filter(|&&(_, x)| x == m).count();
        if assigned > 0 {
            prop_assert!(
                after <= cap,
                "machine {m} holds {after} tasks after the decision, depth {cap}"
            );
        }
        if let Some(limit) = machine.capacity() {
            prop_assert!(
                after <= limit.max(machine.len()),
                "machine {m} over its limit"
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn auto_decides_as_the_reference_loop_within_its_depth(
        system in system_strategy(),
        free_only in any::<bool>(),
        depth in prop_oneof![Just(None), (1usize..5).prop_map(Some)],
        lookahead in any::<bool>(),
    ) {
        check(&system, free_only, depth, lookahead)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn auto_decides_as_the_reference_loop_on_many_machines(
        system in prop_oneof![many_machines_strategy(), large_batch_strategy()],
        depth in prop_oneof![Just(None), (1usize..4).prop_map(Some)],
        lookahead in any::<bool>(),
    ) {
        check(&system, false, depth, lookahead)?;
    }
}

/// A system of one task type on a fast and a slow machine (point masses of `fast` and
/// `slow` ticks, queues of 6), the fast one executing task 0 from tick 0 and holding task 1,
/// and tasks 2.. in the batch queue (`batch` of them), deadlines far away.
fn fast_and_slow(fast: pmf::Tick, slow: pmf::Tick, batch: usize) -> System {
    use model::{Machine, Oracle, TaskSpec};
    use ndarray::Array2;
    use pmf::{DropModel, Pmf};
    use workload::Pet;
    let pet = Pet::new(
        Array2::from_shape_vec((1, 2), vec![Pmf::point(fast), Pmf::point(slow)]).unwrap(),
        vec!["t".into()],
        vec!["fast".into(), "slow".into()],
    )
    .unwrap();
    let tasks: Vec<TaskSpec> = (0..2 + batch)
        .map(|id| TaskSpec {
            id,
            task_type: 0,
            arrival: 0,
            deadline: 1_000,
        })
        .collect();
    let mut machines = vec![Machine::new(0, Some(6)), Machine::new(1, Some(6))];
    machines[0].start(0, 0, fast);
    machines[0].push(1);
    let mut oracle = Oracle::new(2);
    oracle.sync(&machines, 0);
    System {
        pet,
        tasks,
        machines,
        oracle,
        batch: (2..2 + batch).collect(),
        now: 0,
        model: DropModel::All,
        defer: None,
    }
}

/// A machine holding `depth` tasks gets none; a free machine gets at most `depth`.
#[test]
fn a_machine_at_its_depth_gets_no_task() {
    // Machine 0 (2 ticks) executes task 0 and holds task 1: at the default depth.
    let system = fast_and_slow(2, 50, 4);
    let view = system.view();
    let mut auto = Auto::new(Phase1Scope::FreeMachines, None);
    let d = auto.map(&view);
    // Every task would finish first on machine 0, but it is at its depth: only machine 1,
    // empty, takes two tasks (its depth), and the others wait in the batch queue.
    assert_eq!(d.assign, vec![(2, 1), (3, 1)]);
    // With depth 6 (the queue's limit) machine 0 takes every task: MM's decision.
    let mut deep = Auto::new(Phase1Scope::FreeMachines, Some(6));
    let d = deep.map(&view);
    assert_eq!(d.assign.len(), 4);
    assert!(d.assign.iter().all(|&(_, m)| m == 0));
    // `lookahead` plans to the queue: every task ends sooner on machine 0, even sixth in its
    // queue (at 12), than on the slow machine (50), so nothing is committed and every task
    // waits for machine 0.
    for scope in [Phase1Scope::AllMachines, Phase1Scope::FreeMachines] {
        let mut ahead = Auto::lookahead(scope, None);
        let d = ahead.map(&view);
        assert_eq!(d.assign, vec![], "{scope:?}");
        assert_eq!(d, ahead.map_reference(&view), "{scope:?}");
    }
}

/// `lookahead`'s plan sees the backlog: capped at its depth, the fast machine always looks
/// two tasks away, and `auto` leaves the slow machine idle while the batch waits for the fast
/// one. Planned to the queue, the third task of the batch ends sooner on the slow machine
/// (45) than fourth behind the fast machine's (50), and only it is committed. (Deadlines are
/// far away: every chance is 1, and phase 1 chooses by the expected completion.)
#[test]
fn the_plan_sees_the_backlog_of_a_fast_machine() {
    // Fast machine: task 0 executing to 10, task 1 to 20; tasks 2-7 in the batch.
    let system = fast_and_slow(10, 45, 6);
    let view = system.view();
    assert_eq!(
        Auto::new(Phase1Scope::AllMachines, None).map(&view).assign,
        vec![]
    );
    let mut ahead = Auto::lookahead(Phase1Scope::AllMachines, None);
    let d = ahead.map(&view);
    // The plan: 2 and 3 on the fast machine (30, 40), 4 on the slow one (45), 5 and 6 on
    // the fast one (50, 60); 7 waits (the fast queue full, 90 on the slow one). Of those,
    // the fast machine commits none (it holds 2, the depth), the slow one its first.
    assert_eq!(d.assign, vec![(4, 1)]);
    assert_eq!(d, ahead.map_reference(&view));
    // Depth 3: the fast machine commits its first planned task too.
    let mut three = Auto::lookahead(Phase1Scope::AllMachines, Some(3));
    let d = three.map(&view);
    assert_eq!(d.assign, vec![(2, 0), (4, 1)]);
    assert_eq!(d, three.map_reference(&view));
}

/// A deferred task takes a machine that would stay idle when its chance there is above
/// `FILL_FLOOR`; below it, it stays deferred.
#[test]
fn a_deferred_task_takes_an_idle_machine_above_the_floor() {
    use heuristics::auto::FILL_FLOOR;
    use model::{Machine, Oracle, TaskSpec};
    use ndarray::Array2;
    use pmf::{DropModel, Pmf};
    use workload::Pet;
    // One task type on one machine: 10 ticks with 0.8, 100 with 0.2 (bimodal): a task with
    // a deadline 50 ticks away has a chance of 0.8 at best, below the defer threshold 0.9.
    let pmf = Pmf::from_weighted_pairs([(10, 0.8), (100, 0.2)]).unwrap();
    let pet = Pet::new(
        Array2::from_shape_vec((1, 1), vec![pmf]).unwrap(),
        vec!["t".into()],
        vec!["m".into()],
    )
    .unwrap();
    let task = |id, deadline| TaskSpec {
        id,
        task_type: 0,
        arrival: 0,
        deadline,
    };
    let system = |deadline| {
        let machines = vec![Machine::new(0, Some(6))];
        let mut oracle = Oracle::new(1);
        oracle.sync(&machines, 0);
        System {
            pet: pet.clone(),
            tasks: vec![task(0, deadline)],
            machines,
            oracle,
            batch: vec![0],
            now: 0,
            model: DropModel::All,
            defer: Some(vec![0.9]),
        }
    };
    // Chance 0.8 > FILL_FLOOR on the idle machine: mapped, not deferred.
    let s = system(50);
    let d = Auto::new(Phase1Scope::AllMachines, None).map(&s.view());
    const { assert!(0.8 > FILL_FLOOR) };
    assert_eq!(d.assign, vec![(0, 0)]);
    assert!(d.deferred.is_empty());
    // MM-P (no fill) defers it and leaves the machine idle.
    let d = heuristics::TwoPhase::mm(Phase1Scope::AllMachines).map(&s.view());
    assert!(d.assign.is_empty());
    assert_eq!(d.deferred, vec![0]);
    // A deadline 5 ticks away: chance 0, it stays deferred.
    let s = system(5);
    let d = Auto::new(Phase1Scope::AllMachines, None).map(&s.view());
    assert!(d.assign.is_empty());
    assert_eq!(d.deferred, vec![0]);
}

/// The idle machine takes the deferred task its plan's phase 2 chooses (the least expected
/// completion), not the first in batch order; a task at or below `FILL_FLOOR` is passed
/// over.
#[test]
fn an_idle_machine_takes_the_deferred_task_that_ends_soonest() {
    use model::{Machine, Oracle, TaskSpec};
    use ndarray::Array2;
    use pmf::{DropModel, Pmf};
    use workload::Pet;
    // Type 0: 20 ticks with 0.8, 200 with 0.2 (mean 56). Type 1: 10 ticks with 0.8, 100 with
    // 0.2 (mean 28). Type 2: 4 ticks with 0.4, 60 with 0.6 (mean 37.6). Deadline 150: a
    // chance of 0.8 for types 0 and 1 on the idle machine, below the defer threshold 0.9 and
    // above the floor; type 2's deadline 30 gives it 0.4, at most the floor.
    let pmfs = vec![
        Pmf::from_weighted_pairs([(20, 0.8), (200, 0.2)]).unwrap(),
        Pmf::from_weighted_pairs([(10, 0.8), (100, 0.2)]).unwrap(),
        Pmf::from_weighted_pairs([(4, 0.4), (60, 0.6)]).unwrap(),
    ];
    let pet = Pet::new(
        Array2::from_shape_vec((3, 1), pmfs).unwrap(),
        vec!["slow".into(), "fast".into(), "risky".into()],
        vec!["m".into()],
    )
    .unwrap();
    let task = |id, task_type, deadline| TaskSpec {
        id,
        task_type,
        arrival: 0,
        deadline,
    };
    let system = |tasks: Vec<TaskSpec>| {
        let machines = vec![Machine::new(0, Some(6))];
        let mut oracle = Oracle::new(1);
        oracle.sync(&machines, 0);
        let batch = (0..tasks.len()).collect();
        System {
            pet: pet.clone(),
            tasks,
            machines,
            oracle,
            batch,
            now: 0,
            model: DropModel::All,
            defer: Some(vec![0.9; 3]),
        }
    };
    // The slow task arrived first; the fast one ends sooner (28 against 56 expected).
    let s = system(vec![task(0, 0, 150), task(1, 1, 150)]);
    let mut auto = Auto::new(Phase1Scope::AllMachines, None);
    let d = auto.map(&s.view());
    assert_eq!(d.assign, vec![(1, 0)]);
    assert_eq!(d.deferred, vec![0]);
    assert_eq!(auto.map_reference(&s.view()).assign, vec![(1, 0)]);
    // The risky task ends sooner still (37.6 < 56) but its chance, 0.4, is at most the
    // floor: the slow task takes the machine.
    let s = system(vec![task(0, 0, 150), task(1, 2, 30)]);
    let d = Auto::new(Phase1Scope::AllMachines, None).map(&s.view());
    assert_eq!(d.assign, vec![(0, 0)]);
    assert_eq!(d.deferred, vec![1]);
}
