//! Chances kept across mapping events (thesis 7.2.7's memoisation), a service the oracle
//! offers the searches: each chance is kept with the identity of the machine PCTs it was
//! computed on, which never leaves this crate.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::task::{MachineId, TaskId};

/// Success probabilities of (task, machine) pairs kept across mapping events: each is reused
/// while neither the task nor the machine's PCTs changed (a machine whose executing task's
/// PCT lies after the tick keeps its PCTs from one event to the next, so many of a search's
/// exact chances repeat), and, times the earlier PCTs' factor, bounds the chance on a queue
/// whose PCTs are not computed at this tick. Read and written through
/// [`crate::VirtualQueues::kept_success`], [`crate::VirtualQueues::keep_success`] and
/// [`crate::VirtualQueues::kept_success_bound`]. One per heuristic instance, never shared
/// between threads.
#[derive(Debug, Clone, Default)]
pub struct ChanceMemo {
    /// Per (task, machine): the identity of the PCTs ([`crate::Cache`]) and the chance.
    map: FxHashMap<(u32, u32), (u64, f64)>,
}

impl ChanceMemo {
    /// The kept chance of task `t` on machine `m` if it was computed on the PCTs `id`.
    #[inline]
    pub(crate) fn get(&self, t: TaskId, m: MachineId, id: u64) -> Option<f64> {
        match self.map.get(&(t as u32, m as u32)) {
            Some(&(kept, p)) if kept == id => Some(p),
            _ => None,
        }
    }

    /// Keeps the chance `p` of task `t` on machine `m`, computed on the PCTs `id`.
    #[inline]
    pub(crate) fn put(&mut self, t: TaskId, m: MachineId, id: u64, p: f64) {
        self.map.insert((t as u32, m as u32), (id, p));
    }

    /// The number of chances kept.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when no chance is kept.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Forgets the tasks that left the batch `batch` once the memo has grown well beyond
    /// what the batch can use on `machines` machines (amortised O(1) per entry).
    pub fn prune(&mut self, batch: &[TaskId], machines: usize) {
        let room = batch.len().saturating_mul(machines.min(64)).max(1 << 12);
        if self.map.len() <= 4 * room {
            return;
        }
        let keep: FxHashSet<u32> = batch.iter().map(|&t| t as u32).collect();
        self.map.retain(|&(t, _), _| keep.contains(&t));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kept chance is returned only for the PCTs it was computed on.
    #[test]
    fn a_chance_is_kept_for_its_pcts_only() {
        let mut memo = ChanceMemo::default();
        memo.put(3, 1, 7, 0.25);
        assert_eq!(memo.get(3, 1, 7), Some(0.25));
        assert_eq!(memo.get(3, 1, 8), None);
        assert_eq!(memo.get(3, 0, 7), None);
        memo.put(3, 1, 8, 0.5);
        assert_eq!(memo.get(3, 1, 7), None);
        assert_eq!(memo.len(), 1);
    }

    /// Pruning keeps the batch's tasks and forgets the others, only once the memo is large.
    #[test]
    fn pruning_forgets_the_tasks_gone_once_large() {
        let mut memo = ChanceMemo::default();
        for t in 0..100 {
            memo.put(t, 0, 1, 0.5);
        }
        memo.prune(&[1, 2], 1);
        assert_eq!(memo.len(), 100, "small: kept as it is");
        for t in 0..(5 << 12) {
            memo.put(t, 0, 1, 0.5);
        }
        memo.prune(&[1, 2], 1);
        assert_eq!(memo.len(), 2);
        assert_eq!(memo.get(2, 0, 1), Some(0.5));
    }
}
