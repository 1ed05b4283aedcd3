//! Phase-1 verdicts ([`Verdict`]), and those shared by the candidates of one class within a
//! round of the two-phase loop, with their phase-2 keys ([`SharedVerdicts`]).

use super::*;

/// The outcome of phase 1 for one task.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Verdict {
    /// No machine in scope.
    NoMachine,
    /// Its chance on its phase-1 machine, `p`, is at or below its defer threshold.
    Deferred { p: f64 },
    /// Its phase-1 machine, its chance there, and the machines the choice rests on.
    Chosen {
        m: MachineId,
        p: f64,
        rests_on: [MachineId; 3],
    },
}

/// Applies candidate `i`'s (task `t`'s) phase-1 verdict: out of play (no machine, or deferred)
/// or its machine and chance recorded.
#[inline]
pub(super) fn record(
    v: Verdict,
    i: usize,
    t: TaskId,
    alive: &mut [bool],
    (best_m, best_p, rests): (&mut [MachineId], &mut [f64], &mut [[MachineId; 3]]),
    decision: &mut Decision,
) {
    match v {
        Verdict::NoMachine => alive[i] = false,
        Verdict::Deferred { .. } => {
            alive[i] = false;
            decision.deferred.push(t);
        }
        Verdict::Chosen { m, p, rests_on } => {
            best_m[i] = m;
            best_p[i] = p;
            rests[i] = rests_on;
        }
    }
}

/// The phase-1 verdict of each class (task type, deadline) in the current round, where the
/// candidates of a class share one search and one chance ([`Phase1State::classes`],
/// [`Phase1State::reps`]): a candidate's verdict is then its class's (the same machine, the
/// same chance, and a defer threshold per type), so the first candidate of a class evaluated
/// in a round answers for the others, and so does its phase-2 key on that machine. A round
/// ends at each provisional assignment, which forgets every verdict and key.
///
/// The classes are the runs of (type, deadline) in [`by_type_and_deadline`]'s order, read
/// once per event after [`infer_deferrals`].
#[derive(Default)]
pub(super) struct SharedVerdicts {
    /// Per candidate, its class (`u32::MAX`: none, the verdicts are not shared).
    class_of: Vec<u32>,
    /// Per class, the round of its verdict and the verdict.
    kept: Vec<(u32, Verdict)>,
    /// Per class, the round of its phase-2 key, the machine it is read on, and the key (a
    /// function of the task's type and deadline and of the machine: [`phase2_key`]).
    keys: Vec<(u32, MachineId, (f64, f64))>,
    /// The stamp of the current round (never 0: 0 and `u32::MAX` mark nothing kept).
    stamp: u32,
}

impl SharedVerdicts {
    /// No verdict shared in this event.
    pub(super) fn off(&mut self) {
        self.class_of.clear();
        self.kept.clear();
        self.keys.clear();
    }

    /// Shares the verdicts of this event's classes: `keys` the (type, deadline) of each
    /// candidate, type `k`'s candidates by deadline `order[starts[k]..starts[k + 1]]`
    /// ([`DeferScratch`], filled by [`by_type_and_deadline`] in this event).
    pub(super) fn on(&mut self, keys: &[(usize, Tick)], order: &[usize], starts: &[usize]) {
        reset(&mut self.class_of, keys.len(), u32::MAX);
        let mut classes = 0u32;
        for w in starts.windows(2) {
            let mut last = None;
            for &i in &order[w[0]..w[1]] {
                let d = keys[i].1;
                if last != Some(d) {
                    classes += 1;
                    last = Some(d);
                }
                self.class_of[i] = classes - 1;
            }
        }
        self.stamp = 1;
        reset(&mut self.kept, classes as usize, (0, Verdict::NoMachine));
        reset(&mut self.keys, classes as usize, (0, 0, (0.0, 0.0)));
    }

    /// Candidate `i`'s verdict: its class's in this round, else `evaluate`'s, then kept for
    /// its class.
    #[inline]
    pub(super) fn verdict(&mut self, i: usize, evaluate: impl FnOnce() -> Verdict) -> Verdict {
        let Some(&c) = self.class_of.get(i).filter(|&&c| c != u32::MAX) else {
            return evaluate();
        };
        let (stamp, v) = &mut self.kept[c as usize];
        if *stamp != self.stamp {
            *v = evaluate();
            *stamp = self.stamp;
        }
        *v
    }

    /// Candidate `i`'s phase-2 key on machine `m`: its class's in this round on `m`, else
    /// `compute`'s, then kept for its class.
    #[inline]
    pub(super) fn key(
        &mut self,
        i: usize,
        m: MachineId,
        compute: impl FnOnce() -> (f64, f64),
    ) -> (f64, f64) {
        let Some(&c) = self.class_of.get(i).filter(|&&c| c != u32::MAX) else {
            return compute();
        };
        let (stamp, on, key) = &mut self.keys[c as usize];
        if *stamp != self.stamp || *on != m {
            *key = compute();
            (*stamp, *on) = (self.stamp, m);
        }
        *key
    }

    /// A provisional assignment: every verdict and key kept is forgotten.
    pub(super) fn next_round(&mut self) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            for k in &mut self.kept {
                k.0 = u32::MAX;
            }
            for k in &mut self.keys {
                k.0 = u32::MAX;
            }
            self.stamp = 1;
        }
    }
}
