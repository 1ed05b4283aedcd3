//! Helpers shared by the engine and heuristic scenarios.

use model::TaskSpec;
use ndarray::Array2;
use pmf::Pmf;
use workload::Pet;

/// A PET from one PMF per (type, machine); rows are task types.
pub fn pet_of(pmfs: Vec<Vec<Pmf>>) -> Pet {
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
pub fn point_pet(times: &[&[i64]]) -> Pet {
    pet_of(
        times
            .iter()
            .map(|row| row.iter().map(|&t| Pmf::point(t)).collect())
            .collect(),
    )
}

/// A task on the tick grid.
pub fn task(id: usize, task_type: usize, arrival: i64, deadline: i64) -> TaskSpec {
    TaskSpec {
        id,
        task_type,
        arrival,
        deadline,
    }
}
