//! Mapping events before machines go idle (JPDC-2016 section 5, eqs. 3-5).
//!
//! The earliest free slot of machine `j` (eq. 4) is the expected time a slot appears in its
//! queue: the executing task's expected completion, or the deadline of a queued task (it is
//! dropped then), whichever is first. The executing task's deadline counts only when the
//! executing task may be dropped (`DropModel::All`); no deadline counts when nothing is
//! dropped. The next mapping event (eq. 5) comes early enough for the heuristic to run
//! (`t_h`) and for the largest unmapped input to be staged (`t_lj`, eq. 3).

use pmf::DropModel;
use workload::Pet;

use crate::machine::Machine;
use crate::oracle::Oracle;
use crate::task::TaskSpec;

/// `e_j` of eq. (4) from the executing task's PCT at the machine's tick (the rest of the
/// queue is not computed, `Oracle::executing_mean`): the minimum
/// of E[C(executing)] and the deadlines of the queued tasks that may be dropped. `None` for
/// an empty machine (no slot will appear: they are all free).
pub fn earliest_free_slot(
    machine: &Machine,
    oracle: &Oracle,
    tasks: &[TaskSpec],
    pet: &Pet,
    model: DropModel,
) -> Option<f64> {
    let mut e: Option<f64> = None;
    let mut take = |x: f64| e = Some(e.map_or(x, |v: f64| v.min(x)));
    if let (Some(r), Some(mean)) = (
        machine.running(),
        oracle.executing_mean(machine.id(), machine, tasks, pet, model),
    ) {
        take(mean);
        if model == DropModel::All {
            take(tasks[r.task].deadline as f64);
        }
    }
    if model != DropModel::None {
        for &t in machine.pending() {
            take(tasks[t].deadline as f64);
        }
    }
    e
}

/// `t_map` of eq. (5): the earliest `e_j - (t_h + t_lj)` over the machines that have an
/// `e_j` (`earliest[j]`), with `worst_staging[j]` = `t_lj` of eq. (3) and `heuristic_time` =
/// `t_h`. Taking the minimum of the differences (rather than subtracting the `t_lj` of the
/// machine with the smallest `e_j`) keeps every machine from idling, the stated goal.
/// `None` when no machine has an `e_j`.
pub fn next_mapping_time(
    earliest: &[Option<f64>],
    worst_staging: &[f64],
    heuristic_time: f64,
) -> Option<f64> {
    earliest
        .iter()
        .zip(worst_staging)
        .filter_map(|(e, tl)| e.map(|e| e - (heuristic_time + tl)))
        .min_by(f64::total_cmp)
}
