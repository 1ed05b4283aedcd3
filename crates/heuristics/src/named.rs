//! The named batch heuristics, each a [`Plan`] for the shared two-phase loop.

use model::{BatchHeuristic, Decision, TaskId, View, VirtualQueues};
use pmf::{Pmf, next_pct};

use crate::batch::{Phase1, Phase1Scope, Phase2, Plan, ScoreMemo, run};

/// A batch heuristic defined only by its two phases: MM, MSD, MMU, PAM, EDF, SJF.
#[derive(Debug, Clone)]
pub struct TwoPhase {
    name: &'static str,
    plan: Plan,
    /// Chances kept across mapping events.
    memo: ScoreMemo,
}

impl TwoPhase {
    /// MinCompletion-MinCompletion (thesis 3.3.1.1, paper VI-C1).
    pub fn mm(scope: Phase1Scope) -> Self {
        Self::new(
            "MM",
            Phase1::MinCompletion,
            Phase2::MinCompletion {
                tie_by_execution: false,
            },
            scope,
        )
    }
    /// MinCompletion-SoonestDeadline, ties by minimum expected completion (thesis 3.3.1.2).
    pub fn msd(scope: Phase1Scope) -> Self {
        Self::new("MSD", Phase1::MinCompletion, Phase2::SoonestDeadline, scope)
    }
    /// MinCompletion-MaxUrgency, `U = 1 / (delta - E[C])` (thesis 3.3.1.3, eq. 3.6).
    pub fn mmu(scope: Phase1Scope) -> Self {
        Self::new("MMU", Phase1::MinCompletion, Phase2::MaxUrgency, scope)
    }
    /// Pruning-Aware Mapper (thesis Algorithm 2, paper V-D1): phase 1 the machine of highest
    /// success probability (deferring at the pruner's threshold happens there), phase 2 the
    /// minimum expected completion time, ties by the shortest expected execution time.
    pub fn pam(scope: Phase1Scope) -> Self {
        Self::new(
            "PAM",
            Phase1::MaxSuccess,
            Phase2::MinCompletion {
                tie_by_execution: true,
            },
            scope,
        )
    }
    /// Earliest Deadline First for homogeneous systems (thesis 3.3.3.2): as MSD.
    pub fn edf(scope: Phase1Scope) -> Self {
        Self::new("EDF", Phase1::MinCompletion, Phase2::SoonestDeadline, scope)
    }
    /// Shortest Job First for homogeneous systems (thesis 3.3.3.3): the "job" is the
    /// completion time on the queue, so it is MM.
    pub fn sjf(scope: Phase1Scope) -> Self {
        Self::new(
            "SJF",
            Phase1::MinCompletion,
            Phase2::MinCompletion {
                tie_by_execution: false,
            },
            scope,
        )
    }

    fn new(name: &'static str, phase1: Phase1, phase2: Phase2, scope: Phase1Scope) -> Self {
        TwoPhase {
            name,
            plan: Plan {
                phase1,
                phase2,
                scope,
            },
            memo: ScoreMemo::default(),
        }
    }
}

impl TwoPhase {
    /// The decisions of this heuristic by the plain reference loop ([`crate::reference`]):
    /// what [`BatchHeuristic::map`] must return, computed without any acceleration.
    pub fn map_reference(&self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut vq = VirtualQueues::from_view(view);
        crate::reference::run(view, self.plan, &mut vq, view.batch, &mut decision);
        decision
    }
}

impl BatchHeuristic for TwoPhase {
    fn name(&self) -> &str {
        self.name
    }

    fn map(&mut self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        // MinCompletion reads only expected tails: no tail CDF is built until one is read.
        let mut vq = match self.plan.phase1 {
            Phase1::MinCompletion => VirtualQueues::from_view_lazy(view),
            Phase1::MaxSuccess => VirtualQueues::from_view(view),
        };
        run(
            view,
            self.plan,
            &mut vq,
            view.batch,
            &mut decision,
            &mut self.memo,
        );
        decision
    }
}

/// Max On-time Completions (JPDC-2016 6.2.5, the original; thesis 3.3.1.4 describes it
/// differently and we follow JPDC):
/// 1. pending tasks in the machine queues whose success probability is below `alpha` are
///    dropped (walking each queue from the head, recomputing as tasks are dropped);
/// 2. unmapped tasks that cannot meet their deadline on any machine (even an idle one, after
///    the minimum time to stage their input data when staging is on) are discarded;
/// 3. per task the machine of highest success probability; per machine with a free slot the
///    tasks within `epsilon` of the best success probability on it; of those, the minimum
///    expected completion time is mapped; repeat.
#[derive(Debug, Clone)]
pub struct Moc {
    alpha: f64,
    epsilon: f64,
    scope: Phase1Scope,
    /// Chances kept across mapping events.
    memo: ScoreMemo,
}

