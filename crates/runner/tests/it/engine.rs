//! Small scenarios with point-mass PETs whose outcomes are worked out by hand.

use heuristics::{HeuristicConfig, Mapper, build};

use crate::common::{point_pet, run_case, task};
use model::{NoPruner, Outcome, TaskSpec};
use ndarray::Array2;
use pmf::{DropModel, Pmf};
use proptest::prelude::*;
use pruner::{ProbabilisticPruner, PrunerConfig};
use runner::{EngineConfig, JpdcOptions, QueueSize, TrialRecord, simulate};
use workload::Pet;

fn run(pet: &Pet, tasks: &[TaskSpec], queue: usize, model: DropModel, h: &str) -> TrialRecord {
    run_case(pet, tasks, queue, model, h, JpdcOptions::default())
}

fn outcomes(r: &TrialRecord) -> Vec<Outcome> {
    r.tasks.iter().map(|t| t.outcome).collect()
}

#[test]
fn fcfs_order_and_queue_limit_on_one_machine() {
    // One machine, queue of 2 (executing + 1 pending), three tasks of 10 ticks at t = 0.
    let pet = point_pet(&[&[10]]);
    let tasks = [task(0, 0, 0, 100), task(1, 0, 0, 100), task(2, 0, 0, 100)];
    let r = run(&pet, &tasks, 2, DropModel::All, "MM");
    assert_eq!(outcomes(&r), vec![Outcome::OnTime; 3]);
    // Task 2 waits in the batch until task 0 completes at 10, then runs after task 1.
    let ends: Vec<i64> = r.tasks.iter().map(|t| t.end).collect();
    assert_eq!(ends, vec![10, 20, 30]);
    assert_eq!(r.busy, vec![30]);
    assert_eq!(r.wasted, vec![0]);
    // Mapping events: arrivals at 0 (one event for the tick), completions at 10, 20, 30.
    assert_eq!(r.mapping_events, 4);
}

#[test]
fn a_task_dropped_at_its_deadline_frees_its_slot() {
    // Task 0 runs 100 ticks but is due at 50; task 1 (10 ticks) waits behind it.
    let pet = point_pet(&[&[100], &[10]]);
    let tasks = [task(0, 0, 0, 50), task(1, 1, 1, 200)];
    let r = run(&pet, &tasks, 2, DropModel::All, "MM");
    assert_eq!(
        outcomes(&r),
        vec![Outcome::ExpiredExecuting, Outcome::OnTime]
    );
    assert_eq!((r.tasks[0].end, r.tasks[1].end), (50, 60));
    assert_eq!(r.wasted, vec![50]);
    // When the executing task may not be dropped, it runs late and delays task 1.
    let r = run(&pet, &tasks, 2, DropModel::Pending, "MM");
    assert_eq!(outcomes(&r), vec![Outcome::Late, Outcome::OnTime]);
    assert_eq!((r.tasks[0].end, r.tasks[1].end), (100, 110));
}

#[test]
fn a_pending_task_past_its_deadline_is_dropped_not_run() {
    // Task 1 is due at 40 but can only start at 50: dropped while pending (model b and c);
    // without dropping it runs late.
    let pet = point_pet(&[&[50]]);
    let tasks = [task(0, 0, 0, 100), task(1, 0, 0, 40), task(2, 0, 0, 200)];
    let r = run(&pet, &tasks, 3, DropModel::Pending, "MM");
    assert_eq!(
        outcomes(&r),
        vec![Outcome::OnTime, Outcome::ExpiredPending, Outcome::OnTime]
    );
    assert_eq!(r.tasks[2].end, 100);
    let r = run(&pet, &tasks, 3, DropModel::None, "MM");
    assert_eq!(outcomes(&r)[1], Outcome::Late);
}

#[test]
fn a_task_never_mapped_expires_in_the_batch() {
    // Queue of 1: task 1 waits in the batch and its deadline passes before the machine frees.
    let pet = point_pet(&[&[50]]);
    let tasks = [task(0, 0, 0, 100), task(1, 0, 1, 30)];
    let r = run(&pet, &tasks, 1, DropModel::All, "MM");
    assert_eq!(outcomes(&r), vec![Outcome::OnTime, Outcome::Unmapped]);
}

#[test]
fn mm_takes_the_minimum_expected_completion_machine() {
    // Two machines; type 0 takes 10 on m0 and 30 on m1. Three tasks at t=0, queue 6:
    // MM puts them all on m0 (completions 10, 20, 30), the third ties with m1 (30) and the
    // lower index wins.
    let pet = point_pet(&[&[10, 30]]);
    let tasks = [
        task(0, 0, 0, 100),
        task(1, 0, 0, 100),
        task(2, 0, 0, 100),
        task(3, 0, 0, 100),
    ];
    let r = run(&pet, &tasks, 6, DropModel::All, "MM");
    let machines: Vec<_> = r.tasks.iter().map(|t| t.machine.unwrap()).collect();
    assert_eq!(machines, vec![0, 0, 0, 1]);
}

#[test]
fn immediate_fcfs_takes_the_first_idle_machine() {
    let pet = point_pet(&[&[10, 30, 30]]);
    let tasks = [
        task(0, 0, 0, 100),
        task(1, 0, 0, 100),
        task(2, 0, 0, 100),
        task(3, 0, 0, 100),
    ];
    let r = run(&pet, &tasks, 6, DropModel::All, "FCFS");
    let machines: Vec<_> = r.tasks.iter().map(|t| t.machine.unwrap()).collect();
    // Idle machines 0, 1, 2 in order; then the one expected to free first (m0 at 10).
    assert_eq!(machines, vec![0, 1, 2, 0]);
    assert_eq!(r.tasks[3].end, 20);
}

