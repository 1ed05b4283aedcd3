//! Processor balance (Hansen et al. §III-A): the `tau` processors are cut into `N_a` groups of
//! `M = tau / N_a` processors of a single type, and each application gets one group.

use rand::Rng;

use crate::error::MoldableError;
use crate::robustness::{Allocation, Assignment, Instance};

/// The processor type of each of the `N_a` groups of `M` processors, in type order, and `M`.
/// Errors unless `M` is an integer and every `n_j` a multiple of `M` (§III-A1).
pub fn groups(inst: &Instance) -> Result<(Vec<usize>, u32), MoldableError> {
    let total = inst.total_processors();
    let apps = inst.n_apps();
    let err = MoldableError::NotBalanced { total, apps };
    if total % apps as u64 != 0 || total == 0 {
        return Err(err);
    }
    let m = u32::try_from(total / apps as u64).map_err(|_| err.clone())?;
    let mut g = Vec::with_capacity(apps);
    for (j, &n) in inst.counts().iter().enumerate() {
        if n % m != 0 {
            return Err(err);
        }
        g.extend(std::iter::repeat_n(j, (n / m) as usize));
    }
    Ok((g, m))
}

/// PB-R (§III-A2): for each group in turn, a uniformly random remaining application.
pub fn random<R: Rng + ?Sized>(inst: &Instance, rng: &mut R) -> Result<Allocation, MoldableError> {
    let (groups, m) = groups(inst)?;
    let mut remaining: Vec<usize> = (0..inst.n_apps()).collect();
    let mut alloc = vec![Assignment { ptype: 0, procs: m }; inst.n_apps()];
    for &j in &groups {
        let pick = rng.random_range(0..remaining.len());
        let i = remaining.swap_remove(pick);
        alloc[i] = Assignment { ptype: j, procs: m };
    }
    Ok(alloc)
}

/// PB-S (§III-A3): pick a uniformly random remaining group (type `j`) and give it the remaining
/// application with the largest `P(i, (j, M))` (ties: lowest index).
pub fn smart<R: Rng + ?Sized>(inst: &Instance, rng: &mut R) -> Result<Allocation, MoldableError> {
    let (mut groups, m) = groups(inst)?;
    let mut remaining: Vec<usize> = (0..inst.n_apps()).collect();
    let mut alloc = vec![Assignment { ptype: 0, procs: m }; inst.n_apps()];
    while !groups.is_empty() {
        let j = groups.swap_remove(rng.random_range(0..groups.len()));
        let mut best = 0;
        for (pos, &i) in remaining.iter().enumerate() {
            if inst.prob(i, j, m) > inst.prob(remaining[best], j, m) {
                best = pos;
            }
        }
        // `remove`, not `swap_remove`: keep the index order so ties go to the lowest index.
        let i = remaining.remove(best);
        alloc[i] = Assignment { ptype: j, procs: m };
    }
    Ok(alloc)
}