impl Moc {
    /// MOC with culling threshold `alpha` (JPDC 0.2, thesis 0.3) and shortlist width
    /// `epsilon` (0.05).
    pub fn new(alpha: f64, epsilon: f64, scope: Phase1Scope) -> Self {
        Moc {
            alpha,
            epsilon,
            scope,
            memo: ScoreMemo::default(),
        }
    }
}

impl Moc {
    /// The decisions of MOC by the plain reference loop ([`crate::reference`]): what
    /// [`BatchHeuristic::map`] must return, computed without any acceleration.
    pub fn map_reference(&self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut vq = VirtualQueues::from_view(view);
        let cands =
            crate::reference::moc_cull_and_discard(view, self.alpha, &mut vq, &mut decision);
        let plan = Plan {
            phase1: Phase1::MaxSuccess,
            phase2: Phase2::Shortlist {
                epsilon: self.epsilon,
            },
            scope: self.scope,
        };
        crate::reference::run(view, plan, &mut vq, &cands, &mut decision);
        decision
    }
}

impl BatchHeuristic for Moc {
    fn name(&self) -> &str {
        "MOC"
    }

    fn map(&mut self, view: &View<'_>) -> Decision {
        let mut decision = Decision::default();
        let mut vq = VirtualQueues::from_view(view);
        // Step 1: cull pending tasks below alpha.
        for (m, machine) in view.machines.iter().enumerate() {
            let first_pending = usize::from(machine.running().is_some());
            if machine.len() <= first_pending {
                continue;
            }
            // A queue whose pending tasks are proven above alpha without computing its PMFs
            // culls nothing. With a PCT epsilon the proof holds up to about `2 k eps`
            // (`Oracle::stale`).
            if view.chances_proven_above(m, first_pending, true, |_| self.alpha) {
                continue;
            }
            let slots = view.queue(m);
            // Until the first cull every task's chance is its slot's (no PCT is copied).
            let Some(first) =
                (first_pending..slots.len()).find(|&k| slots[k].success() < self.alpha)
            else {
                continue;
            };
            let mut prev: Pmf = match first {
                0 => Pmf::point(view.now),
                k => slots[k - 1].pct.clone(),
            };
            let mut kept = first;
            let mut culled = false;
            let ready = machine.pending_ready().iter().skip(first - first_pending);
            for (slot, &ready) in slots[first..].iter().zip(ready) {
                let spec = view.task(slot.task);
                let pct = if culled {
                    // With staging, the task starts no earlier than its data-ready tick.
                    let start = if ready > view.now {
                        prev.at_least(ready)
                    } else {
                        prev.clone()
                    };
                    let mut pct = next_pct(
                        &start,
                        view.pet.pmf(spec.task_type, m),
                        spec.deadline,
                        view.model,
                    )
                    .unwrap_or_else(|e| panic!("a completion-time PMF too wide to hold: {e}"));
                    pct.trim_tv(view.pct_epsilon());
                    pct
                } else {
                    slot.pct.clone()
                };
                if pct.prob_before(spec.deadline) < self.alpha {
                    decision.drop.push(slot.task);
                    culled = true;
                } else {
                    prev = pct;
                    kept += 1;
                }
            }
            if culled {
                let tail = if kept == 0 { None } else { Some(prev) };
                let free = machine
                    .limit()
                    .map_or(usize::MAX, |l| l.saturating_sub(kept));
                vq.set_tail(m, tail, free);
            }
        }
        // Step 2: discard tasks that cannot make their deadline anywhere, even with the
        // minimum time needed to stage their input data (JPDC-2016).
        let mut cands: Vec<TaskId> = Vec::with_capacity(view.batch.len());
        for &t in view.batch {
            let spec = view.task(t);
            let fastest = (0..view.machines.len())
                .map(|m| view.pet.pmf(spec.task_type, m).min())
                .min()
                .unwrap_or(0);
            let staging = view.staging.map_or(0, |st| st.min_ticks(t));
            if view.now + staging + fastest >= spec.deadline {
                decision.discard.push(t);
            } else {
                cands.push(t);
            }
        }
        // Step 3: the shortlist loop.
        let plan = Plan {
            phase1: Phase1::MaxSuccess,
            phase2: Phase2::Shortlist {
                epsilon: self.epsilon,
            },
            scope: self.scope,
        };
        run(view, plan, &mut vq, &cands, &mut decision, &mut self.memo);
        decision
    }
}
