//! Robustness floor (Hansen et al. §III-B, fig. 3): a binary search on the floor `Omega`,
//! each step asking a greedy heuristic for an allocation in which every application has
//! `P(i, (j, k)) > Omega`.
//!
//! Choices the paper leaves open, documented here:
//! * Stage one of the greedy heuristics only considers types with enough *remaining*
//!   processors for the application's `Pi(Omega)` entry; ties in `k` go to the type with the
//!   larger `P(i, (j, k))`, then to the lower type index. Stage two breaks ties by the lower
//!   application index.
//! * Fig. 3 returns the `I` of the last iteration, which is invalid when the last step failed.
//!   We return the valid allocation of the highest floor met. If no floor down to the last
//!   one tried (about `Lambda`) can be met, we return the greedy allocation for a floor below
//!   zero, where every `Pi` entry is one processor (errors only when `N_a > tau`).
//! * Processors left over after the greedy heuristic stay idle, as in the paper.

use crate::error::MoldableError;
use crate::robustness::{Allocation, Assignment, Instance};

/// The stopping residual `Lambda` of §V.
pub const RESIDUAL: f64 = 0.01;

/// The greedy heuristic called at line 4 of fig. 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Greedy {
    /// Min-min processors (§III-B2): assign the application needing the fewest processors.
    MinMin,
    /// Min-max processors (§III-B3): assign the application needing the most processors.
    MinMax,
    /// Duplex (§III-B4): run both, keep the valid one with the larger `Psi`.
    Duplex,
}

/// `Pi(Omega)`: `[i][j] -> Some(k)`, the fewest processors of type `j` with
/// `P(i, (j, k)) > Omega`, or `None` when even `n_j` processors are not enough.
pub fn min_processors(inst: &Instance, omega: f64) -> Vec<Vec<Option<u32>>> {
    (0..inst.n_apps())
        .map(|i| {
            (0..inst.n_types())
                .map(|j| {
                    let row = inst.prob_row(i, j);
                    // P is non-decreasing in k: the first k above the floor.
                    let k = row.partition_point(|&p| p <= omega);
                    (k < row.len()).then_some(k as u32 + 1)
                })
                .collect()
        })
        .collect()
}

/// One greedy pass (min-min or min-max processors). Returns the allocation when every
/// application was assigned (`v(I) = true`), `None` otherwise.
pub fn greedy_pass(
    inst: &Instance,
    pi: &[Vec<Option<u32>>],
    max_stage: bool,
) -> Option<Allocation> {
    let n = inst.n_apps();
    let mut left: Vec<u32> = inst.counts();
    let mut alloc: Vec<Option<Assignment>> = vec![None; n];
    for _ in 0..n {
        // Stage one: each unassigned application's cheapest feasible type.
        let mut chosen: Option<(usize, Assignment)> = None;
        for i in (0..n).filter(|&i| alloc[i].is_none()) {
            let mut best: Option<Assignment> = None;
            for (j, k) in pi[i].iter().enumerate() {
                let Some(k) = *k else { continue };
                if k > left[j] {
                    continue;
                }
                let better = match best {
                    None => true,
                    Some(b) => {
                        k < b.procs
                            || (k == b.procs && inst.prob(i, j, k) > inst.prob(i, b.ptype, b.procs))
                    }
                };
                if better {
                    best = Some(Assignment { ptype: j, procs: k });
                }
            }
            // An application with no feasible type: the allocation cannot be completed.
            let best = best?;
            // Stage two: the fewest (min-min) or most (min-max) processors.
            let take = match chosen {
                None => true,
                Some((_, c)) => {
                    if max_stage {
                        best.procs > c.procs
                    } else {
                        best.procs < c.procs
                    }
                }
            };
            if take {
                chosen = Some((i, best));
            }
        }
        let (i, a) = chosen?;
        left[a.ptype] -= a.procs;
        alloc[i] = Some(a);
    }
    alloc.into_iter().collect()
}

/// Runs the greedy heuristic of `greedy` for `Pi(Omega)`.
fn run_greedy(inst: &Instance, greedy: Greedy, omega: f64) -> Option<Allocation> {
    let pi = min_processors(inst, omega);
    match greedy {
        Greedy::MinMin => greedy_pass(inst, &pi, false),
        Greedy::MinMax => greedy_pass(inst, &pi, true),
        Greedy::Duplex => match (greedy_pass(inst, &pi, false), greedy_pass(inst, &pi, true)) {
            (Some(a), Some(b)) => Some(if inst.psi(&b) > inst.psi(&a) { b } else { a }),
            (a, b) => a.or(b),
        },
    }
}

/// The robustness-floor algorithm of fig. 3 with stopping residual `lambda_min` (`Lambda`).
pub fn robustness_floor(
    inst: &Instance,
    greedy: Greedy,
    lambda_min: f64,
) -> Result<Allocation, MoldableError> {
    crate::error::check(
        "Lambda",
        lambda_min,
        lambda_min > 0.0 && lambda_min < 1.0,
        "residual must be in (0, 1)",
    )?;
    let (mut omega, mut prev) = (1.0_f64, 0.0_f64);
    let mut best: Option<(f64, Allocation)> = None;
    loop {
        let found = run_greedy(inst, greedy, omega);
        // |Omega_l - Omega_{l-1}|: fig. 3 writes the difference, which is negative after a
        // step down; its magnitude is the residual halved at every step.
        let lambda = (omega - prev).abs();
        prev = omega;
        match found {
            Some(alloc) => {
                if best.as_ref().is_none_or(|(f, _)| omega > *f) {
                    best = Some((omega, alloc));
                }
                omega += lambda / 2.0;
            }
            None => omega -= lambda / 2.0,
        }
        if lambda < lambda_min {
            break;
        }
    }
    if let Some((_, alloc)) = best {
        return Ok(alloc);
    }
    run_greedy(inst, greedy, -1.0).ok_or(MoldableError::Infeasible {
        apps: inst.n_apps(),
        total: inst.total_processors(),
    })
}
