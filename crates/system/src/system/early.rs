//! Early mapping (JPDC-2016 section 5, eqs. (3)-(5)): slots reserved on full machines whose
//! earliest free slot comes within the heuristic's time plus the largest staging, and the
//! next early mapping event.

use model::{earliest_free_slot, next_mapping_time};
use pmf::Tick;

use super::{Env, System};

impl System<'_> {
    /// `t_lj` of eq. (3) for every machine: the largest unmapped input staged to it.
    fn worst_staging(&self, env: &Env<'_>) -> Vec<f64> {
        let n = self.machines.len();
        match env.staging {
            Some(st) => {
                let s = self
                    .batch
                    .iter()
                    .map(|&t| st.sizes_mb()[t])
                    .fold(0.0, f64::max);
                (0..n).map(|m| st.units_for(s, m)).collect()
            }
            None => vec![0.0; n],
        }
    }

    /// Full machines, without a reserved slot yet, whose earliest free slot `e_j` (eq. 4)
    /// lies at most `t_h + t_lj` ahead; `None` in the list for the others.
    fn early_candidates(&self) -> Vec<Option<f64>> {
        self.machines
            .iter()
            .map(|mc| {
                if mc.limit().is_none() || mc.free_slots() > 0 || mc.has_reserved_slot() {
                    None
                } else {
                    earliest_free_slot(mc, &self.oracle, &self.tasks, &self.belief, self.model)
                }
            })
            .collect()
    }

    /// Early mapping (JPDC-2016 section 5): at this mapping event, a full machine whose
    /// `e_j - (t_h + t_lj)` has come gets a slot for the task that will follow.
    pub(super) fn reserve_slots(&mut self, now: Tick, env: &Env<'_>) {
        if self.batch.is_empty() {
            return;
        }
        let worst = self.worst_staging(env);
        let e = self.early_candidates();
        for (m, e) in e.into_iter().enumerate() {
            if let Some(e) = e {
                if e - (env.heuristic_time + worst[m]) <= now as f64 {
                    self.machines[m].reserve_slot();
                }
            }
        }
    }

    /// Schedules the next early mapping event at `t_map` of eq. (5) (the next tick when that
    /// time has passed), if anything waits in the batch queue.
    pub(super) fn schedule_early_mapping(&mut self, now: Tick, env: &Env<'_>) {
        if !env.early_mapping {
            return;
        }
        self.next_map = None;
        if self.batch.is_empty() {
            return;
        }
        self.advance(now);
        let worst = self.worst_staging(env);
        let e = self.early_candidates();
        if let Some(t) = next_mapping_time(&e, &worst, env.heuristic_time) {
            self.next_map = Some((t.floor() as Tick).max(now + 1));
        }
    }
}
