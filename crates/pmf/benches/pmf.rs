//! Criterion benchmarks of the PMF hot paths: convolution, the fast append query, and the
//! PCTs of a 6-deep queue.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use pmf::{DropModel, ExecPmf, Pending, Pmf, TailCdf, evaluate_queue, next_pct};

/// A smooth, skewed PMF of `n` bins starting at `offset`.
fn bell(offset: i64, n: usize) -> Pmf {
    let w: Vec<f64> = (0..n)
        .map(|k| {
            let x = (k as f64 + 1.0) / n as f64 * 6.0;
            x * x * (-x).exp()
        })
        .collect();
    Pmf::from_weights(offset, w).unwrap()
}

fn convolution(c: &mut Criterion) {
    let mut g = c.benchmark_group("convolve");
    for n in [100usize, 1000] {
        let (a, b) = (bell(10, n), bell(5, n));
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, _| {
            bench.iter(|| black_box(&a).convolve(black_box(&b)))
        });
    }
    g.finish();
}

fn append_query(c: &mut Criterion) {
    let mut g = c.benchmark_group("append_success");
    for n in [100usize, 1000] {
        let tail = TailCdf::new(&bell(200, n * 3));
        let pet = ExecPmf::from(bell(10, n));
        let d = 200 + n as i64 * 2;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, _| {
            bench.iter(|| black_box(&tail).append_success(black_box(&pet), black_box(d)))
        });
    }
    g.finish();
}

fn queue_pcts(c: &mut Criterion) {
    // The paper's scale: PETs of ~100 bins, a queue of 6 (executing + 5 pending).
    let pets: Vec<ExecPmf> = (0..6).map(|i| ExecPmf::from(bell(20 + i, 100))).collect();
    let mut g = c.benchmark_group("queue6");
    for model in [DropModel::None, DropModel::Pending, DropModel::All] {
        g.bench_function(format!("{model:?}"), |bench| {
            bench.iter(|| {
                let pending: Vec<Pending<'_>> = pets
                    .iter()
                    .enumerate()
                    .map(|(i, p)| Pending {
                        pet: p,
                        deadline: 120 + 70 * i as i64,
                    })
                    .collect();
                black_box(evaluate_queue(0, None, &pending, model).unwrap())
            })
        });
    }
    g.bench_function("next_pct_all_300x100", |bench| {
        let prev = bell(100, 300);
        let pet = ExecPmf::from(bell(20, 100));
        bench.iter(|| next_pct(black_box(&prev), black_box(&pet), 300, DropModel::All).unwrap())
    });
    g.finish();
}

criterion_group!(benches, convolution, append_query, queue_pcts);
criterion_main!(benches);
