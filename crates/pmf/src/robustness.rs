//! Robustness: the success probability of a task at a queue position (paper eq. (1), thesis
//! eq. (3.5)), the probability that it is dropped, and the evaluation of a whole machine queue.

use crate::error::PmfError;
use crate::exec::ExecPmf;
use crate::pct::{DropModel, executing_pct, next_pct};
use crate::pmf::{Pmf, Tick};

/// Paper eq. (1) / thesis eq. (3.5): the probability that a task whose PCT is `pct` completes
/// before its deadline tick, `P(C < deadline)`. Under [`DropModel::All`] the impulse gathered
/// at the deadline is a drop and is correctly not counted.
pub fn success_probability(pct: &Pmf, deadline: Tick) -> f64 {
    pct.prob_before(deadline)
}

/// The probability that a task is dropped at its deadline, given the PCT of the task ahead of
/// it (`prev`, or `None` for the executing task) and its own PCT.
///
/// * [`DropModel::None`]: 0 (late tasks still run).
/// * [`DropModel::Pending`]: a pending task is dropped when the task ahead completes at or
///   after its deadline, `P(prev >= deadline)`; the executing task is never dropped.
/// * [`DropModel::All`]: every task that does not complete before its deadline is dropped,
///   `1 - P(C < deadline)`.
pub fn drop_probability(prev: Option<&Pmf>, pct: &Pmf, deadline: Tick, model: DropModel) -> f64 {
    match model {
        DropModel::None => 0.0,
        DropModel::Pending => prev.map_or(0.0, |p| 1.0 - p.prob_before(deadline)),
        DropModel::All => 1.0 - pct.prob_before(deadline),
    }
}

/// The task executing on a machine.
#[derive(Debug, Clone, Copy)]
pub struct Executing<'a> {
    /// Its execution-time PMF on this machine.
    pub pet: &'a ExecPmf,
    /// The tick it started at.
    pub start: Tick,
    /// Its deadline tick.
    pub deadline: Tick,
}

/// A task waiting in a machine queue.
#[derive(Debug, Clone, Copy)]
pub struct Pending<'a> {
    /// Its execution-time PMF on this machine.
    pub pet: &'a ExecPmf,
    /// Its deadline tick.
    pub deadline: Tick,
}

/// One evaluated queue position.
#[derive(Debug, Clone, PartialEq)]
pub struct Position {
    /// The task's PCT (the machine's free time after its slot).
    pub pct: Pmf,
    /// P(task completes before its deadline).
    pub success: f64,
    /// P(task dropped at its deadline), per the model.
    pub dropped: f64,
}

/// Evaluates a machine queue at `now`: the executing task (if any) then the pending tasks in
/// FCFS order. An idle machine starts its first pending task at `now`.
///
/// # Errors
/// [`PmfError::TooWide`] when a position's PCT is too wide to hold ([`next_pct`]).
pub fn evaluate_queue(
    now: Tick,
    executing: Option<Executing<'_>>,
    pending: &[Pending<'_>],
    model: DropModel,
) -> Result<Vec<Position>, PmfError> {
    evaluate_queue_trimmed(now, executing, pending, model, 0.0)
}

/// As [`evaluate_queue`], every PCT trimmed by [`Pmf::trim_tv`] at `eps` right after it is
/// computed (the simulator's `pct_epsilon`; 0 = exact, the same values as
/// [`evaluate_queue`]). Position `i` (0-based) is then within total-variation distance
/// `(i + 1) * eps` of the exact one, and so are its success and drop probabilities (see the
/// `pct` module docs).
///
/// # Errors
/// As [`evaluate_queue`].
pub fn evaluate_queue_trimmed(
    now: Tick,
    executing: Option<Executing<'_>>,
    pending: &[Pending<'_>],
    model: DropModel,
    eps: f64,
) -> Result<Vec<Position>, PmfError> {
    let mut out = Vec::with_capacity(pending.len() + 1);
    let mut prev = match executing {
        Some(e) => {
            let mut pct = executing_pct(e.pet, e.start, now, e.deadline, model);
            pct.trim_tv(eps);
            let success = success_probability(&pct, e.deadline);
            let dropped = drop_probability(None, &pct, e.deadline, model);
            out.push(Position {
                pct: pct.clone(),
                success,
                dropped,
            });
            pct
        }
        None => Pmf::point(now),
    };
    for p in pending {
        let mut pct = next_pct(&prev, p.pet, p.deadline, model)?;
        pct.trim_tv(eps);
        let success = success_probability(&pct, p.deadline);
        let dropped = drop_probability(Some(&prev), &pct, p.deadline, model);
        out.push(Position {
            pct: pct.clone(),
            success,
            dropped,
        });
        prev = pct;
    }
    Ok(out)
}
