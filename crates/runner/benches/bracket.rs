//! Criterion benchmarks of the bracket of one 800-task trial (default PET, the paper's
//! headline settings, trial 0) at 19k and 34k: the whole [`bound::bracket_trial`] with the
//! default options (target: both sides within 50 ms on one core), and its parts: the
//! capacity LP, the search for a schedule, and the bracket with
//! [`BracketOptions::thorough`].

use std::hint::black_box;

use bound::{
    BoundOptions, BracketOptions, Instance, LowerOptions, bracket, bracket_trial, instance_from,
    lower_bound, upper_bound,
};
use criterion::{Criterion, criterion_group, criterion_main};
use model::TaskSpec;
use runner::{ExperimentConfig, Prepared, TrialSource};
use workload::Pet;

struct Trial {
    pet: Pet,
    tasks: Vec<TaskSpec>,
    luck: Vec<f64>,
    inst: Instance,
}

fn trial(rate: f64) -> Trial {
    let mut config = ExperimentConfig::paper_default();
    config.workload.rate = Some(rate);
    let p = Prepared::new(config, None, TrialSource::Generated, Some(1), None).unwrap();
    let tasks = p.trial_tasks(0);
    let luck = p.trial_luck(0, tasks.len());
    let counted = p.config.system.counting().range(tasks.len());
    let inst = instance_from(&p.pet, &tasks, &luck, counted).unwrap();
    Trial {
        pet: p.pet,
        tasks,
        luck,
        inst,
    }
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("bracket_800");
    g.sample_size(20);
    for (rate, label) in [(19_000.0, "19k"), (34_000.0, "34k")] {
        let t = trial(rate);
        let counted = t.inst.counted.clone();
        g.bench_function(format!("bracket_{label}"), |b| {
            b.iter(|| {
                black_box(
                    bracket_trial(
                        &t.pet,
                        &t.tasks,
                        &t.luck,
                        counted.clone(),
                        &BracketOptions::default(),
                    )
                    .unwrap(),
                )
            })
        });
        g.bench_function(format!("capacity_lp_{label}"), |b| {
            b.iter(|| black_box(upper_bound(&t.inst, &BoundOptions::default()).unwrap()))
        });
        g.bench_function(format!("lower_{label}"), |b| {
            b.iter(|| black_box(lower_bound(&t.inst, &LowerOptions::default()).unwrap()))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("bracket_800_thorough");
    g.sample_size(10);
    for (rate, label) in [(19_000.0, "19k"), (34_000.0, "34k")] {
        let t = trial(rate);
        g.bench_function(label, |b| {
            b.iter(|| black_box(bracket(&t.inst, &BracketOptions::thorough()).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(bracket_benches, benches);
criterion_main!(bracket_benches);
