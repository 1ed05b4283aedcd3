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

use crate::error::PmfError;
use crate::exec::ExecPmf;
use crate::kernel::convolve_into;
use crate::pmf::{Pmf, Tick};
use crate::prec::MAX_SPAN;

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
///
/// Any `deadline` is accepted (see the crate docs, "The tick range").
///
/// # Errors
/// [`PmfError::TooWide`] when the result would hold more than [`MAX_SPAN`] bins and more than
/// the convolved and passed-through parts together: the two parts lie that far apart, and
/// the dense result would be mostly a gap of zeros. That needs a `pet` whose shortest time
/// exceeds `prev`'s spread by more than `MAX_SPAN` ticks under [`DropModel::Pending`] (the
/// task runs late or is dropped, nothing between), or a `pet` at negative ticks (not an
/// execution time); never under [`DropModel::None`], and never under [`DropModel::All`]
/// with a `pet` at ticks `>= 0`.
pub fn next_pct(
    prev: &Pmf,
    pet: &ExecPmf,
    deadline: Tick,
    model: DropModel,
) -> Result<Pmf, PmfError> {
    next_pct_in(prev, pet, deadline, model, &mut Vec::new())
}

/// [`next_pct`] building its result in the memory of a buffer from `spare` when it holds one
/// (the buffers of PCTs no longer needed, [`Pmf::into_masses`]), and giving back the buffer
/// of an intermediate result: the same values, without an allocation per PCT once `spare`
/// is warm. Every buffer is cleared before use, so the values never depend on which one is
/// taken.
pub fn next_pct_in(
    prev: &Pmf,
    pet: &ExecPmf,
    deadline: Tick,
    model: DropModel,
    spare: &mut Vec<Vec<f64>>,
) -> Result<Pmf, PmfError> {
    if model == DropModel::None {
        return Ok(prev.convolve(pet));
    }
    let deadline = crate::pmf::arg(deadline);
    let pm = prev.masses();
    // prev ticks strictly before the deadline start the task; the others drop it.
    let split = (deadline - prev.offset()).clamp(0, pm.len() as Tick) as usize;
    let (lo, hi) = pm.split_at(split);
    if lo.is_empty() {
        return Ok(prev.clone());
    }
    let conv_start = prev.offset() + pet.offset();
    let conv_len = lo.len() + pet.len() - 1;
    let hi_start = prev.offset() + split as Tick;
    let (conv_start, conv) = if model == DropModel::All {
        // Only ticks before the deadline are needed; the rest is gathered at it (one more
        // bin).
        let keep = (deadline - conv_start).clamp(0, conv_len as Tick) as usize;
        let mut conv = zeroed(spare, conv_len.min(keep + 1));
        crate::kernel::convolve_strided_into(lo, pet.masses(), pet.stride(), &mut conv, keep);
        if keep == conv_len {
            (conv_start, conv)
        } else {
            let lo_total: f64 = lo.iter().sum();
            let before: f64 = conv[..keep].iter().sum();
            let gathered = (lo_total - before).max(0.0);
            if deadline < conv_start {
                // Even the shortest execution overshoots: all of it is dropped at the deadline.
                (deadline, vec![gathered])
            } else {
                conv.truncate(keep + 1);
                conv[keep] = gathered;
                (conv_start, conv)
            }
        }
    } else if lo.len() <= pet.len() {
        let mut conv = zeroed(spare, conv_len);
        // The dense kernel's outer loop runs over the shorter input: here `lo`, so the inner
        // loop runs over the PET and can skip its zero bins.
        crate::kernel::convolve_strided_into(lo, pet.masses(), pet.stride(), &mut conv, conv_len);
        (conv_start, conv)
    } else {
        let mut conv = zeroed(spare, conv_len);
        convolve_into(lo, pet.masses(), &mut conv);
        (conv_start, conv)
    };
    if hi.is_empty() {
        return Ok(renormalised(conv_start, conv));
    }
    let start = conv_start.min(hi_start);
    let end = (conv_start + conv.len() as Tick - 1).max(prev.max());
    let len = (end - start + 1) as usize;
    let limit = (MAX_SPAN as usize).max(conv.len() + hi.len());
    if len > limit {
        return Err(PmfError::TooWide {
            span: len as u64,
            limit: limit as u64,
        });
    }
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
        return Ok(renormalised(start, out));
    }
    let mut out = zeroed(spare, len);
    let c0 = (conv_start - start) as usize;
    for (o, &m) in out[c0..c0 + conv.len()].iter_mut().zip(&conv) {
        *o += m;
    }
    spare.push(conv);
    let h0 = (hi_start - start) as usize;
    for (o, &m) in out[h0..h0 + hi.len()].iter_mut().zip(hi) {
        *o += m;
    }
    Ok(renormalised(start, out))
}

