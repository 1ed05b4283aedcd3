//! The capacity on mean times: how many tasks the machines could complete at all, deadlines
//! ignored, working without a pause on the mean execution times.

use std::ops::Range;

use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem};
use model::TaskSpec;
use ndarray::Array2;
use workload::Pet;

use crate::error::BoundError;
use crate::lp::solve;

/// The capacity on mean times of a set of tasks (see [`capacity_on_means`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Ceiling {
    /// The tasks considered.
    pub tasks: usize,
    /// The length of the window every machine works through, in ticks.
    pub window: f64,
    /// The LP's optimum: the most tasks (fractions allowed) the machines complete in the
    /// window on the mean execution times.
    pub completable: f64,
    /// `100 * completable / tasks` (0 without tasks): no scheduler completes a larger share
    /// of the tasks on average times, on time or not.
    pub share: f64,
}

/// The most tasks `m` machines can complete in a window of `window` ticks when each task of
/// type `t` takes its mean time `mean[[t, j]]` on machine `j`, deadlines ignored:
///
/// ```text
/// maximise   sum_tj y_tj                          y_tj >= 0 (tasks of type t on machine j)
/// subject to sum_j y_tj <= n_t                    each task type t, n_t its tasks
///            sum_t mean[[t, j]] y_tj <= window    each machine j
/// ```
///
/// Tasks of a type are interchangeable, so the LP has one variable per (type, machine), and
/// fractions of tasks are allowed: it is a relaxation, an upper bound on what any schedule
/// completes on these mean times in this window (before any deadline is asked of it).
///
/// Errors ([`BoundError::Ceiling`]): a task type outside `mean`'s rows, a mean that is
/// negative or not finite, a window that is negative or not finite; an LP failure.
///
/// ```
/// use bound::capacity_on_means;
/// use ndarray::array;
/// // One machine, tasks of 4 ticks, a window of 10: two and a half tasks of three.
/// let c = capacity_on_means(&array![[4.0]], &[0, 0, 0], 10.0).unwrap();
/// assert!((c.completable - 2.5).abs() < 1e-9);
/// ```
pub fn capacity_on_means(
    mean: &Array2<f64>,
    task_types: &[usize],
    window: f64,
) -> Result<Ceiling, BoundError> {
    let (n_types, m) = mean.dim();
    if !window.is_finite() || window < 0.0 {
        return Err(BoundError::Ceiling(format!(
            "the window must be a finite length >= 0, got {window}"
        )));
    }
    if let Some(((t, j), v)) = mean
        .indexed_iter()
        .find(|(_, v)| !v.is_finite() || **v < 0.0)
    {
        return Err(BoundError::Ceiling(format!(
            "the mean time of type {t} on machine {j} is {v}: it must be finite and >= 0"
        )));
    }
    let mut count = vec![0usize; n_types];
    for (k, &t) in task_types.iter().enumerate() {
        match count.get_mut(t) {
            Some(c) => *c += 1,
            None => {
                return Err(BoundError::Ceiling(format!(
                    "task {k} has type {t}, but the means have {n_types} task types"
                )));
            }
        }
    }
    let tasks = task_types.len();
    let completable = if tasks == 0 || m == 0 {
        0.0
    } else {
        let mut problem = Problem::new(OptimizationDirection::Maximize);
        let mut machine_rows: Vec<Vec<(microlp::Variable, f64)>> = vec![Vec::new(); m];
        for (t, &n) in count.iter().enumerate() {
            if n == 0 {
                continue;
            }
            let vars: Vec<_> = (0..m)
                .map(|j| {
                    let v = problem.add_var(1.0, (0.0, n as f64));
                    machine_rows[j].push((v, mean[[t, j]]));
                    v
                })
                .collect();
            let expr: LinearExpr = vars.iter().map(|&v| (v, 1.0)).collect();
            problem.add_constraint(expr, ComparisonOp::Le, n as f64);
        }
        for row in machine_rows {
            let expr: LinearExpr = row.into_iter().collect();
            problem.add_constraint(expr, ComparisonOp::Le, window);
        }
        // Never more than the tasks (guards the solver's rounding).
        solve(&problem)?.objective().clamp(0.0, tasks as f64)
    };
    Ok(Ceiling {
        tasks,
        window,
        completable,
        share: if tasks == 0 {
            0.0
        } else {
            100.0 * completable / tasks as f64
        },
    })
}

