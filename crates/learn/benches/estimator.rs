//! The cost of one observation: a cell's PMF rebuilt (Kaplan-Meier, tail, blend) at
//! cadence 1 and 8 with a window of 200 observations; and, without a window, one
//! observation of a cell that already holds 10^3, 10^5 and 10^6 observations, rebuilding
//! at each (cadence 1) or at a share of those held (`cadence_share` 0.1).

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use learn::{Estimator, Options};
use pmf::Pmf;

/// A pseudo-random execution time on 20..220 ticks, one in four censored.
fn next(i: &mut u64) -> (f64, bool) {
    *i = i
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (20.0 + (*i >> 40) as f64 % 200.0, *i % 4 == 0)
}

fn prior() -> Pmf {
    Pmf::new(20, vec![1.0 / 200.0; 200]).unwrap()
}

fn observe(c: &mut Criterion) {
    for cadence in [1usize, 8] {
        let options = Options {
            window: Some(200),
            cadence,
            ..Options::default()
        };
        let mut est = Estimator::new(1, 1, vec![prior()], options).unwrap();
        let mut i = 0u64;
        c.bench_function(&format!("observe, window 200, cadence {cadence}"), |b| {
            b.iter(|| {
                let (t, censored) = next(&mut i);
                est.observe(0, 0, t, censored).unwrap()
            });
        });
    }
}

fn observe_after(c: &mut Criterion) {
    let mut group = c.benchmark_group("observe after");
    group.sample_size(20);
    for (name, share) in [("cadence 1", 0.0), ("cadence_share 0.1", 0.1)] {
        for held in [1_000u64, 100_000, 1_000_000] {
            let options = Options {
                cadence_share: share,
                ..Options::default()
            };
            let mut est = Estimator::new(1, 1, vec![prior()], options).unwrap();
            let mut i = 0u64;
            for _ in 0..held {
                let (t, censored) = next(&mut i);
                est.observe(0, 0, t, censored).unwrap();
            }
            // On a copy of the cell holding `held`: at cadence 1 one observation (each
            // rebuilds); at a share, as many as make one rebuild (the cost per observation
            // is the time over that count, the throughput printed).
            let batch = if share > 0.0 {
                (share * held as f64).ceil() as u64 + 1
            } else {
                1
            };
            group.throughput(Throughput::Elements(batch));
            group.bench_function(format!("{held} held, {name}"), |b| {
                b.iter_batched_ref(
                    || (est.clone(), i),
                    |(e, j)| {
                        for _ in 0..batch {
                            let (t, censored) = next(j);
                            e.observe(0, 0, t, censored).unwrap();
                        }
                    },
                    BatchSize::SmallInput,
                );
            });
        }
    }
    group.finish();
}

criterion_group!(benches, observe, observe_after);
criterion_main!(benches);
