//! A batch heuristic as data (thesis Algorithm 2, paper V-D1, JPDC-2016 6.2): the objective
//! of phase 1 (each candidate's machine), the criterion of phase 2 (the one pair assigned per
//! round), and which machines phase 1 may choose. [`crate::reference`] runs a plan plainly;
//! the accelerated search (module `search`, private) runs it fast and must decide the same.
//!
//! # Ties
//! Chances and times are compared with the one decision slack,
//! [`pmf::prec::DECISION_SLACK`] (`s`, 1e-9): two chances tie when within `s` of each other
//! ([`pmf::prec::chance_ties`]), two times (expected completions, expected execution times,
//! urgencies) when within `s` relative, `|a - b| <= s max(1, |a|, |b|)`
//! ([`pmf::prec::times_tie`]); deadlines are whole ticks and compare exactly. A belief equal
//! to the truth but for rounding decides as the truth, and copies of a machine tie whatever
//! the last bits of their PMFs. Each rule is two-pass, the best value first, then the set
//! within the slack of it, so the choice does not depend on the order in which candidates
//! are scored:
//! * phase 1, [`Phase1::MaxSuccess`]: `P*` = the highest chance over the machines in scope;
//!   among the machines whose chance ties with `P*`, `E*` = the least expected completion
//!   time; among those whose expected completion ties with `E*`, the lowest machine index
//!   (`max_success_choice`);
//! * phase 1, [`Phase1::MinCompletion`]: `E*` = the least expected completion time; among the
//!   machines whose expected completion ties with it, the lowest index
//!   (`min_completion_choice`);
//! * phase 2: `K*` = the least first key ([`phase2_key`]); among the candidates whose first
//!   key ties with it, the least second key; among those whose second key ties with that, the
//!   first in batch order (`phase2_pick`).
//!
//! MOC's shortlist (`p >= best - epsilon`) keeps its own width, and deferring (chance at or
//! below the threshold, [`model::View::should_defer`]) is a threshold, not a tie.

use model::{MachineId, TaskId, View, VirtualQueues};
use pmf::prec::{chance_ties, times_tie};
use serde::{Deserialize, Serialize};

/// Which machines phase 1 may choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase1Scope {
    /// Every machine, full ones included: a task whose best machine is full waits for it
    /// (JPDC-2016 6.2.2, thesis Algorithm 2). The default.
    #[default]
    AllMachines,
    /// Only machines with a free slot (the other reading; on the paper's data it moves the
    /// baselines by 8-14 points while PAM barely moves).
    FreeMachines,
}

impl Phase1Scope {
    /// The word a `[mapper]` table writes for it (`all_machines`, `free_machines`).
    pub fn word(self) -> &'static str {
        match self {
            Phase1Scope::AllMachines => "all_machines",
            Phase1Scope::FreeMachines => "free_machines",
        }
    }

    /// The scope a word names ([`Phase1Scope::word`]); `None` for another word.
    pub fn from_word(word: &str) -> Option<Phase1Scope> {
        [Phase1Scope::AllMachines, Phase1Scope::FreeMachines]
            .into_iter()
            .find(|s| s.word() == word)
    }
}

/// Phase-1 objective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase1 {
    /// Minimum expected completion time (MM, MSD, MMU, EDF, SJF); ties (within the decision
    /// slack, relative) by the lower machine index.
    MinCompletion,
    /// Maximum success probability (PAM, MOC); ties (chances within the decision slack) by
    /// minimum expected completion, then the lower machine index (see "Ties" above).
    MaxSuccess,
}

/// Phase-2 criterion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase2 {
    /// Minimum expected completion time; with `tie_by_execution`, ties go to the shortest
    /// expected execution time (PAM).
    MinCompletion { tie_by_execution: bool },
    /// Soonest deadline, ties by minimum expected completion (MSD, EDF).
    SoonestDeadline,
    /// Maximum urgency `U = 1 / (delta - E[C])` (MMU, paper/thesis eq. 3.6).
    MaxUrgency,
    /// MOC (JPDC-2016 6.2.5): per machine, the tasks within `epsilon` of the highest
    /// success probability on it; of those, the minimum expected completion time.
    Shortlist { epsilon: f64 },
}

/// A batch heuristic as data: its two phases and options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub phase1: Phase1,
    pub phase2: Phase2,
    pub scope: Phase1Scope,
}

/// Phase-2 key, lower is better: (criterion, tie-break); compared by `phase2_pick` (ties
/// within the decision slack, deadlines exactly).
pub fn phase2_key(
    view: &View<'_>,
    phase2: Phase2,
    vq: &VirtualQueues,
    t: TaskId,
    m: MachineId,
) -> (f64, f64) {
    let ect = vq.expected_completion(view, m, t);
    match phase2 {
        Phase2::MinCompletion { tie_by_execution } => {
            let tie = if tie_by_execution {
                view.pet().mean(view.task(t).task_type, m)
            } else {
                0.0
            };
            (ect, tie)
        }
        Phase2::SoonestDeadline => (view.task(t).deadline as f64, ect),
        Phase2::MaxUrgency => {
            let slack = view.task(t).deadline as f64 - ect;
            // U = 1 / slack; zero slack is the most urgent possible.
            let urgency = if slack == 0.0 {
                f64::INFINITY
            } else {
                1.0 / slack
            };
            (-urgency, ect)
        }
        Phase2::Shortlist { .. } => (ect, 0.0),
    }
}

