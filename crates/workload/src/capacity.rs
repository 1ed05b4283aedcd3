//! The machines' capacity: how many tasks per tick a PET's machines complete when the task
//! types arrive in equal shares (as generated trials bring them, [`crate::type_counts`]),
//! each task taking its mean time, deadlines ignored. `load = L` of the `[workload]` table
//! is an arrival rate of `L` times this capacity.
//!
//! ```text
//! maximise   lambda                                       y_tj >= 0: tasks of type t per tick
//! subject to sum_j y_tj = lambda / T                      each task type t (T types)
//!            sum_t mean[[t, j]] y_tj <= copies_j          each distinct machine column j
//! ```
//!
//! Identical machine columns ([`Pet::canonical`]) are one column with the copies' capacity,
//! so a system drawn with `machines = 1024` from eight columns is an LP of eight columns.
//! On a homogeneous system of `n` machines it is `n` over the mean of the types' times.

use microlp::{ComparisonOp, LinearExpr, OptimizationDirection, Problem};

use crate::error::WorkloadError;
use crate::pet::Pet;

/// The most tasks per tick the machines of `pet` complete with the task types in equal
/// shares, each task taking its mean time ([`Pet::etc`]); see the module docs.
///
/// Errors ([`WorkloadError::InvalidPet`]): a PET without task types or machines, a task type
/// whose mean time is 0 or not finite on every machine (its tasks take no time: no load is
/// defined), a solver failure.
///
/// ```
/// use workload::{Pet, Pmf};
/// // Two machines, one type taking 4 ticks on each: half a task per tick.
/// let pmfs = ndarray::Array2::from_elem((1, 2), Pmf::point(4));
/// let pet = Pet::new(pmfs, vec!["t".into()], vec!["a".into(), "b".into()]).unwrap();
/// assert!((workload::capacity(&pet).unwrap() - 0.5).abs() < 1e-9);
/// ```
pub fn capacity(pet: &Pet) -> Result<f64, WorkloadError> {
    let (types, machines) = (pet.n_types(), pet.n_machines());
    if types == 0 || machines == 0 {
        return Err(WorkloadError::InvalidPet(format!(
            "the capacity needs task types and machines; the PET has {types} x {machines}"
        )));
    }
    let mean = pet.etc();
    for t in 0..types {
        if !(0..machines).any(|j| mean[[t, j]].is_finite() && mean[[t, j]] > 0.0) {
            return Err(WorkloadError::InvalidPet(format!(
                "task type {} takes no time on any machine: the machines' capacity (and a \
                 `load`) is not defined; give the rate instead",
                pet.type_names()[t]
            )));
        }
    }
    let mut copies = vec![0usize; machines];
    for j in 0..machines {
        copies[pet.canonical(j)] += 1;
    }
    let mut problem = Problem::new(OptimizationDirection::Maximize);
    let lambda = problem.add_var(1.0, (0.0, f64::INFINITY));
    let mut rows: Vec<Vec<(microlp::Variable, f64)>> = vec![Vec::new(); machines];
    for t in 0..types {
        let mut share: Vec<(microlp::Variable, f64)> = vec![(lambda, -1.0 / types as f64)];
        for (j, &n) in copies.iter().enumerate() {
            let m = mean[[t, j]];
            if n == 0 || !m.is_finite() {
                continue;
            }
            let y = problem.add_var(0.0, (0.0, f64::INFINITY));
            share.push((y, 1.0));
            rows[j].push((y, m));
        }
        problem.add_constraint(
            share.into_iter().collect::<LinearExpr>(),
            ComparisonOp::Eq,
            0.0,
        );
    }
    for (j, row) in rows.into_iter().enumerate() {
        if copies[j] > 0 {
            problem.add_constraint(
                row.into_iter().collect::<LinearExpr>(),
                ComparisonOp::Le,
                copies[j] as f64,
            );
        }
    }
    let solved = problem
        .solve()
        .map_err(|e| WorkloadError::InvalidPet(format!("the capacity LP: {e}")))?
        .into_solution()
        .map_err(|e| WorkloadError::InvalidPet(format!("the capacity LP: {e:?}")))?;
    let value = solved.objective();
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(WorkloadError::InvalidPet(format!(
            "the capacity LP gave {value} tasks per tick: every task type needs a machine on \
             which it takes time"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::array;
    use pmf::Pmf;

    fn pet(means: &ndarray::Array2<i64>) -> Pet {
        let (t, m) = means.dim();
        Pet::new(
            means.mapv(Pmf::point),
            (0..t).map(|i| format!("t{i}")).collect(),
            (0..m).map(|j| format!("m{j}")).collect(),
        )
        .unwrap()
    }

    #[test]
    fn a_homogeneous_system_completes_its_machines_over_the_mean_time() {
        // Types of 2 and 6 ticks in equal shares: a mean of 4, three machines: 3/4 per tick.
        let p = pet(&array![[2, 2, 2], [6, 6, 6]]);
        assert!((capacity(&p).unwrap() - 0.75).abs() < 1e-9);
    }

    #[test]
    fn each_type_goes_where_it_is_fast_when_the_machines_specialise() {
        // Type 0 takes 1 tick on m0 and 10 on m1; type 1 the reverse. Each machine serves its
        // own type: lambda / 2 tasks of 1 tick per tick on each, so lambda = 2.
        let p = pet(&array![[1, 10], [10, 1]]);
        assert!((capacity(&p).unwrap() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn the_mix_binds_a_fast_machine_cannot_take_every_type() {
        // Type 0 takes 1 tick on m0 and 100 on m1, type 1 takes 4 on both. Type 0 all on m0
        // (lambda / 2 per tick), type 1 split x on m0 and lambda / 2 - x on m1; both machines
        // full: lambda / 2 + 4 x = 1 and 2 lambda - 4 x = 1, so 2.5 lambda = 2: lambda = 0.8.
        let p = pet(&array![[1, 100], [4, 4]]);
        assert!((capacity(&p).unwrap() - 0.8).abs() < 1e-9);
    }

    #[test]
    fn copies_count_as_capacity() {
        let one = pet(&array![[5]]);
        let four = pet(&array![[5, 5, 5, 5]]);
        let c1 = capacity(&one).unwrap();
        assert!((capacity(&four).unwrap() - 4.0 * c1).abs() < 1e-9);
    }

    #[test]
    fn a_type_taking_no_time_has_no_load() {
        let p = pet(&array![[0, 0], [3, 3]]);
        let e = capacity(&p).unwrap_err().to_string();
        assert!(e.contains("t0") && e.contains("no time"), "{e}");
    }
}
