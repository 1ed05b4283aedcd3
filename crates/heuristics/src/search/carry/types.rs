//! MinCompletion's phase-1 answers per task type carried across events
//! ([`Carry::type_answer`]).

use super::*;

/// MinCompletion's phase-1 answer for one task type ([`Carry::type_answer`]): the machines
/// its search evaluated, by increasing expected completion, then machine, and a lower bound
/// on the expected completion of every machine in scope not listed.
#[derive(Debug, Clone)]
pub(super) struct TypeAnswer {
    event: u64,
    listed: Vec<(f64, MachineId)>,
    low: f64,
}

impl Carry {
    /// MinCompletion's answer for task `t`'s type carried from an earlier event or the start
    /// of this one, `assigned` the machines provisionally assigned a task since; `None`: the
    /// full search decides.
    ///
    /// The machines listed and not in `D` keep their expected completions; each machine of
    /// `D` in scope is evaluated. With `E` the least of these, every machine not listed is
    /// above `E` by more than the margin of [`min_completion`] (`3 s max(1, |E|)`) when the
    /// kept lower bound is: none of them ties with `E`, and the choice is
    /// [`min_completion_choice`]'s over the machines listed and those of `D` (the lowest
    /// index among those whose expected completion ties with the least). At the start of an
    /// event, the answer replaces the kept one (the machines of `D` listed anew).
    pub(in crate::search) fn type_answer(
        &mut self,
        view: &View<'_>,
        scope: Phase1Scope,
        vq: &VirtualQueues,
        t: TaskId,
        assigned: &[MachineId],
    ) -> Option<Choice> {
        let k = view.task(t).task_type;
        let a = self.types.get_mut(k)?.as_mut()?;
        if a.event < self.base
            || !changed_since(
                &self.log,
                self.versions.len(),
                a.event,
                assigned,
                &mut self.changed,
            )
        {
            return None;
        }
        let changed = &self.changed;
        let write = assigned.is_empty();
        let in_scope = |m: MachineId| scope == Phase1Scope::AllMachines || vq.free(m) > 0;
        let mark = &mut self.mark;
        mark.resize(view.machines().len(), false);
        for &m in changed {
            mark[m] = true;
        }
        let fresh = &mut self.fresh_ect;
        fresh.clear();
        fresh.extend(
            changed
                .iter()
                .filter(|&&m| in_scope(m))
                .map(|&m| (vq.expected_completion(view, m, t), m)),
        );
        let choice = type_choice(a, mark, fresh);
        if choice.is_some() && write {
            a.listed.retain(|&(_, m)| !mark[m]);
            for &f in fresh.iter() {
                let at = a.listed.partition_point(|&e| by_completion(e, f).is_lt());
                a.listed.insert(at, f);
            }
            a.event = self.event;
        }
        for &m in changed {
            mark[m] = false;
        }
        #[cfg(test)]
        if choice.is_some() {
            count(&CARRIED_TYPES);
        }
        choice
    }

    /// Keeps MinCompletion's answer for task type `k`, found at the start of this event by
    /// [`min_completion_in`]: `scored` the machines it evaluated, `low` its lower bound on
    /// the others.
    pub(in crate::search) fn keep_type(&mut self, k: usize, scored: &[(MachineId, f64)], low: f64) {
        if self.types.len() <= k {
            self.types.resize(k + 1, None);
        }
        let mut listed = self.types[k].take().map(|a| a.listed).unwrap_or_default();
        listed.clear();
        listed.extend(scored.iter().map(|&(m, e)| (e, m)));
        listed.sort_unstable_by(|&a, &b| by_completion(a, b));
        self.types[k] = Some(TypeAnswer {
            event: self.event,
            listed,
            low,
        });
    }
}

/// The order of [`TypeAnswer::listed`]: increasing expected completion, then machine.
fn by_completion(a: (f64, MachineId), b: (f64, MachineId)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

/// [`Carry::type_answer`]'s choice: `mark` flags the machines of `D`, `fresh` holds those in
/// scope with their expected completions.
fn type_choice(a: &TypeAnswer, mark: &[bool], fresh: &[(f64, MachineId)]) -> Option<Choice> {
    // The least (expected completion, machine): the first listed out of `D`, or a fresh one.
    let mut least = a.listed.iter().find(|&&(_, m)| !mark[m]).copied();
    for &(e, m) in fresh {
        if least.is_none_or(|(be, bm)| e < be || (e == be && m < bm)) {
            least = Some((e, m));
        }
    }
    let (e_least, m_least) = least?;
    let margin = 3.0 * MEAN_SLACK * e_least.abs().max(1.0);
    if a.low.partial_cmp(&(e_least + margin)) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    // The lowest machine whose expected completion ties with the least: a prefix of the
    // listing (the values that tie with the least form an interval from it up), and the
    // fresh ones.
    let mut m = m_least;
    for &(e, k) in &a.listed {
        if mark[k] {
            continue;
        }
        if !times_tie(e, e_least) {
            break;
        }
        m = m.min(k);
    }
    for &(e, k) in fresh {
        if times_tie(e, e_least) {
            m = m.min(k);
        }
    }
    Some(Choice {
        m,
        p: 0.0,
        rests_on: [m, m_least, m_least],
    })
}