#[test]
fn execution_times_follow_the_common_random_number() {
    // PET: 10 or 20 ticks with probability 1/2; luck 0.3 draws 10, luck 0.7 draws 20.
    let pmf = Pmf::new(10, {
        let mut v = vec![0.0; 11];
        v[0] = 0.5;
        v[10] = 0.5;
        v
    })
    .unwrap();
    let pet = Pet::new(
        Array2::from_elem((1, 1), pmf),
        vec!["t".into()],
        vec!["m".into()],
    )
    .unwrap();
    let tasks = [task(0, 0, 0, 1000), task(1, 0, 0, 1000)];
    let mut mapper = build(&HeuristicConfig::named("MM"), DropModel::All).unwrap();
    let r = simulate(
        &pet,
        &tasks,
        &[0.3, 0.7],
        EngineConfig {
            queue_size: QueueSize::Limit(6),
            drop_model: DropModel::All,
            pct_epsilon: 0.0,
        },
        &mut mapper,
        &mut NoPruner,
    );
    assert_eq!((r.tasks[0].end, r.tasks[1].end), (10, 30));
}

/// PET point times per (type, machine), tasks as (type, arrival, slack), and luck per task.
pub(crate) type Case = (Vec<Vec<i64>>, Vec<(usize, i64, i64)>, Vec<f64>);

pub(crate) fn random_case() -> impl Strategy<Value = Case> {
    let pet = prop::collection::vec(prop::collection::vec(1i64..40, 3), 2);
    let tasks = prop::collection::vec((0usize..2, 0i64..200, 1i64..150), 1..60);
    (pet, tasks).prop_flat_map(|(p, t)| {
        let n = t.len();
        (Just(p), Just(t), prop::collection::vec(0.0f64..1.0, n))
    })
}

pub(crate) fn build_case(p: &[Vec<i64>], t: &[(usize, i64, i64)]) -> (Pet, Vec<TaskSpec>) {
    // Spread each PET entry over a few ticks so that success probabilities are fractional.
    let pmfs = Array2::from_shape_fn((2, 3), |(ty, m)| {
        Pmf::new(p[ty][m], vec![0.25, 0.5, 0.25]).unwrap()
    });
    let pet = Pet::new(
        pmfs,
        vec!["a".into(), "b".into()],
        vec!["x".into(), "y".into(), "z".into()],
    )
    .unwrap();
    let mut tasks: Vec<(usize, i64, i64)> = t.to_vec();
    tasks.sort_by_key(|x| x.1);
    let specs = tasks
        .iter()
        .enumerate()
        .map(|(i, &(ty, a, slack))| task(i, ty, a, a + slack))
        .collect();
    (pet, specs)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn every_task_ends_in_exactly_one_outcome((p, t, luck) in random_case(),
                                              h in prop::sample::select(vec!["MM", "MSD", "MMU", "MOC", "PAM", "FCFS", "MET", "MCT", "KPB", "MR"]),
                                              model in prop::sample::select(vec![DropModel::None, DropModel::Pending, DropModel::All]),
                                              eps in prop::sample::select(vec![0.0, 1e-3, 0.05])) {
        // (also with trimmed PCTs: every invariant holds whatever the approximation)
        let (pet, specs) = build_case(&p, &t);
        let mut mapper: Mapper = build(&HeuristicConfig::named(h), model).unwrap();
        let mut pr = ProbabilisticPruner::new(PrunerConfig::default(), 2).unwrap();
        // simulate() panics if a task has no outcome or two (debug builds check every event).
        let r = simulate(&pet, &specs, &luck, EngineConfig { queue_size: QueueSize::Limit(3), drop_model: model, pct_epsilon: eps }, &mut mapper, &mut pr);
        prop_assert_eq!(r.tasks.len(), specs.len());
        for (rec, spec) in r.tasks.iter().zip(&specs) {
            if rec.outcome == Outcome::OnTime {
                prop_assert!(rec.end < spec.deadline, "on time but ended at {} >= {}", rec.end, spec.deadline);
            }
            if model != DropModel::All {
                prop_assert!(rec.outcome != Outcome::ExpiredExecuting);
            }
            if model == DropModel::All {
                prop_assert!(rec.outcome != Outcome::Late);
            }
        }
        let busy: i64 = r.busy.iter().sum();
        let wasted: i64 = r.wasted.iter().sum();
        prop_assert!(wasted <= busy);
    }

    #[test]
    fn a_pruner_that_never_acts_changes_nothing((p, t, luck) in random_case(),
                                                h in prop::sample::select(vec!["MM", "PAM", "MOC", "MR"])) {
        let (pet, specs) = build_case(&p, &t);
        let cfg = EngineConfig { queue_size: QueueSize::Limit(3), drop_model: DropModel::All, pct_epsilon: 0.0 };
        let mut m1 = build(&HeuristicConfig::named(h), DropModel::All).unwrap();
        let a = simulate(&pet, &specs, &luck, cfg, &mut m1, &mut NoPruner);
        let mut m2 = build(&HeuristicConfig::named(h), DropModel::All).unwrap();
        let mut off = ProbabilisticPruner::new(PrunerConfig::off(), 2).unwrap();
        let b = simulate(&pet, &specs, &luck, cfg, &mut m2, &mut off);
        prop_assert_eq!(a, b);
    }
}
