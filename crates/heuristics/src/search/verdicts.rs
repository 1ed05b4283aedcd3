//! Phase-1 verdicts ([`Verdict`]), and the two-phase loop by class, where the candidates of a
//! class share their verdict and phase-2 key ([`run_by_class`]).

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

/// The two-phase loop by class (task type, deadline), for [`run_in`] where the candidates of
/// a class share one search and one chance ([`Phase1State::classes`],
/// [`Phase1State::reps`]): a candidate's verdict is then its class's (the same machine, the
/// same chance, and a defer threshold per type), and so is its phase-2 key on that machine
/// (a function of the task's type and deadline and of the machine: [`phase2_key`]).
///
/// The classes are the runs of (type, deadline) in [`by_type_and_deadline`]'s order, each in
/// batch order. With deferring on, deferral inference ([`infer_deferrals`]) runs over each
/// type's classes, one probe per class: the classes before the boundary are deferred whole,
/// and a probe's verdict is its class's in the first round. Each round evaluates one
/// candidate per class whose verdict is not known, and phase 2 compares one pair per class,
/// the class's first candidate in batch order still in play: all its candidates' keys are
/// equal, so the pair [`phase2_pick`] chooses among all candidates (the least key, then the
/// first in batch order among those that tie with it) is the first candidate of one of
/// these classes ([`phase2_pick_by`]). A class's
/// verdict holds until a machine its choice rests on receives a task ([`Choice::rests_on`]),
/// as a candidate's does. The decisions are those of the loop by candidate (the multi-event
/// tests against the reference loop check them); deferred tasks are listed class by class.
///
/// One function because its rounds share the classes, the virtual queues and the phase-1
/// state.
pub(super) fn run_by_class(
    (view, plan, cands): (&View<'_>, Plan, &[TaskId]),
    vq: &mut VirtualQueues,
    sc: &mut DeferScratch,
    st: &mut Phase1State<'_>,
    phase1: impl Fn(usize, &VirtualQueues, &mut Phase1State<'_>) -> Verdict,
    decision: &mut Decision,
) {
    by_type_and_deadline(view, cands, sc);
    let DeferScratch {
        starts,
        by_type,
        classes,
        entries,
        keyed,
        ..
    } = sc;
    // Each class's candidates are `by_type[from..to]`.
    classes.clear();
    for (k, w) in starts.windows(2).enumerate() {
        let first = classes.len();
        let mut from = w[0];
        for run in by_type[w[0]..w[1]].chunk_by(|a, b| a.0 == b.0) {
            classes.push(Class {
                from,
                to: from + run.len(),
                verdict: None,
            });
            from += run.len();
        }
        // Deferral inference over the type's classes.
        let Some(threshold) = view.defer().map(|th| th[k]) else {
            continue;
        };
        let of_type = &mut classes[first..];
        let lo = deferred_prefix(of_type.len(), |j| {
            let v = phase1(by_type[of_type[j].from].1, vq, st);
            of_type[j].verdict = Some(v);
            matches!(v, Verdict::Deferred { p } if p <= threshold - DEFER_SLACK)
        });
        for c in &mut of_type[..lo] {
            c.verdict = Some(Verdict::Deferred {
                p: f64::NEG_INFINITY,
            });
        }
    }
    let mut shortlist_best = Vec::new();
    while vq.any_free() {
        // Phase 1: one candidate per class whose verdict is not known.
        for c in classes.iter_mut().filter(|c| c.from < c.to) {
            let v = match c.verdict {
                Some(v) => v,
                None => phase1(by_type[c.from].1, vq, st),
            };
            c.verdict = Some(v);
            match v {
                Verdict::NoMachine => c.from = c.to,
                Verdict::Deferred { .. } => {
                    decision
                        .deferred
                        .extend(by_type[c.from..c.to].iter().map(|&(_, i)| cands[i]));
                    c.from = c.to;
                }
                Verdict::Chosen { .. } => {}
            }
        }
        let chosen = |c: &Class| match c.verdict {
            Some(Verdict::Chosen { m, p, .. }) if c.from < c.to => Some((m, p)),
            _ => None,
        };
        if let Phase2::Shortlist { .. } = plan.phase2 {
            reset(&mut shortlist_best, vq.machines().len(), f64::NEG_INFINITY);
            for (m, p) in classes.iter().filter_map(chosen) {
                shortlist_best[m] = shortlist_best[m].max(p);
            }
        }
        // Phase 2: one pair per class whose machine has a free slot.
        entries.clear();
        for (k, c) in classes.iter().enumerate() {
            let Some((m, p)) = chosen(c) else { continue };
            if vq.free(m) == 0 {
                continue;
            }
            if let Phase2::Shortlist { epsilon } = plan.phase2 {
                if p < shortlist_best[m] - epsilon {
                    continue;
                }
            }
            let i = by_type[c.from].1;
            entries.push((i, k, phase2_key(view, plan.phase2, vq, cands[i], m)));
        }
        keyed.clear();
        keyed.extend(entries.iter().map(|e| e.2));
        let Some(at) = phase2_pick_by(plan.phase2, keyed, |j| entries[j].0) else {
            break;
        };
        let (i, k, _) = entries[at];
        let Some((m, _)) = chosen(&classes[k]) else {
            break;
        };
        let t = cands[i];
        vq.assign(view, m, t);
        decision.assign.push((t, m));
        classes[k].from += 1;
        st.assigned_to(m);
        for c in classes.iter_mut() {
            if let Some(Verdict::Chosen { rests_on, .. }) = c.verdict {
                if rests_on.contains(&m) {
                    c.verdict = None;
                }
            }
        }
    }
}

/// One class of [`run_by_class`]: its candidates in play, `by_type[from..to]` of
/// [`DeferScratch`], and its verdict while it holds (`None`: to be evaluated).
#[derive(Debug, Clone, Copy)]
pub(super) struct Class {
    from: usize,
    to: usize,
    verdict: Option<Verdict>,
}
