//! Traces: they change no result, their rows are exactly the trial's tasks and mapping
//! events, and they agree with the measures.

use model::Outcome;
use runner::trace::{EndedBy, read_events, read_tasks};
use runner::{ExperimentConfig, Prepared, TrialSource};

fn experiment(mapper: &str, drop_model: &str) -> ExperimentConfig {
    let text = format!(
        "name = \"t\"\n[workload]\nrate = 34000\nseed = 11\ntasks = 300\ntrials = 2\n\
         [system]\ndrop_model = \"{drop_model}\"\nskip_first = 30\nskip_last = 30\n\
         [mapper]\nname = \"{mapper}\"\n"
    );
    ExperimentConfig::from_toml_str(&text, "inline.toml", None).unwrap()
}

fn prepared(mapper: &str, drop_model: &str) -> Prepared {
    Prepared::new(
        experiment(mapper, drop_model),
        None,
        TrialSource::Generated,
        None,
        None,
    )
    .unwrap()
}

const CASES: [(&str, &str); 8] = [
    ("PAM", "all"),
    ("PAM", "pending"),
    ("PAMF", "all"),
    ("MM", "all"),
    ("MOC", "all"),
    ("MM-D", "none"),
    ("MCT-D", "all"),
    ("KPB-P", "all"),
];

#[test]
fn tracing_changes_no_result() {
    for (h, model) in CASES {
        let p = prepared(h, model);
        for k in 0..2 {
            let (mut plain, plain_m) = p.run_trial(k).unwrap();
            let (mut traced, traced_m, _) = crate::common::traced(&p, k);
            // A performance counter: the trace reads the PCTs of each mapped task's slot.
            plain.pct_recomputations = 0;
            traced.pct_recomputations = 0;
            assert_eq!(plain, traced, "{h} ({model}), trial {k}: records differ");
            assert_eq!(
                plain_m, traced_m,
                "{h} ({model}), trial {k}: measures differ"
            );
        }
    }
}

