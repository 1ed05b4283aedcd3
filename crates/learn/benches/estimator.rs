//! The cost of one observation: a cell's PMF rebuilt (Kaplan-Meier, tail, blend) at
//! cadence 1 and 8, with a window of 200 observations.

use criterion::{Criterion, criterion_group, criterion_main};
use learn::{Estimator, Options};
use pmf::Pmf;

fn observe(c: &mut Criterion) {
    let prior = Pmf::new(20, vec![1.0 / 200.0; 200]).unwrap();
    for cadence in [1usize, 8] {
        let options = Options {
            window: Some(200),
            cadence,
            ..Options::default()
        };
        let mut est = Estimator::new(1, 1, vec![prior.clone()], options).unwrap();
        let mut i = 0u64;
        c.bench_function(&format!("observe, window 200, cadence {cadence}"), |b| {
            b.iter(|| {
                i = i
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let t = 20.0 + (i >> 40) as f64 % 200.0;
                est.observe(0, 0, t, i % 4 == 0).unwrap()
            });
        });
    }
}

criterion_group!(benches, observe);
criterion_main!(benches);