/// `n` zeros, in the memory of a spare buffer when one has room ([`take_buffer`]).
fn zeroed(spare: &mut Vec<Vec<f64>>, n: usize) -> Vec<f64> {
    let mut v = take_buffer(spare, n);
    v.resize(n, 0.0);
    v
}

/// An empty buffer with room for `n` values: among the [`TAKE_SCAN`] most recently given
/// back spare buffers, the most recent one that has the room, else a new one. A buffer is
/// never grown (growing copies it): when none has the room, the most recent one is freed,
/// so that small buffers do not fill the spares.
pub(crate) fn take_buffer(spare: &mut Vec<Vec<f64>>, n: usize) -> Vec<f64> {
    let found = spare
        .iter()
        .rev()
        .take(TAKE_SCAN)
        .position(|v| v.capacity() >= n);
    match found {
        Some(k) => {
            let mut v = spare.swap_remove(spare.len() - 1 - k);
            v.clear();
            v
        }
        None => {
            spare.pop();
            Vec::with_capacity(n)
        }
    }
}

/// How many spare buffers [`take_buffer`] looks at.
const TAKE_SCAN: usize = 8;

/// The PCT of the task executing at `now`, started at `start`: the execution-time PMF shifted
/// to the start, conditioned on not having completed by `now` (JPDC-2016 fig. 2), then, when
/// the executing task may be dropped ([`DropModel::All`]), its mass at or after the deadline
/// gathered at the deadline (JPDC-2016 4.1.3, last paragraph).
///
/// One pass into one buffer: the same values as `pet.shift(start).condition_after(now)`,
/// then `.gather_at(deadline.max(now + 1))` under [`DropModel::All`] (the same sums in the
/// same order; a property test compares the two bit for bit).
pub fn executing_pct(
    pet: &ExecPmf,
    start: Tick,
    now: Tick,
    deadline: Tick,
    model: DropModel,
) -> Pmf {
    executing_pct_in(pet, start, now, deadline, model, &mut Vec::new())
}

/// [`executing_pct`] building its result in the memory of a buffer from `spare` when it
/// holds one (as [`next_pct_in`]): the same values, without an allocation once `spare` is
/// warm.
pub fn executing_pct_in(
    pet: &ExecPmf,
    start: Tick,
    now: Tick,
    deadline: Tick,
    model: DropModel,
    spare: &mut Vec<Vec<f64>>,
) -> Pmf {
    use crate::pmf::arg;
    let (start, now, deadline) = (arg(start), arg(now), arg(deadline));
    let pm = pet.masses();
    let shifted = pet.offset() + start;
    // Every non-zero bin of `pm` sits at a multiple of this: sums in bin order may step over
    // the others (adding a zero to a sum of non-negative masses changes no bit, and the
    // dependent chain is half as long on the 2-unit grid).
    let stride = pet.stride();
    let on_grid = |bin: usize| (stride - bin % stride) % stride;
    // The mass after `now`, scaled to 1 (`Pmf::condition_after`): `(offset, rest, 1 / total,
    // the bin of `pm` where `rest` starts)`.
    let (offset, rest, inv, from) = if now < shifted {
        (shifted, pm, None, 0)
    } else {
        let from = usize::try_from(now - shifted + 1).unwrap_or(usize::MAX);
        let Some(rest) = pm.get(from..).filter(|r| !r.is_empty()) else {
            return Pmf::point(now + 1);
        };
        // The same sum, kept per bin by the PET's PMF.
        let total = pet.total_from(from);
        if total <= 0.0 {
            return Pmf::point(now + 1);
        }
        (now + 1, rest, Some(1.0 / total), from)
    };
    let scale = |m: f64| inv.map_or(m, |inv| m * inv);
    // Without the zero bins at either end (`Pmf::trimmed`).
    let first = rest.iter().position(|&m| scale(m) > 0.0).unwrap_or(0);
    let last = rest.iter().rposition(|&m| scale(m) > 0.0).unwrap_or(0);
    let rest = &rest[first..=last.max(first)];
    let from = from + first;
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
    let mut masses = take_buffer(spare, rest.len());
    masses.extend(rest.iter().map(|&m| scale(m)));
    if let Some(k) = k {
        masses[k] = masses[k..]
            .iter()
            .skip(on_grid(from + k))
            .step_by(stride)
            .sum();
        masses.truncate(k + 1);
    }
    Pmf::trimmed(offset, masses)
}

