//! A Lagrangian bound of the time-indexed formulation, started from the capacity LP's duals.
//!
//! The time-indexed formulation has a 0/1 variable `y_kjc` for task `k` completing at tick
//! `c` on machine `j` (`a_k + p_kj <= c <= d_k`), at most one per task, and at most one task
//! running on a machine at any tick. Relaxing "at most one per task" with multipliers
//! `lambda_k >= 0` leaves, for each machine, a longest path over its ticks:
//!
//! ```text
//! L(lambda) = sum_k lambda_k + sum_j Z_j(lambda)
//! Z_j = f_j(T_j),  f_j(t) = max(f_j(t - 1), max_{k: a_k + p_kj <= t <= d_k} f_j(t - p_kj) + 1 - lambda_k)
//! ```
//!
//! (`f_j = 0` before the first arrival). Every `lambda >= 0` gives a bound: a schedule places
//! each on-time task once, on one machine, without overlap, so it is a solution of every
//! `Z_j` and `sum_k lambda_k (1 - placed_k) >= 0`. The machine problems may use a task more
//! than once, or on several machines; subgradient steps raise the multipliers of those.
//!
//! Started at `lambda_k = max(0, max_j 1 - mu_j p_kj)` from optimal duals `mu_j` of the
//! capacity LP, the bound is at most the LP's value: every task's weight is then at most
//! `mu_j p_kj`, so `Z_j <= mu_j (E_j - A_j)`, and `L` is at most the LP's dual objective. It
//! is smaller where the time-indexed problem sees what the capacity rows cannot: ticks at
//! which no task can run (the start and the end of a trial, lulls).

use pmf::Tick;

use crate::lower::Problem;

/// One (task, machine) pair of a machine problem, by earliest completion.
#[derive(Debug, Clone, Copy)]
struct Item {
    /// Earliest completion `a + p`.
    first: Tick,
    /// Latest completion `d`.
    last: Tick,
    /// Realised time on the machine (`> 0`).
    p: Tick,
    /// The task.
    k: u32,
}

/// One machine's problem: its items and the ticks they span.
#[derive(Debug, Clone)]
struct Machine {
    items: Vec<Item>,
    /// The tick before the first possible start.
    t0: Tick,
    /// The last possible completion.
    t1: Tick,
}

/// The machine problems of an instance, ready to evaluate.
pub(crate) struct TimeIndexed {
    machines: Vec<Machine>,
    /// Tasks with a zero time on a machine where they can be on time: left out of the
    /// relaxation, each adds one to the bound.
    fixed: usize,
    /// Which tasks the relaxation carries.
    relaxed: Vec<bool>,
    /// Cells of one evaluation (ticks plus active items summed over the ticks): bounds its
    /// time, and its memory (a value and a choice per tick of the longest horizon).
    pub cells: u64,
}

impl TimeIndexed {
    pub(crate) fn new(pr: &Problem) -> Self {
        let n = pr.n();
        let mut relaxed = vec![true; n];
        let mut fixed = 0;
        for (k, r) in relaxed.iter_mut().enumerate() {
            if (0..pr.m).any(|j| pr.ok(k, j) && pr.p(k, j) == 0) {
                *r = false;
                fixed += 1;
            }
        }
        let mut cells: u64 = 0;
        let machines = (0..pr.m)
            .map(|j| {
                let mut items: Vec<Item> = (0..n)
                    .filter(|&k| relaxed[k] && pr.ok(k, j))
                    .map(|k| Item {
                        first: pr.a[k] + pr.p(k, j),
                        last: pr.d[k],
                        p: pr.p(k, j),
                        k: k as u32,
                    })
                    .collect();
                items.sort_by_key(|it| (it.first, it.k));
                let t0 = items.iter().map(|it| it.first - it.p).min().unwrap_or(0);
                let t1 = items.iter().map(|it| it.last).max().unwrap_or(t0);
                cells = cells.saturating_add(t1.saturating_sub(t0) as u64);
                for it in &items {
                    cells = cells.saturating_add((it.last - it.first + 1) as u64);
                }
                Machine { items, t0, t1 }
            })
            .collect();
        TimeIndexed {
            machines,
            fixed,
            relaxed,
            cells,
        }
    }

