//! Phase-1 searches of one mapping event kept for their re-evaluation ([`Memo`], thesis 7.2.7's
//! memoisation within an event).

use super::*;

/// Phase-1 searches of this event kept for their re-evaluation (thesis 7.2.7's memoisation,
/// within a mapping event).
///
/// When a task's chosen machine receives a provisional assignment, its choice must be found
/// again, but the search it came from still holds: a machine only loses chance through
/// assignments, so the upper bounds found then stay upper bounds. A search is kept as its
/// machines with their bounds (the `kept` ones, whose bound reached its floor `f` less
/// [`TIE_MARGIN`], first, sorted by decreasing bound) and `cap`: every machine not kept at
/// all has a bound below `cap - TIE_MARGIN`. Re-evaluation visits the sorted part with the
/// current chances (cached unless the machine changed, [`SuccessCache`]); when the highest
/// chance found is below `f`, the rest whose bound comes within the margin of it are visited
/// too. When the highest chance is at least `cap`, no machine left out beats or ties with it
/// and the answer is the one of a new search; otherwise a new search is made and kept.
#[derive(Default)]
pub(super) struct Memo {
    pub(super) arena: Vec<(f64, MachineId)>,
    /// Per candidate: `(start, end, kept, f, cap)` in `arena`; `start == end`: none.
    pub(super) searches: Vec<(usize, usize, usize, f64, f64)>,
    pub(super) scratch: Vec<(f64, MachineId)>,
}

impl Memo {
    pub(super) fn new(n: usize) -> Self {
        Memo {
            arena: Vec::new(),
            searches: vec![(0, 0, 0, f64::NAN, f64::NAN); n],
            scratch: Vec::new(),
        }
    }

    /// Keeps candidate `i`'s search (`order`, of which the first `kept` reached `floor`).
    pub(super) fn keep(
        &mut self,
        i: usize,
        order: &[(f64, MachineId)],
        (kept, floor): (usize, f64),
        cap: f64,
    ) {
        if self.searches.is_empty() {
            return; // off
        }
        let start = self.arena.len();
        self.arena.extend_from_slice(&order[..kept]);
        // A machine below `cap` less the margin is as good as left out.
        self.arena.extend(
            order[kept..]
                .iter()
                .filter(|&&(ub, _)| ub + TIE_MARGIN >= cap),
        );
        self.searches[i] = (start, self.arena.len(), kept, floor, cap);
    }

    pub(super) fn forget(&mut self, i: usize) {
        if let Some(s) = self.searches.get_mut(i) {
            *s = (0, 0, 0, f64::NAN, f64::NAN);
        }
    }

    /// The answer for candidate `i` from its kept search, when that settles it: its best
    /// machine, or [`Best::BelowDefer`].
    pub(super) fn reevaluate(
        &mut self,
        view: &View<'_>,
        scope: Phase1Scope,
        vq: &VirtualQueues,
        succ: &mut SuccessCache,
        (i, t): (usize, TaskId),
    ) -> Option<Best> {
        let &(start, end, kept, floor, cap) = self.searches.get(i)?;
        if start == end {
            return None;
        }
        let mut scored = std::mem::take(&mut succ.scored);
        scored.clear();
        best_of(
            view,
            scope,
            vq,
            succ,
            self.arena[start..start + kept].iter().copied(),
            (i, t),
            &mut scored,
        );
        let reach = scored.top;
        if reach < floor {
            // The machines below the floor whose bound comes within the margin of the
            // highest chance found.
            self.scratch.clear();
            self.scratch.extend(
                self.arena[start + kept..end]
                    .iter()
                    .filter(|&&(ub, _)| ub + TIE_MARGIN >= reach),
            );
            self.scratch
                .sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            best_of(
                view,
                scope,
                vq,
                succ,
                self.scratch.iter().copied(),
                (i, t),
                &mut scored,
            );
        }
        let (choice, top) = (scored.choose(view, vq, t), scored.top);
        succ.scored = scored;
        let choice = choice?;
        if top >= cap {
            return Some(Best::Machine { choice, top });
        }
        // Deferred with the margin: every machine kept is below `q - BOUND_SLACK` (visited,
        // or a bound below the highest chance found less the margin), and those left out are
        // below `cap - TIE_MARGIN`, `cap` at most `q` ([`max_success_indexed`]).
        let q = view
            .defer()
            .map_or(f64::NEG_INFINITY, |th| th[view.task(t).task_type]);
        (cap <= q && top < q - BOUND_SLACK).then_some(Best::BelowDefer)
    }
}
