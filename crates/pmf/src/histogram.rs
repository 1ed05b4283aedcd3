//! PMFs built from observed samples by histogram (thesis 3.4.1: 500 gamma samples, 2-unit
//! bins; thesis 3.1: an operator's measured execution times).

use serde::{Deserialize, Serialize};

use crate::error::PmfError;
use crate::pmf::{MAX_TICK, Pmf, Tick};
use crate::prec::MAX_SPAN;

/// Which tick stands for a histogram bin `[k w, (k + 1) w)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BinValue {
    /// The bin's upper edge `(k + 1) w`: a sample is rounded up to the grid, so an execution
    /// time is never underestimated and no sample of a positive time lands on tick 0. This is
    /// the reading consistent with the paper's PET, whose smallest time is one bin width.
    #[default]
    Upper,
    /// The bin's lower edge `k w`.
    Lower,
    /// The bin's centre `k w + w / 2` (rounded down to a tick).
    Centre,
}

/// The most bins [`auto_bin_width`] spreads a set of samples over.
pub const AUTO_BINS: u32 = 200;

/// The automatic bin width of a histogram of `samples` (in ticks, real-valued): the smallest
/// whole number of ticks that spreads the samples' range over at most [`AUTO_BINS`] bins,
/// `w = max(1, ceil((max - min) / AUTO_BINS))`. The histogram then has at most
/// `AUTO_BINS + 1` non-empty bins whatever [`BinValue`] is, each sample moves by less than
/// `w` (at most 0.5% of the range when `w > 1`), and samples whose range is at most
/// `AUTO_BINS` ticks keep the finest grid, one tick. Non-finite samples are ignored
/// ([`from_samples`] rejects them); with none left the width is 1.
pub fn auto_bin_width(samples: &[f64]) -> Tick {
    let (lo, hi) = samples
        .iter()
        .filter(|x| x.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    if lo > hi {
        return 1;
    }
    // The range of valid samples is below MAX_TICK, so the width fits a Tick.
    let w = ((hi - lo) / f64::from(AUTO_BINS)).ceil();
    if w >= MAX_TICK as f64 {
        MAX_TICK
    } else {
        (w as Tick).max(1)
    }
}

/// Builds a PMF from samples (in ticks, real-valued) as a histogram with bins of `bin_width`
/// ticks. Each bin's frequency becomes the mass of the tick chosen by `value`.
///
/// Samples are execution times: finite and not negative.
///
/// Errors: no samples ([`PmfError::Empty`]), a non-finite sample ([`PmfError::NonFinite`]), a
/// negative sample ([`PmfError::InvalidSampleTime`]), a non-positive bin width, a sample
/// whose tick lies beyond [`crate::MAX_TICK`] ([`PmfError::TimeOutOfRange`]), or a support
/// wider than the dense-array limit.
pub fn from_samples(samples: &[f64], bin_width: Tick, value: BinValue) -> Result<Pmf, PmfError> {
    if bin_width <= 0 {
        return Err(PmfError::InvalidBinWidth(bin_width));
    }
    if samples.is_empty() {
        return Err(PmfError::Empty);
    }
    let w = bin_width as f64;
    // The tick of bin `k` is `k w + centre`; bins up to `kmax` fit in the tick range (and in
    // the dense array), so that sum cannot overflow.
    let centre = if value == BinValue::Centre {
        bin_width / 2
    } else {
        0
    };
    let kmax = ((MAX_TICK - centre) / bin_width).min(MAX_SPAN as Tick) as f64;
    let mut bins: Vec<Tick> = Vec::with_capacity(samples.len());
    for (index, &x) in samples.iter().enumerate() {
        if !x.is_finite() {
            return Err(PmfError::NonFinite { index, value: x });
        }
        if x < 0.0 {
            return Err(PmfError::InvalidSampleTime { index, value: x });
        }
        let k = match value {
            // A sample exactly on an edge k w belongs to bin [(k-1) w, k w) read from above,
            // i.e. ceil(x / w); a sample at 0 still takes the first bin.
            BinValue::Upper => ((x / w).ceil()).max(1.0),
            BinValue::Lower | BinValue::Centre => (x / w).floor(),
        };
        if k > kmax {
            return Err(PmfError::TimeOutOfRange(x));
        }
        bins.push(k as Tick * bin_width + centre);
    }
    let n = samples.len() as f64;
    Pmf::from_weighted_pairs(bins.into_iter().map(|t| (t, 1.0 / n)))
}