    /// `L(lambda)`; `counts[k]` gets how many times the machine problems place task `k`.
    fn evaluate(&self, lambda: &[f64], counts: &mut [u32], scratch: &mut Scratch) -> f64 {
        counts.fill(0);
        let mut total = self.fixed as f64 + lambda.iter().sum::<f64>();
        let Scratch {
            f,
            choice,
            active,
            weight,
        } = scratch;
        for mach in &self.machines {
            if mach.items.is_empty() {
                continue;
            }
            let len = (mach.t1 - mach.t0 + 1) as usize;
            f.clear();
            f.resize(len, 0.0);
            choice.clear();
            choice.resize(len, u32::MAX);
            active.clear();
            weight.clear();
            weight.extend(mach.items.iter().map(|it| 1.0 - lambda[it.k as usize]));
            let mut next = 0;
            for i in 1..len {
                let t = mach.t0 + i as Tick;
                while next < mach.items.len() && mach.items[next].first <= t {
                    if weight[next] > 0.0 {
                        active.push(next as u32);
                    }
                    next += 1;
                }
                let mut best = f[i - 1];
                let mut who = u32::MAX;
                let mut x = 0;
                while x < active.len() {
                    let a = active[x] as usize;
                    let it = &mach.items[a];
                    if it.last < t {
                        active.swap_remove(x);
                        continue;
                    }
                    let v = f[i - it.p as usize] + weight[a];
                    if v > best {
                        best = v;
                        who = a as u32;
                    }
                    x += 1;
                }
                f[i] = best;
                choice[i] = who;
            }
            total += f[len - 1];
            let mut i = len - 1;
            while i > 0 {
                match choice[i] {
                    u32::MAX => i -= 1,
                    w => {
                        let it = &mach.items[w as usize];
                        counts[it.k as usize] += 1;
                        i -= it.p as usize;
                    }
                }
            }
        }
        total
    }
}

/// Buffers of an evaluation, reused.
#[derive(Default)]
struct Scratch {
    f: Vec<f64>,
    choice: Vec<u32>,
    active: Vec<u32>,
    weight: Vec<f64>,
}

/// What the subgradient search reached.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Reached {
    /// `L` at the start (the capacity duals).
    pub start: f64,
    /// The smallest `L` found.
    pub best: f64,
    /// Evaluations of `L`.
    pub evaluations: usize,
}

/// The Lagrangian bound from the multipliers the capacity duals `mu` (one per machine) give,
/// then subgradient steps (Polyak's step toward `target`, halved after three steps without
/// progress), at most `evaluations` evaluations in all, stopping early once
/// `floor(best) <= target`.
pub(crate) fn lagrangian(
    ti: &TimeIndexed,
    pr: &Problem,
    mu: &[f64],
    evaluations: usize,
    target: f64,
) -> Reached {
    let n = pr.n();
    let mut lambda: Vec<f64> = (0..n)
        .map(|k| {
            if !ti.relaxed[k] {
                return 0.0;
            }
            (0..pr.m)
                .filter(|&j| pr.ok(k, j))
                .map(|j| 1.0 - mu[j].max(0.0) * pr.p(k, j) as f64)
                .fold(0.0, f64::max)
        })
        .collect();
    let mut counts = vec![0u32; n];
    let mut scratch = Scratch::default();
    let mut best = f64::INFINITY;
    let mut start = f64::NAN;
    let mut alpha = 1.0;
    let mut stall = 0;
    let mut done = 0;
    while done < evaluations.max(1) {
        let v = ti.evaluate(&lambda, &mut counts, &mut scratch);
        if done == 0 {
            start = v;
        }
        done += 1;
        if v < best {
            best = v;
            stall = 0;
        } else {
            stall += 1;
            if stall >= 3 {
                alpha /= 2.0;
                stall = 0;
            }
        }
        if crate::lp::floor_count(best) as f64 <= target || done >= evaluations {
            break;
        }
        // The subgradient `1 - counts_k`; multipliers at 0 that would go lower stay.
        let mut norm = 0.0;
        for k in 0..n {
            let g = 1.0 - f64::from(counts[k]);
            if ti.relaxed[k] && (g < 0.0 || lambda[k] > 0.0) {
                norm += g * g;
            }
        }
        if norm == 0.0 {
            break;
        }
        let step = alpha * (v - target).max(0.5) / norm;
        for k in 0..n {
            if ti.relaxed[k] {
                let g = 1.0 - f64::from(counts[k]);
                // Above 1 a multiplier only adds to the sum: the task's weight is already <= 0.
                lambda[k] = (lambda[k] - step * g).clamp(0.0, 1.0);
            }
        }
    }
    Reached {
        start,
        best,
        evaluations: done,
    }
}