#[test]
fn the_rows_are_the_trials_tasks_and_events_and_agree_with_the_measures() {
    for (h, model) in CASES {
        let p = prepared(h, model);
        for k in 0..2 {
            let (record, m, trace) = crate::common::traced(&p, k);
            let n = record.tasks.len();
            let what = format!("{h} ({model}), trial {k}");
            // Every task exactly once, with its record's outcome.
            let mut seen = vec![0u32; n];
            for r in &trace.tasks {
                seen[r.task] += 1;
                let rec = record.tasks[r.task];
                assert_eq!(r.outcome, rec.outcome, "{what}: task {}", r.task);
                assert_eq!(
                    (r.machine, r.start, r.end),
                    (rec.machine, rec.start, rec.end)
                );
                assert_eq!(r.deferrals, rec.deferrals, "{what}: task {}", r.task);
            }
            assert!(seen.iter().all(|&c| c == 1), "{what}: a task not once");
            // The counted rows reproduce the outcome counts of the measures.
            let mut counts = vec![0usize; Outcome::ALL.len()];
            for r in trace.tasks.iter().filter(|r| r.counted) {
                counts[Outcome::ALL.iter().position(|&o| o == r.outcome).unwrap()] += 1;
            }
            assert_eq!(counts, m.outcomes, "{what}: outcome counts");
            assert_eq!(
                trace.tasks.iter().filter(|r| r.counted).count(),
                m.counted,
                "{what}"
            );
            let deferrals: u64 = trace.tasks.iter().map(|r| u64::from(r.deferrals)).sum();
            assert_eq!(deferrals, m.deferrals, "{what}: deferrals");
            // Rows in the order the tasks ended; the tasks still in the batch queue when
            // nothing else can happen come last.
            let last = trace.events.last().unwrap().tick;
            let during = trace.tasks.iter().take_while(|r| r.end <= last).count();
            for w in trace.tasks[..during].windows(2) {
                assert!(w[0].end <= w[1].end, "{what}: {:?} then {:?}", w[0], w[1]);
            }
            for r in &trace.tasks[during..] {
                assert_eq!(r.outcome, Outcome::Unmapped, "{what}: {r:?}");
                assert!(r.end > last && r.end >= r.deadline, "{what}: {r:?}");
            }
            for r in &trace.tasks {
                let ctx = format!("{what}: {r:?}");
                assert_eq!(
                    r.ended_by,
                    EndedBy::of(r.outcome, r.ended_by == EndedBy::Heuristic)
                );
                assert_eq!(r.mapped.is_some(), r.machine.is_some(), "{ctx}");
                assert_eq!(r.mapped.is_some(), r.chance.is_some(), "{ctx}");
                assert_eq!(r.first_deferred.is_some(), r.deferrals > 0, "{ctx}");
                if let Some(c) = r.chance {
                    assert!((0.0..=1.0).contains(&c), "{ctx}");
                }
                if let (Some(c), Some(mt)) = (r.considered, r.mapped) {
                    assert!(r.arrival <= c && c <= mt && mt <= r.end, "{ctx}");
                }
                if let Some(s) = r.start {
                    assert!(r.mapped.unwrap() <= s && s <= r.end, "{ctx}");
                }
                if let Some(d) = r.first_deferred {
                    assert!(r.considered.unwrap() <= d, "{ctx}");
                }
            }
            // One row per mapping event, in order.
            assert_eq!(trace.events.len() as u64, m.mapping_events, "{what}");
            let engaged = trace.events.iter().filter(|e| e.engaged).count();
            assert_eq!(engaged as u64, m.engaged_events, "{what}");
            assert!(
                trace
                    .events
                    .iter()
                    .enumerate()
                    .all(|(i, e)| e.event == i as u64),
                "{what}"
            );
            assert!(trace.events.windows(2).all(|w| w[0].tick < w[1].tick));
            let sum = |f: fn(&runner::trace::EventRow) -> usize| -> usize {
                trace.events.iter().map(f).sum()
            };
            let rows = |by: EndedBy| trace.tasks.iter().filter(|r| r.ended_by == by).count();
            assert_eq!(sum(|e| e.dropped), rows(EndedBy::Pruner), "{what}");
            assert_eq!(
                sum(|e| e.heuristic_dropped),
                rows(EndedBy::Heuristic),
                "{what}"
            );
            assert_eq!(sum(|e| e.deferred) as u64, m.deferrals, "{what}");
            let mapped = trace.tasks.iter().filter(|r| r.mapped.is_some()).count();
            assert_eq!(sum(|e| e.assigned), mapped, "{what}");
            assert_eq!(
                sum(|e| e.misses),
                trace
                    .tasks
                    .iter()
                    .filter(|r| r.outcome.is_deadline_miss()
                        && r.end <= trace.events.last().unwrap().tick)
                    .count(),
                "{what}: misses"
            );
        }
    }
}

#[test]
fn the_level_follows_eq_8() {
    let p = prepared("PAM", "all");
    let lambda = p.pruner.lambda;
    let (_, m, trace) = crate::common::traced(&p, 0);
    assert!(
        m.engaged_events > 0,
        "the test wants dropping engaged at times"
    );
    let mut d = 0.0;
    for e in &trace.events {
        d = lambda * e.misses as f64 + (1.0 - lambda) * d;
        let level = e.level.expect("PAM's pruner has a level");
        assert!((level - d).abs() < 1e-12, "{e:?}: expected {d}");
    }
}

#[test]
fn heuristic_drops_are_the_heuristics() {
    // MOC culls pending tasks below alpha and discards hopeless ones; unpruned, it is the only
    // one that drops.
    let p = prepared("MOC", "all");
    let (_, _, trace) = crate::common::traced(&p, 0);
    assert!(trace.tasks.iter().all(|r| r.ended_by != EndedBy::Pruner));
    assert!(
        trace.tasks.iter().any(|r| r.ended_by == EndedBy::Heuristic),
        "the test wants MOC to drop or discard"
    );
}

#[test]
fn the_csv_files_hold_the_rows() {
    let dir = tempfile::tempdir().unwrap();
    let p = prepared("PAM", "all");
    let files = runner::RunOptions::default()
        .jobs(2)
        .tracing(runner::Tracing::Files(dir.path()));
    let metrics: Vec<_> = p
        .run(files)
        .unwrap()
        .into_iter()
        .map(|r| r.metrics)
        .collect();
    assert_eq!(metrics, crate::common::metrics_of(&p, 1));
    for k in 0..2 {
        let (_, _, mem) = crate::common::traced(&p, k);
        let tasks = read_tasks(&runner::trace::tasks_path(dir.path(), k)).unwrap();
        let events = read_events(&runner::trace::events_path(dir.path(), k)).unwrap();
        assert_eq!(tasks, mem.tasks);
        assert_eq!(events, mem.events);
    }
    let header = std::fs::read_to_string(runner::trace::tasks_path(dir.path(), 0)).unwrap();
    assert!(header.starts_with(
        "task,task_type,arrival,deadline,counted,considered,deferrals,first_deferred,mapped,machine,chance,start,end,outcome,ended_by\n"
    ));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(names.is_empty(), "temporaries left: {names:?}");
}

