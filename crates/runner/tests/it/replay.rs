//! The replay test: a simulated trial's decisions equal those of the live scheduler
//! (`live::Scheduler`) driven by a dispatcher that replays the same trial (the same tasks,
//! the same actual execution times), every action compared with its tick.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use heuristics::{HeuristicConfig, build};
use live::{Action, Scheduler, SchedulerConfig};
use model::TaskSpec;
use pmf::{DropModel, Tick};
use proptest::prelude::*;
use pruner::{ProbabilisticPruner, PrunerConfig};
use runner::engine::simulate_actions;
use runner::{EngineConfig, ExperimentConfig, Prepared, QueueSize, TaskRecord, TrialSource};
use workload::Pet;

use crate::engine::{build_case, random_case};

/// A dispatcher replaying a trial through the live API: it submits each task at its
/// arrival tick, runs each started task for the quantile of its PET at its luck (as the
/// simulator does), reports completions, and decides whenever anything happened or the
/// scheduler asks to be woken. Returns the actions with their ticks and, with `keep`
/// ([`Scheduler::keep_records`]), every task's record; without, the scheduler forgets the
/// tasks that ended as it goes, and its counts are checked against the actions.
fn replay(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    config: &SchedulerConfig,
    keep: bool,
) -> (Vec<(Tick, Action)>, Vec<TaskRecord>) {
    let mut s = Scheduler::new(pet.clone(), config.clone()).unwrap();
    s.keep_records(keep);
    let mut completed = 0;
    let mut ends: BinaryHeap<Reverse<(Tick, usize)>> = BinaryHeap::new();
    let mut running = vec![false; tasks.len()];
    let mut log = Vec::new();
    let mut next = 0;
    let mut last = tasks.first().map_or(0, |t| t.arrival);
    loop {
        let t_arr = tasks.get(next).map(|t| t.arrival);
        let t_end = ends.peek().map(|Reverse((t, _))| *t);
        let t_wake = s.next_wakeup().map(|w| w as Tick);
        let Some(now) = [t_arr, t_end, t_wake].into_iter().flatten().min() else {
            break;
        };
        last = now;
        let mut happened = t_wake == Some(now);
        while let Some(&Reverse((t, task))) = ends.peek() {
            if t != now {
                break;
            }
            ends.pop();
            // A task dropped before its end is not reported (its process was killed).
            if std::mem::take(&mut running[task]) {
                s.completed(task, now as f64).unwrap();
                completed += 1;
                happened = true;
            }
        }
        while next < tasks.len() && tasks[next].arrival == now {
            let spec = tasks[next];
            let id = s
                .submit(now as f64, spec.task_type, spec.deadline as f64)
                .unwrap();
            assert_eq!(id, next);
            next += 1;
            happened = true;
        }
        if !happened {
            continue;
        }
        for a in s.decide(now as f64).unwrap() {
            match a {
                Action::Start { task, machine } => {
                    let pmf = pet.pmf(tasks[task].task_type, machine);
                    let exec = pmf
                        .quantile(luck[task].clamp(0.0, 1.0))
                        .unwrap_or(pmf.max())
                        .max(0);
                    s.started(task, now as f64).unwrap();
                    running[task] = true;
                    ends.push(Reverse((now + exec, task)));
                }
                Action::Drop {
                    task,
                    executing: true,
                    ..
                } => running[task] = false,
                _ => {}
            }
            log.push((now, a));
        }
    }
    for a in s.close(last as f64).unwrap() {
        let Action::Drop { task, .. } = a else {
            panic!("closing gives drops only, not {a:?}")
        };
        // A task still waiting ends unmapped at its deadline, or now when later.
        let end = if keep {
            s.record(task).unwrap().end
        } else {
            tasks[task].deadline.max(last)
        };
        log.push((end, a));
    }
    let counts = s.counts();
    let drops = log
        .iter()
        .filter(|(_, a)| matches!(a, Action::Drop { .. }))
        .count();
    assert_eq!(counts.submitted, tasks.len());
    assert_eq!(counts.ended(), tasks.len(), "{counts:?}");
    assert_eq!(counts.ended(), completed + drops, "{counts:?}");
    if !keep {
        return (log, Vec::new());
    }
    let records = (0..tasks.len())
        .map(|t| {
            s.record(t)
                .unwrap_or_else(|| panic!("task {t} has no outcome"))
        })
        .collect();
    (log, records)
}

