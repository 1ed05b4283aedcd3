//! Criterion benchmark of whole trials: 800 tasks at 34k on the default PET.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use runner::{ExperimentConfig, Prepared, TrialSource};

fn trial(c: &mut Criterion) {
    let mut g = c.benchmark_group("trial_800_34k");
    g.sample_size(20);
    for name in ["MM", "PAM", "MOC", "MR"] {
        let mut cfg = ExperimentConfig::paper_default();
        cfg.mapper = heuristics::HeuristicConfig::named(name);
        if name != "PAM" {
            cfg.pruner = None;
        }
        let prepared = Prepared::new(cfg, None, TrialSource::Generated, Some(1), None).unwrap();
        g.bench_function(name, |b| {
            b.iter(|| black_box(prepared.run_trial(0).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, trial);
criterion_main!(benches);