#[cfg(test)]
mod tests {
    use ndarray::{Array2, array};
    use proptest::prelude::*;

    use super::*;
    use crate::instance::Instance;

    fn evaluate(inst: &Instance, lambda: &[f64]) -> (f64, Vec<u32>) {
        let pr = Problem::new(inst);
        let ti = TimeIndexed::new(&pr);
        let mut counts = vec![0; pr.n()];
        let v = ti.evaluate(lambda, &mut counts, &mut Scratch::default());
        (v, counts)
    }

    #[test]
    fn one_task_by_hand() {
        // a = 0, D = 10, p = 3: copies can complete at 3, 6 and 9 (<= d = 9).
        let inst = Instance::new(vec![0], vec![10], array![[3]], 0..1).unwrap();
        assert_eq!(evaluate(&inst, &[0.0]), (3.0, vec![3]));
        // lambda + 3 (1 - lambda) at 0.5.
        assert_eq!(evaluate(&inst, &[0.5]), (2.0, vec![3]));
        // At 1 the weight is 0: no copy, and the bound is lambda = 1.
        assert_eq!(evaluate(&inst, &[1.0]), (1.0, vec![0]));
    }

    #[test]
    fn two_machines_by_hand() {
        // Task 0: a 0, D 5, p (2, 4); task 1: a 1, D 4, p (3, 3). Machine 0: task 0 twice
        // (completions 2 and 4: weight 2), or 0 then 1 (2 + 3 = 5 > d 3: no), or 1 alone
        // (completes 4 > 3: no, 1 + 3 = 4 > 3: task 1 cannot be on time anywhere).
        // Machine 1: task 0 once (completes 4 <= 4). L(0) = 2 + 1 = 3.
        let inst = Instance::new(vec![0, 1], vec![5, 4], array![[2, 4], [3, 3]], 0..2).unwrap();
        let pr = Problem::new(&inst);
        assert_eq!(pr.n(), 1, "task 1 is never on time");
        assert_eq!(evaluate(&inst, &[0.0]), (3.0, vec![3]));
    }

    #[test]
    fn zero_times_are_fixed() {
        let inst = Instance::new(vec![0, 0], vec![5, 5], array![[0], [2]], 0..2).unwrap();
        let pr = Problem::new(&inst);
        let ti = TimeIndexed::new(&pr);
        assert_eq!(ti.fixed, 1);
        // Task 1 twice (completions 2 and 4) plus the fixed task.
        assert_eq!(evaluate(&inst, &[0.0, 0.0]).0, 3.0);
        let r = lagrangian(&ti, &pr, &[0.0], 50, 2.0);
        assert!(r.best >= 2.0 - 1e-9, "{r:?}");
    }

    fn instance() -> impl Strategy<Value = Instance> {
        (1..=9usize, 1..=3usize).prop_flat_map(|(n, m)| {
            (
                proptest::collection::vec((0..25i64, 1..30i64), n),
                proptest::collection::vec(0..14i64, n * m),
                Just(m),
            )
                .prop_map(|(times, exec, m)| {
                    let n = times.len();
                    let mut arrival: Vec<Tick> = times.iter().map(|t| t.0).collect();
                    arrival.sort_unstable();
                    let deadline = arrival.iter().zip(&times).map(|(a, t)| a + t.1).collect();
                    let exec = Array2::from_shape_vec((n, m), exec).unwrap();
                    Instance::new(arrival, deadline, exec, 0..n).unwrap()
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// At the capacity LP's optimal duals the bound is at most the LP; after any steps
        /// it is still at least the exact optimum.
        #[test]
        fn below_the_lp_and_above_the_optimum(inst in instance()) {
            let pr = Problem::new(&inst);
            let ti = TimeIndexed::new(&pr);
            let solved = crate::capacity::solve_with(&inst, Default::default());
            let exact = crate::exact_small(&inst).unwrap() as f64;
            if let Some(s) = &solved {
                let r = lagrangian(&ti, &pr, &s.duals, 1, 0.0);
                prop_assert!(r.start <= s.lp + 1e-9, "{:?} > {}", r, s.lp);
            }
            let mu = solved.map_or(vec![0.0; pr.m], |s| s.duals);
            let r = lagrangian(&ti, &pr, &mu, 40, exact);
            prop_assert!(r.best >= exact - 1e-9, "{:?} < {}", r, exact);
            prop_assert!(r.best <= r.start);
        }
    }
}
