//! For each heuristic, a small scenario where its choice differs from the others', checked
//! by hand.

use heuristics::{HeuristicConfig, build};

use crate::common::{pet_of, task};
use model::{NoPruner, Outcome, TaskSpec};
use pmf::{DropModel, Pmf};
use pruner::{Never, ProbabilisticPruner, PrunerConfig, Toggle};
use runner::{EngineConfig, QueueSize, TrialRecord, simulate};
use workload::Pet;

fn run_with(
    pet: &Pet,
    tasks: &[TaskSpec],
    queue: QueueSize,
    h: &str,
    luck: f64,
    pruner: Option<PrunerConfig>,
) -> TrialRecord {
    let mut mapper = build(&HeuristicConfig::named(h), DropModel::All).unwrap();
    let luck = vec![luck; tasks.len()];
    let cfg = EngineConfig {
        queue_size: queue,
        drop_model: DropModel::All,
        pct_epsilon: 0.0,
    };
    match pruner {
        Some(p) => {
            let mut pr = ProbabilisticPruner::new(p, pet.n_types()).unwrap();
            simulate(pet, tasks, &luck, cfg, &mut mapper, &mut pr)
        }
        None => simulate(pet, tasks, &luck, cfg, &mut mapper, &mut NoPruner),
    }
}

/// Which task started first (the one whose end is earliest among those that ran).
fn first_started(r: &TrialRecord) -> usize {
    (0..r.tasks.len())
        .filter(|&i| r.tasks[i].machine.is_some())
        .min_by_key(|&i| r.tasks[i].end)
        .unwrap()
}

#[test]
fn mm_msd_and_mmu_pick_different_first_tasks() {
    // One machine that holds one task at a time; three tasks at t = 0:
    //   A: 10 ticks, due 45 (slack 35, urgency 1/35)
    //   B: 30 ticks, due 50 (slack 20, urgency 1/20)
    //   C:  5 ticks, due 300 (urgency 1/295)
    // MM: minimum completion -> C. MSD: soonest deadline -> A. MMU: maximum urgency -> B.
    let pet = pet_of(vec![
        vec![Pmf::point(10)],
        vec![Pmf::point(30)],
        vec![Pmf::point(5)],
    ]);
    let tasks = [task(0, 0, 0, 45), task(1, 1, 0, 50), task(2, 2, 0, 300)];
    let q = QueueSize::Limit(1);
    assert_eq!(
        first_started(&run_with(&pet, &tasks, q, "MM", 0.5, None)),
        2
    );
    assert_eq!(
        first_started(&run_with(&pet, &tasks, q, "MSD", 0.5, None)),
        0
    );
    assert_eq!(
        first_started(&run_with(&pet, &tasks, q, "MMU", 0.5, None)),
        1
    );
    // EDF and SJF are MSD and MM under other names (thesis 3.3.3).
    assert_eq!(
        first_started(&run_with(&pet, &tasks, q, "EDF", 0.5, None)),
        0
    );
    assert_eq!(
        first_started(&run_with(&pet, &tasks, q, "SJF", 0.5, None)),
        2
    );
}

#[test]
fn pam_takes_the_robust_machine_where_mm_takes_the_fast_one_on_average() {
    // m0: 10 or 100 ticks (1/2 each, mean 55); m1: always 60 (mean 60). Deadline 70.
    // MM: min expected completion -> m0 (success 1/2); PAM: max success -> m1 (success 1).
    let mut m0 = vec![0.0; 91];
    m0[0] = 0.5;
    m0[90] = 0.5;
    let pet = pet_of(vec![vec![Pmf::new(10, m0).unwrap(), Pmf::point(60)]]);
    let tasks = [task(0, 0, 0, 70)];
    let q = QueueSize::Limit(6);
    // Luck 0.9 draws the long execution on m0.
    let mm = run_with(&pet, &tasks, q, "MM", 0.9, None);
    assert_eq!(mm.tasks[0].machine, Some(0));
    assert_eq!(mm.tasks[0].outcome, Outcome::ExpiredExecuting);
    let pam = run_with(&pet, &tasks, q, "PAM", 0.9, Some(PrunerConfig::default()));
    assert_eq!(pam.tasks[0].machine, Some(1));
    assert_eq!(pam.tasks[0].outcome, Outcome::OnTime);
    // Deadline 50: m1 can never make it, m0 only with 1/2 <= 90% -> PAM defers the task
    // until its deadline passes; MM maps it anyway.
    let tasks = [task(0, 0, 0, 50)];
    let pam = run_with(&pet, &tasks, q, "PAM", 0.1, Some(PrunerConfig::default()));
    assert_eq!(pam.tasks[0].outcome, Outcome::Unmapped);
    assert!(pam.tasks[0].deferrals >= 1);
    let mm = run_with(&pet, &tasks, q, "MM", 0.1, None);
    assert_eq!(mm.tasks[0].outcome, Outcome::OnTime);
}

