//! Completion-time PMFs (PCTs) along a machine queue, under the three dropping scenarios of
//! paper section IV (thesis 3.1, JPDC-2016 4.1.1-4.1.3).
//!
//! Deadlines are integer ticks `d`; a task succeeds when it completes strictly before `d`
//! (see the crate docs). A PCT here is the distribution of the time at which the machine
//! becomes free after the task's slot: the task's completion when it runs, or the previous
//! task's completion when it is dropped before starting.
//!
//! # Trimmed PCTs (opt-in)
//! With a `pct_epsilon` `eps > 0` (the simulator's `[system] pct_epsilon`, default 0 =
//! exact), every PCT is trimmed right after it is computed by [`Pmf::trim_tv`]: at most
//! `eps / 2` of mass cut from each tail and moved onto the new end bins. A trimmed PCT is
//! within total-variation distance `eps` of the untrimmed PCT of the same input. Each step
//! of a chain ([`next_pct`] under any [`DropModel`], staging's `max(C, ready)`, and the
//! append query [`crate::TailCdf::append_success`]) maps a start-time distribution through a
//! Markov kernel, which cannot increase total variation. So the `k`-th PCT of a queue (the
//! executing task counting as 1) is within `k * eps` of the exact one, and so is every
//! success probability read from it or from appending a task behind it; an expected value
//! moves by at most `k * eps` times the width of the exact PCT's support (trimming only
//! shrinks supports). [`evaluate_queue_trimmed`](crate::evaluate_queue_trimmed) is the
//! reference; a property test checks the bound.

use serde::{Deserialize, Serialize};

use crate::pmf::{Pmf, Tick, convolve_into};
use crate::pool;

/// Which tasks the system drops when their deadline passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DropModel {
    /// (A) Nothing is dropped: every mapped task runs to completion (paper eq. (2)).
    None,
    /// (B) A pending task whose deadline has passed is dropped before it starts; the
    /// executing task runs to completion even when late (paper eqs. (3)-(4)).
    Pending,
    /// (C) Any task, executing included, is dropped at its deadline (paper eq. (5)). The
    /// thesis' and paper's experiments use this one.
    #[default]
    All,
}

/// The PCT of a task with execution-time PMF `pet` and deadline `deadline` queued behind a
/// task whose PCT is `prev`.
///
/// * [`DropModel::None`]: `prev * pet` (eq. (2)).
/// * [`DropModel::Pending`]: the mass of `prev` at or after the deadline passes through
///   unchanged (the task is dropped, execution time zero); the rest is convolved with `pet`
///   (eqs. (3)-(4), JPDC-2016 fig. 3).
/// * [`DropModel::All`]: as `Pending`, but the convolved part's mass at or after the deadline
///   is gathered into one impulse at the deadline, where the task is dropped
///   (JPDC-2016 fig. 4). Paper eq. (5) as printed adds the pass-through mass twice (once in
///   the sum at `t = delta`, once at `t > delta`); we follow JPDC-2016's three steps, the only
///   mass-conserving reading.
pub fn next_pct(prev: &Pmf, pet: &Pmf, deadline: Tick, model: DropModel) -> Pmf {
    if model == DropModel::None {
        return prev.convolve(pet);
    }
    let pm = prev.masses();
    // prev ticks strictly before the deadline start the task; the others drop it.
    let split = (deadline - prev.offset()).clamp(0, pm.len() as Tick) as usize;
    let (lo, hi) = pm.split_at(split);
    if lo.is_empty() {
        return prev.clone();
    }
    let conv_start = prev.offset() + pet.offset();
    let conv_len = lo.len() + pet.len() - 1;
    let hi_start = prev.offset() + split as Tick;
    let (conv_start, conv) = if model == DropModel::All {
        // Only ticks before the deadline are needed; the rest is gathered at it (one more
        // bin).
        let keep = (deadline - conv_start).clamp(0, conv_len as Tick) as usize;
        let mut conv = pool::zeroed(conv_len.min(keep + 1));
        crate::pmf::convolve_strided_into(lo, pet.masses(), pet.stride(), &mut conv, keep);
        if keep == conv_len {
            (conv_start, conv)
        } else {
            let lo_total: f64 = lo.iter().sum();
            let before: f64 = conv[..keep].iter().sum();
            let gathered = (lo_total - before).max(0.0);
            if deadline < conv_start {
                // Even the shortest execution overshoots: all of it is dropped at the deadline.
                pool::recycle(conv);
                (deadline, vec![gathered])
            } else {
                conv.truncate(keep + 1);
                conv[keep] = gathered;
                (conv_start, conv)
            }
        }
    } else if lo.len() <= pet.len() {
        let mut conv = pool::zeroed(conv_len);
        // The dense kernel's outer loop runs over the shorter input: here `lo`, so the inner
        // loop runs over the PET and can skip its zero bins.
        crate::pmf::convolve_strided_into(lo, pet.masses(), pet.stride(), &mut conv, conv_len);
        (conv_start, conv)
    } else {
        let mut conv = pool::zeroed(conv_len);
        convolve_into(lo, pet.masses(), &mut conv);
        (conv_start, conv)
    };
    if hi.is_empty() {
        return renormalised(conv_start, conv);
    }
    let start = conv_start.min(hi_start);
    let end = (conv_start + conv.len() as Tick - 1).max(prev.max());
    let len = (end - start + 1) as usize;
    if conv_start == start && conv.capacity() >= len {
        // The usual case (the shortest execution is no longer than the ticks before the
        // deadline, and the buffer has room): the pass-through mass is added into the
        // convolution's own buffer, extended with zeros. The same sums as below:
        // `+0.0 + c = c` for the masses `c >= 0`, then `+ h`.
        let mut out = conv;
        out.resize(len, 0.0);
        let h0 = (hi_start - start) as usize;
        for (o, &m) in out[h0..h0 + hi.len()].iter_mut().zip(hi) {
            *o += m;
        }
        return renormalised(start, out);
    }
    let mut out = pool::zeroed(len);
    let c0 = (conv_start - start) as usize;
    for (o, &m) in out[c0..c0 + conv.len()].iter_mut().zip(&conv) {
        *o += m;
    }
    let h0 = (hi_start - start) as usize;
    for (o, &m) in out[h0..h0 + hi.len()].iter_mut().zip(hi) {
        *o += m;
    }
    pool::recycle(conv);
    renormalised(start, out)
}