/// Runs `tasks` through the simulator and through the live API; asserts every action and
/// every record are the same.
fn assert_same(pet: &Pet, tasks: &[TaskSpec], luck: &[f64], config: &SchedulerConfig) {
    let mut mapper = build(&config.heuristic, config.drop_model).unwrap();
    let mut pruner = ProbabilisticPruner::new(config.pruner.clone(), pet.n_types()).unwrap();
    let (record, simulated) = simulate_actions(
        pet,
        tasks,
        luck,
        EngineConfig {
            queue_size: QueueSize::Limit(config.queue_size),
            drop_model: config.drop_model,
            pct_epsilon: config.pct_epsilon,
        },
        &mut mapper,
        &mut pruner,
    );
    let (live, records) = replay(pet, tasks, luck, config, true);
    // Forgetting the tasks that ended changes no decision.
    let (forgetting, _) = replay(pet, tasks, luck, config, false);
    assert!(
        forgetting == live,
        "{}: the decisions differ when ended tasks are forgotten",
        config.heuristic.name
    );
    let first = simulated
        .iter()
        .zip(&live)
        .position(|(a, b)| a != b)
        .unwrap_or(simulated.len().min(live.len()));
    assert!(
        simulated == live,
        "{}: the decisions differ from action {first} of {} simulated, {} live: simulated {:?}, live {:?}",
        config.heuristic.name,
        simulated.len(),
        live.len(),
        simulated.get(first),
        live.get(first)
    );
    assert_eq!(
        record.tasks, records,
        "{}: the records differ",
        config.heuristic.name
    );
}

fn config(h: &str, model: DropModel, pruner: PrunerConfig, queue: usize) -> SchedulerConfig {
    SchedulerConfig {
        heuristic: HeuristicConfig::named(h),
        pruner,
        queue_size: queue,
        drop_model: model,
        pct_epsilon: 0.0,
        resolution: 1.0,
    }
}

#[test]
fn a_trial_of_the_default_experiment_replays_through_the_live_api() {
    for name in ["PAM", "PAMF", "MM", "MOC", "MCT"] {
        let text = format!(
            "name = \"r\"\n[workload]\nrate = 34000\nseed = 5\ntasks = 400\ntrials = 1\n[mapper]\nname = \"{name}\"\n"
        );
        let cfg = ExperimentConfig::from_toml_str(&text, "inline.toml", None).unwrap();
        let p = Prepared::new(cfg, None, TrialSource::Generated, None, None).unwrap();
        let tasks = p.trial_tasks(0);
        let luck = p.trial_luck(0, tasks.len());
        let immediate = heuristics::is_immediate(&p.heuristic.name).unwrap();
        let queue = p
            .config
            .system
            .queue_size_for(immediate)
            .limit()
            .unwrap_or(usize::MAX);
        let c = SchedulerConfig {
            heuristic: p.heuristic.clone(),
            pruner: p.pruner.clone(),
            queue_size: queue,
            drop_model: p.config.system.drop_model,
            pct_epsilon: p.config.system.pct_epsilon,
            resolution: 1.0,
        };
        assert_same(&p.pet, &tasks, &luck, &c);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_random_trial_replays_through_the_live_api(
        (p, t, luck) in random_case(),
        h in prop::sample::select(vec!["MM", "MSD", "MOC", "PAM", "EDF", "FCFS", "MCT", "KPB", "MR"]),
        model in prop::sample::select(vec![DropModel::None, DropModel::Pending, DropModel::All]),
        fairness in prop::sample::select(vec![0.0, 0.05]),
        defer in prop::sample::select(vec![None, Some(0.3)]),
        queue in 1usize..4,
    ) {
        let (pet, specs) = build_case(&p, &t);
        let pruner = PrunerConfig { fairness, defer_threshold: defer, ..PrunerConfig::default() };
        assert_same(&pet, &specs, &luck, &config(h, model, pruner, queue));
    }
}
