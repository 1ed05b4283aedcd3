//! The bound against the real engine: no heuristic, with or without pruning, finishes more
//! counted tasks on time than the bound, on the same realised times.

use bound::{
    BoundOptions, MAX_EXACT_TASKS, eligible_tasks, exact_small, instance_from, upper_bound,
};
use heuristics::HeuristicConfig;
use model::{Outcome, TaskSpec};
use ndarray::Array2;
use pmf::{DropModel, Pmf};
use proptest::prelude::*;
use pruner::{ProbabilisticPruner, PrunerConfig};
use runner::{EngineConfig, QueueSize, simulate};
use workload::Pet;

const HEURISTICS: [&str; 8] = ["PAM", "MOC", "MM", "MSD", "MMU", "MCT", "FCFS", "MR"];

/// A small PET: `types x machines` PMFs, each on a few ticks from a random offset.
fn small_pet(types: usize, machines: usize) -> impl Strategy<Value = Pet> {
    proptest::collection::vec(
        (1..12i64, proptest::collection::vec(0.05..1.0f64, 1..5)),
        types * machines,
    )
    .prop_map(move |cells| {
        let pmfs: Vec<Pmf> = cells
            .into_iter()
            .map(|(offset, w)| Pmf::from_weights(offset, w).expect("positive weights"))
            .collect();
        Pet::new(
            Array2::from_shape_vec((types, machines), pmfs).expect("types x machines"),
            (0..types).map(|t| format!("t{t}")).collect(),
            (0..machines).map(|m| format!("m{m}")).collect(),
        )
        .expect("a valid PET")
    })
}

/// A workload on that PET: tasks in arrival order with slack, and one uniform draw each.
fn workload(types: usize, max_tasks: usize) -> impl Strategy<Value = (Vec<TaskSpec>, Vec<f64>)> {
    (4..=max_tasks).prop_flat_map(move |n| {
        (
            proptest::collection::vec((0..4i64, 0..types, 3..30i64), n),
            proptest::collection::vec(0.0..1.0f64, n),
        )
            .prop_map(|(raw, luck)| {
                let mut t = 0;
                let tasks = raw
                    .into_iter()
                    .enumerate()
                    .map(|(id, (gap, task_type, slack))| {
                        t += gap;
                        TaskSpec {
                            id,
                            task_type,
                            arrival: t,
                            deadline: t + slack,
                        }
                    })
                    .collect();
                (tasks, luck)
            })
    })
}

fn case() -> impl Strategy<Value = (Pet, Vec<TaskSpec>, Vec<f64>, usize, usize)> {
    (1..=3usize, 1..=3usize).prop_flat_map(|(types, machines)| {
        (
            small_pet(types, machines),
            workload(types, 30),
            0..4usize,
            0..4usize,
        )
            .prop_map(|(pet, (tasks, luck), s0, s1)| (pet, tasks, luck, s0, s1))
    })
}