#[test]
fn an_experiment_that_asks_for_traces_is_not_run_without_them() {
    let mut cfg = experiment("PAM", "all");
    cfg.trace = true;
    let text = toml::to_string(&cfg).unwrap();
    assert!(text.starts_with("name = \"t\"\ntrace = true\n"), "{text}");
    let back = ExperimentConfig::from_toml_str(&text, "x.toml", None).unwrap();
    assert!(back.trace);
    let p = Prepared::new(cfg, None, TrialSource::Generated, None, None).unwrap();
    let e = p.run_trial(0).unwrap_err().to_string();
    assert!(e.contains("trace = true"), "{e}");
    assert!(p.run(runner::RunOptions::default().jobs(1)).is_err());
    assert!(
        p.trial(
            0,
            &runner::RunOptions::default().tracing(runner::Tracing::Memory)
        )
        .is_ok()
    );
}

#[test]
fn a_run_in_memory_keeps_each_trials_trace_and_the_measures_of_a_plain_run() {
    let p = prepared("PAM", "all");
    let plain = crate::common::metrics_of(&p, 1);
    for jobs in [1, 2] {
        let memory = runner::RunOptions::default()
            .jobs(jobs)
            .tracing(runner::Tracing::Memory);
        let kept: Vec<_> = (p.run(memory).unwrap().into_iter())
            .map(|r| (r.metrics, r.trace.unwrap()))
            .collect();
        assert_eq!(kept.len(), plain.len());
        for (k, (m, trace)) in kept.iter().enumerate() {
            assert_eq!(
                m, &plain[k],
                "trial {k} with {jobs} threads: measures differ"
            );
            let (_, _, alone) = crate::common::traced(&p, k as u64);
            assert_eq!(
                trace, &alone,
                "trial {k} with {jobs} threads: traces differ"
            );
        }
    }
}

#[test]
fn a_generated_run_is_prepared_as_the_command_line_prepares_it() {
    let config = experiment("PAM", "all");
    let direct = prepared("PAM", "all");
    let prep = runner::Preparation {
        trials: Some(1),
        jobs: 1,
        with_bound: true,
        report: false,
        budget: u64::MAX,
        given: None,
    };
    let p = Prepared::generated(config.clone(), &prep).unwrap();
    assert_eq!(p.trials, 1);
    assert!(p.with_bound);
    assert_eq!(p.pet, direct.pet);
    assert_eq!(p.trial_tasks(0), direct.trial_tasks(0));
    // A budget below the estimate refuses the run before anything is drawn.
    let small = runner::Preparation {
        trials: None,
        budget: 1,
        ..prep
    };
    let e = Prepared::generated(config.clone(), &small).unwrap_err();
    assert!(e.to_string().contains("memory budget"), "{e}");
    // Given trials are read after the check, with the run's PET, and only when given.
    let given = runner::Preparation {
        given: Some(runner::GivenTrials {
            trials: 1,
            most_tasks: 10,
        }),
        ..prep
    };
    let trial = direct.trial_tasks(0);
    let source_pet = config.workload.source_pet().unwrap();
    let mut read = 0;
    let p = Prepared::checked(config.clone(), source_pet.clone(), &given, |pet| {
        read += 1;
        assert_eq!(pet, &direct.pet);
        Ok(vec![config.workload.trial(pet, 0)?])
    })
    .unwrap();
    assert_eq!((read, p.trials), (1, 1));
    assert_eq!(p.trial_tasks(0), trial);
    let refused = runner::Preparation { budget: 1, ..given };
    let e = Prepared::checked(config, source_pet, &refused, |_| {
        panic!("read after the memory check only")
    })
    .unwrap_err();
    assert!(e.to_string().contains("memory budget"), "{e}");
}
