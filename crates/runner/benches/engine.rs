//! Criterion benchmarks of whole trials, one per performance target that fits a benchmark
//! (`experiments/scale.toml`, docs/performance.md):
//!
//! * `trial_800_34k`: 800 tasks at 34k on the default PET (targets: PAM ≤ 5 ms, MM ≤ 2 ms);
//! * `trace_800_34k`: the PAM trial above untraced, traced into memory, and traced as CSV
//!   (formatted, not written): the cost of tracing (docs/trace.md);
//! * `learn_800_34k`: the PAM trial above with the oracle belief, with a belief learned
//!   online from the truth as prior at update cadence 1 and 8 (the estimator's own cost:
//!   the belief stays near the truth), and from an optimistic prior (the truth's times
//!   halved) at cadence 1 and 8, and at cadence 1 with the machine factor
//!   (`machine_scale`): the cost of learning (target: at most 25% over the oracle run;
//!   docs/reproduction.md);
//! * `scale`: one PAM trial (paper's default pruner, queue size 6) of 10^4 tasks on 8 and on 64
//!   machines, at the load per machine of 34k on 8 machines, as in `experiments/scale.toml`.
//!
//! The scale target itself (1,024 machines, 10^6 tasks: ≤ 120 s, ≤ 1 GiB) takes minutes per
//! run, too slow for criterion's samples, and so does `reproduce-figure all` (≤ 60 s with 2
//! threads): `cargo xtask perf` measures both (with `--figures` for the latter), each in a
//! child process with its wall time and peak memory; see docs/performance.md.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use runner::trace::{MemoryTrace, TraceSink};
use runner::{ExperimentConfig, Prepared, QueueSize, TrialSource};

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

fn learn(c: &mut Criterion) {
    let mut g = c.benchmark_group("learn_800_34k");
    g.sample_size(20);
    let mut beliefs = vec![("oracle", None)];
    for (name, cadence) in [("learned_truth_k1", 1usize), ("learned_truth_k8", 8)] {
        let b = runner::BeliefConfig {
            source: runner::BeliefSource::Learned,
            cadence: Some(cadence),
            ..Default::default()
        };
        beliefs.push((name, Some(b)));
    }
    for (name, cadence, machine_scale) in [
        ("learned_k1", 1usize, None),
        ("learned_k8", 8, None),
        ("learned_k1_machine_scale", 1, Some(true)),
    ] {
        let b = runner::BeliefConfig {
            source: runner::BeliefSource::Learned,
            prior: Some(runner::PriorKind::Scaled),
            scale: Some(0.5),
            cadence: Some(cadence),
            machine_scale,
            ..Default::default()
        };
        beliefs.push((name, Some(b)));
    }
    for (name, belief) in beliefs {
        let mut cfg = ExperimentConfig::paper_default();
        cfg.belief = belief;
        let prepared = Prepared::new(cfg, None, TrialSource::Generated, Some(1), None).unwrap();
        g.bench_function(name, |b| {
            b.iter(|| black_box(prepared.run_trial(0).unwrap()))
        });
    }
    g.finish();
}

/// A scale point as `cargo xtask perf` builds it from `experiments/scale.toml`: arrivals per
/// time unit in proportion to the machines (34k over 88,200 time units on 8 machines), the
/// horizon stretched until 1.1 x `tasks` arrive in expectation; the default PET as is on 8
/// machines, else `machines` machines drawn from it (`[workload] machines`).
fn scale_point(machines: usize, tasks: usize) -> Prepared {
    let per_unit = 34_000.0 / 88_200.0 * machines as f64 / 8.0;
    let horizon = (1.1 * tasks as f64 / per_unit).max(88_200.0);
    let mut cfg = ExperimentConfig::paper_default();
    cfg.mapper = heuristics::HeuristicConfig::named("PAM");
    cfg.pruner = None;
    cfg.system.queue_size = Some(QueueSize::Limit(6));
    cfg.workload.rate = Some(per_unit * horizon);
    cfg.workload.horizon = horizon;
    cfg.workload.tasks = tasks;
    cfg.workload.seed = 2019;
    cfg.workload.machines = (machines != 8).then_some(machines);
    Prepared::new(cfg, None, TrialSource::Generated, Some(1), None).unwrap()
}

fn scale(c: &mut Criterion) {
    let mut g = c.benchmark_group("scale");
    g.sample_size(10);
    for (machines, tasks) in [(8, 10_000), (64, 10_000)] {
        let prepared = scale_point(machines, tasks);
        g.bench_function(format!("PAM_{machines}m_{tasks}t"), |b| {
            b.iter(|| black_box(prepared.run_trial(0).unwrap()))
        });
    }
    g.finish();
}

/// Rows formatted as CSV and thrown away: the cost of tracing to files without the disk.
struct CsvToNowhere {
    tasks: csv::Writer<std::io::Sink>,
    events: csv::Writer<std::io::Sink>,
}

impl TraceSink for CsvToNowhere {
    fn task(&mut self, row: &runner::trace::TaskRow) -> std::io::Result<()> {
        self.tasks.serialize(row).map_err(std::io::Error::other)
    }
    fn event(&mut self, row: &runner::trace::EventRow) -> std::io::Result<()> {
        self.events.serialize(row).map_err(std::io::Error::other)
    }
}

/// Tracing on an 800-task PAM trial at 34k (paper's pruner): off (`trial_800_34k/PAM` is the
/// same run, for comparing against a build without tracing), rows kept in memory, rows
/// formatted as CSV.
fn trace(c: &mut Criterion) {
    let mut g = c.benchmark_group("trace_800_34k");
    g.sample_size(20);
    let prepared = Prepared::new(
        ExperimentConfig::paper_default(),
        None,
        TrialSource::Generated,
        Some(1),
        None,
    )
    .unwrap();
    g.bench_function("PAM_off", |b| {
        b.iter(|| black_box(prepared.run_trial(0).unwrap()))
    });
    g.bench_function("PAM_memory", |b| {
        b.iter(|| {
            black_box(
                prepared
                    .run_trial_traced(0, MemoryTrace::default())
                    .unwrap(),
            )
        })
    });
    g.bench_function("PAM_csv", |b| {
        b.iter(|| {
            let sink = CsvToNowhere {
                tasks: csv::Writer::from_writer(std::io::sink()),
                events: csv::Writer::from_writer(std::io::sink()),
            };
            black_box(prepared.run_trial_traced(0, sink).unwrap())
        })
    });
    g.finish();
}

criterion_group!(benches, trial, learn, scale, trace);
criterion_main!(benches);