#[test]
fn moc_culls_hopeless_pending_tasks_and_discards_impossible_ones() {
    // One machine. X (50 ticks, due 1000) starts at 0; Y (50 ticks, due 60) waits behind
    // it with no chance (it would end at 100). At t = 1 task Z arrives: MOC's mapping event
    // culls Y (success 0 < alpha 0.2). MM leaves it: Y starts at 50 and is dropped at 60.
    let pet = pet_of(vec![vec![Pmf::point(50)]]);
    let tasks = [task(0, 0, 0, 1000), task(1, 0, 0, 60), task(2, 0, 1, 1000)];
    let q = QueueSize::Limit(3);
    let moc = run_with(&pet, &tasks, q, "MOC", 0.5, None);
    assert_eq!(moc.tasks[1].outcome, Outcome::PrunedPending);
    assert_eq!(moc.tasks[2].end, 100);
    let mm = run_with(&pet, &tasks, q, "MM", 0.5, None);
    assert_eq!(mm.tasks[1].outcome, Outcome::ExpiredExecuting);
    assert_eq!(mm.tasks[2].end, 110);
    // A task due before even an idle machine could finish it is discarded from the batch.
    let tasks = [task(0, 0, 0, 1000), task(1, 0, 5, 40)];
    let moc = run_with(&pet, &tasks, QueueSize::Limit(2), "MOC", 0.5, None);
    assert_eq!(moc.tasks[1].outcome, Outcome::Discarded);
}

#[test]
fn immediate_heuristics_spread_tasks_differently() {
    // Three machines of 10, 15 and 100 ticks; three tasks at t = 0, due at 25.
    let pet = pet_of(vec![vec![Pmf::point(10), Pmf::point(15), Pmf::point(100)]]);
    let tasks = [task(0, 0, 0, 25), task(1, 0, 0, 25), task(2, 0, 0, 25)];
    let q = QueueSize::Unbounded(runner::engine::Unbounded::Unbounded);
    let machines = |h: &str, k: Option<f64>| -> Vec<usize> {
        let mut cfg = HeuristicConfig::named(h);
        if let Some(k) = k {
            cfg.set("k", k);
        }
        let mut mapper = build(&cfg, DropModel::All).unwrap();
        let r = simulate(
            &pet,
            &tasks,
            &[0.5; 3],
            EngineConfig {
                queue_size: q,
                drop_model: DropModel::All,
                pct_epsilon: 0.0,
            },
            &mut mapper,
            &mut NoPruner,
        );
        r.tasks.iter().map(|t| t.machine.unwrap()).collect()
    };
    // FCFS: the first idle machine each time.
    assert_eq!(machines("FCFS", None), vec![0, 1, 2]);
    // MET: always the fastest machine.
    assert_eq!(machines("MET", None), vec![0, 0, 0]);
    // MCT: completions 10 (m0), then 15 (m1) < 20 (m0), then 20 (m0) < 30 (m1).
    assert_eq!(machines("MCT", None), vec![0, 1, 0]);
    // KPB with one machine in k% is MET; with two it is MCT over m0, m1.
    assert_eq!(machines("KPB", Some(0.34)), vec![0, 0, 0]);
    assert_eq!(machines("KPB", Some(0.67)), vec![0, 1, 0]);
    // MR (all machines): t0 and t1 succeed on m0 and m1 alike (both variance 0, m0 first);
    // t2 would end at 30 >= 25 on m0 but 15 on m1 -> m1.
    assert_eq!(machines("MR", Some(1.0)), vec![0, 0, 1]);
}