/// How far from 1 a PCT's total may drift before [`renormalised`] rescales it.
const RENORMALISE_DRIFT: f64 = 1e-12;

/// Rounding in long convolution chains accumulates; keep the stored total at 1.
///
/// The total is the sum of the masses in bin order. That sum is a chain of dependent
/// additions, so [`surely_within_drift`] first settles the usual case (no rescaling) with a
/// faster sum whose distance to it is bounded; the total in bin order is summed only when
/// the PCT is rescaled or that bound cannot tell.
fn renormalised(start: Tick, mut v: Vec<f64>) -> Pmf {
    if surely_within_drift(&v) {
        return Pmf::trimmed(start, v);
    }
    let total: f64 = v.iter().sum();
    if (total - 1.0).abs() > RENORMALISE_DRIFT && total > 0.0 {
        let inv = 1.0 / total;
        for m in &mut v {
            *m *= inv;
        }
    }
    Pmf::trimmed(start, v)
}

/// True when the sum of the non-negative masses `v` in bin order, `t`, is certainly
/// within [`RENORMALISE_DRIFT`] of 1 (so [`renormalised`] leaves them as they are). `false`
/// means "cannot tell" as well as "no".
///
/// Sums `v` in eight interleaved partial sums (independent additions) into `f`. Both `t`
/// and `f` are sums of the same `n` non-negative terms, so each is within `gamma_n S` of the
/// exact sum `S` (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., eq.
/// (4.4); `gamma_n = n u / (1 - n u)`, `u = 2^-53`), hence `|t - f| <= 2 gamma_n S`. With
/// `n u <= 1e-3`, `2 gamma_n S <= 2.01 n u f (1 + 1.01 n u) <= 2.1 n u f`; the test keeps
/// a further margin of a tenth of the drift for the rounding of `|f - 1|` itself.
fn surely_within_drift(v: &[f64]) -> bool {
    let nu = v.len() as f64 * (f64::EPSILON / 2.0);
    if nu > 1e-3 {
        return false;
    }
    let mut lanes = [0.0f64; 8];
    let mut chunks = v.chunks_exact(8);
    for c in &mut chunks {
        for (l, &m) in lanes.iter_mut().zip(c) {
            *l += m;
        }
    }
    let mut f: f64 = chunks.remainder().iter().sum();
    for l in lanes {
        f += l;
    }
    (f - 1.0).abs() + 2.1 * nu * f <= 0.9 * RENORMALISE_DRIFT
}

#[cfg(test)]
mod renormalise_tests {
    use super::*;
    use proptest::prelude::*;

    /// [`renormalised`] as first written: the total in bin order, always.
    fn renormalised_reference(start: Tick, mut v: Vec<f64>) -> Pmf {
        let total: f64 = v.iter().sum();
        if (total - 1.0).abs() > RENORMALISE_DRIFT && total > 0.0 {
            let inv = 1.0 / total;
            for m in &mut v {
                *m *= inv;
            }
        }
        Pmf::trimmed(start, v)
    }