/// The PCT of the task executing at `now`, started at `start`: the execution-time PMF shifted
/// to the start, conditioned on not having completed by `now` (JPDC-2016 fig. 2), then, when
/// the executing task may be dropped ([`DropModel::All`]), its mass at or after the deadline
/// gathered at the deadline (JPDC-2016 4.1.3, last paragraph).
///
/// One pass into one buffer: the same values as `pet.shift(start).condition_after(now)`,
/// then `.gather_at(deadline.max(now + 1))` under [`DropModel::All`] (the same sums in the
/// same order; a property test compares the two bit for bit).
pub fn executing_pct(pet: &Pmf, start: Tick, now: Tick, deadline: Tick, model: DropModel) -> Pmf {
    let pm = pet.masses();
    let shifted = pet.offset() + start;
    // The mass after `now`, scaled to 1 (`Pmf::condition_after`): `(offset, rest, 1 / total)`.
    let (offset, rest, inv) = if now < shifted {
        (shifted, pm, None)
    } else {
        let from = usize::try_from(now - shifted + 1).unwrap_or(usize::MAX);
        let Some(rest) = pm.get(from..).filter(|r| !r.is_empty()) else {
            return Pmf::point(now + 1);
        };
        let total: f64 = rest.iter().sum();
        if total <= 0.0 {
            return Pmf::point(now + 1);
        }
        (now + 1, rest, Some(1.0 / total))
    };
    let scale = |m: f64| inv.map_or(m, |inv| m * inv);
    // Without the zero bins at either end (`Pmf::trimmed`).
    let first = rest.iter().position(|&m| scale(m) > 0.0).unwrap_or(0);
    let last = rest.iter().rposition(|&m| scale(m) > 0.0).unwrap_or(0);
    let rest = &rest[first..=last.max(first)];
    let offset = offset + first as Tick;
    let max = offset + rest.len() as Tick - 1;
    // The gathering of `Pmf::gather_at`: bins from `k` on summed into bin `k`.
    let k = match model {
        DropModel::All => {
            let d = deadline.max(now + 1);
            if d <= offset {
                return Pmf::point(d);
            }
            (d <= max).then(|| (d - offset) as usize)
        }
        _ => None,
    };
    let mut masses = pool::with_capacity(rest.len());
    masses.extend(rest.iter().map(|&m| scale(m)));
    if let Some(k) = k {
        masses[k] = masses[k..].iter().sum();
        masses.truncate(k + 1);
    }
    Pmf::trimmed(offset, masses)
}

/// Rounding in long convolution chains accumulates; keep the stored total at 1.
fn renormalised(start: Tick, mut v: Vec<f64>) -> Pmf {
    let total: f64 = v.iter().sum();
    if (total - 1.0).abs() > 1e-12 && total > 0.0 {
        let inv = 1.0 / total;
        for m in &mut v {
            *m *= inv;
        }
    }
    Pmf::trimmed(start, v)
}
