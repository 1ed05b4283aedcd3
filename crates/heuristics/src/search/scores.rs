//! Chances of (task, machine) pairs: kept across mapping events by the oracle's memo
//! ([`model::ChanceMemo`]), and within one event until the machine's tail changes
//! ([`SuccessCache`]).

use super::*;

/// Success probabilities of (candidate, machine) pairs, computed on demand and cached until
/// the machine's tail changes (an assignment bumps that machine's epoch). Dense while the
/// table is small (8 machines); sparse beyond, where a mapping event evaluates few of its
/// pairs (1,024 machines x 10^4 candidates would not fit densely). A pair not cached in the
/// event is looked up in the [`ChanceMemo`] of earlier events first.
pub(super) struct SuccessCache {
    pub(super) epoch: Vec<u32>,
    pub(super) table: Table,
    pub(super) memo: ChanceMemo,
    /// Whether the memo is read and written: below [`NARROW_MIN_MACHINES`] machines (with
    /// more, few chances repeat and hashing costs more than it saves: docs/performance.md,
    /// "Constants chosen by measurement").
    pub(super) use_memo: bool,
    /// [`best_of`]'s idle machines of one search (reused).
    pub(super) seen: Vec<(usize, Tick, MachineId)>,
    /// The machines scored by one search (reused).
    pub(super) scored: Scored,
}

pub(super) enum Table {
    Dense {
        machines: usize,
        values: Vec<(u32, f64)>,
    },
    Sparse(FxHashMap<(u32, u32), (u32, f64)>),
}

/// Largest dense table, in entries (1 MiB).
pub(super) const DENSE_LIMIT: usize = 1 << 16;

/// Entries a sparse table keeps room for from one event to the next, at least.
pub(super) const SPARSE_KEPT: usize = 1 << 12;

#[cfg(test)]
thread_local! {
    /// Test hooks: the calls of [`SuccessCache::get`] on this thread, and whether the
    /// shortcuts of phase 1 with many machines ([`Phase1State::classes`], the idle copies of
    /// [`best_of`]) are off, for the tests that compare them with the plain computation.
    pub(super) static GETS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    pub(super) static PLAIN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// True when the shortcuts of phase 1 are off (only ever in tests).
#[cfg(test)]
pub(super) fn plain() -> bool {
    PLAIN.with(std::cell::Cell::get)
}

#[cfg(not(test))]
#[inline(always)]
pub(super) const fn plain() -> bool {
    false
}

impl SuccessCache {
    /// An empty cache for `n` candidates on `machines` machines, in the memory of `bufs`.
    pub(super) fn new_in(n: usize, machines: usize, bufs: &mut Buffers, memo: ChanceMemo) -> Self {
        let table = match n.checked_mul(machines) {
            Some(size) if size <= DENSE_LIMIT => {
                let mut values = std::mem::take(&mut bufs.succ_values);
                reset(&mut values, size, (u32::MAX, 0.0));
                Table::Dense { machines, values }
            }
            _ => {
                // The previous event's table, emptied: its memory saves the table's growth
                // (rehashing every entry) at every event.
                let mut map = std::mem::take(&mut bufs.succ_map);
                map.clear();
                Table::Sparse(map)
            }
        };
        let mut epoch = std::mem::take(&mut bufs.succ_epoch);
        reset(&mut epoch, machines, 0);
        SuccessCache {
            epoch,
            table,
            memo,
            use_memo: machines < NARROW_MIN_MACHINES,
            seen: Vec::new(),
            scored: Scored::default(),
        }
    }

    /// An empty cache in new memory.
    #[cfg(test)]
    pub(super) fn new(n: usize, machines: usize) -> Self {
        Self::new_in(n, machines, &mut Buffers::default(), ChanceMemo::default())
    }

    /// Gives the cache's memory back to `bufs`, and the memo of kept chances back.
    pub(super) fn release(self, bufs: &mut Buffers) -> ChanceMemo {
        bufs.succ_epoch = self.epoch;
        match self.table {
            Table::Dense { values, .. } => bufs.succ_values = values,
            Table::Sparse(mut map) => {
                // Emptying a table costs its capacity: one grown by a large event (the first
                // of a loaded system) is brought down to what this one filled.
                let used = map.len().max(SPARSE_KEPT);
                if map.capacity() > 4 * used {
                    map.clear();
                    map.shrink_to(2 * used);
                }
                bufs.succ_map = map;
            }
        }
        self.memo
    }

    pub(super) fn get(
        &mut self,
        view: &View<'_>,
        vq: &VirtualQueues,
        i: usize,
        t: TaskId,
        m: MachineId,
    ) -> f64 {
        #[cfg(test)]
        GETS.with(|g| g.set(g.get() + 1));
        let epoch = self.epoch[m];
        let entry = match &mut self.table {
            Table::Dense { machines, values } => &mut values[i * *machines + m],
            Table::Sparse(map) => map.entry((i as u32, m as u32)).or_insert((u32::MAX, 0.0)),
        };
        if entry.0 != epoch {
            let kept = self
                .use_memo
                .then(|| vq.kept_success(&self.memo, t, m))
                .flatten();
            let p = match kept {
                Some(p) => p,
                None => {
                    let p = vq.success(view, m, t);
                    if self.use_memo {
                        vq.keep_success(&mut self.memo, t, m, p);
                    }
                    p
                }
            };
            *entry = (epoch, p);
        }
        entry.1
    }

    /// An upper bound on task `t`'s current chance on machine `m` from the [`ChanceMemo`]: its
    /// chance on the machine's earlier PCTs, when computed in an earlier event, times their
    /// factor ([`VirtualQueues::kept_success_bound`]).
    #[inline]
    pub(super) fn stale_bound(&self, vq: &VirtualQueues, t: TaskId, m: MachineId) -> Option<f64> {
        if !self.use_memo {
            return None;
        }
        vq.kept_success_bound(&self.memo, t, m)
    }

    pub(super) fn invalidate_machine(&mut self, m: MachineId) {
        // Epochs start at 0 and an empty entry holds u32::MAX: 2^32 - 1 assignments to one
        // machine in one event would be needed to alias.
        self.epoch[m] = self.epoch[m].wrapping_add(1);
    }
}