#[test]
fn deferring_variants_keep_hopeless_tasks_out_of_the_queues() {
    // MM-D defers what MM maps (same deadline-50 task as above), and never drops.
    let mut m0 = vec![0.0; 91];
    m0[0] = 0.5;
    m0[90] = 0.5;
    let pet = pet_of(vec![vec![Pmf::new(10, m0).unwrap(), Pmf::point(60)]]);
    let tasks = [task(0, 0, 0, 50)];
    let cfg = PrunerConfig {
        toggle: Toggle::Never(Never::Never),
        ..PrunerConfig::default()
    };
    let r = run_with(&pet, &tasks, QueueSize::Limit(6), "MM", 0.1, Some(cfg));
    assert_eq!(r.tasks[0].outcome, Outcome::Unmapped);
}

/// `auto` runs with the paper's pruner unless a `[pruner]` table says otherwise, takes no
/// suffix, and its `depth` is checked.
#[test]
fn auto_brings_the_papers_pruner_and_checks_its_depth() {
    let resolve = |text: &str| {
        runner::ExperimentConfig::from_toml_str(
            &format!("[workload]\nrate = 34000\nseed = 2019\n{text}"),
            "inline.toml",
            None,
        )
        .map_err(|e| e.to_string())
        .and_then(|c| c.resolved())
    };
    let (h, p) = resolve("[mapper]\nname = \"auto\"\n").unwrap();
    assert_eq!(h.name, "AUTO");
    assert_eq!(p, pruner::PrunerConfig::default());
    let (_, p) = resolve("[mapper]\nname = \"auto\"\n[pruner]\ndrop_threshold = 0.3\n").unwrap();
    assert_eq!(p.drop_threshold, 0.3);
    assert_eq!(p.defer_threshold, None);
    let e = resolve("[mapper]\nname = \"auto-P\"\n").unwrap_err();
    assert!(e.contains("suffixes"), "{e}");
    let (h, _) = resolve("[mapper]\nname = \"auto\"\ndepth = 3\n").unwrap();
    assert_eq!(h.get("depth"), Some(&heuristics::ParamValue::Integer(3)));
    let e = resolve("[mapper]\nname = \"MM\"\ndepth = 3\n").unwrap_err();
    assert!(e.contains("depth does not apply to MM"), "{e}");
    // lookahead: the same pruner and depth.
    let (h, p) = resolve("[mapper]\nname = \"lookahead\"\ndepth = 3\n").unwrap();
    assert_eq!(h.get("depth"), Some(&heuristics::ParamValue::Integer(3)));
    assert_eq!(p, pruner::PrunerConfig::default());
    let e = resolve("[mapper]\nname = \"lookahead-P\"\n").unwrap_err();
    assert!(e.contains("suffixes"), "{e}");
}

/// `auto` commits at most `depth` tasks to a machine: with depth 2 a queue of 6 runs as a
/// queue of 2, and with depth 6 it does not.
#[test]
fn auto_commits_no_deeper_than_its_depth() {
    let run = |mapper: &str, queue: usize| {
        let text = format!(
            "[workload]\nrate = 34000\nseed = 7\ntasks = 300\n[system]\nqueue_size = {queue}\n[mapper]\n{mapper}\n"
        );
        let cfg = runner::ExperimentConfig::from_toml_str(&text, "inline.toml", None).unwrap();
        let prepared =
            runner::Prepared::new(cfg, None, runner::TrialSource::Generated, Some(2), None)
                .unwrap();
        crate::common::metrics_of(&prepared, 1)
            .iter()
            .map(|t| t.on_time)
            .collect::<Vec<_>>()
    };
    let auto = "name = \"auto\"";
    assert_eq!(run(auto, 6), run(auto, 2));
    assert_eq!(run(auto, 6), run("name = \"auto\"\ndepth = 2", 6));
    assert_ne!(run(auto, 6), run("name = \"auto\"\ndepth = 6", 6));
    // lookahead plans a queue of 6 deeper than a queue of 2, and commits the same depth.
    let ahead = "name = \"lookahead\"";
    assert_ne!(run(ahead, 6), run(ahead, 2));
    assert_eq!(run(ahead, 6), run("name = \"lookahead\"\ndepth = 2", 6));
}
