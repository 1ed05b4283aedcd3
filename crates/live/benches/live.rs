//! Criterion benchmarks of the live scheduler at a dispatcher's scale (docs/performance.md):
//!
//! * `decide/<machines>x<batch>`: one event of a loaded system, timed whole: one executing
//!   task reported completed, one task submitted, one [`Scheduler::decide`] (the end
//!   applied, the freed machine starting its next task, the pruner and PAM's mapping event
//!   over the batch queue). Every machine queue is full (PAM, queue size 6, the paper's
//!   pruner) and `batch` tasks wait in the batch queue. Target at 1,024 machines and 1,000
//!   waiting tasks: <= 200 us median. The same with MM (`decide/MM/...`) shows what the
//!   rules cost around a cheap heuristic.
//! * `completed/<machines>x<batch>`: [`Scheduler::completed`] alone (target <= 20 us median);
//!   its effect is applied at the next decision, timed in `decide`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use live::{Action, Scheduler, SchedulerConfig};
use workload::Pet;

/// A loaded system: `machines` machines drawn from the default PET, six tasks per machine
/// submitted and mapped by one decision (where the heuristic chooses: not every queue ends
/// full), and `batch` tasks waiting. Deadlines lie three mean execution times after arrival, so chances
/// are fractional; time stands still, so nothing expires while the benchmark runs.
fn loaded(heuristic: &str, machines: usize, batch: usize) -> (Scheduler, f64) {
    let pet = Pet::default_pet(2019).draw_machines(machines, 2019);
    let slack = 3.0 * pet.avg_all();
    let types = pet.n_types();
    let config = SchedulerConfig {
        heuristic: live::HeuristicConfig::named(heuristic),
        ..SchedulerConfig::default()
    };
    let mut s = Scheduler::new(pet, config).unwrap();
    let now = 0.0;
    // Fill the queues (6 slots each), then the batch queue.
    for k in 0..machines * 6 {
        s.submit(now, k % types, now + 50.0 * slack).unwrap();
    }
    s.decide(now).unwrap();
    for k in 0..batch {
        s.submit(now, k % types, now + slack).unwrap();
    }
    s.decide(now).unwrap();
    (s, slack)
}

/// The executing tasks, one per busy machine.
fn executing(s: &Scheduler) -> Vec<usize> {
    (0..s.machines())
        .filter_map(|m| s.queue(m).first().copied())
        .collect()
}

fn decide(c: &mut Criterion) {
    let mut g = c.benchmark_group("decide");
    g.sample_size(30);
    g.measurement_time(Duration::from_secs(5));
    let points = [
        ("PAM", 64, 1_000),
        ("PAM", 256, 1_000),
        ("PAM", 1_024, 100),
        ("PAM", 1_024, 1_000),
        ("MM", 64, 1_000),
        ("MM", 256, 1_000),
        ("MM", 1_024, 1_000),
    ];
    for (heuristic, machines, batch) in points {
        let (mut s, slack) = loaded(heuristic, machines, batch);
        let types = s.pet().n_types();
        let mut k = 0usize;
        let mut out: Vec<Action> = Vec::new();
        g.bench_function(
            BenchmarkId::new(heuristic, format!("{machines}x{batch}")),
            |b| {
                b.iter(|| {
                    k += 1;
                    let m = k % machines;
                    if let Some(&t) = s.queue(m).first() {
                        s.completed(t, 0.0).unwrap();
                    }
                    s.submit(0.0, k % types, slack).unwrap();
                    out.clear();
                    s.decide_into(0.0, &mut out).unwrap();
                    black_box(out.len())
                })
            },
        );
    }
    g.finish();
}

fn completed(c: &mut Criterion) {
    let mut g = c.benchmark_group("completed");
    g.sample_size(30);
    for (machines, batch) in [(64, 1_000), (1_024, 1_000)] {
        let (mut s, slack) = loaded("PAM", machines, batch);
        let types = s.pet().n_types();
        g.bench_function(
            BenchmarkId::from_parameter(format!("{machines}x{batch}")),
            |b| {
                b.iter_custom(|iters| {
                    let mut spent = Duration::ZERO;
                    let mut left = iters;
                    while left > 0 {
                        let running = executing(&s);
                        if running.is_empty() {
                            for k in 0..machines * 6 {
                                s.submit(0.0, k % types, 50.0 * slack).unwrap();
                            }
                            s.decide(0.0).unwrap();
                            continue;
                        }
                        let n = (running.len() as u64).min(left) as usize;
                        let t0 = Instant::now();
                        for &t in &running[..n] {
                            black_box(s.completed(t, 0.0)).unwrap();
                        }
                        spent += t0.elapsed();
                        left -= n as u64;
                        s.decide(0.0).unwrap();
                    }
                    spent
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, decide, completed);
criterion_main!(benches);