/// The phase-1 choice of a task and the machines it rests on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Choice {
    /// The machine chosen.
    pub m: MachineId,
    /// The task's chance there (MaxSuccess; 0 for MinCompletion).
    pub p: f64,
    /// The machines the choice rests on: `m`, a machine of the highest chance
    /// (MaxSuccess) and one of the least expected completion among those that tie. While
    /// none of them changes and every other machine only gets worse (an assignment lowers
    /// its chances and delays its completions), the choice stands.
    pub rests_on: [MachineId; 3],
}

impl Choice {
    /// True when the choice rests on machine `m`.
    #[inline]
    pub(crate) fn rests_on(&self, m: MachineId) -> bool {
        self.rests_on.contains(&m)
    }
}

/// Phase 1 by [`Phase1::MaxSuccess`] over `scored`, each machine with its chance (any order;
/// every machine whose chance ties with the highest must be there, the others may be left
/// out): `P*` the highest chance; of the machines whose chance ties with it, `E*` the least
/// expected completion (`ect`, read for those only and written in the third field); of those
/// whose expected completion ties with `E*`, the lowest index. `None` when `scored` is empty.
pub(crate) fn max_success_choice(
    scored: &mut [(MachineId, f64, f64)],
    mut ect: impl FnMut(MachineId) -> f64,
) -> Option<Choice> {
    let mut top: Option<(f64, MachineId)> = None;
    for &(m, p, _) in scored.iter() {
        if top.is_none_or(|(bp, bm)| p > bp || (p == bp && m < bm)) {
            top = Some((p, m));
        }
    }
    let (p_top, m_top) = top?;
    let mut least: Option<(f64, MachineId)> = None;
    for (m, p, e) in scored.iter_mut() {
        if !chance_ties(*p, p_top) {
            continue;
        }
        *e = ect(*m);
        if least.is_none_or(|(be, bm)| *e < be || (*e == be && *m < bm)) {
            least = Some((*e, *m));
        }
    }
    let (e_least, m_least) = least?;
    let mut chosen: Option<(MachineId, f64)> = None;
    for &(m, p, e) in scored.iter() {
        if chance_ties(p, p_top) && times_tie(e, e_least) && chosen.is_none_or(|(bm, _)| m < bm) {
            chosen = Some((m, p));
        }
    }
    let (m, p) = chosen?;
    Some(Choice {
        m,
        p,
        rests_on: [m, m_top, m_least],
    })
}

/// Phase 1 by [`Phase1::MinCompletion`] over `scored`, each machine with its expected
/// completion (any order; every machine whose expected completion ties with the least must
/// be there): `E*` the least; of the machines that tie with it, the lowest index.
pub(crate) fn min_completion_choice(scored: &[(MachineId, f64)]) -> Option<Choice> {
    let mut least: Option<(f64, MachineId)> = None;
    for &(m, e) in scored {
        if least.is_none_or(|(be, bm)| e < be || (e == be && m < bm)) {
            least = Some((e, m));
        }
    }
    let (e_least, m_least) = least?;
    let m = scored
        .iter()
        .filter(|&&(_, e)| times_tie(e, e_least))
        .map(|&(m, _)| m)
        .min()?;
    Some(Choice {
        m,
        p: 0.0,
        rests_on: [m, m_least, m_least],
    })
}

/// True when the `j`-th component (0 or 1) of two phase-2 keys ties: the deadline of
/// [`Phase2::SoonestDeadline`], a whole tick, exactly; every other component, a time or
/// derived from times, by [`pmf::prec::times_tie`].
#[inline]
pub(crate) fn phase2_ties(phase2: Phase2, j: usize, a: f64, b: f64) -> bool {
    if j == 0 && phase2 == Phase2::SoonestDeadline {
        a == b
    } else {
        times_tie(a, b)
    }
}

/// Phase 2 over `keyed`, the candidates' keys in batch order: `K*` the least first key; of
/// the candidates whose first key ties with it, the least second key; of those whose second
/// key ties with that, the first. Returns its position in `keyed`.
pub(crate) fn phase2_pick(phase2: Phase2, keyed: &[(f64, f64)]) -> Option<usize> {
    phase2_pick_by(phase2, keyed, |j| j)
}

/// [`phase2_pick`] over keys in any order, `order(j)` the batch position of the candidate of
/// `keyed[j]`: of those whose keys tie as there, the first in batch order.
pub(crate) fn phase2_pick_by(
    phase2: Phase2,
    keyed: &[(f64, f64)],
    order: impl Fn(usize) -> usize,
) -> Option<usize> {
    let k0 = keyed.iter().map(|k| k.0).reduce(f64::min)?;
    // The least second key of those that tie with `K*`, and how many tie.
    let mut k1 = f64::INFINITY;
    let (mut only, mut count) = (0, 0);
    for (j, k) in keyed.iter().enumerate() {
        if phase2_ties(phase2, 0, k.0, k0) {
            k1 = k1.min(k.1);
            only = j;
            count += 1;
        }
    }
    if count == 1 {
        return Some(only);
    }
    let ties = |k: &(f64, f64)| phase2_ties(phase2, 0, k.0, k0) && phase2_ties(phase2, 1, k.1, k1);
    (0..keyed.len())
        .filter(|&j| ties(&keyed[j]))
        .min_by_key(|&j| order(j))
}
