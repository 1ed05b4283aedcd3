//! Helpers shared by the engine and heuristic scenarios.

use heuristics::{HeuristicConfig, build};
use model::{NoPruner, TaskSpec};
use ndarray::Array2;
use pmf::{DropModel, Pmf};
use runner::{EngineConfig, JpdcOptions, QueueSize, TrialRecord, simulate_jpdc};
use workload::Pet;

/// One trial of heuristic `h` with no pruner, every task's luck at the median, queue limit
/// `queue`, and the JPDC-2016 options `jpdc` (default: the thesis' system).
pub(crate) fn run_case(
    pet: &Pet,
    tasks: &[TaskSpec],
    queue: usize,
    model: DropModel,
    h: &str,
    jpdc: JpdcOptions<'_>,
) -> TrialRecord {
    let mut mapper = build(&HeuristicConfig::named(h), model).unwrap();
    let luck = vec![0.5; tasks.len()];
    simulate_jpdc(
        pet,
        tasks,
        &luck,
        EngineConfig {
            queue_size: QueueSize::Limit(queue),
            drop_model: model,
            pct_epsilon: 0.0,
        },
        jpdc,
        &mut mapper,
        &mut NoPruner,
    )
}

/// A PET from one PMF per (type, machine); rows are task types.
pub(crate) fn pet_of(pmfs: Vec<Vec<Pmf>>) -> Pet {
    let (t, m) = (pmfs.len(), pmfs[0].len());
    let flat: Vec<Pmf> = pmfs.into_iter().flatten().collect();
    Pet::new(
        Array2::from_shape_vec((t, m), flat).unwrap(),
        (0..t).map(|i| format!("t{i}")).collect(),
        (0..m).map(|j| format!("m{j}")).collect(),
    )
    .unwrap()
}

/// A PET whose entry (type, machine) is a point mass at `times[type][machine]`.
pub(crate) fn point_pet(times: &[&[i64]]) -> Pet {
    pet_of(
        times
            .iter()
            .map(|row| row.iter().map(|&t| Pmf::point(t)).collect())
            .collect(),
    )
}

/// A task on the tick grid.
pub(crate) fn task(id: usize, task_type: usize, arrival: i64, deadline: i64) -> TaskSpec {
    TaskSpec {
        id,
        task_type,
        arrival,
        deadline,
    }
}

/// Every trial's measures, `jobs` threads ([`runner::Prepared::run`] with no more kept).
pub(crate) fn metrics_of(p: &runner::Prepared, jobs: usize) -> Vec<runner::TrialMetrics> {
    p.run(runner::RunOptions::default().jobs(jobs))
        .unwrap()
        .into_iter()
        .map(|r| r.metrics)
        .collect()
}

/// Trial `k` with its record and its trace kept in memory.
pub(crate) fn traced(
    p: &runner::Prepared,
    k: u64,
) -> (
    TrialRecord,
    runner::TrialMetrics,
    runner::trace::MemoryTrace,
) {
    let options = runner::RunOptions::default()
        .tracing(runner::Tracing::Memory)
        .keep_records();
    let run = p.trial(k, &options).unwrap();
    (run.record.unwrap(), run.metrics, run.trace.unwrap())
}