fn on_time_counted(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    name: &str,
    model: DropModel,
    counted: std::ops::Range<usize>,
) -> usize {
    let mut mapper =
        heuristics::build(&HeuristicConfig::named(name), model).expect("known heuristic");
    let mut pruner =
        ProbabilisticPruner::new(PrunerConfig::default(), pet.n_types()).expect("default pruner");
    let record = simulate(
        pet,
        tasks,
        luck,
        EngineConfig {
            queue_size: QueueSize::Limit(4),
            drop_model: model,
            pct_epsilon: 0.0,
        },
        &mut mapper,
        &mut pruner,
    );
    counted
        .filter(|&i| record.tasks[i].outcome == Outcome::OnTime)
        .count()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn no_heuristic_beats_the_bound((pet, tasks, luck, s0, s1) in case()) {
        let n = tasks.len();
        let counted = runner::Counting { skip_first: s0, skip_last: s1 }.range(n);
        let inst = instance_from(&pet, &tasks, &luck, counted.clone()).unwrap();
        let cap = upper_bound(&inst, &BoundOptions::default()).unwrap();
        let tight = upper_bound(&inst, &BoundOptions::tight()).unwrap();
        prop_assert!(tight.on_time <= cap.on_time);
        let exact = (eligible_tasks(&inst).len() <= MAX_EXACT_TASKS.min(10))
            .then(|| exact_small(&inst).unwrap());
        if let Some(e) = exact {
            prop_assert!(e <= tight.on_time, "exact {} > bound {:?}", e, tight);
        }
        for name in HEURISTICS {
            for model in [DropModel::All, DropModel::None] {
                let got = on_time_counted(&pet, &tasks, &luck, name, model, counted.clone());
                prop_assert!(got <= tight.on_time,
                    "{} ({:?}) finished {} counted tasks on time, bound {:?}", name, model, got, tight);
                if let Some(e) = exact {
                    prop_assert!(got <= e, "{} ({:?}) finished {} > exact {}", name, model, got, e);
                }
            }
        }
    }
}

#[test]
fn realised_times_follow_the_engine_quantile_rule() {
    let pmf = Pmf::new(3, vec![0.25, 0.0, 0.5, 0.25]).unwrap();
    let pet = Pet::new(
        Array2::from_elem((1, 2), pmf.clone()),
        vec!["t".into()],
        vec!["a".into(), "b".into()],
    )
    .unwrap();
    let tasks: Vec<TaskSpec> = (0..4)
        .map(|id| TaskSpec {
            id,
            task_type: 0,
            arrival: id as i64,
            deadline: 100,
        })
        .collect();
    let luck = [0.0, 0.3, 0.99, 7.0];
    let inst = instance_from(&pet, &tasks, &luck, 0..4).unwrap();
    for (k, &u) in luck.iter().enumerate() {
        let want = pmf.quantile(u.clamp(0.0, 1.0)).unwrap_or(pmf.max()).max(0);
        assert_eq!(inst.exec[[k, 0]], want);
        assert_eq!(inst.exec[[k, 1]], want);
    }
    assert_eq!(inst.arrival, vec![0, 1, 2, 3]);
    let bad = instance_from(&pet, &tasks[..2], &luck, 0..2).unwrap_err();
    assert!(matches!(bad, bound::BoundError::Shape(_)));
    let mut odd = tasks;
    odd[1].task_type = 5;
    let bad = instance_from(&pet, &odd, &luck, 0..4).unwrap_err();
    assert!(matches!(bad, bound::BoundError::TaskType { task: 1, .. }));
}

#[test]
fn heuristics_finish_tasks_on_a_light_workload_and_stay_below() {
    // Two machines, one type, tasks every 3 ticks running 2-4 ticks with slack 12: the engine
    // finishes most of them, so the comparison with the bound is not vacuous.
    let pmf = Pmf::new(2, vec![0.3, 0.4, 0.3]).unwrap();
    let pet = Pet::new(
        Array2::from_elem((1, 2), pmf),
        vec!["t".into()],
        vec!["a".into(), "b".into()],
    )
    .unwrap();
    let tasks: Vec<TaskSpec> = (0..20)
        .map(|id| TaskSpec {
            id,
            task_type: 0,
            arrival: 3 * id as i64,
            deadline: 3 * id as i64 + 12,
        })
        .collect();
    let luck: Vec<f64> = (0..20u32).map(|i| (f64::from(i) * 0.37) % 1.0).collect();
    let inst = instance_from(&pet, &tasks, &luck, 2..18).unwrap();
    let b = upper_bound(&inst, &BoundOptions::tight()).unwrap();
    for name in HEURISTICS {
        let got = on_time_counted(&pet, &tasks, &luck, name, DropModel::All, 2..18);
        assert!(got >= 8, "{name} finished only {got}");
        assert!(got <= b.on_time, "{name}: {got} > {b:?}");
    }
}