    #[test]
    fn the_drift_test_on_hand_examples() {
        // Exactly 1, and 1 within rounding: certainly within the drift.
        assert!(surely_within_drift(&[0.5, 0.25, 0.25]));
        assert!(surely_within_drift(&[0.1; 10]));
        // 1 + 5e-12 and 1 - 5e-12: certainly not (the bound is far below the drift here).
        assert!(!surely_within_drift(&[0.5, 0.5 + 5e-12]));
        assert!(!surely_within_drift(&[0.5, 0.5 - 5e-12]));
        // Half a drift away: still certainly within it for a short vector.
        assert!(surely_within_drift(&[0.5, 0.5 + 0.5e-12]));
        // Nine tenths of a drift is the margin's edge: not certain any more.
        assert!(!surely_within_drift(&[0.5, 0.5 + 0.95e-12]));
        // 10^4 bins: the two sums may differ by up to ~2.3e-12, more than the drift, so a
        // total of 1 within rounding cannot be told apart from a drifted one.
        assert!(!surely_within_drift(&vec![1e-4; 10_000]));
        assert!(surely_within_drift(&vec![1e-3; 1_000]));
    }

    #[test]
    fn a_drifted_total_is_rescaled_to_one() {
        // 1.5 in total: rescaled by 1 / 1.5.
        let p = renormalised(3, vec![0.75, 0.75]);
        assert_eq!((p.min(), p.masses()), (3, &[0.5, 0.5][..]));
        let q = renormalised(3, vec![0.5, 0.5 + 0.5e-12]);
        assert_eq!(q.masses(), &[0.5, 0.5 + 0.5e-12][..]);
    }

    /// Masses summing to 1 but for a drift of up to a few `RENORMALISE_DRIFT`, so that both
    /// sides of the threshold and its neighbourhood are drawn.
    fn drifted() -> impl Strategy<Value = Vec<f64>> {
        (
            prop::collection::vec(0.0f64..1.0, 1..600),
            -3.0f64..3.0,
            prop::bool::ANY,
        )
            .prop_map(|(mut v, drift, zeros)| {
                // A PCT has mass: the first bin holds some.
                v[0] = v[0].max(0.01);
                if zeros {
                    // Grids and gaps: every third bin empty.
                    for m in v.iter_mut().skip(1).step_by(3) {
                        *m = 0.0;
                    }
                }
                let total: f64 = v.iter().sum();
                if total > 0.0 {
                    let scale = (1.0 + drift * RENORMALISE_DRIFT) / total;
                    for m in &mut v {
                        *m *= scale;
                    }
                }
                v
            })
    }

    proptest! {
        #[test]
        fn renormalised_is_the_direct_computation_bit_for_bit(v in drifted(), start in -50i64..50) {
            let fast = renormalised(start, v.clone());
            let direct = renormalised_reference(start, v);
            prop_assert_eq!(fast.min(), direct.min());
            let (a, b) = (fast.masses(), direct.masses());
            prop_assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(b) {
                prop_assert_eq!(x.to_bits(), y.to_bits());
            }
        }

        #[test]
        fn surely_within_drift_is_never_wrong(v in drifted()) {
            if surely_within_drift(&v) {
                let total: f64 = v.iter().sum();
                prop_assert!((total - 1.0).abs() <= RENORMALISE_DRIFT, "total {total}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{TAKE_SCAN, take_buffer};

    #[test]
    fn take_buffer_reuses_a_recent_buffer_with_room_and_never_grows_one() {
        let mut spare = vec![Vec::with_capacity(100), Vec::with_capacity(3)];
        // The most recent buffer with room for 50 is the first one.
        let v = take_buffer(&mut spare, 50);
        assert!(v.is_empty() && v.capacity() >= 100);
        assert_eq!(spare.len(), 1);
        // None has room for 10: the small one is freed and a new buffer made.
        let w = take_buffer(&mut spare, 10);
        assert!(w.is_empty() && w.capacity() >= 10);
        assert!(spare.is_empty());
        // Buffers beyond the most recent `TAKE_SCAN` are not looked at: the newest is freed.
        let mut spare = vec![Vec::with_capacity(64)];
        spare.extend((0..TAKE_SCAN).map(|_| Vec::with_capacity(1)));
        let x = take_buffer(&mut spare, 64);
        assert!(x.capacity() >= 64);
        assert_eq!(spare.len(), TAKE_SCAN);
        assert_eq!(spare[0].capacity(), 64);
    }
}
