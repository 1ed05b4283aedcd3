//! Hand-built instances and named tolerances shared by the tests.

use moldable::{Application, Downey, Instance, ProcessorType};
use pmf::Pmf;

/// Floating-point tolerance of comparisons with hand-computed values.
pub(crate) const EPS: f64 = 1e-9;

/// A slowdown of exactly 1 (tick 100 on the 0.01 grid): `Z_ij = T_ij`.
pub(crate) fn no_slowdown() -> Pmf {
    Pmf::point(100)
}

/// A PMF from (tick, mass) pairs summing to 1.
pub(crate) fn pmf(pairs: &[(i64, f64)]) -> Pmf {
    Pmf::from_pairs(pairs.iter().copied())
        .expect("valid test PMF")
        .pmf
}

/// An application with Downey parameters `(a, sigma)` and one serial PMF per type.
pub(crate) fn app(a: f64, sigma: f64, serial: Vec<Pmf>) -> Application {
    Application {
        downey: Downey::new(a, sigma).expect("valid Downey parameters"),
        serial,
    }
}

/// Processor types with the given counts and no slowdown.
pub(crate) fn types(counts: &[u32]) -> Vec<ProcessorType> {
    counts
        .iter()
        .map(|&count| ProcessorType {
            count,
            slowdown: no_slowdown(),
        })
        .collect()
}

/// The worked example of `model.rs`: two applications, types with 4 and 2 processors.
///
/// * app 0: `A = 4, sigma = 0` (`S(k) = min(k, 4)`), `T_00 = 80`, `T_01 = 40`;
/// * app 1: `A = 2, sigma = 0` (`S(1) = 1`, `S(k >= 2) = 2`), `T_10 = 60 or 100` (1/2 each),
///   `T_11 = 120`.
///
/// `M = 6 / 2 = 3`; `Delta` (eq. (4)) `= (80/3 + 40/3 + 80/2 + 120/2) / 4 = 140 / 4 = 35`.
pub(crate) fn worked_example() -> Instance {
    let apps = vec![
        app(4.0, 0.0, vec![Pmf::point(80), Pmf::point(40)]),
        app(
            2.0,
            0.0,
            vec![pmf(&[(60, 0.5), (100, 0.5)]), Pmf::point(120)],
        ),
    ];
    Instance::new(apps, types(&[4, 2])).expect("valid instance")
}