/// [`capacity_on_means`] of the tasks `counted` of a simulated trial on the means of `pet`
/// ([`Pet::etc`]), the window from the first arrival to the last deadline of those tasks:
/// the share of them that machines working without a pause could complete at all.
///
/// Errors: a counted range outside the tasks, a task type outside the PET.
pub fn capacity_on_means_trial(
    pet: &Pet,
    tasks: &[TaskSpec],
    counted: Range<usize>,
) -> Result<Ceiling, BoundError> {
    let Some(counted_tasks) = tasks.get(counted.clone()) else {
        return Err(BoundError::Counted {
            start: counted.start,
            end: counted.end,
            n_tasks: tasks.len(),
        });
    };
    let first = counted_tasks.iter().map(|t| t.arrival).min().unwrap_or(0);
    let last = counted_tasks
        .iter()
        .map(|t| t.deadline)
        .max()
        .unwrap_or(first);
    let types: Vec<usize> = counted_tasks.iter().map(|t| t.task_type).collect();
    capacity_on_means(pet.etc(), &types, last.saturating_sub(first).max(0) as f64)
}

#[cfg(test)]
mod tests {
    use ndarray::array;

    use super::*;

    #[test]
    fn a_hand_computed_two_machine_example() {
        // Type 0 takes 2 on machine 0 and 4 on machine 1; type 1 takes 6 and 3. Five tasks
        // of each, a window of 12. Machine 1 is best used on type 1 (a third of a task per
        // tick against a quarter): 4 tasks. Machine 0 on type 0 (half a task per tick): all
        // 5 in 10 ticks, and the 2 ticks left hold a third of a type-1 task (6 ticks).
        // Total 5 + 4 + 1/3 = 28/3.
        let mean = array![[2.0, 4.0], [6.0, 3.0]];
        let c = capacity_on_means(&mean, &[0, 1, 0, 1, 0, 1, 0, 1, 0, 1], 12.0).unwrap();
        assert!((c.completable - 28.0 / 3.0).abs() < 1e-9, "{c:?}");
        assert!((c.share - 280.0 / 3.0).abs() < 1e-7, "{c:?}");
        assert_eq!(c.tasks, 10);
    }

    #[test]
    fn room_for_all_and_no_room() {
        let mean = array![[2.0, 4.0], [6.0, 3.0]];
        let all = capacity_on_means(&mean, &[0, 1, 1], 1000.0).unwrap();
        assert!((all.share - 100.0).abs() < 1e-9);
        let none = capacity_on_means(&mean, &[0, 1, 1], 0.0).unwrap();
        assert_eq!(none.completable, 0.0);
        let empty = capacity_on_means(&mean, &[], 10.0).unwrap();
        assert_eq!((empty.completable, empty.share), (0.0, 0.0));
        // A zero mean completes without taking time.
        let free = capacity_on_means(&array![[0.0]], &[0, 0], 0.0).unwrap();
        assert!((free.completable - 2.0).abs() < 1e-9);
    }

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        let mean = array![[2.0, 4.0]];
        for (mean, types, window) in [
            (mean.clone(), vec![1], 5.0),
            (mean.clone(), vec![0], -1.0),
            (mean, vec![0], f64::NAN),
            (array![[f64::INFINITY]], vec![0], 5.0),
            (array![[-1.0]], vec![0], 5.0),
        ] {
            assert!(matches!(
                capacity_on_means(&mean, &types, window),
                Err(BoundError::Ceiling(_))
            ));
        }
    }
}
